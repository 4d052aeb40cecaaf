//===- NonfinitePasses.td - precision debugging ------------*- tablegen -*-===//

#ifndef AMP_DIALECT_AMP_TRANSFORMS_NONFINITEPASSES_TD
#define AMP_DIALECT_AMP_TRANSFORMS_NONFINITEPASSES_TD

include "mlir/Pass/PassBase.td"

def AMPInstrumentNonfinitePass
    : Pass<"amp-instrument-nonfinite", "::mlir::ModuleOp"> {
  let summary = "Check every op of the training step for inf/NaN results";
  let description = [{
    Instruments the module's training step (after precision assignment and
    loss scaling, before lowering) so that one step records, for every `amp`
    op with a float operand and a float result (a "site", in program
    order), whether a result holds inf or NaN, whether an operand did, the
    minimum and maximum over its float operands, and whether the same op
    computed in f32 on the widened operands would also produce inf or NaN.

    The records go to a new buffer state tensor `amp.nonfinite.stats`
    (`tensor<Nx5xf32>`, one row per site; see docs/Debugging.md), which the
    step returns updated like any buffer, so a compiled library exposes it
    through `amp_state_tensor` on the CPU and on a device alike. The sites
    are listed in program order in the step's `amp_nonfinite_sites`
    attribute (kind, name, location, precision), which amp-compile embeds
    in the library for amp-run `--find-nonfinite`.

    The checks are computed in f32 beside the step: the step's own values
    are unchanged.
  }];
  let dependentDialects = ["::mlir::amp::AMPDialect"];
}

#endif // AMP_DIALECT_AMP_TRANSFORMS_NONFINITEPASSES_TD
