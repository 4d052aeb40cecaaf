//===- DeviceBuffers.cpp - host buffers to device memory ------------------===//
//
// The amp-gpu-device-buffers pass. Host buffers become device buffers:
// memref.alloc/dealloc outside kernels become gpu.alloc/gpu.dealloc (device
// memory, not host-shared; gpu-to-llvm calls mgpuMemAlloc/mgpuMemFree,
// which amp's runtime serves from a pool), memref.copy between dense
// buffers becomes gpu.memcpy. They are made asynchronous and ordered with
// the launches later by gpu-async-region.
//
//===----------------------------------------------------------------------===//

#include "amp/Codegen/GPU/Passes.h"

#include "LinalgToGPUUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::amp {
#define GEN_PASS_DEF_GPUDEVICEBUFFERSPASS
#include "amp/Codegen/GPU/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using mlir::amp::gpu_lowering::isDenseMemRef;
using mlir::amp::gpu_lowering::isInsideKernel;

namespace {
struct GPUDeviceBuffersPass
    : amp::impl::GPUDeviceBuffersPassBase<GPUDeviceBuffersPass> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (isa<memref::AllocOp, memref::DeallocOp, memref::CopyOp>(op) &&
          !isInsideKernel(op))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      OpBuilder b(op);
      Location loc = op->getLoc();
      if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
        if (!alloc.getSymbolOperands().empty())
          continue;
        auto gpuAlloc = gpu::AllocOp::create(
            b, loc, alloc.getType(), /*asyncToken=*/Type(), ValueRange(),
            alloc.getDynamicSizes(), ValueRange(), /*hostShared=*/false);
        alloc.replaceAllUsesWith(gpuAlloc.getMemref());
        alloc->erase();
      } else if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
        gpu::DeallocOp::create(b, loc, Type(), ValueRange(),
                               dealloc.getMemref());
        dealloc->erase();
      } else if (auto copy = dyn_cast<memref::CopyOp>(op)) {
        if (!isDenseMemRef(copy.getSource()) ||
            !isDenseMemRef(copy.getTarget()))
          continue;
        gpu::MemcpyOp::create(b, loc, Type(), ValueRange(), copy.getTarget(),
                              copy.getSource());
        copy->erase();
      }
    }
  }
};
} // namespace
