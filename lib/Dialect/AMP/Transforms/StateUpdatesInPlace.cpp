//===- StateUpdatesInPlace.cpp - drop results written in place ------------===//
//
// amp-state-updates-in-place: after bufferization, a state result that is
// its argument's own buffer was updated in place; the function stops
// returning it (in the spirit of upstream's drop-equivalent-buffer-results,
// restricted to the pairs the training step names, and recording which
// results went so that the library's glue can say so).
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/AMP/IR/AMPDialect.h"
#include "amp/Dialect/AMP/IR/TrainingStep.h"
#include "amp/Dialect/AMP/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/BitVector.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPSTATEUPDATESINPLACEPASS
#include "amp/Dialect/AMP/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {
/// `value` without the memref.casts around it.
Value stripCasts(Value value) {
  while (auto cast = value.getDefiningOp<memref::CastOp>())
    value = cast.getSource();
  return value;
}

/// The results of `function` that return the buffer of the argument
/// `updates` pairs them with.
llvm::BitVector findResultsInPlace(func::FuncOp function, func::ReturnOp ret,
                                   ArrayRef<int32_t> updates) {
  llvm::BitVector inPlace(function.getNumResults());
  for (auto [index, argument] : llvm::enumerate(updates))
    if (argument >= 0 &&
        stripCasts(ret.getOperand(index)) == function.getArgument(argument))
      inPlace.set(index);
  return inPlace;
}

LogicalResult dropResultsInPlace(func::FuncOp function, ModuleOp module) {
  SmallVector<int32_t> updates = getStateUpdates(function);
  function->removeAttr(AMPDialect::kStateUpdatesAttrName);
  if (updates.empty() || function.isExternal() ||
      !llvm::hasSingleElement(function.getBody()) ||
      !SymbolTable::symbolKnownUseEmpty(function, module))
    return success();
  auto ret = cast<func::ReturnOp>(function.getBody().front().getTerminator());
  llvm::BitVector inPlace = findResultsInPlace(function, ret, updates);
  if (inPlace.none())
    return success();
  SmallVector<int32_t> arguments;
  for (unsigned index : inPlace.set_bits())
    arguments.push_back(updates[index]);
  llvm::sort(arguments);
  ret->eraseOperands(inPlace);
  if (failed(function.eraseResults(inPlace)))
    return function.emitError("amp-state-updates-in-place: cannot remove the "
                              "results written in place");
  function->setAttr(AMPDialect::kUpdatedInPlaceAttrName,
                    DenseI32ArrayAttr::get(function.getContext(), arguments));
  return success();
}

struct StateUpdatesInPlacePass
    : amp::impl::AMPStateUpdatesInPlacePassBase<StateUpdatesInPlacePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto function : llvm::to_vector(module.getOps<func::FuncOp>()))
      if (failed(dropResultsInPlace(function, module)))
        return signalPassFailure();
  }
};
} // namespace
