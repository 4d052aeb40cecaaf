//===- ReductionsToGPU.cpp - parallel row and full reductions -------------===//
//
// The amp-gpu-parallel-reductions pass: on bufferized IR, reduction
// linalg.generic ops become gpu.launch ops that reduce in parallel. A row
// reduction (parallel loops, then reduction loops over the innermost memory
// dimensions) gets one block per output element: every thread accumulates a
// strided slice of the row, gpu.all_reduce combines the block, thread 0
// combines with the output's initial value. A full reduction (no parallel
// loop) runs in two stages: a grid of blocks reducing grid-strided slices
// into a buffer of partials, then one block reducing the partials.
// Deterministic (no atomics). Independent full reductions of a block with
// the same combiner and accumulator type (every gradient's overflow check,
// every gradient's sum of squares) are batched into one such launch pair
// (emitBatchedFull). What does not match is left alone for the loop mapping
// of the GPU pipeline (docs/GPU.md). The matching and the emission are
// shared with amp-gpu-fuse-rows (RowReductions.h).
//
//===----------------------------------------------------------------------===//

#include "LinalgToGPUUtils.h"
#include "RowReductions.h"

#include "amp/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "llvm/Support/MathExtras.h"

#include <vector>

namespace mlir::amp {
#define GEN_PASS_DEF_GPUPARALLELREDUCTIONSPASS
#include "amp/Conversion/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;

using namespace mlir::amp::gpu_lowering;

namespace {
/// Full reductions of one block being batched: emitted together at the
/// last one, so every op between them must leave their buffers alone.
struct Batch {
  SmallVector<ReductionPlan, 2> plans;
  SmallVector<Value> inputs, outputs;

  void add(ReductionPlan plan) {
    for (OpOperand *input : plan.op.getDpsInputOperands())
      inputs.push_back(input->get());
    llvm::append_range(outputs, plan.op.getDpsInits());
    plans.push_back(std::move(plan));
  }

  /// Whether `plan` depends on the batch or the batch on it: it reads an
  /// output of the batch or writes one of its inputs. Outputs may be
  /// shared: the last stage combines them in order.
  bool conflicts(const ReductionPlan &plan) const {
    linalg::GenericOp op = plan.op;
    for (OpOperand *input : op.getDpsInputOperands())
      if (mayAliasAny(input->get(), outputs))
        return true;
    return llvm::any_of(op.getDpsInits(),
                        [&](Value out) { return mayAliasAny(out, inputs); });
  }

