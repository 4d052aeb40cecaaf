//===- FreeEarly.cpp - temporaries freed after their last use -------------===//
//
// The amp-gpu-free-early pass: each memref.dealloc of a memref.alloc in the
// same block moves to right after the last use of the buffer or of a value
// derived from it (see the pass description in Passes.td). The deallocation
// pipeline puts every dealloc at the end of the block, which makes a
// training step hold all its temporaries until it ends.
//
//===----------------------------------------------------------------------===//

#include "amp/Codegen/GPU/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::amp {
#define GEN_PASS_DEF_GPUFREEEARLYPASS
#include "amp/Codegen/GPU/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;

namespace {
/// The last operation of `block` using `buffer` or a value computed from it
/// (transitively through the users' results), other than `dealloc`; null
/// when a use lies outside the block.
Operation *lastUseInBlock(Value buffer, Block *block, Operation *dealloc) {
  Operation *last = buffer.getDefiningOp();
  SmallVector<Value> worklist = {buffer};
  DenseSet<Value> seen;
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    if (!seen.insert(value).second)
      continue;
    for (Operation *user : value.getUsers()) {
      if (user == dealloc)
        continue;
      Operation *inBlock = block->findAncestorOpInBlock(*user);
      if (!inBlock)
        return nullptr;
      if (last->isBeforeInBlock(inBlock))
        last = inBlock;
      llvm::append_range(worklist, user->getResults());
    }
  }
  return last;
}

struct GPUFreeEarlyPass
    : public amp::impl::GPUFreeEarlyPassBase<GPUFreeEarlyPass> {
  void runOnOperation() override {
    SmallVector<memref::DeallocOp> deallocs;
    getOperation().walk(
        [&](memref::DeallocOp dealloc) { deallocs.push_back(dealloc); });
    for (memref::DeallocOp dealloc : deallocs) {
      Value buffer = dealloc.getMemref();
      auto alloc = buffer.getDefiningOp<memref::AllocOp>();
      Block *block = dealloc->getBlock();
      if (!alloc || alloc->getBlock() != block)
        continue;
      if (Operation *last = lastUseInBlock(buffer, block, dealloc))
        dealloc->moveAfter(last);
    }
  }
};
} // namespace
