//===- NonfinitePasses.td - precision debugging ------------*- tablegen -*-===//

#ifndef AMP_DIALECT_AMP_TRANSFORMS_NONFINITEPASSES_TD
#define AMP_DIALECT_AMP_TRANSFORMS_NONFINITEPASSES_TD

include "mlir/Pass/PassBase.td"

def AMPInstrumentNonfinitePass
    : Pass<"amp-instrument-nonfinite", "::mlir::ModuleOp"> {
  let summary = "Check every op of the training step for inf/NaN results";
  let description = [{
    Instruments the module's training step (after precision assignment and
    loss scaling, before lowering) so that one step records, in f32 beside
    the step, the range of every value that an `amp` op with a float
    operand and a float result (a "site") takes or produces: its maximum
    and the maximum of its negation, which propagate NaN, so a value holds
    inf or NaN exactly when its record is not finite. Each value is
    recorded once, right after its definition, by a call of a private
    function per value type (`amp_nonfinite_record_N`, kept out of line
    for LLVM so that a large step's build stays short). A site with an f16/bf16
    operand or result also gets a copy computed in f32 on its widened
    operands, whose results are recorded too.

    The records go to a new buffer state tensor `amp.nonfinite.stats`
    (`tensor<Rx2xf32>`; include/amp/Runtime/NonfiniteABI.h), which the
    step returns updated like any buffer, so a compiled library exposes it
    through `amp_state_tensor` on the CPU and on a device alike. The sites
    are listed in program order in the step's `amp_nonfinite_sites`
    attribute (kind, name, location, precision and the record rows of the
    results, the operands and the f32 copy's results), which amp-compile
    embeds in the library for amp-run `--find-nonfinite` and the Python
    trainer's `find_nonfinite` (docs/Debugging.md). The step's own values
    are unchanged.
  }];
  let dependentDialects = ["::mlir::amp::AMPDialect"];
}

#endif // AMP_DIALECT_AMP_TRANSFORMS_NONFINITEPASSES_TD
