//===- StridedCopies.cpp - strided memref.copy as loops -------------------===//
//
// The amp-cpu-strided-copies-to-loops pass: a memref.copy from or into a
// strided view (the interior of a padded convolution input) becomes a
// linalg.generic, lowered to loops like every other op. Left as it is,
// finalize-memref-to-llvm makes such a copy a call to the runtime's generic
// memrefCopy, which moves one element per memcpy call.
//
//===----------------------------------------------------------------------===//

#include "amp/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"

namespace mlir::amp {
#define GEN_PASS_DEF_CPUSTRIDEDCOPIESTOLOOPSPASS
#include "amp/Codegen/CPU/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;

namespace {
/// Whether finalize-memref-to-llvm would call memrefCopy for `copy` and a
/// loop nest can do it instead: static shapes, one of the two sides not
/// contiguous (both contiguous is one llvm.memcpy).
bool isStridedCopy(memref::CopyOp copy) {
  auto source = dyn_cast<MemRefType>(copy.getSource().getType());
  auto target = dyn_cast<MemRefType>(copy.getTarget().getType());
  if (!source || !target || !source.hasStaticShape() ||
      !target.hasStaticShape())
    return false;
  return !memref::isStaticShapeAndContiguousRowMajor(source) ||
         !memref::isStaticShapeAndContiguousRowMajor(target);
}

struct CPUStridedCopiesToLoopsPass
    : amp::impl::CPUStridedCopiesToLoopsPassBase<CPUStridedCopiesToLoopsPass> {
  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    getOperation()->walk([&](memref::CopyOp copy) {
      if (isStridedCopy(copy))
        copies.push_back(copy);
    });
    for (memref::CopyOp copy : copies) {
      OpBuilder b(copy);
      linalg::makeMemRefCopyOp(b, copy.getLoc(), copy.getSource(),
                               copy.getTarget());
      copy.erase();
    }
  }
};
} // namespace
