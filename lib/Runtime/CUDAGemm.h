//===- CUDAGemm.h - cuBLASLt, loaded at run time ----------------*- C++ -*-===//
//
// Internal to libamp_cuda_runtime; amp_gpu_gemm itself is declared in
// amp/Runtime/CUDAKernels.h.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_RUNTIME_CUDAGEMM_H
#define AMP_LIB_RUNTIME_CUDAGEMM_H

namespace amp {
namespace cuda {

/// Opens libcublasLt.so.13 (the default search path, then the configured
/// toolkit's lib64) and resolves every function the GEMMs use, once; false
/// with the sticky error. Needs no GPU: the check program uses it to test the
/// loader where there is none.
bool loadCublasLt();

} // namespace cuda
} // namespace amp

#endif // AMP_LIB_RUNTIME_CUDAGEMM_H
