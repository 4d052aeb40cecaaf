//===- CublasLtFp8Rules.h - what cuBLASLt's FP8 GEMMs run -------*- C++ -*-===//
//
// The FP8 GEMMs (amp_gpu_gemm_fp8, amp/Runtime/CUDAKernels.h; amp.fp8_matmul
// on the GPU) that cuBLASLt runs, in one place: the compiler asks it which
// amp.fp8_matmul to hand to cuBLASLt (and which transposes to materialize),
// the runtime refuses with a clear error before building a plan, and the
// emulated cuBLASLt (lib/Runtime/Emulator/Lt.cpp) refuses what the real
// library refuses. Header-only, no LLVM or MLIR.
//
// Every rule is stated in amp's row-major terms (CUDAKernels.h): D (m x n)
// = op(A) x op(B), op(A) m x k, op(B) k x n. The runtime hands cuBLASLt the
// transposed problem D^T = op(B)^T op(A)^T (lib/Runtime/CUDAGemm.cpp), so
// cuBLASLt's A is our B and its B our A.
//
// Sources (cuBLAS 12.x/13.x):
//  doc  docs.nvidia.com/cuda/cublas, cublasLtMatmul(), "FP8" requirements
//       and the table of FP8 type combinations (A/B/C/D/bias types), and
//       "Tensor Core Usage" (16-byte alignment of pointers and leading
//       dimensions);
//  hdr  cublasLt.h of CUDA 13.0 (CUBLASLT_MATMUL_DESC_A_SCALE_POINTER,
//       _B_SCALE_POINTER, _AMAX_D_POINTER, _FAST_ACCUM, _BIAS_DATA_TYPE);
//  PT   pytorch/pytorch aten/src/ATen/native/cuda/Blas.cpp (_scaled_mm's
//       checks, run against cuBLASLt on H100s) and pull request 122821
//       (word from the cuBLAS team: no amax of a non-FP8 D);
//  XLA  tensorflow/tensorflow pull requests 59515 (operands transposed into
//       the TN form) and 60306 (no f32 bias vector in an FP8 matmul).
//
// Fixed by the runtime, not configurable: compute type CUBLAS_COMPUTE_32F
// and scale type CUDA_R_32F (doc: the only ones FP8 kernels take; the
// emulated cuBLASLt refuses others with FP8 operands), per-tensor f32
// scales through A_SCALE_POINTER and B_SCALE_POINTER (the dequantizing
// scale inverses: cuBLASLt multiplies the product by them), alpha 1,
// beta 0.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNTIME_CUBLASLTFP8RULES_H
#define AMP_RUNTIME_CUBLASLTFP8RULES_H

#include "amp/Runtime/ModelABI.h"

#include <cstdint>

