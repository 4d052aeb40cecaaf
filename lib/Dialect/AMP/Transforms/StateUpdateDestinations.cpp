//===- StateUpdateDestinations.cpp - updated state into its argument ------===//
//
// amp-state-update-destinations: the op computing a state result writes
// into the state's argument, so that One-Shot Bufferize updates the state
// in place wherever its analysis finds no later reader of the old value.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/AMP/IR/TrainingStep.h"
#include "amp/Dialect/AMP/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPSTATEUPDATEDESTINATIONSPASS
#include "amp/Dialect/AMP/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {
/// Whether the op never reads `init`'s contents, so any tensor of its type
/// can take its place. Only linalg ops say so (a payload that does not use
/// the init's block argument); other destination-style ops may read it.
bool isInitUnread(Operation *op, OpOperand &init) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  return linalgOp && !linalgOp.payloadUsesValueFromOperand(&init);
}

/// Makes the op returning `value` write into `argument` where its init is
/// a tensor it does not read.
void writeInto(Value value, BlockArgument argument) {
  auto result = dyn_cast<OpResult>(value);
  if (!result || result.getType() != argument.getType())
    return;
  auto op = dyn_cast<DestinationStyleOpInterface>(result.getOwner());
  if (!op)
    return;
  OpOperand *init = op.getTiedOpOperand(result);
  if (init && init->get() != argument && isInitUnread(op, *init))
    init->set(argument);
}

struct StateUpdateDestinationsPass
    : amp::impl::AMPStateUpdateDestinationsPassBase<
          StateUpdateDestinationsPass> {
  void runOnOperation() override {
    func::FuncOp function = getOperation();
    SmallVector<int32_t> updates = getStateUpdates(function);
    if (updates.empty() || function.isExternal() ||
        !llvm::hasSingleElement(function.getBody()))
      return;
    auto ret = cast<func::ReturnOp>(function.getBody().front().getTerminator());
    for (auto [index, argument] : llvm::enumerate(updates))
      if (argument >= 0)
        writeInto(ret.getOperand(index), function.getArgument(argument));
  }
};
} // namespace
