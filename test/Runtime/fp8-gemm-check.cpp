//===- fp8-gemm-check.cpp - amp_gpu_gemm_fp8 and cuBLASLt's FP8 rules -----===//
//
// amp-cuda-fp8-gemm-check MODE [WHAT]: amp_gpu_gemm_fp8 (lib/Runtime/
// CUDAGemm.cpp: the FP8 plans, scale pointers, bias and fast accumulation)
// against a reference computed here, and the rule table of
// amp/Runtime/CublasLtFp8Rules.h. Built twice: against the emulator build
// of the CUDA runtime (amp-cuda-emulator-fp8-gemm-check, the emulated
// cuBLASLt of lib/Runtime/Emulator/Lt.cpp) and against the real one
// (amp-cuda-fp8-gemm-check, cuBLASLt on a GPU: scripts/gpu-machine.sh).
// One check per process: the runtime's errors are sticky.
//
//   rules        cublasLtFp8Refusal's table (needs no device)
//   gemm         every operand pair cuBLASLt takes (e4m3 x e4m3, e4m3 x
//                e5m2, e5m2 x e4m3), bf16 and f32 results, with and
//                without a bias, with and without fast accumulation, three
//                shapes, and a NaN operand; the inputs make every sum exact
//                in f32 whatever the order, so D must equal the exact
//                result rounded once to its type, bit for bit
//   graph        the GEMM captured in a CUDA graph and replayed after the
//                scales changed: the replay reads the scales of then
//   refuse WHAT  a call cuBLASLt refuses, with the error naming the rule:
//                e5m2 (e5m2 x e5m2), nn (B untransposed), ta (A
//                transposed), k24, n8, misaligned (A 8 bytes into its
//                buffer), null-scale, misaligned-scale (B's scale 4 bytes
//                past A's)
//   lt WHAT LIB  cuBLASLt (LIB: the emulated device's
//                libamp_cuda_emulator.so, or libcublasLt.so.13 on a GPU)
//                called directly with descriptors the runtime never
//                builds: ok, amax (AMAX_D with a bf16 D), f32-bias, tf32
//                (compute type 32F_FAST_TF32), scale-bf16 (an A scale with
//                bf16 operands), ld (A's leading dimension 40), nn (not
//                TN), e5m2 (e5m2 x e5m2), n8 (D with 8 rows),
//                scale-misaligned (B's scale 4 bytes past A's); prints the
//                heuristic's and the matmul's statuses: on a GPU, what the
//                real library says to each rule
//
//===----------------------------------------------------------------------===//

#include "DeviceGraphs.h"
#include "GemmChecks.h"

#include "amp/Runtime/CUDAKernels.h"
#include "amp/Runtime/CublasLtFp8Rules.h"
#include "amp/Runtime/ModelABI.h"
#include "amp/Runtime/Numerics.h"

#include <cublasLt.h>
#include <dlfcn.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

extern "C" void *mgpuStreamCreate();

