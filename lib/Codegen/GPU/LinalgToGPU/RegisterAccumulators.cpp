//===- RegisterAccumulators.cpp - reduction accumulators in registers -----===//
//
// The amp-gpu-register-accumulators pass: a sequential loop that loads an
// element, updates it and stores it back at the same place every iteration
// (what convert-linalg-to-parallel-loops makes of a reduction left to one
// thread per output, such as a column sum) carries the element in an
// iter_arg instead: one load before the loop, one store after it. LLVM
// cannot do this itself in a kernel: it cannot tell that the buffer read
// in the loop is not the one accumulated into, so each iteration went to
// memory (a column sum of 16x1024x8192 ran 6x slower than its bytes take
// on an H200).
//
//===----------------------------------------------------------------------===//

#include "amp/Codegen/GPU/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::amp {
#define GEN_PASS_DEF_GPUREGISTERACCUMULATORSPASS
#include "amp/Codegen/GPU/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;

namespace {
/// The buffer `value` is a view of: through view-like ops to an allocation
/// or a block argument.
Value rootBuffer(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  return value;
}

/// A buffer no other root can alias: an allocation, a global, or an
/// argument of the function (whose buffers are distinct from its own
/// allocations). Anything else (a select of buffers, a call's result) may
/// be any buffer.
bool isDistinctObject(Value root) {
  if (auto arg = dyn_cast<BlockArgument>(root))
    return isa<func::FuncOp>(arg.getOwner()->getParentOp());
  return isa_and_nonnull<memref::AllocOp, memref::AllocaOp,
                         memref::GetGlobalOp>(root.getDefiningOp());
}

/// A load and a store of one element of `memref` at the same indices.
struct Accumulator {
  memref::LoadOp load;
  memref::StoreOp store;
};

/// The loop's body touches memory only through loads and stores of memrefs
/// (everything else is free of memory effects, without regions).
bool onlyLoadsAndStores(scf::ForOp loop) {
  return llvm::all_of(loop.getBody()->without_terminator(), [](Operation &op) {
    return isa<memref::LoadOp, memref::StoreOp>(op) ||
           (op.getNumRegions() == 0 && isMemoryEffectFree(&op));
  });
}

/// The accumulators of `loop`: for each memref stored to, exactly one load
/// and one store, the load first, at the same loop-invariant indices, of
/// a freshly allocated buffer no other access in the loop can alias (every
/// other memref accessed has another root).
SmallVector<Accumulator> findAccumulators(scf::ForOp loop) {
  SmallVector<Accumulator> found;
  if (!onlyLoadsAndStores(loop))
    return found;
  Block *body = loop.getBody();
  for (auto store : body->getOps<memref::StoreOp>()) {
    Value buffer = store.getMemRef();
    Value root = rootBuffer(buffer);
    if (!root.getDefiningOp<memref::AllocOp>() || !loop.isDefinedOutsideOfLoop(buffer) ||
        !llvm::all_of(store.getIndices(), [&](Value index) {
          return loop.isDefinedOutsideOfLoop(index);
        }))
      continue;
    memref::LoadOp load;
    bool sound = true;
    for (Operation &op : body->without_terminator()) {
      Value other;
      if (auto l = dyn_cast<memref::LoadOp>(op))
        other = l.getMemRef();
      else if (auto s = dyn_cast<memref::StoreOp>(op))
        other = s.getMemRef();
      else
        continue;
      if (&op == store.getOperation())
        continue;
      auto l = dyn_cast<memref::LoadOp>(op);
      if (other == buffer && l && !load && l.getIndices() == store.getIndices() &&
          op.isBeforeInBlock(store))
        load = l;
      else if (rootBuffer(other) == root || !isDistinctObject(rootBuffer(other)))
        sound = false;
    }
    if (sound && load)
      found.push_back({load, store});
  }
  return found;
}

/// Rewrites `loop` to carry the accumulators in iter_args.
void carryInRegisters(RewriterBase &rewriter, scf::ForOp loop,
                      MutableArrayRef<Accumulator> accumulators) {
  rewriter.setInsertionPoint(loop);
  SmallVector<Value> inits;
  for (Accumulator acc : accumulators)
    inits.push_back(memref::LoadOp::create(rewriter, acc.load.getLoc(),
                                           acc.load.getMemRef(),
                                           acc.load.getIndices()));
  auto yieldValues = [&](OpBuilder &, Location,
                         ArrayRef<BlockArgument> carried) {
    // Every load replaced first: one accumulator may store another's load.
    for (auto [acc, value] : llvm::zip(accumulators, carried))
      rewriter.replaceAllUsesWith(acc.load.getResult(), value);
    SmallVector<Value> yielded;
    for (Accumulator acc : accumulators)
      yielded.push_back(acc.store.getValueToStore());
    return yielded;
  };
  FailureOr<LoopLikeOpInterface> grown =
      loop.replaceWithAdditionalYields(rewriter, inits,
                                       /*replaceInitOperandUsesInLoop=*/false,
                                       yieldValues);
  auto newLoop = cast<scf::ForOp>(grown->getOperation());
  rewriter.setInsertionPointAfter(newLoop);
  unsigned first = newLoop.getNumResults() - accumulators.size();
  for (auto [i, acc] : llvm::enumerate(accumulators)) {
    memref::StoreOp::create(rewriter, acc.store.getLoc(),
                            newLoop.getResult(first + i), acc.store.getMemRef(),
                            acc.store.getIndices());
    rewriter.eraseOp(acc.store);
    rewriter.eraseOp(acc.load);
  }
}

struct GPURegisterAccumulatorsPass
    : amp::impl::GPURegisterAccumulatorsPassBase<GPURegisterAccumulatorsPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
    IRRewriter rewriter(&getContext());
    for (scf::ForOp loop : loops) {
      SmallVector<Accumulator> accumulators = findAccumulators(loop);
      if (!accumulators.empty())
        carryInRegisters(rewriter, loop, accumulators);
    }
  }
};
} // namespace