namespace amp {

/// One FP8 GEMM in amp's row-major terms, with dense operands: A is m x k
/// (k x m when transA), B is k x n (n x k when transB), D is m x n.
struct Fp8GemmConfig {
  int32_t aType, bType, dType; // amp_dtype (ModelABI.h)
  int64_t m, n, k;
  bool transA, transB;
  /// The BIAS epilogue's vector type (amp_dtype), or -1 for no bias.
  int32_t biasType = -1;
  /// Whether the amax of D is asked for (CUBLASLT_MATMUL_DESC_AMAX_D_POINTER).
  bool amaxD = false;
};

inline bool isFp8Dtype(int32_t dtype) {
  return dtype == AMP_DTYPE_F8E4M3FN || dtype == AMP_DTYPE_F8E5M2;
}

/// F1: doc: FP8 kernels need compute capability 8.9 (Ada) or newer.
constexpr int kFp8MinSM = 89;

/// F4: doc: "A must be transposed and B non-transposed (the TN format)" on
/// Ada (sm_89), Hopper (sm_90) and Blackwell GeForce (sm_12x); data-center
/// Blackwell (sm_10x) takes every layout. cuBLASLt's A transposed is our B
/// stored n x k (transB), its B untransposed our A stored m x k (no
/// transA): both operands with k contiguous.
inline bool fp8NeedsTN(int sm) { return !(sm >= 100 && sm < 120); }

/// The bias type cuBLASLt's FP8 GEMMs take beside D of `dType` (doc's FP8
/// table; XLA 60306: no f32 bias): f16 for an f16 D, bf16 for a bf16 or
/// f32 D; -1 for a D amp does not write.
inline int32_t fp8BiasType(int32_t dType) {
  if (dType == AMP_DTYPE_F16)
    return AMP_DTYPE_F16;
  if (dType == AMP_DTYPE_BF16 || dType == AMP_DTYPE_F32)
    return AMP_DTYPE_BF16;
  return -1;
}

/// Null when cuBLASLt runs `config` on compute capability `sm` (e.g. 90);
/// else the reason, a sentence naming the rule (for errors and remarks).
inline const char *cublasLtFp8Refusal(const Fp8GemmConfig &config, int sm) {
  const Fp8GemmConfig &c = config;
  if (sm < kFp8MinSM)
    return "F1: cuBLASLt's FP8 GEMMs need compute capability 8.9 (Ada) or "
           "newer";
  // doc's table: E4M3 x E4M3, E4M3 x E5M2 and E5M2 x E4M3; never E5M2 x
  // E5M2 (symmetric, so cuBLASLt's swapped operands change nothing).
  if (!isFp8Dtype(c.aType) || !isFp8Dtype(c.bType))
    return "F2: both operands of an FP8 GEMM are f8E4M3FN or f8E5M2";
  if (c.aType == AMP_DTYPE_F8E5M2 && c.bType == AMP_DTYPE_F8E5M2)
    return "F2: cuBLASLt has no f8E5M2 x f8E5M2 GEMM (one operand must be "
           "f8E4M3FN)";
  // doc's table also lists FP8 outputs (with D scales and amax); amp's FP8
  // GEMMs write 16- or 32-bit results, and C is D's type (beta 0).
  if (c.dType != AMP_DTYPE_BF16 && c.dType != AMP_DTYPE_F16 &&
      c.dType != AMP_DTYPE_F32)
    return "F3: amp's FP8 GEMMs write bf16, f16 or f32 results";
  if (c.m <= 0 || c.n <= 0 || c.k <= 0)
    return "F0: the sizes of an FP8 GEMM must be positive";
  if (fp8NeedsTN(sm) && (c.transA || !c.transB))
    return "F4: cuBLASLt's FP8 GEMMs take only the TN layout on this GPU: A "
           "stored m x k and B stored n x k (row-major, k contiguous in "
           "both); transpose the operands first";
  // doc, Tensor Core Usage: leading dimensions of 16 bytes' multiples; with
  // one-byte elements and k contiguous, both leading dimensions are k. PT
  // checks k and n (mat2's sizes) modulo 16; D's rows (our n) are its
  // leading dimension.
  if (c.k % 16 != 0)
    return "F5: cuBLASLt's FP8 GEMMs need k to be a multiple of 16 (the "
           "operands' leading dimensions, 16 bytes)";
  if (c.n % 16 != 0)
    return "F5: cuBLASLt's FP8 GEMMs need n to be a multiple of 16 (D's "
           "leading dimension and B's rows)";
  if (c.biasType != -1 && c.biasType != fp8BiasType(c.dType))
    return c.dType == AMP_DTYPE_F16
               ? "F6: an FP8 GEMM's bias beside an f16 result is f16"
               : "F6: an FP8 GEMM's bias beside a bf16 or f32 result is bf16 "
                 "(cuBLASLt takes no f32 bias in FP8 GEMMs)";
  // PT 122821 (word from the cuBLAS team): amax is computed for FP8 D
  // only, which amp does not write.
  if (c.amaxD)
    return "F7: cuBLASLt computes the amax of D (AMAX_D_POINTER) only when D "
           "is FP8";
  return nullptr;
}

/// F8 (doc, Tensor Core Usage): A, B and D start on 16-byte boundaries.
/// F9 (seen on an H200, cuBLASLt 13.1, 2026-11-30; no document states it):
/// so do the A and B scale pointers. With a scale 4 or 8 bytes past a
/// 16-byte boundary the heuristic still answers CUBLAS_STATUS_SUCCESS, and
/// cublasLtMatmul CUBLAS_STATUS_NOT_SUPPORTED; 16, 32 bytes or separate
/// allocations run. Null scales (read as 1) pass. Null when all are
/// aligned, else the reason.
inline const char *cublasLtFp8PointerRefusal(const void *a, const void *b,
                                             const void *d, const void *aScale,
                                             const void *bScale) {
  auto misaligned = [](const void *p) {
    return reinterpret_cast<uintptr_t>(p) % 16 != 0;
  };
  if (misaligned(a) || misaligned(b) || misaligned(d))
    return "F8: cuBLASLt's FP8 GEMMs need A, B and D on 16-byte boundaries";
  if (misaligned(aScale) || misaligned(bScale))
    return "F9: cuBLASLt's FP8 GEMMs need the A and B scale pointers on "
           "16-byte boundaries";
  return nullptr;
}

} // namespace amp

#endif // AMP_RUNTIME_CUBLASLTFP8RULES_H