namespace {

using namespace amp::check;

//===----------------------------------------------------------------------===//
// The rule table
//===----------------------------------------------------------------------===//

constexpr int32_t kE4M3 = AMP_DTYPE_F8E4M3FN, kE5M2 = AMP_DTYPE_F8E5M2;

/// Floats between the A and B scales in device memory: cuBLASLt reads each
/// from a 16-byte boundary (CublasLtFp8Rules.h, F9).
constexpr int64_t kScaleStride = 4;

/// The two scales, A's at the buffer's start and B's kScaleStride after.
float *deviceScales(const float (&scales)[2]) {
  float spread[kScaleStride + 1] = {scales[0]};
  spread[kScaleStride] = scales[1];
  return deviceBuffer<float>(kScaleStride + 1, spread);
}

amp::Fp8GemmConfig tn(int32_t a, int32_t b, int32_t d, int64_t m, int64_t n,
                      int64_t k) {
  amp::Fp8GemmConfig c;
  c.aType = a;
  c.bType = b;
  c.dType = d;
  c.m = m;
  c.n = n;
  c.k = k;
  c.transA = false;
  c.transB = true;
  return c;
}

int checkRules() {
  struct Case {
    const char *name;
    amp::Fp8GemmConfig config;
    int sm;
    const char *expected; // "ok" or the rule's number
  };
  amp::Fp8GemmConfig base = tn(kE4M3, kE4M3, AMP_DTYPE_BF16, 64, 32, 48);
  amp::Fp8GemmConfig nn = base, ta = base, bf16Bias = base, f32Bias = base,
                     f32D = tn(kE4M3, kE5M2, AMP_DTYPE_F32, 64, 32, 48),
                     f32DBf16Bias = f32D, f32DF32Bias = f32D, amax = base,
                     f16D = tn(kE5M2, kE4M3, AMP_DTYPE_F16, 8, 16, 16),
                     f16DBf16Bias = f16D;
  nn.transB = false;
  ta.transA = true;
  bf16Bias.biasType = AMP_DTYPE_BF16;
  f32Bias.biasType = AMP_DTYPE_F32;
  f32DBf16Bias.biasType = AMP_DTYPE_BF16;
  f32DF32Bias.biasType = AMP_DTYPE_F32;
  f16DBf16Bias.biasType = AMP_DTYPE_BF16;
  amax.amaxD = true;
  const Case cases[] = {
      {"e4m3 x e4m3 -> bf16 TN sm_90", base, 90, "ok"},
      {"e4m3 x e5m2 -> f32 TN sm_90", f32D, 90, "ok"},
      {"e5m2 x e4m3 -> f16 m 8 sm_90", f16D, 90, "ok"},
      {"e4m3 x e4m3 sm_89", base, 89, "ok"},
      {"sm_80", base, 80, "F1"},
      {"e5m2 x e5m2", tn(kE5M2, kE5M2, AMP_DTYPE_BF16, 64, 32, 48), 90, "F2"},
      {"bf16 x e4m3", tn(AMP_DTYPE_BF16, kE4M3, AMP_DTYPE_BF16, 64, 32, 48), 90,
       "F2"},
      {"-> e4m3", tn(kE4M3, kE4M3, kE4M3, 64, 32, 48), 90, "F3"},
      {"m 0", tn(kE4M3, kE4M3, AMP_DTYPE_BF16, 0, 32, 48), 90, "F0"},
      {"NN sm_90", nn, 90, "F4"},
      {"A transposed sm_90", ta, 90, "F4"},
      {"NN sm_100", nn, 100, "ok"},
      {"NN sm_120", nn, 120, "F4"},
      {"k 24", tn(kE4M3, kE4M3, AMP_DTYPE_BF16, 64, 32, 24), 90, "F5"},
      {"n 8", tn(kE4M3, kE4M3, AMP_DTYPE_BF16, 64, 8, 48), 90, "F5"},
      {"bf16 bias, bf16 D", bf16Bias, 90, "ok"},
      {"f32 bias, bf16 D", f32Bias, 90, "F6"},
      {"bf16 bias, f32 D", f32DBf16Bias, 90, "ok"},
      {"f32 bias, f32 D", f32DF32Bias, 90, "F6"},
      {"bf16 bias, f16 D", f16DBf16Bias, 90, "F6"},
      {"amax of a bf16 D", amax, 90, "F7"},
  };
  for (const Case &c : cases) {
    const char *reason = amp::cublasLtFp8Refusal(c.config, c.sm);
    std::string got = reason ? std::string(reason, 2) : "ok";
    std::printf("rules %s: %s: %s\n", c.name, reason ? reason : "runs",
                got == c.expected ? "ok" : "FAIL");
    failures += got != c.expected;
  }
  auto at = [](uintptr_t address) { return reinterpret_cast<void *>(address); };
  const char *misaligned = amp::cublasLtFp8PointerRefusal(
      at(264), at(512), at(1024), nullptr, nullptr);
  const char *scaleMisaligned = amp::cublasLtFp8PointerRefusal(
      at(256), at(512), at(1024), at(2048), at(2056));
  const char *aligned = amp::cublasLtFp8PointerRefusal(
      at(256), at(512), at(1024), at(2048), at(2064));
  bool pointerOk = aligned == nullptr && misaligned && misaligned[1] == '8' &&
                   scaleMisaligned && scaleMisaligned[1] == '9';
  std::printf("rules pointers: %s; %s: %s\n",
              misaligned ? misaligned : "16-byte aligned",
              scaleMisaligned ? scaleMisaligned : "16-byte aligned scales",
              pointerOk ? "ok" : "FAIL");
  failures += !pointerOk;
  return failures ? 1 : 0;
}

//===----------------------------------------------------------------------===//
// GEMMs against the reference
//===----------------------------------------------------------------------===//

uint8_t toFp8(int32_t dtype, float value) {
  return dtype == kE4M3 ? amp::floatToFloat8E4M3FN(value)
                        : amp::floatToFloat8E5M2(value);
}

float fromFp8(int32_t dtype, uint8_t value) {
  return dtype == kE4M3 ? amp::float8E4M3FNToFloat(value)
                        : amp::float8E5M2ToFloat(value);
}

/// Values every FP8 format holds exactly (multiples of 1/4 up to 2 with
/// three significant bits): products are multiples of 1/16 up to 4, so
/// every partial sum of up to 64 of them is exact in f32 (and in the
/// reduced-precision accumulators fast accumulation may use).
std::vector<uint8_t> fp8Values(int32_t dtype, size_t count, uint32_t seed) {
  static const float grid[] = {0, 0.25f, 0.5f, 0.75f, 1, 1.25f, 1.5f, 1.75f, 2};
  std::vector<uint8_t> values(count);
  for (size_t i = 0; i < count; ++i) {
    seed = seed * 1103515245u + 12345u;
    float v = grid[(seed >> 16) % 9];
    values[i] = toFp8(dtype, (seed >> 8) & 1 ? -v : v);
  }
  return values;
}

const char *fp8Name(int32_t dtype) { return dtype == kE4M3 ? "e4m3" : "e5m2"; }

struct Fp8Case {
  int32_t aType, bType, dType;
  int64_t m, n, k;
  bool bias, fastAccum, nan;
};

/// One TN GEMM (A m x k, B n x k, both row-major) through amp_gpu_gemm_fp8,
/// D compared bit for bit with the exact result rounded once.
void fp8Case(const Fp8Case &c, uint32_t seed) {
  std::vector<uint8_t> a = fp8Values(c.aType, c.m * c.k, seed);
  std::vector<uint8_t> b = fp8Values(c.bType, c.n * c.k, seed + 7);
  if (c.nan) // row 1 of A: one NaN (e4m3's S.1111.111, e5m2's quiet NaN)
    a[1 * c.k + 3] = c.aType == kE4M3 ? 0x7f : 0x7e;
  // Powers of two: the scale product and its product with a sum are exact.
  float scales[2] = {0.5f, 4.0f};
  float *dScales = deviceScales(scales);
  std::vector<float> bias = dyadic(c.n, seed + 3);
  void *dA = deviceBuffer(a.size(), a.data());
  void *dB = deviceBuffer(b.size(), b.data());
  void *dBias = c.bias ? upload(AMP_DTYPE_BF16, bias) : nullptr;
  void *dD = deviceBuffer<char>(c.m * c.n * dtypeBytes(c.dType));
  amp_gpu_gemm_fp8(c.aType, c.bType, c.dType, c.m, c.n, c.k, 0, 1, dA, dB,
                   dScales, dScales + kScaleStride, dBias, c.fastAccum ? 1 : 0,
                   dD, mgpuStreamCreate());
  std::vector<float> got = download(c.dType, dD, c.m * c.n);
  bool ok = true;
  for (int64_t i = 0; i < c.m; ++i)
    for (int64_t j = 0; j < c.n; ++j) {
      double sum = 0;
      for (int64_t l = 0; l < c.k; ++l)
        sum += double(fromFp8(c.aType, a[i * c.k + l])) *
               double(fromFp8(c.bType, b[j * c.k + l]));
      double exact = sum * (double(scales[0]) * scales[1]) +
                     (c.bias ? double(roundTo(AMP_DTYPE_BF16, bias[j])) : 0.0);
      float want = roundTo(c.dType, exact);
      float value = got[i * c.n + j];
      ok &= std::isnan(want) ? std::isnan(value) : value == want;
    }
  char name[160];
  std::snprintf(
      name, sizeof(name), "fp8 gemm %s x %s -> %s m %lld n %lld k %lld%s%s%s",
      fp8Name(c.aType), fp8Name(c.bType), dtypeName(c.dType), (long long)c.m,
      (long long)c.n, (long long)c.k, c.bias ? " bias" : "",
      c.fastAccum ? " fast" : "", c.nan ? " nan" : "");
  expect(ok, name);
  for (void *p : {dA, dB, static_cast<void *>(dScales), dBias, dD})
    if (p)
      ops().free(p);
}

int checkFp8Gemms() {
  const int32_t pairs[][2] = {{kE4M3, kE4M3}, {kE4M3, kE5M2}, {kE5M2, kE4M3}};
  uint32_t seed = 1;
  for (auto [aType, bType] : pairs) {
    for (int32_t dType : {AMP_DTYPE_BF16, AMP_DTYPE_F32})
      for (bool bias : {false, true})
        for (bool fast : {false, true})
          fp8Case({aType, bType, dType, 32, 16, 32, bias, fast, false}, seed++);
    // m need not be a multiple of 16; a longer k; n larger than m.
    fp8Case({aType, bType, AMP_DTYPE_BF16, 24, 32, 64, true, false, false},
            seed++);
    fp8Case({aType, bType, AMP_DTYPE_F32, 16, 48, 16, false, true, false},
            seed++);
  }
  fp8Case({kE4M3, kE4M3, AMP_DTYPE_BF16, 8, 16, 32, true, false, true}, seed++);
  fp8Case({kE5M2, kE4M3, AMP_DTYPE_F32, 8, 16, 32, false, false, true}, seed++);
  if (ops().last_error()[0])
    std::printf("error: %s\n", ops().last_error());
  std::printf(failures ? "fp8 gemm checks FAILED\n"
                       : "fp8 gemm checks passed\n");
  return failures ? 1 : 0;
}

/// The GEMM captured once and replayed twice, the scales changed between
/// the replays: the graph reads them through their pointers.
int checkGraph() {
  const amp_device_graph_ops *graphs =
      amp_cuda_device_graph_ops ? amp_cuda_device_graph_ops() : nullptr;
  if (!graphs) {
    std::printf("error: no device graph ops\n");
    return 1;
  }
  const int64_t m = 16, n = 16, k = 32;
  std::vector<uint8_t> a = fp8Values(kE4M3, m * k, 5);
  std::vector<uint8_t> b = fp8Values(kE5M2, n * k, 6);
  float scales[2] = {1.0f, 1.0f};
  void *dA = deviceBuffer(a.size(), a.data());
  void *dB = deviceBuffer(b.size(), b.data());
  float *dScales = deviceScales(scales);
  float *dD = deviceBuffer<float>(m * n);
  // Once outside the capture first: the handle, its workspace and the plan
  // are made then (a GPU refuses allocations during a capture), as a
  // model's plain first step makes them.
  amp_gpu_gemm_fp8(kE4M3, kE5M2, AMP_DTYPE_F32, m, n, k, 0, 1, dA, dB, dScales,
                   dScales + kScaleStride, nullptr, 1, dD, mgpuStreamCreate());
  if (ops().synchronize() != 0) {
    std::printf("error: %s\n", ops().last_error());
    return 1;
  }
  const char *reason = nullptr;
  if (graphs->begin_capture(&reason) != 0) {
    std::printf("error: begin_capture: %s\n", reason ? reason : "?");
    return 1;
  }
  amp_gpu_gemm_fp8(kE4M3, kE5M2, AMP_DTYPE_F32, m, n, k, 0, 1, dA, dB, dScales,
                   dScales + kScaleStride, nullptr, 1, dD, mgpuStreamCreate());
  void *graph = graphs->end_capture(&reason);
  if (!graph) {
    std::printf("error: end_capture: %s\n", reason ? reason : "?");
    return 1;
  }
  for (float scale : {0.25f, 8.0f}) {
    scales[1] = scale;
    ops().copy_to_device(dScales + kScaleStride, &scale, sizeof(scale));
    if (graphs->launch(graph) != 0 || ops().synchronize() != 0) {
      std::printf("error: %s\n", ops().last_error());
      return 1;
    }
    std::vector<float> got = toHost(dD, m * n);
    bool ok = true;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t l = 0; l < k; ++l)
          sum += double(fromFp8(kE4M3, a[i * k + l])) *
                 double(fromFp8(kE5M2, b[j * k + l]));
        ok &= got[i * n + j] == float(sum * scale);
      }
    expect(ok,
           "fp8 gemm graph replayed with b_scale_inv " + std::to_string(scale));
  }
  graphs->destroy(graph);
  return failures ? 1 : 0;
}

