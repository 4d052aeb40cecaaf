//===- StateInPlacePasses.td - state updated in place ------*- tablegen -*-===//
//
// A training step returns its state (parameters, buffers, optimizer and
// scaler state) updated; these passes let bufferization write each update
// into the buffer the state came from, as PyTorch's optimizers update their
// tensors in place, instead of into a second set of buffers the runtime
// swaps in after the step.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_TRANSFORMS_STATEINPLACEPASSES_TD
#define AMP_DIALECT_AMP_TRANSFORMS_STATEINPLACEPASSES_TD

include "mlir/Pass/PassBase.td"

def AMPStateUpdateDestinationsPass
    : Pass<"amp-state-update-destinations", "::mlir::func::FuncOp"> {
  let summary = "Make each updated state tensor's producer write into its "
                "argument";
  let description = [{
    On tensors, before One-Shot Bufferize. For every result that
    `amp.state_updates` pairs with an argument (the training step's state,
    which stripContractAttributes records), the destination-style op
    computing it (the optimizer's update, the loss scaler's, a weight's
    low-precision copy) gets that argument as its init operand, in place of
    a fresh tensor whose contents it never reads (for linalg ops, an init
    its payload does not use). Bufferization then writes the update into
    the argument's buffer wherever that is safe: where any op after the
    update still reads the old value, its analysis gives the op a new
    buffer instead, as before. Nothing else changes; results whose
    producer is not such an op are left alone.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def AMPStateUpdatesInPlacePass
    : Pass<"amp-state-updates-in-place", "::mlir::ModuleOp"> {
  let summary = "Drop the results a function writes into the arguments "
                "they update";
  let description = [{
    On buffers, after One-Shot Bufferize (with function boundaries) and
    before buffer-results-to-out-params. A result that `amp.state_updates`
    pairs with argument `j` and that returns argument `j`'s own buffer
    (through `memref.cast`s) was written in place: it is removed from the
    function and argument `j` listed in `amp.updated_in_place`, which
    amp-compile turns into the library's per-result "in place" flags (the
    runtime passes no out-buffer for the result and keeps the state
    tensor's buffer). `amp.state_updates` is removed.
    Functions whose symbol is used (a call would need rewriting) and
    functions without a single `func.return` keep their results.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

#endif // AMP_DIALECT_AMP_TRANSFORMS_STATEINPLACEPASSES_TD
