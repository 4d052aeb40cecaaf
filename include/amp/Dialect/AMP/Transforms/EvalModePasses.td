//===- EvalModePasses.td - evaluation mode -----------------*- tablegen -*-===//

#ifndef AMP_DIALECT_AMP_TRANSFORMS_EVALMODEPASSES_TD
#define AMP_DIALECT_AMP_TRANSFORMS_EVALMODEPASSES_TD

include "mlir/Pass/PassBase.td"

def AMPEvalModePass : Pass<"amp-eval-mode", "::mlir::ModuleOp"> {
  let summary = "Put the forward model in evaluation mode, reporting the "
                "training loss";
  let description = [{
    Rewrites the module's forward model (`amp.graph = #amp.graph<forward>`)
    into the evaluation entry point of a compiled library, as PyTorch's
    `model.eval()`: batch norm normalizes with (and returns unchanged) the
    running statistics, dropout passes its input through (its mask is all
    true).

    The evaluation reports the loss the library trains. A forward model that
    returns logits gets the loss amp-autodiff appended to the training step
    (`loss=cross_entropy|mse`, as given to amp-autodiff) on the label
    argument autodiff added, which the forward model gains as its last
    argument; with `loss=none` an unmarked 0-d f32 result, which amp-autodiff
    takes as the loss, is marked as one. A forward model that already
    returns a loss is left with its results as they are.
  }];
  let dependentDialects = ["::mlir::amp::AMPDialect"];
  let options = [
    AMPLossKindOption,
  ];
}

#endif // AMP_DIALECT_AMP_TRANSFORMS_EVALMODEPASSES_TD