/// A call cuBLASLt refuses: the runtime's error names the rule. Returns 1
/// (the error is printed).
int checkRefusal(const std::string &what) {
  int32_t aType = kE4M3, bType = kE4M3;
  int64_t m = 32, n = 16, k = 32, offset = 0;
  int transA = 0, transB = 1;
  int64_t scaleOffset = kScaleStride;
  bool nullScale = false;
  if (what == "e5m2")
    aType = bType = kE5M2;
  else if (what == "nn")
    transB = 0;
  else if (what == "ta")
    transA = 1;
  else if (what == "k24")
    k = 24;
  else if (what == "n8")
    n = 8;
  else if (what == "misaligned")
    offset = 8;
  else if (what == "null-scale")
    nullScale = true;
  else if (what == "misaligned-scale")
    scaleOffset = 1;
  else {
    std::fprintf(stderr, "unknown refusal %s\n", what.c_str());
    return 2;
  }
  char *dA = deviceBuffer<char>(m * k + 16), *dB = deviceBuffer<char>(n * k);
  float scales[2] = {1.0f, 1.0f};
  float *dScales = deviceScales(scales);
  float *dD = deviceBuffer<float>(m * n);
  amp_gpu_gemm_fp8(aType, bType, AMP_DTYPE_F32, m, n, k, transA, transB,
                   dA + offset, dB, nullScale ? nullptr : dScales,
                   dScales + scaleOffset, nullptr, 0, dD, mgpuStreamCreate());
  std::printf("error: %s\n", ops().last_error());
  return 1;
}

