//===- BatchLoops.cpp - independent parallel loops in one launch ----------===//
//
// The amp-gpu-batch-loops pass: consecutive one-dimensional scf.parallel
// loops of a block (each would be a launch of its own) that do not depend
// on each other become one loop over the concatenation of their iteration
// spaces; the body runs the body of the loop an index falls in
// (scf.index_switch), with the index made relative to that loop. One
// launch instead of several: the optimizer updates of every parameter, the
// casts of every weight (what Apex's multi_tensor_apply and PyTorch's
// foreach kernels do by hand). A launch costs microseconds, and a small one
// cannot fill the GPU (docs/CostModel.md).
//
// The merged loop takes the place of the last loop of its batch, so the
// earlier loops move past the ops in between: those must leave the batch's
// buffers alone, except deallocations of them, which move after the merged
// loop.
//
//===----------------------------------------------------------------------===//

#include "LinalgToGPUUtils.h"

#include "amp/Codegen/GPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

#include "llvm/ADT/SetVector.h"

namespace mlir::amp {
#define GEN_PASS_DEF_GPUBATCHLOOPSPASS
#include "amp/Codegen/GPU/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp::gpu_lowering;

namespace {
/// A loop that can join a batch: one dimension from 0 by 1, no reductions,
/// outside any other parallel loop or launch, with known memory effects.
bool isBatchable(scf::ParallelOp loop) {
  return loop.getNumLoops() == 1 && loop.getNumReductions() == 0 &&
         !loop->getParentOfType<scf::ParallelOp>() && !isInsideKernel(loop) &&
         matchPattern(loop.getLowerBound()[0], m_Zero()) &&
         matchPattern(loop.getStep()[0], m_One());
}

/// Loops being batched, with the buffers they read and write, the values
/// from above their bodies use (the merged kernel's parameters) and the
/// deallocations between them that must move after the merged loop.
struct Batch {
  SmallVector<scf::ParallelOp> loops;
  SmallVector<Value> touched, written;
  llvm::SetVector<Value> captured;
  int64_t capturedBytes = 0;
  SmallVector<memref::DeallocOp> sunk;

  /// Adds `loop` when it is independent of the batch (neither writes what
  /// the other touches) and the merged kernel's parameters still fit;
  /// false otherwise or when its effects are unknown.
  bool tryAdd(scf::ParallelOp loop) {
    SmallVector<Value> loopTouched, loopWritten;
    if (!collectEffects(loop, loopTouched, loopWritten))
      return false;
    if (!loops.empty() &&
        (dependsOn(loopTouched, written) || dependsOn(loopWritten, touched)))
      return false;
    llvm::SetVector<Value> uses;
    getUsedValuesDefinedAbove(loop.getRegion(), uses);
    uses.insert(loop.getUpperBound()[0]);
    int64_t bytes = capturedBytes;
    for (Value v : uses)
      if (!captured.contains(v))
        bytes += parameterBytes(v);
    if (!loops.empty() && bytes > kMaxParameterBytes)
      return false;
    captured.insert(uses.begin(), uses.end());
    capturedBytes = bytes;
    loops.push_back(loop);
    llvm::append_range(touched, loopTouched);
    llvm::append_range(written, loopWritten);
    return true;
  }

  /// Whether the batch's loops may move past `op` (later in the block):
  /// it has no memory effects, allocates, frees a buffer the batch does
  /// not use (or one it does: the free then moves after the merged loop),
  /// or touches nothing the batch writes and writes nothing it touches.
  bool canMovePast(Operation *op) {
    if (isMemoryEffectFree(op) || isa<memref::AllocOp>(op))
      return true;
    if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
      if (mayAliasAnyInStep(dealloc.getMemref(), touched))
        sunk.push_back(dealloc);
      return true;
    }
    SmallVector<Value> opTouched, opWritten;
    return collectEffects(op, opTouched, opWritten) &&
           !dependsOn(opTouched, written) && !dependsOn(opWritten, touched);
  }