  /// Whether moving the batch past `op` may change what either sees: `op`
  /// writes a buffer of the batch or reads an output.
  bool touchedBy(Operation *op) const {
    SmallVector<Value> touched, written;
    if (!collectEffects(op, touched, written))
      return true;
    return llvm::any_of(touched,
                        [&](Value v) { return mayAliasAny(v, outputs); }) ||
           llvm::any_of(written,
                        [&](Value v) { return mayAliasAny(v, inputs); });
  }
};

/// Whether `op` is all-parallel over the loop ranges `ranges`, each
/// operand a memref indexed by loop dimensions and constants, each output
/// a fresh buffer written at the loop indices and not read.
bool isElementwiseOver(linalg::GenericOp op, ArrayRef<int64_t> ranges) {
  if (!op.hasPureBufferSemantics() || op.getNumReductionLoops() != 0 ||
      !llvm::equal(op.getStaticLoopRanges(), ranges))
    return false;
  for (OpOperand &init : op.getDpsInitsMutable())
    if (!init.get().getDefiningOp<memref::AllocOp>() ||
        !op.getMatchingIndexingMap(&init).isIdentity() ||
        op.payloadUsesValueFromOperand(&init))
      return false;
  return llvm::all_of(op->getOpOperands(), [&](OpOperand &operand) {
    return isa<MemRefType>(operand.get().getType()) &&
           llvm::all_of(op.getMatchingIndexingMap(&operand).getResults(),
                        llvm::IsaPred<AffineDimExpr, AffineConstantExpr>);
  });
}

/// The first all-parallel generic after the full reduction `plan` in its
/// block, over the same loops, that can run in the reduction's element loop
/// instead of reading the same inputs again in its own launch (mse's
/// gradient after the loss): it reads nothing the reduction or an op in
/// between writes, and nothing in between touches its outputs.
linalg::GenericOp findCompanion(const ReductionPlan &plan) {
  linalg::GenericOp reduction = plan.op;
  SmallVector<Value> written(reduction.getDpsInits());
  SmallVector<Value> touched(reduction->getOperands());
  for (Operation *op = reduction->getNextNode(); op; op = op->getNextNode()) {
    if (isa<memref::AllocOp>(op))
      continue;
    auto generic = dyn_cast<linalg::GenericOp>(op);
    if (generic && isElementwiseOver(generic, plan.ranges) &&
        llvm::none_of(generic.getDpsInputs(),
                      [&](Value in) { return mayAliasAnyInStep(in, written); }) &&
        llvm::none_of(generic.getDpsInits(), [&](Value out) {
          return mayAliasAnyInStep(out, touched);
        }))
      return generic;
    if (!collectEffects(op, touched, written))
      return nullptr;
  }
  return nullptr;
}

struct GPUParallelReductionsPass
    : public amp::impl::GPUParallelReductionsPassBase<
          GPUParallelReductionsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (blockSize < 32 || maxBlocks < 1 || elementsPerThread < 1 ||
        maxUnrolledStrides < 0) {
      getOperation().emitError()
          << "amp-gpu-parallel-reductions: block-size must be at least 32, "
             "max-blocks and elements-per-thread at least 1, "
             "max-unrolled-strides at least 0";
      return signalPassFailure();
    }
    if (batchFullReductions)
      batchFull();
    SmallVector<linalg::GenericOp> generics;
    getOperation().walk([&](linalg::GenericOp op) {
      if (!op->getParentOfType<gpu::LaunchOp>())
        generics.push_back(op);
    });
    llvm::SmallPtrSet<Operation *, 4> absorbed;
    for (linalg::GenericOp op : generics) {
      if (absorbed.contains(op))
        continue;
      std::optional<ReductionPlan> plan = analyzeReduction(op, minRowLength);
      if (!plan)
        continue;
      OpBuilder b(op);
      ReductionEmitter emitter(*plan, b, op.getLoc());
      emitter.setMaxUnrolledStrides(maxUnrolledStrides);
      // Outputs filled with a constant just for this reduction start from
      // it: the fill (a launch) goes.
      SmallVector<Value> initialValues;
      for (Value out : op.getDpsInits())
        initialValues.push_back(takeFillConstant(out, op));
      emitter.setInitialValues(initialValues);
      int64_t perBlock = blockSize * elementsPerThread;
      int64_t blocks = std::min<int64_t>(
          llvm::divideCeil(plan->rowLength, perBlock), maxBlocks);
      if (plan->numParallel > 0 || blocks <= 1) {
        emitter.emitRows(blockSize);
        op->erase();
        continue;
      }
      linalg::GenericOp companion = findCompanion(*plan);
      if (companion) {
        // Its outputs must exist before the launch that now writes them.
        for (Value out : companion.getDpsInits())
          if (out.getDefiningOp()->getBlock() == op->getBlock() &&
              op->isBeforeInBlock(out.getDefiningOp()))
            out.getDefiningOp()->moveBefore(op);
        absorbed.insert(companion);
      }
      emitter.emitFull(blocks, blockSize, companion);
      op->erase();
      if (companion)
        companion->erase();
    }
  }

  /// Batches of two or more full reductions become one launch pair each.
  void batchFull() {
    std::vector<Batch> done;
    getOperation().walk([&](Block *block) {
      if (block->getParentOp()->getParentOfType<gpu::LaunchOp>() ||
          isa<gpu::LaunchOp>(block->getParentOp()))
        return;
      std::vector<Batch> open;
      auto close = [&](Batch &batch) {
        if (batch.plans.size() > 1)
          done.push_back(std::move(batch));
        batch = Batch();
      };
      for (Operation &op : *block) {
        std::optional<ReductionPlan> plan;
        if (auto generic = dyn_cast<linalg::GenericOp>(&op)) {
          plan = analyzeReduction(generic, minRowLength);
          if (plan && !isBatchableFull(*plan))
            plan.reset();
        }
        Batch *same = nullptr;
        for (Batch &batch : open) {
          if (batch.plans.empty())
            continue;
          if (plan && isBatchableFull(*plan, &batch.plans.front())) {
            same = &batch;
            continue;
          }
          if (batch.touchedBy(&op))
            close(batch);
        }
        if (!plan)
          continue;
        if (same && same->conflicts(*plan))
          close(*same);
        if (!same) {
          open.emplace_back();
          same = &open.back();
        }
        same->add(std::move(*plan));
      }
      for (Batch &batch : open)
        close(batch);
    });
    int64_t perBlock = blockSize * elementsPerThread;
    for (Batch &batch : done) {
      Operation *last = batch.plans.back().op;
      OpBuilder b(last);
      emitBatchedFull(batch.plans, b, last->getLoc(), blockSize, perBlock,
                      maxBlocks);
      for (ReductionPlan &plan : batch.plans)
        plan.op->erase();
    }
  }
};
} // namespace
