/*===- CUDAKernels.h - runtime functions compiled GPU code calls ---*- C
-*-===*\
|*                                                                            *|
|* Host code made by amp-gpu-pipeline calls these (besides the mgpu* ABI of   *|
|* MLIR's gpu-to-llvm lowering, which lib/Runtime/CUDARuntime.cpp also        *|
|* implements). Pointers are device pointers of row-major dense tensors.      *|
\*===----------------------------------------------------------------------===*/

#ifndef AMP_RUNTIME_CUDAKERNELS_H
#define AMP_RUNTIME_CUDAKERNELS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Element types of GEMM operands: the values of amp_dtype (ModelABI.h). */

/* For b in [0, batch):
     C[b] = alpha * op(A[b]) x op(B[b]) + beta * C[b]
   with op(A[b]) an m x k matrix and op(B[b]) a k x n matrix. A[b] is stored
   row-major as m x k, or as k x m when trans_a is non-zero; B[b] as k x n, or
   n x k when trans_b is non-zero; C[b] is m x n and dense. stride_a and
   stride_b are the elements between consecutive A[b] and B[b] (m*k and k*n
   when dense; 0 broadcasts one matrix to every batch); C[b] are m*n apart.
   Products accumulate in f32 (tensor cores for f16 and bf16). For f32 operands,
   allow_tf32 permits TF32 tensor cores. a_dtype == b_dtype; c_dtype is f32 or
   a_dtype. The product is queued on `stream` (a CUstream; null: the runtime's
   stream) after the work already queued there, like a kernel launch: the
   caller need not wait for the GPU before the call, and C is ready when the
   stream has run it. On failure the error is sticky
   (amp_device_ops.last_error) and C is unchanged. */
void amp_gpu_gemm(int32_t a_dtype, int32_t c_dtype, int64_t batch, int64_t m,
                  int64_t n, int64_t k, int32_t trans_a, int32_t trans_b,
                  const void *a, int64_t stride_a, const void *b,
                  int64_t stride_b, void *c, float alpha, float beta,
                  int32_t allow_tf32, void *stream);

/* Epilogues of amp_gpu_gemm_epilogue (cuBLASLt's, in row-major terms). */
enum amp_gemm_epilogue {
  /* C[b][i][j] = alpha * (op(A) x op(B))[i][j] + beta * C + vector[j]: the
     bias (n f32 values) added in f32 before C is rounded to c_dtype
     (cuBLASLt's BIAS epilogue with an f32 bias). */
  AMP_GEMM_EPILOGUE_BIAS = 1,
  /* The product as amp_gpu_gemm, and vector[i] = sum over l of
     op(A)[i][l] in f32 (m values, batch 1): a bias gradient taken from A
     while it is read (cuBLASLt's BGRADB, our A being its B). */
  AMP_GEMM_EPILOGUE_BGRAD_A = 2,
  /* As BIAS with the bias in c_dtype (n values of C's type), added in f32
     before C is rounded. cuBLASLt takes only this form when C is f16 or
     bf16 (an f32 bias with a 16-bit C is CUBLAS_STATUS_INVALID_VALUE, seen
     with cuBLASLt 13.1 on an H200), so BIAS needs an f32 C. */
  AMP_GEMM_EPILOGUE_BIAS_C_TYPE = 3,
  /* amp_gpu_gemm_aux only. GELU in its tanh form, gelu(x) = x/2 (1 +
     tanh(sqrt(2/pi) (x + 0.044715 x^3))), the only one cuBLASLt computes:
     x = alpha * (op(A) x op(B))[i][j] + beta * C + vector[j] (vector: n
     values of c_dtype) in f32, D = gelu(x) and aux = x, each rounded once to
     c_dtype (cuBLASLt's GELU_AUX_BIAS). */
  AMP_GEMM_EPILOGUE_GELU_AUX_BIAS = 4,
  /* The same without the bias (cuBLASLt's GELU_AUX). */
  AMP_GEMM_EPILOGUE_GELU_AUX = 5,
  /* amp_gpu_gemm_aux only: D = (alpha * op(A) x op(B) + beta * C) *
     gelu'(aux) in f32, rounded once to c_dtype, with gelu the tanh form
     above and aux (of c_dtype) the GELU's input that GELU_AUX[_BIAS] wrote
     (cuBLASLt's DGELU). */
  AMP_GEMM_EPILOGUE_DGELU = 6
};

/* amp_gpu_gemm with an epilogue (enum amp_gemm_epilogue) reading or
   writing `vector` (f32, or c_dtype for BIAS_C_TYPE); same operands, stream
   and errors. */
void amp_gpu_gemm_epilogue(int32_t a_dtype, int32_t c_dtype, int64_t batch,
                           int64_t m, int64_t n, int64_t k, int32_t trans_a,
                           int32_t trans_b, const void *a, int64_t stride_a,
                           const void *b, int64_t stride_b, void *c,
                           float alpha, float beta, int32_t allow_tf32,
                           int32_t epilogue, void *vector, void *stream);

