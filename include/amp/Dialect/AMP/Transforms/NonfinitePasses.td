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

def AMPCheckIndicesPass : Pass<"amp-check-indices", "::mlir::ModuleOp"> {
  let summary = "Check every index an op reads through, and report it";
  let description = [{
    PyTorch raises an IndexError for an embedding id, a gather index or a
    class label outside its range; the compiled ops clamp such an index so
    that no access leaves a tensor. This pass makes the step report it: in
    every training step and forward model, each distinct index tensor an op
    reads through (with the op's valid range: [-n, n) where the op counts
    negative indices from the end, as ONNX's Gather; [0, C) for class
    labels computed in the graph; labels that are arguments are checked by
    the runtime before the step) gets an `amp.check_indices`. The ranges
    and the valid bounds become one more result, `amp.index_ranges`
    (include/amp/Runtime/NonfiniteABI.h), which the runtime reads with the
    loss, and the sites are listed in the `amp_index_sites` attribute. A
    training step with an index out of range skips its updates like an
    overflow: the optimizer updates take the flag in their `found_inf`,
    every other state result returns its argument. A graph without such ops
    is left as it is.
  }];
  let dependentDialects = ["::mlir::amp::AMPDialect"];
}

#endif // AMP_DIALECT_AMP_TRANSFORMS_NONFINITEPASSES_TD
