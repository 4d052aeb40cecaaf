/*===- CPUGemm.h - the matrix products of compiled CPU steps --------*- C
-*-===*\
|*                                                                            *|
|* What compiled CPU steps call for an f32 matrix product (amp-cpu-           *|
|* contractions-to-blas, docs/Lowering.md): the BLAS's sgemm on the model     *|
|* runtime's threads (lib/Runtime/CPUGemm.cpp), with results that do not      *|
|* depend on the number of threads.                                           *|
\*===----------------------------------------------------------------------===*/

#ifndef AMP_RUNTIME_CPUGEMM_H
#define AMP_RUNTIME_CPUGEMM_H

#ifdef __cplusplus
extern "C" {
#endif

/* cblas_sgemm's arguments and meaning (row-major order only: 101). The
   larger of C's dimensions is cut into panels whose number and bounds
   depend on m, n and k alone; each panel is one single-threaded sgemm call,
   and the panels run on the threads of amp_cpu_parallel_for. So every
   element of C is computed by the same call, in the same order, whatever
   the thread count: BLASes that thread one product themselves (OpenBLAS on
   AMD Zen) round differently with 1 and 2 threads. */
void amp_cpu_sgemm(int order, int trans_a, int trans_b, int m, int n, int k,
                   float alpha, const float *a, int lda, const float *b,
                   int ldb, float beta, float *c, int ldc);

#ifdef __cplusplus
}
constexpr const char kCPUSgemmFunc[] = "amp_cpu_sgemm";
#endif

#endif /* AMP_RUNTIME_CPUGEMM_H */
