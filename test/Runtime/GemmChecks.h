//===- GemmChecks.h - amp_gpu_gemm checks shared by both devices -*- C++
//-*-===//
//
// The GEMM checks of the CUDA runtime (include/amp/Runtime/CUDAKernels.h),
// written against the device ABI alone, so that the same checks run on the
// emulated device (amp-cuda-emulator-check) and on a GPU
// (amp-cuda-runtime-check): exact inputs, exact comparisons with a direct
// computation. Each prints one line per case ("NAME: ok" or "NAME: FAIL");
// the runtime's errors are sticky, so each check runs in its own process.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_TEST_RUNTIME_GEMMCHECKS_H
#define AMP_TEST_RUNTIME_GEMMCHECKS_H

#include "amp/Runtime/DeviceRuntime.h"

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace amp::check {

inline const amp_device_ops &ops() { return *amp_cuda_device_ops(); }

/// Failed expectations so far.
inline int failures = 0;

inline void expect(bool condition, const std::string &what) {
  std::printf("%s: %s\n", what.c_str(), condition ? "ok" : "FAIL");
  failures += !condition;
}

/// Device buffer of `count` T, optionally filled from `values`.
template <typename T> T *deviceBuffer(size_t count, const T *values = nullptr) {
  void *pointer = ops().alloc(count * sizeof(T));
  if (values)
    ops().copy_to_device(pointer, values, count * sizeof(T));
  return static_cast<T *>(pointer);
}

template <typename T> std::vector<T> toHost(const T *pointer, size_t count) {
  std::vector<T> values(count);
  if (ops().copy_to_host(values.data(), pointer, count * sizeof(T)) != 0)
    std::printf("error: %s\n", ops().last_error());
  return values;
}

/// Values in [-2, 2] with 1/8 steps: sums and products of a few are exact
/// in f32, so results are exact and rounded once to their type.
std::vector<float> dyadic(size_t count, uint32_t seed);
size_t dtypeBytes(int32_t dtype);
const char *dtypeName(int32_t dtype);
/// `values` as a new device buffer of `dtype` (f32, f16 or bf16).
void *upload(int32_t dtype, const std::vector<float> &values);
/// `count` values of `dtype` at device `pointer`, widened to f32.
std::vector<float> download(int32_t dtype, const void *pointer, size_t count);
/// `value` rounded to `dtype`.
float roundTo(int32_t dtype, double value);

/// amp_gpu_gemm: every dtype pair, transpose and batch stride.
int checkGemms();
/// amp_gpu_gemm_epilogue: the bias (f32 for an f32 C, C's type otherwise)
/// and bias-gradient epilogues.
int checkEpilogues();
/// amp_gpu_gemm_ex with C and D apart: no epilogue, bias, bias gradient.
int checkGemmsApart();
/// A bad epilogue call, printed: `what` is unknown (epilogue 99), null (no
/// vector), batch (a bias gradient over 2 batches), f32-bias (an f32
/// bias with an f16 C), bgrad-f16 (an f32 bias gradient beside an f16 C) or
/// bgrad-nn (a bias gradient with A untransposed). Returns 1.
int checkEpilogueError(const std::string &what);
/// One epilogue case (5 x 7 x 9), printed as in checkEpilogues, then any
/// error: which forms a device's cuBLASLt takes.
int checkEpilogueCase(int32_t aType, int32_t cType, int32_t epilogue,
                      int transA, int transB);
/// amp_gpu_gemm_aux: GELU_AUX_BIAS, GELU_AUX and DGELU with f32, f16 and
/// bf16, every transpose, batches (shared and own B), a padded aux, against
/// GELU's tanh form in double: D within half a unit of its type plus
/// `tolerance` x (|x| + 1) (the error of evaluating GELU in f32, or a
/// device's approximate tanh), aux exactly.
int checkGeluEpilogues(double tolerance);
/// A bad amp_gpu_gemm_aux call (8 x 16 x 8, f32), printed: `what` is ld12
/// or ld8 (the aux's leading dimension not a multiple of 8, or below n =
/// 16), misaligned (aux 4 bytes into its buffer), null (no aux), bounds
/// (aux smaller than m x n), bias (a non-GELU epilogue), no-bias
/// (GELU_AUX_BIAS without its vector) or no-aux (DGELU through
/// amp_gpu_gemm_epilogue). Returns 1.
int checkAuxError(const std::string &what);
/// TF32 rounds f32 inputs to 10 mantissa bits; f32 does not.
int checkTF32();
/// amp_gpu_dp_* (CollectiveChecks.cpp) as one rank: every dtype and
/// reduction in one NCCL group on the step's stream, compared exactly.
int checkCollectives();

} // namespace amp::check

#endif // AMP_TEST_RUNTIME_GEMMCHECKS_H
