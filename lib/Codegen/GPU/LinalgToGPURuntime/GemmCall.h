//===- GemmCall.h - the runtime's GEMM entry points -------------*- C++ -*-===//
//
// The names of the functions amp-contractions-to-gemm-calls calls
// (include/amp/Runtime/CUDAKernels.h) and amp-gemm-calls-on-stream puts on
// the step's stream, with the data-parallel calls that do the same; all take
// the stream as their last operand.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_CODEGEN_GPU_LINALGTOGPURUNTIME_GEMMCALL_H
#define AMP_LIB_CODEGEN_GPU_LINALGTOGPURUNTIME_GEMMCALL_H

#include "amp/Runtime/Attention.h"
#include "amp/Runtime/CUDAKernels.h"
#include "amp/Runtime/DataParallel.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::amp {

/// amp_gpu_gemm(a_dtype, c_dtype, batch, m, n, k, trans_a, trans_b, a,
/// stride_a, b, stride_b, c, alpha, beta, allow_tf32, stream).
constexpr StringLiteral kGemmFunc = "amp_gpu_gemm";
/// The same operands with `epilogue, vector` before the stream.
constexpr StringLiteral kGemmEpilogueFunc = "amp_gpu_gemm_epilogue";
/// The same operands with `epilogue, vector, d` before the stream: C (only
/// read) and D (written) apart.
constexpr StringLiteral kGemmExFunc = "amp_gpu_gemm_ex";
/// The same operands as amp_gpu_gemm_ex with `aux, aux_ld` before `d`: the
/// GELU epilogues' aux matrix.
constexpr StringLiteral kGemmAuxFunc = "amp_gpu_gemm_aux";

inline bool isGemmCall(Operation *op) {
  auto call = dyn_cast_or_null<func::CallOp>(op);
  return call &&
         (call.getCallee() == kGemmFunc ||
          call.getCallee() == kGemmEpilogueFunc ||
          call.getCallee() == kGemmExFunc || call.getCallee() == kGemmAuxFunc);
}

/// Whether `op` calls a runtime function that only queues work on the
/// stream given as its last operand: a GEMM, cuDNN's fused attention
/// (include/amp/Runtime/Attention.h) or a data-parallel collective
/// (include/amp/Runtime/DataParallel.h).
inline bool isStreamCall(Operation *op) {
  auto call = dyn_cast_or_null<func::CallOp>(op);
  return call &&
         (isGemmCall(call) ||
          llvm::is_contained(
              {StringRef(kGPUAttentionFwdFunc), StringRef(kGPUAttentionBwdFunc),
               StringRef(kGPUAttentionFwdStridedFunc),
               StringRef(kGPUAttentionBwdStridedFunc),
               StringRef(kGPUDPGroupBegin), StringRef(kGPUDPAllReduce),
               StringRef(kGPUDPGroupEnd), StringRef(kGPUGemmFp8Func)},
              call.getCallee()));
}

} // namespace mlir::amp

#endif // AMP_LIB_CODEGEN_GPU_LINALGTOGPURUNTIME_GEMMCALL_H
