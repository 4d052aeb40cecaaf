//===- AutodiffPasses.td - autodiff passes -*- tablegen -*-===//

#ifndef AMP_DIALECT_AMP_TRANSFORMS_AUTODIFFPASSES_TD
#define AMP_DIALECT_AMP_TRANSFORMS_AUTODIFFPASSES_TD

include "mlir/Pass/PassBase.td"

// The optimizer options of amp-autodiff and amp-optimizer-step.
defvar AMPOptimizerKindOption =
    Option<"optimizer", "optimizer", "::mlir::amp::OptimizerKind",
           /*default=*/"::mlir::amp::OptimizerKind::SGD",
           "Optimizer: sgd, adamw, or none (gradients only)",
           "::mlir::amp::optimizerKindValues(/*withNone=*/true)">;
// The loss of amp-autodiff and amp-eval-mode.
defvar AMPLossKindOption =
    Option<"loss", "loss", "::mlir::amp::LossKind",
           /*default=*/"::mlir::amp::LossKind::None",
           "Loss to append when the forward returns logits: none, "
           "cross_entropy (integer labels, mean) or mse",
           "::mlir::amp::lossKindValues()">;
defvar AMPOptimizerHyperOptions = [
    Option<"momentum", "momentum", "double", /*default=*/"0.0",
           "SGD momentum">,
    Option<"dampening", "dampening", "double", /*default=*/"0.0",
           "SGD dampening">,
    Option<"nesterov", "nesterov", "bool", /*default=*/"false",
           "SGD Nesterov momentum">,
    Option<"weightDecay", "weight-decay", "double", /*default=*/"-1.0",
           "Weight decay: L2 for SGD, decoupled for AdamW (default: "
           "PyTorch's, 0 for SGD and 0.01 for AdamW)">,
    Option<"beta1", "beta1", "double", /*default=*/"0.9", "AdamW beta1">,
    Option<"beta2", "beta2", "double", /*default=*/"0.999", "AdamW beta2">,
    Option<"epsilon", "epsilon", "double", /*default=*/"1e-8",
           "AdamW epsilon">,
];

