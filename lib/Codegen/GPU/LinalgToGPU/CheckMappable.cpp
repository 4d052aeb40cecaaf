//===- CheckMappable.cpp - no host code touching device memory ------------===//
//
// The amp-gpu-check-mappable pass. Nothing may touch memory on the host:
// the host code the GPU pipeline emits only allocates device buffers,
// launches kernels, copies between buffers and calls the runtime. Anything
// else left on the host (a loop, a load or store, a linalg op, a host
// allocation) would read device pointers on the CPU: it is reported here,
// on the op, before anything is lowered further.
//
//===----------------------------------------------------------------------===//

#include "amp/Codegen/GPU/Passes.h"

#include "LinalgToGPUUtils.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::amp {
#define GEN_PASS_DEF_GPUCHECKMAPPABLEPASS
#include "amp/Codegen/GPU/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using mlir::amp::gpu_lowering::isInsideKernel;

namespace {
struct GPUCheckMappablePass
    : amp::impl::GPUCheckMappablePassBase<GPUCheckMappablePass> {
  void runOnOperation() override {
    bool failed = false;
    getOperation().walk([&](func::FuncOp func) {
      func.walk([&](Operation *op) {
        if (isInsideKernel(op))
          return WalkResult::skip();
        if (isa<memref::AllocOp, memref::AllocaOp>(op)) {
          op->emitError() << "amp-gpu-pipeline: a host buffer is left that "
                             "could not be moved to device memory";
          failed = true;
        } else if (isa<scf::ParallelOp, scf::ForOp, scf::WhileOp>(op)) {
          op->emitError() << "amp-gpu-pipeline: a loop is left on the host "
                             "that could not be mapped to GPU blocks and "
                             "threads";
          failed = true;
        } else if (isa<memref::LoadOp, memref::StoreOp, memref::CopyOp,
                       affine::AffineLoadOp, affine::AffineStoreOp>(op) ||
                   isa<linalg::LinalgDialect>(op->getDialect())) {
          op->emitError() << "amp-gpu-pipeline: this op would access device "
                             "memory from the host";
          failed = true;
        }
        return WalkResult::advance();
      });
    });
    if (failed)
      signalPassFailure();
  }
};
} // namespace
