//===- LinalgToGPUUtils.h - helpers shared by the LinalgToGPU passes -*- C++
//-*-===//
//
// Internal to lib/Codegen/GPU/LinalgToGPU: where an op runs (host or
// kernel), which buffers are dense, which may alias and which an op
// touches (BufferEffects.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_CODEGEN_GPU_LINALGTOGPU_LINALGTOGPUUTILS_H
#define AMP_LIB_CODEGEN_GPU_LINALGTOGPU_LINALGTOGPUUTILS_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/Operation.h"

namespace mlir::amp::gpu_lowering {

/// A kernel's parameters must fit in 4352 bytes (sm_90 below PTX 8.1): a
/// kernel made of batched work (amp-gpu-batch-loops, batched full
/// reductions) keeps its parameters below this, with room for the
/// launch's own.
constexpr int64_t kMaxParameterBytes = 3584;

/// The bytes of kernel parameters `value` becomes when a kernel captures
/// it: a memref's descriptor (two pointers, the offset, sizes and strides),
/// 8 bytes for a scalar; none for a constant (sunk into the kernel).
inline int64_t parameterBytes(Value value) {
  if (matchPattern(value, m_Constant()))
    return 0;
  if (auto type = dyn_cast<MemRefType>(value.getType()))
    return 8 * (3 + 2 * type.getRank());
  return 8;
}

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

/// The buffer `v` is a view of.
Value rootOf(Value v);

/// Whether two memrefs may share memory: views of the same buffer, or
/// neither a fresh allocation.
bool mayAlias(Value a, Value c);
bool mayAliasAny(Value v, ArrayRef<Value> buffers);

/// mayAlias, but distinct arguments of the function are distinct buffers:
/// the step's arguments and its results (out-parameters after
/// buffer-results-to-out-params) are values of a tensor program, which the
/// runtime passes in buffers of their own.
bool mayAliasInStep(Value a, Value c);
bool mayAliasAnyInStep(Value v, ArrayRef<Value> buffers);

/// The buffer a pointer argument of a runtime call (a GEMM's, an FP8
/// GEMM's) was taken from (memref.extract_aligned_pointer_as_index,
/// arith.index_cast, llvm.inttoptr); a null Value for the null placeholder
/// of the stream; failure for anything else. (BufferEffects.cpp)
FailureOr<Value> pointerBuffer(Value pointer);

/// Appends the buffers `op` (and what it contains) accesses to `touched`,
/// those it writes or frees to `written`; false when some are unknown. A
/// call of the runtime's GEMMs (amp_gpu_gemm*) touches and writes the
/// buffers its pointer arguments were taken from.
bool collectEffects(Operation *op, SmallVectorImpl<Value> &touched,
                    SmallVectorImpl<Value> &written);

/// The constant the fresh buffer `out` was filled with, if that fill is its
/// only use before `reader` (the fill then goes: `reader` starts from the
/// constant instead), else null.
Value takeFillConstant(Value out, Operation *reader);

/// Replaces each transposed copy of a static dense 2-D buffer under `root`
/// (a linalg.generic on the host) by a launch moving tiles through
/// workgroup memory, coalesced on both sides (TiledTransposes.cpp).
void tileTransposes(Operation *root);

} // namespace mlir::amp::gpu_lowering

#endif // AMP_LIB_CODEGEN_GPU_LINALGTOGPU_LINALGTOGPUUTILS_H