/// cuBLASLt (`library`) called directly: an FP8 GEMM of cuBLASLt's 16 x 8
/// bf16 D (amp's n x m) with k 32 in the TN layout, changed as `what` says.
int checkLt(const std::string &what, const std::string &library) {
  void *lt = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
#define RESOLVE(name)                                                          \
  auto name =                                                                  \
      reinterpret_cast<decltype(&::name)>(lt ? dlsym(lt, #name) : nullptr);    \
  if (!name) {                                                                 \
    std::printf("error: the emulated cuBLASLt lacks " #name "\n");             \
    return 1;                                                                  \
  }
  RESOLVE(cublasLtCreate)
  RESOLVE(cublasLtMatmulDescCreate)
  RESOLVE(cublasLtMatmulDescSetAttribute)
  RESOLVE(cublasLtMatrixLayoutCreate)
  RESOLVE(cublasLtMatmulPreferenceCreate)
  RESOLVE(cublasLtMatmulAlgoGetHeuristic)
  RESOLVE(cublasLtMatmul)
  RESOLVE(cublasLtGetStatusName)
  RESOLVE(cublasLtGetStatusString)
#undef RESOLVE
  const int64_t rows = what == "n8" ? 8 : 16, cols = 8, k = 32;
  bool bf16 = what == "scale-bf16";
  int64_t lda = what == "ld" ? 40 : k;
  char *a = deviceBuffer<char>(2 * lda * rows),
       *b = deviceBuffer<char>(2 * k * cols);
  float scales[2] = {1.0f, 1.0f};
  float *dScales = deviceScales(scales);
  uint16_t *d = deviceBuffer<uint16_t>(rows * cols);
  float *amax = deviceBuffer<float>(1);
  float *bias = deviceBuffer<float>(rows);
  ops().memset_zero(a, 2 * lda * rows);
  ops().memset_zero(b, 2 * k * cols);
  cublasLtHandle_t handle;
  cublasLtMatmulDesc_t desc;
  cublasLtMatrixLayout_t la, lb, ld;
  cublasLtMatmulPreference_t preference;
  cublasLtCreate(&handle);
  cublasLtMatmulDescCreate(
      &desc, what == "tf32" ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F,
      CUDA_R_32F);
  // TN: cuBLASLt's A (k x rows, amp's B) transposed; "nn" stores it rows x
  // k instead, untransposed.
  bool nn = what == "nn";
  cublasOperation_t opA = nn ? CUBLAS_OP_N : CUBLAS_OP_T;
  cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &opA,
                                 sizeof(opA));
  const float *scaleA = dScales,
              *scaleB =
                  dScales + (what == "scale-misaligned" ? 1 : kScaleStride);
  cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER,
                                 &scaleA, sizeof(scaleA));
  if (!bf16)
    cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER,
                                   &scaleB, sizeof(scaleB));
  if (what == "amax")
    cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_AMAX_D_POINTER,
                                   &amax, sizeof(amax));
  if (what == "f32-bias") {
    cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_BIAS;
    int32_t biasType = CUDA_R_32F;
    cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE,
                                   &epilogue, sizeof(epilogue));
    cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE,
                                   &biasType, sizeof(biasType));
    cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER,
                                   &bias, sizeof(bias));
  }
  cudaDataType_t inType = bf16             ? CUDA_R_16BF
                          : what == "e5m2" ? CUDA_R_8F_E5M2
                                           : CUDA_R_8F_E4M3;
  if (nn)
    cublasLtMatrixLayoutCreate(&la, inType, rows, k, rows);
  else
    cublasLtMatrixLayoutCreate(&la, inType, k, rows, lda);
  cublasLtMatrixLayoutCreate(&lb, inType, k, cols, k);
  cublasLtMatrixLayoutCreate(&ld, CUDA_R_16BF, rows, cols, rows);
  cublasLtMatmulPreferenceCreate(&preference);
  cublasLtMatmulHeuristicResult_t result = {};
  int found = 0;
  auto print = [&](const char *step, cublasStatus_t status) {
    std::printf("%s: %s", step, cublasLtGetStatusName(status));
    if (status != CUBLAS_STATUS_SUCCESS)
      std::printf(" (%s)", cublasLtGetStatusString(status));
    std::printf("\n");
    return status;
  };
  cublasStatus_t heuristic =
      print("heuristic",
            cublasLtMatmulAlgoGetHeuristic(handle, desc, la, lb, ld, ld,
                                           preference, 1, &result, &found));
  float alpha = 1.0f, beta = 0.0f;
  cublasStatus_t matmul = print(
      "matmul", cublasLtMatmul(handle, desc, &alpha, a, la, b, lb, &beta, d, ld,
                               d, ld, nullptr, nullptr, 0,
                               static_cast<cudaStream_t>(mgpuStreamCreate())));
  return heuristic == CUBLAS_STATUS_SUCCESS && matmul == CUBLAS_STATUS_SUCCESS
             ? 0
             : 1;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s rules|gemm|graph|refuse WHAT|lt WHAT LIB\n",
                 argv[0]);
    return 2;
  }
  std::string mode = argv[1], arg = argc > 2 ? argv[2] : "";
  if (mode == "rules")
    return checkRules();
  if (ops().init() != 0) {
    std::printf("error: %s\n", ops().last_error());
    return 1;
  }
  std::printf("device: %s\n", ops().device_name());
  if (mode == "gemm")
    return checkFp8Gemms();
  if (mode == "graph")
    return checkGraph();
  if (mode == "refuse")
    return checkRefusal(arg);
  if (mode == "lt")
    return checkLt(arg, argc > 3 ? argv[3] : "");
  std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
  return 2;
}
