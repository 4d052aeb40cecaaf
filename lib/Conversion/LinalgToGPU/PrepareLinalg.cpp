//===- PrepareLinalg.cpp - bufferized linalg ready for the loop mapping ---===//
//
// The amp-gpu-prepare-linalg pass:
// - memref.copy into or out of a strided view (the padding of a
//   convolution's input, a slice) becomes linalg.copy, so that a kernel
//   does it; copies between dense buffers stay and become gpu.memcpy;
// - a linalg.generic whose reduction loops come before parallel ones (a sum
//   over the rows, e.g. a bias gradient) is interchanged to put the
//   parallel loops outermost: they become threads, and each thread runs the
//   reduction sequentially, instead of a host loop of launches.
//
//===----------------------------------------------------------------------===//

#include "amp/Conversion/Passes.h"

#include "LinalgToGPUUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::amp {
#define GEN_PASS_DEF_GPUPREPARELINALGPASS
#include "amp/Conversion/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using mlir::amp::gpu_lowering::isDenseMemRef;

namespace {
struct GPUPrepareLinalgPass
    : amp::impl::GPUPrepareLinalgPassBase<GPUPrepareLinalgPass> {
  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    SmallVector<linalg::GenericOp> generics;
    getOperation().walk([&](Operation *op) {
      if (auto copy = dyn_cast<memref::CopyOp>(op)) {
        if (!isDenseMemRef(copy.getSource()) ||
            !isDenseMemRef(copy.getTarget()))
          copies.push_back(copy);
      } else if (auto generic = dyn_cast<linalg::GenericOp>(op)) {
        generics.push_back(generic);
      }
    });
    for (memref::CopyOp copy : copies) {
      OpBuilder b(copy);
      linalg::CopyOp::create(b, copy.getLoc(), copy.getSource(),
                             copy.getTarget());
      copy->erase();
    }
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp generic : generics) {
      SmallVector<unsigned> parallel, reduction;
      for (auto [i, type] : llvm::enumerate(generic.getIteratorTypesArray()))
        (type == utils::IteratorType::parallel ? parallel : reduction)
            .push_back(i);
      if (parallel.empty() || reduction.empty() ||
          reduction.front() > parallel.back())
        continue;
      SmallVector<unsigned> order(parallel);
      order.append(reduction);
      rewriter.setInsertionPoint(generic);
      (void)linalg::interchangeGenericOp(rewriter, generic, order);
    }
  }
};
} // namespace
