//===- CoalesceParallelLoops.cpp - one dimension per parallel loop --------===//
//
// The amp-gpu-coalesce-parallel-loops pass: every outermost scf.parallel of
// two or more dimensions becomes one dimension (the last varying fastest),
// so that the tiling and gpu-map-parallel-loops after it give consecutive
// threads consecutive elements of the innermost dimension. See the pass
// description in Passes.td for the measurement behind it.
//
//===----------------------------------------------------------------------===//

#include "amp/Codegen/GPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/PatternMatch.h"

#include <numeric>

namespace mlir::amp {
#define GEN_PASS_DEF_GPUCOALESCEPARALLELLOOPSPASS
#include "amp/Codegen/GPU/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;

namespace {
/// A loop that gpu-map-parallel-loops will map to blocks and threads: not
/// inside another parallel loop or a launch.
bool isOutermost(scf::ParallelOp loop) {
  return !loop->getParentOfType<scf::ParallelOp>() &&
         !loop->getParentOfType<gpu::LaunchOp>();
}

struct GPUCoalesceParallelLoopsPass
    : public amp::impl::GPUCoalesceParallelLoopsPassBase<
          GPUCoalesceParallelLoopsPass> {
  void runOnOperation() override {
    SmallVector<scf::ParallelOp> loops;
    getOperation().walk([&](scf::ParallelOp loop) {
      // collapseParallelLoops keeps no reductions (init values and
      // scf.reduce bodies): such a loop stays as it is.
      if (loop.getNumLoops() > 1 && loop.getNumReductions() == 0 &&
          isOutermost(loop))
        loops.push_back(loop);
    });
    IRRewriter rewriter(&getContext());
    for (scf::ParallelOp loop : loops) {
      std::vector<unsigned> all(loop.getNumLoops());
      std::iota(all.begin(), all.end(), 0u);
      rewriter.setInsertionPoint(loop);
      collapseParallelLoops(rewriter, loop, {all});
    }
  }
};
} // namespace
