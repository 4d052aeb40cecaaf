//===- LinalgToGPUUtils.h - helpers shared by the LinalgToGPU passes -*- C++
//-*-===//
//
// Internal to lib/Conversion/LinalgToGPU: where an op runs (host or
// kernel) and which buffers are dense.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_CONVERSION_LINALGTOGPU_LINALGTOGPUUTILS_H
#define AMP_LIB_CONVERSION_LINALGTOGPU_LINALGTOGPUUTILS_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"

namespace mlir::amp::gpu_lowering {

/// Whether `op` is device code: in a gpu.launch or a gpu.module.
inline bool isInsideKernel(Operation *op) {
  return op->getParentOfType<gpu::LaunchOp>() ||
         op->getParentOfType<gpu::GPUModuleOp>();
}

/// Whether `value` is a ranked memref with the identity layout (a dense
/// row-major buffer, as opposed to a strided view).
inline bool isDenseMemRef(Value value) {
  auto type = dyn_cast<MemRefType>(value.getType());
  return type && type.getLayout().isIdentity();
}

} // namespace mlir::amp::gpu_lowering

#endif // AMP_LIB_CONVERSION_LINALGTOGPU_LINALGTOGPUUTILS_H