def AMPAutodiffPass : Pass<"amp-autodiff", "::mlir::ModuleOp"> {
  let summary = "Build the fp32 training step of a forward model";
  let description = [{
    For every `func.func` marked `amp.graph = #amp.graph<forward>` (with a
    body), generates the training step of DESIGN.md section 3 as a new
    function `@<name>_train_step`, marked `#amp.graph<training_step>` and
    inserted right after the forward model. The forward model is kept
    unchanged, for evaluation and inference.

    The loss is the result with `amp.role = #amp.role<loss>` (or, without
    one, a single unmarked 0-d f32 result). With `loss=cross_entropy` or
    `loss=mse` the forward must instead return its logits (its only result
    besides buffers); the pass appends `amp.cross_entropy` (integer labels,
    mean) or `amp.mse_loss` and a new `label` argument, `labels`
    (`tensor<Nxi64>`) or `target` (the logits' type).

    The step:

    1. clones the forward computation (activations are reused, never
       recomputed);
    2. starts the backward from one `amp.seed` of the loss and walks the ops
       in reverse through each op's `GradientOpInterface`, summing
       gradients with `amp.add` where a value fans out; only values that
       both depend on a parameter and reach the loss get gradients (inputs,
       labels, hyper-parameters and buffers never do);
    3. optionally clips all parameter gradients together with
       `amp.clip_grad_norm` (`max-grad-norm` > 0), returning the norm;
    4. updates every parameter with `amp.sgd_update` or
       `amp.adamw_update`, threading the optimizer state through arguments
       and results.

    Backward ops whose results end up unused (the input gradient of the
    first layer) are erased, and common subexpressions of the step merged.

    ```
    amp-opt examples/mlp_forward.mlir \
        --amp-autodiff="loss=cross_entropy momentum=0.9"
    amp-opt examples/transformer_block.mlir \
        --amp-autodiff="optimizer=adamw weight-decay=0.01 max-grad-norm=1.0"
    ```

    Canonical signature (each group in the forward model's order):

    ```
    arguments: parameters, buffers, optimizer state, inputs, labels,
               hyper-parameters (lr first, then the forward model's)
    results:   parameters, buffers, optimizer state, loss,
               outputs (grad_norm when clipping, then the forward's outputs)
    ```

    Optimizer state, all `#amp.role<optimizer_state>`:
    - `sgd` with `momentum` > 0: `<param>.momentum_buffer` per parameter
      (zeros for a fresh optimizer). With `dampening` > 0 also `step`
      (0-d i64, the number of updates done so far): the first update sets
      the buffer to the gradient, as PyTorch does.
    - `adamw`: `<param>.exp_avg`, `<param>.exp_avg_sq` per parameter, then
      `step` (0-d i64, updates done so far; 0 for a fresh optimizer). The
      step passes `step + 1` to `amp.adamw_update` and returns it (the
      increment is `tensor.extract`, `arith.addi`, `tensor.from_elements`:
      the amp dialect has no integer arithmetic).
    `<param>` is the parameter's `amp.name` (`param<i>` without one).
    Every new argument and result has an `amp.role` and an `amp.name`:
    `lr` (0-d f32 hyper-parameter), `loss`, `grad_norm`.

    Buffers (batch-norm running statistics) are threaded through: the
    forward's buffer results are matched to its buffer arguments by
    `amp.name` (else by order); a buffer the forward does not return is
    returned unchanged.

    `optimizer=none` generates `@<name>_grad` instead (no `amp.graph`,
    not a training step): the same arguments without optimizer state and
    `lr`, returning the buffers, the loss, then one gradient per parameter
    (`#amp.role<output>`, `amp.name = "<param>.grad"`), then `grad_norm`
    when clipping and the forward's outputs.

    If the module already declares (without a body) a function with the
    generated name and type, the declaration is replaced by the
    definition, so a driver can call the step before it is generated.

    Diagnostics: an error for a forward model without a loss, a non-scalar
    loss, an op on a path from a parameter to the loss that has no gradient
    rule (naming the op and the parameter), forward arguments or results
    with roles a forward model cannot have; a warning (and a zero
    gradient) for a parameter that does not reach the loss.
  }];
  let dependentDialects = [
    "::mlir::amp::AMPDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::tensor::TensorDialect",
  ];
  let options = !listconcat(
    [AMPOptimizerKindOption, AMPLossKindOption],
    AMPOptimizerHyperOptions,
    [Option<"maxGradNorm", "max-grad-norm", "double", /*default=*/"0.0",
            "Clip gradients to this global L2 norm before the update "
            "(0 disables clipping)">]);
}

def AMPOptimizerStepPass : Pass<"amp-optimizer-step", "::mlir::ModuleOp"> {
  let summary = "Turn a gradient function into a training step";
  let description = [{
    Adds the optimizer update to every gradient function: a `func.func`
    definition without `amp.graph` that returns, for each of its
    `#amp.role<parameter>` arguments, an output named `<param>.grad`
    (`<param>` as in amp-autodiff: the `amp.name`, else `param<i>`), as
    `amp-autodiff{optimizer=none}` generates. Between the two passes the
    gradients can be combined (summed across replicas or micro-batches);
    `amp-autodiff{optimizer=...}` builds its steps with the same code, so

    ```
    amp-opt m.mlir --amp-autodiff="optimizer=none" \
        --amp-optimizer-step="optimizer=adamw"
    ```

    gives the step of `--amp-autodiff="optimizer=adamw"`.

    The function becomes a training step (`#amp.graph<training_step>`,
    `@<name>_grad` renamed `@<name>_train_step`): the gradient results go;
    the optimizer state of amp-autodiff (arguments and results, after the
    buffers) and an `lr` hyper-parameter (before the other
    hyper-parameters) come; the updated parameters become the first
    results. The options are amp-autodiff's optimizer options;
    `optimizer=none` leaves the module unchanged. A function that returns
    gradients for some parameters but not all is an error.
  }];
  let dependentDialects = [
    "::mlir::amp::AMPDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::tensor::TensorDialect",
  ];
  let options = !listconcat([AMPOptimizerKindOption],
                            AMPOptimizerHyperOptions);
}

#endif // AMP_DIALECT_AMP_TRANSFORMS_AUTODIFFPASSES_TD
