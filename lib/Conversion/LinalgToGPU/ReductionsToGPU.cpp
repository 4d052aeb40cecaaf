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
// Deterministic (no atomics). What does not match is left alone for the
// loop mapping of the GPU pipeline (docs/GPU.md). The matching and the
// emission are shared with amp-gpu-fuse-rows (RowReductions.h).
//
//===----------------------------------------------------------------------===//

#include "RowReductions.h"

#include "amp/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include "llvm/Support/MathExtras.h"

namespace mlir::amp {
#define GEN_PASS_DEF_GPUPARALLELREDUCTIONSPASS
#include "amp/Conversion/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;

using namespace mlir::amp::gpu_lowering;

namespace {
struct GPUParallelReductionsPass
    : public amp::impl::GPUParallelReductionsPassBase<
          GPUParallelReductionsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (blockSize < 32 || maxBlocks < 1 || elementsPerThread < 1) {
      getOperation().emitError()
          << "amp-gpu-parallel-reductions: block-size must be at least 32, "
             "max-blocks and elements-per-thread at least 1";
      return signalPassFailure();
    }
    SmallVector<linalg::GenericOp> generics;
    getOperation().walk([&](linalg::GenericOp op) {
      if (!op->getParentOfType<gpu::LaunchOp>())
        generics.push_back(op);
    });
    for (linalg::GenericOp op : generics) {
      std::optional<ReductionPlan> plan = analyzeReduction(op, minRowLength);
      if (!plan)
        continue;
      OpBuilder b(op);
      ReductionEmitter emitter(*plan, b, op.getLoc());
      int64_t perBlock = blockSize * elementsPerThread;
      int64_t blocks = std::min<int64_t>(
          llvm::divideCeil(plan->rowLength, perBlock), maxBlocks);
      if (plan->numParallel > 0 || blocks <= 1)
        emitter.emitRows(blockSize);
      else
        emitter.emitFull(blocks, blockSize);
      op->erase();
    }
  }
};
} // namespace