  static bool dependsOn(ArrayRef<Value> buffers, ArrayRef<Value> others) {
    return llvm::any_of(buffers,
                        [&](Value v) { return mayAliasAnyInStep(v, others); });
  }
};

/// The index of the loop that `iv` falls in, given the loops' first
/// indices and the end, `starts` (starts[0] == 0): the number of starts
/// after the first that are at most `iv`; past the end (threads of the last
/// block the tiling's guard keeps idle), the number of loops.
Value loopIndexOf(OpBuilder &b, Location loc, Value iv,
                  ArrayRef<Value> starts) {
  Value k = arith::ConstantIndexOp::create(b, loc, 0);
  for (unsigned i = 1; i < starts.size(); ++i) {
    Value inside =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, iv, starts[i]);
    k = arith::SelectOp::create(b, loc, inside,
                                arith::ConstantIndexOp::create(b, loc, i), k);
  }
  return k;
}

/// Replaces the batch's loops by one at the last of them.
void merge(Batch &batch) {
  scf::ParallelOp last = batch.loops.back();
  Location loc = last.getLoc();
  OpBuilder b(last);
  SmallVector<Value> starts{arith::ConstantIndexOp::create(b, loc, 0)};
  for (scf::ParallelOp loop : batch.loops)
    starts.push_back(
        arith::AddIOp::create(b, loc, starts.back(), loop.getUpperBound()[0]));
  Value total = starts.back();
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  unsigned n = batch.loops.size();
  scf::ParallelOp::create(
      b, loc, ValueRange{starts.front()}, ValueRange{total}, ValueRange{one},
      [&](OpBuilder &b, Location loc, ValueRange ivs) {
        auto switchOp = scf::IndexSwitchOp::create(
            b, loc, TypeRange{}, loopIndexOf(b, loc, ivs[0], starts),
            llvm::to_vector(llvm::seq<int64_t>(0, n)), n);
        OpBuilder::InsertionGuard guard(b);
        for (auto [k, loop] : llvm::enumerate(batch.loops)) {
          b.setInsertionPointToStart(
              &switchOp.getCaseRegions()[k].emplaceBlock());
          IRMapping map;
          map.map(loop.getInductionVars()[0],
                  arith::SubIOp::create(b, loc, ivs[0], starts[k]));
          for (Operation &op : loop.getBody()->without_terminator())
            b.clone(op, map);
          scf::YieldOp::create(b, loc);
        }
        b.setInsertionPointToStart(&switchOp.getDefaultRegion().emplaceBlock());
        scf::YieldOp::create(b, loc);
      });
  // Frees between the batch's loops go after the merged loop (the batch
  // may have looked past its last loop: frees there stay).
  for (memref::DeallocOp dealloc : batch.sunk)
    if (dealloc->isBeforeInBlock(last))
      dealloc->moveBefore(last);
  for (scf::ParallelOp loop : batch.loops)
    loop->erase();
}

/// The batches of `block`, in order.
SmallVector<Batch, 2> findBatches(Block &block) {
  SmallVector<Batch, 2> batches;
  Batch open;
  auto close = [&] {
    if (open.loops.size() > 1)
      batches.push_back(std::move(open));
    open = Batch();
  };
  for (Operation &op : block) {
    auto loop = dyn_cast<scf::ParallelOp>(op);
    if (loop && isBatchable(loop)) {
      if (open.tryAdd(loop))
        continue;
      close();
      open.tryAdd(loop);
      continue;
    }
    if (!open.loops.empty() && !open.canMovePast(&op))
      close();
  }
  close();
  return batches;
}

struct GPUBatchLoopsPass : amp::impl::GPUBatchLoopsPassBase<GPUBatchLoopsPass> {
  void runOnOperation() override {
    SmallVector<Block *> blocks;
    getOperation().walk([&](Block *block) {
      Operation *parent = block->getParentOp();
      if (!isa<scf::ParallelOp>(parent) && !isInsideKernel(parent) &&
          !isa<gpu::LaunchOp>(parent))
        blocks.push_back(block);
    });
    for (Block *block : blocks)
      for (Batch &batch : findBatches(*block))
        merge(batch);
  }
};
} // namespace