/* The general form, with C and D apart:
     D[b] = alpha * op(A[b]) x op(B[b]) + beta * C[b] [+ epilogue]
   C and D are both of c_dtype and m x n dense; D may be C (then this is
   amp_gpu_gemm_epilogue). C is only read, and not at all when beta is 0. A
   residual added to a product is beta = 1 with C the residual and D the
   sum, so no kernel reads the product back (cuBLASLt computes the same; its
   BIAS epilogue adds the vector after beta * C). `epilogue` 0 is none
   (`vector` then unused); otherwise as amp_gpu_gemm_epilogue. Same stream
   and errors. */
void amp_gpu_gemm_ex(int32_t a_dtype, int32_t c_dtype, int64_t batch, int64_t m,
                     int64_t n, int64_t k, int32_t trans_a, int32_t trans_b,
                     const void *a, int64_t stride_a, const void *b,
                     int64_t stride_b, const void *c, float alpha, float beta,
                     int32_t allow_tf32, int32_t epilogue, void *vector,
                     void *d, void *stream);

/* amp_gpu_gemm_ex with an auxiliary m x n matrix of c_dtype for the GELU
   epilogues (AMP_GEMM_EPILOGUE_GELU_AUX_BIAS and GELU_AUX write it,
   AMP_GEMM_EPILOGUE_DGELU reads it): row i of aux[b] starts aux_ld
   elements after row i - 1 (aux_ld >= n, a multiple of 8, as cuBLASLt
   requires of the GELU input's leading dimension) and aux[b] starts m *
   aux_ld elements after aux[b - 1]; aux is 16-byte aligned. `vector` is the
   bias of GELU_AUX_BIAS (n values of c_dtype), unused otherwise. Other
   epilogues are those of amp_gpu_gemm_ex. Same stream and errors. */
void amp_gpu_gemm_aux(int32_t a_dtype, int32_t c_dtype, int64_t batch,
                      int64_t m, int64_t n, int64_t k, int32_t trans_a,
                      int32_t trans_b, const void *a, int64_t stride_a,
                      const void *b, int64_t stride_b, const void *c,
                      float alpha, float beta, int32_t allow_tf32,
                      int32_t epilogue, void *vector, void *aux, int64_t aux_ld,
                      void *d, void *stream);

/* An FP8 GEMM on cuBLASLt (amp.fp8_matmul on the GPU):
     D[i][j] = (sum over l of op(A)[i][l] * op(B)[l][j])
               * (a_scale_inv[0] * b_scale_inv[0]) + bias[j]
   with op(A) m x k and op(B) k x n as in amp_gpu_gemm (trans_a, trans_b),
   products and sums in f32, rounded once to d_dtype. a_dtype and b_dtype
   are AMP_DTYPE_F8E4M3FN or AMP_DTYPE_F8E5M2 (not both f8E5M2); d_dtype
   is bf16, f16 or f32. a_scale_inv and b_scale_inv are device pointers to
   one f32 each (cuBLASLt's A/B_SCALE_POINTER: read when the GEMM runs, so
   a graph replays with the values of then). `bias` is null or n values of
   bf16 (f16 for an f16 D): cuBLASLt's FP8 GEMMs take no f32 bias.
   fast_accum non-zero lets cuBLASLt accumulate with fewer promotions to
   full f32 (CUBLASLT_MATMUL_DESC_FAST_ACCUM: faster, less accurate; the
   compiler sets it for forward GEMMs only). No amax of D is offered:
   cuBLASLt computes AMAX_D only for FP8 outputs. What cuBLASLt runs is
   amp::cublasLtFp8Refusal's (amp/Runtime/CublasLtFp8Rules.h): on sm_89,
   sm_90 and sm_12x only trans_a = 0, trans_b = 1 (A stored m x k, B
   stored n x k), k and n multiples of 16, A, B and D 16-byte aligned; a
   call it refuses is an error naming the rule. Same stream and errors as
   amp_gpu_gemm. */
void amp_gpu_gemm_fp8(int32_t a_dtype, int32_t b_dtype, int32_t d_dtype,
                      int64_t m, int64_t n, int64_t k, int32_t trans_a,
                      int32_t trans_b, const void *a, const void *b,
                      const float *a_scale_inv, const float *b_scale_inv,
                      const void *bias, int32_t fast_accum, void *d,
                      void *stream);

#ifdef __cplusplus
}
/* The FP8 GEMM's name, as the compiler calls it. */
constexpr const char kGPUGemmFp8Func[] = "amp_gpu_gemm_fp8";
#endif

#endif /* AMP_RUNTIME_CUDAKERNELS_H */
