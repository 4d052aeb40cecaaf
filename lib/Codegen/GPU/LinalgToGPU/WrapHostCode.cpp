//===- WrapHostCode.cpp - leftover host code in single-thread kernels -----===//
//
// The amp-gpu-wrap-host-code pass. After the parallel loops are mapped to
// blocks and threads, what is left on the host and touches memory (a
// memref.load/store: a 0-d update of the loss scale, its trackers or the
// optimizer step; a loop: a full reduction amp-gpu-parallel-reductions did
// not take) is moved
// into a gpu.launch of one block of one thread. Consecutive such ops share
// one launch: views and index arithmetic in between are hoisted in front of
// it, allocations in front and deallocations behind it.
//
// Meant for a few scalar operations: a loop left here runs on one thread,
// correct but slow (amp-gpu-parallel-reductions takes the large ones).
//
//===----------------------------------------------------------------------===//

#include "amp/Codegen/GPU/Passes.h"

#include "LinalgToGPUUtils.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/SmallPtrSet.h"

namespace mlir::amp {
#define GEN_PASS_DEF_GPUWRAPHOSTCODEPASS
#include "amp/Codegen/GPU/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using mlir::amp::gpu_lowering::isInsideKernel;

namespace {
/// Whether `op` (with its regions) contains something that must stay on the
/// host: a launch, a call, an allocation.
bool containsHostOnlyOps(Operation *op) {
  return op
      ->walk([](Operation *inner) {
        if (isa<gpu::LaunchOp, func::CallOp, memref::AllocOp, memref::DeallocOp,
                memref::CopyOp, gpu::AllocOp, gpu::DeallocOp, gpu::MemcpyOp>(
                inner))
          return WalkResult::interrupt();
        return WalkResult::advance();
      })
      .wasInterrupted();
}

/// What an op of a host block is to the grouping: moved into the launch
/// (Device), moved in front of it (Hoist), behind it (Sink), or an end of
/// the group that stays where it is (Barrier).
enum class Kind { Device, Hoist, Sink, Barrier };

Kind classify(Operation *op) {
  if (op->hasTrait<OpTrait::IsTerminator>() ||
      isa<gpu::LaunchOp, func::CallOp>(op))
    return Kind::Barrier;
  if (isa<memref::DeallocOp>(op))
    return Kind::Sink;
  if (auto alloc = dyn_cast<memref::AllocOp>(op))
    return alloc->getNumOperands() == 0 ? Kind::Hoist : Kind::Barrier;
  if (op->getNumRegions() > 0)
    return containsHostOnlyOps(op) ? Kind::Barrier : Kind::Device;
  if (isa<memref::LoadOp, memref::StoreOp, affine::AffineLoadOp,
          affine::AffineStoreOp>(op))
    return Kind::Device;
  if (isMemoryEffectFree(op))
    return Kind::Hoist;
  return Kind::Barrier;
}

/// Moves the Device ops of `group` (from a Device op to the last Device op
/// before a Barrier) into one single-thread gpu.launch.
void wrapGroup(ArrayRef<Operation *> group) {
  Operation *first = group.front();
  Operation *last = group.back();
  llvm::SmallPtrSet<Operation *, 16> inside;
  SmallVector<Operation *> kept, sunk;
  for (Operation *op : group) {
    Kind kind = classify(op);
    bool dependsOnKept = llvm::any_of(op->getOperands(), [&](Value v) {
      return inside.contains(v.getDefiningOp());
    });
    if (kind == Kind::Hoist && !dependsOnKept) {
      op->moveBefore(first);
    } else if (kind == Kind::Sink && !dependsOnKept) {
      sunk.push_back(op);
    } else {
      kept.push_back(op);
      inside.insert(op);
    }
  }
  // A value computed in the group and used by host code after it would
  // need to come back from the device: leave the group on the host, the
  // final check reports it.
  for (Operation *op : kept)
    for (Operation *user : op->getUsers())
      if (!inside.contains(user) && !llvm::any_of(kept, [&](Operation *k) {
            return k->isProperAncestor(user);
          }))
        return;
  Operation *insertAfter = last;
  for (Operation *op : sunk) {
    op->moveAfter(insertAfter);
    insertAfter = op;
  }

  OpBuilder b(kept.front());
  Location loc = kept.front()->getLoc();
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  auto launch = gpu::LaunchOp::create(b, loc, one, one, one, one, one, one);
  Block &body = launch.getBody().front();
  b.setInsertionPointToEnd(&body);
  auto terminator = gpu::TerminatorOp::create(b, loc);
  for (Operation *op : kept)
    op->moveBefore(terminator);
}

/// Splits `block` into groups at its Barrier ops and wraps each.
void wrapBlock(Block *block) {
  SmallVector<Operation *> group;
  auto flush = [&]() {
    // Trim ops after the last device op: they stay where they are.
    while (!group.empty() && classify(group.back()) != Kind::Device)
      group.pop_back();
    if (!group.empty())
      wrapGroup(group);
    group.clear();
  };
  for (Operation &op : llvm::make_early_inc_range(*block)) {
    Kind kind = classify(&op);
    if (kind == Kind::Barrier) {
      flush();
      continue;
    }
    if (kind == Kind::Device || !group.empty())
      group.push_back(&op);
  }
  flush();
}

struct GPUWrapHostCodePass
    : amp::impl::GPUWrapHostCodePassBase<GPUWrapHostCodePass> {
  void runOnOperation() override {
    SmallVector<Block *> blocks;
    getOperation().walk([&](Block *block) {
      Operation *parent = block->getParentOp();
      if (parent && !isa<gpu::LaunchOp>(parent) && !isInsideKernel(parent))
        blocks.push_back(block);
    });
    for (Block *block : blocks) {
      // Only blocks of the function body or of host ops we did not wrap.
      Operation *parent = block->getParentOp();
      if (parent != getOperation() && classify(parent) == Kind::Device)
        continue;
      wrapBlock(block);
    }
  }
};
} // namespace
