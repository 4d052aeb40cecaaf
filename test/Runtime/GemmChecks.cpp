//===- GemmChecks.cpp - amp_gpu_gemm checks shared by both devices -------===//
//
// See GemmChecks.h.
//
//===----------------------------------------------------------------------===//

#include "GemmChecks.h"

#include "amp/Runtime/CUDAKernels.h"
#include "amp/Runtime/ModelABI.h"
#include "amp/Runtime/Numerics.h"

#include <cmath>
#include <cstdint>
#include <cstring>

extern "C" void *mgpuStreamCreate();

namespace amp::check {

/// Values in `dtype`: multiples of 1/8 in [-2, 2], so that every product and
/// partial sum below is exact in f32 and the result is the exact one,
/// rounded once to the output type.
std::vector<float> dyadic(size_t count, uint32_t seed) {
  std::vector<float> values(count);
  for (size_t i = 0; i < count; ++i) {
    seed = seed * 1103515245u + 12345u;
    values[i] = float(int32_t(seed >> 16) % 33 - 16) / 8.0f;
  }
  return values;
}

size_t dtypeBytes(int32_t dtype) { return dtype == AMP_DTYPE_F32 ? 4 : 2; }

void *upload(int32_t dtype, const std::vector<float> &values) {
  std::vector<char> bytes(values.size() * dtypeBytes(dtype));
  for (size_t i = 0; i < values.size(); ++i)
    amp::storeValue(bytes.data(), dtype, int64_t(i), values[i]);
  return deviceBuffer(bytes.size(), bytes.data());
}

/// The exact results here are f32 values; one rounding to the output type.
float roundTo(int32_t dtype, double value) {
  float f = float(value);
  if (dtype == AMP_DTYPE_F16)
    return amp::halfToFloat(amp::floatToHalf(f));
  if (dtype == AMP_DTYPE_BF16)
    return amp::bfloat16ToFloat(amp::floatToBFloat16(f));
  return f;
}

std::vector<float> download(int32_t dtype, const void *pointer, size_t count) {
  std::vector<char> bytes =
      toHost(static_cast<const char *>(pointer), count * dtypeBytes(dtype));
  std::vector<float> values(count);
  for (size_t i = 0; i < count; ++i) {
    uint16_t h;
    std::memcpy(&h, &bytes[i * 2], 2);
    if (dtype == AMP_DTYPE_F32)
      std::memcpy(&values[i], &bytes[i * 4], 4);
    else
      values[i] = dtype == AMP_DTYPE_F16 ? amp::halfToFloat(h)
                                         : amp::bfloat16ToFloat(h);
  }
  return values;
}

const char *dtypeName(int32_t dtype) {
  return dtype == AMP_DTYPE_F32   ? "f32"
         : dtype == AMP_DTYPE_F16 ? "f16"
                                  : "bf16";
}

namespace {

/// Row-major C = alpha op(A) op(B) + beta C, with A, B, C as amp_gpu_gemm
/// takes them (CUDAKernels.h), against a direct computation.
void gemmCase(int32_t aType, int32_t cType, int64_t batch, int64_t m, int64_t n,
              int64_t k, int transA, int transB, bool shareA, bool shareB,
              uint32_t seed) {
  int64_t strideA = shareA ? 0 : m * k, strideB = shareB ? 0 : k * n;
  std::vector<float> a = dyadic((shareA ? 1 : batch) * m * k, seed);
  std::vector<float> b = dyadic((shareB ? 1 : batch) * k * n, seed + 1);
  std::vector<float> c = dyadic(batch * m * n, seed + 2);
  float alpha = 2.0f, beta = 0.5f;
  void *dA = upload(aType, a), *dB = upload(aType, b), *dC = upload(cType, c);
  amp_gpu_gemm(aType, cType, batch, m, n, k, transA, transB, dA, strideA, dB,
               strideB, dC, alpha, beta, /*allow_tf32=*/0, mgpuStreamCreate());
  std::vector<float> got = download(cType, dC, c.size());
  bool ok = true;
  for (int64_t p = 0; p < batch; ++p)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t l = 0; l < k; ++l)
          sum += double(transA ? a[p * strideA + l * m + i]
                               : a[p * strideA + i * k + l]) *
                 double(transB ? b[p * strideB + j * k + l]
                               : b[p * strideB + l * n + j]);
        int64_t at = (p * m + i) * n + j;
        ok &= got[at] == roundTo(cType, alpha * sum + beta * c[at]);
      }
  char name[160];
  std::snprintf(name, sizeof(name), "gemm %s->%s batch %lld %s%s%s%s",
                dtypeName(aType), dtypeName(cType), (long long)batch,
                transA ? "T" : "N", transB ? "T" : "N",
                shareA ? " shared A" : "", shareB ? " shared B" : "");
  expect(ok, name);
  ops().free(dA);
  ops().free(dB);
  ops().free(dC);
}

} // namespace

int checkGemms() {
  const int32_t types[][2] = {{AMP_DTYPE_F32, AMP_DTYPE_F32},
                              {AMP_DTYPE_F16, AMP_DTYPE_F32},
                              {AMP_DTYPE_F16, AMP_DTYPE_F16},
                              {AMP_DTYPE_BF16, AMP_DTYPE_F32},
                              {AMP_DTYPE_BF16, AMP_DTYPE_BF16}};
  // Batches: one matrix; three with their own A and B; a shared B (the
  // runtime folds the batch into m when A is untransposed); a shared A.
  const int batches[][3] = {{1, 0, 0}, {3, 0, 0}, {3, 0, 1}, {3, 1, 0}};
  uint32_t seed = 1;
  for (const auto &type : types)
    for (int transA = 0; transA < 2; ++transA)
      for (int transB = 0; transB < 2; ++transB)
        for (const auto &batch : batches)
          gemmCase(type[0], type[1], batch[0], 5, 7, 9, transA, transB,
                   batch[1], batch[2], seed += 3);
  expect(ops().synchronize() == 0, "no error");
  std::printf("%s\n", failures ? "gemm checks FAILED" : "gemm checks passed");
  return failures ? 1 : 0;
}

namespace {

/// amp_gpu_gemm_epilogue: C = alpha op(A) op(B) + beta C + bias[j] (BIAS
/// with an f32 bias, or BIAS_C_TYPE with one of C's type),
/// or the product and grad[i] = sum over l of op(A)[i][l] (BGRAD_A),
/// against a direct computation (exact, as in gemmCase). With `apart`,
/// amp_gpu_gemm_ex writes D = alpha op(A) op(B) + beta C (+ bias) to its own
/// buffer (epilogue 0 allowed) and C must be left as it was.
void epilogueCase(int32_t aType, int32_t cType, int32_t epilogue, int64_t batch,
                  int transA, int transB, uint32_t seed, bool apart = false) {
  const int64_t m = 5, n = 7, k = 9;
  bool bias = epilogue == AMP_GEMM_EPILOGUE_BIAS ||
              epilogue == AMP_GEMM_EPILOGUE_BIAS_C_TYPE;
  bool grad = epilogue == AMP_GEMM_EPILOGUE_BGRAD_A;
  int32_t vectorType =
      epilogue == AMP_GEMM_EPILOGUE_BIAS_C_TYPE ? cType : AMP_DTYPE_F32;
  // A batch shares B (the runtime folds it into m).
  std::vector<float> a = dyadic(batch * m * k, seed);
  std::vector<float> b = dyadic(k * n, seed + 1);
  std::vector<float> c = dyadic(batch * m * n, seed + 2);
  std::vector<float> vector = dyadic(bias ? n : m, seed + 3);
  float alpha = 2.0f, beta = grad ? 0.0f : apart ? 1.0f : 0.5f;
  void *dA = upload(aType, a), *dB = upload(aType, b), *dC = upload(cType, c);
  void *dV = upload(vectorType, vector);
  void *dD = apart ? upload(cType, std::vector<float>(c.size())) : dC;
  if (apart)
    amp_gpu_gemm_ex(aType, cType, batch, m, n, k, transA, transB, dA, m * k, dB,
                    0, dC, alpha, beta, /*allow_tf32=*/0, epilogue, dV, dD,
                    mgpuStreamCreate());
  else
    amp_gpu_gemm_epilogue(aType, cType, batch, m, n, k, transA, transB, dA,
                          m * k, dB, 0, dC, alpha, beta, /*allow_tf32=*/0,
                          epilogue, dV, mgpuStreamCreate());
  std::vector<float> got = download(cType, dD, c.size());
  std::vector<float> gotVector = download(vectorType, dV, vector.size());
  bool ok = !apart || download(cType, dC, c.size()) == c;
  auto opA = [&](int64_t p, int64_t i, int64_t l) {
    return double(transA ? a[p * m * k + l * m + i] : a[p * m * k + i * k + l]);
  };
  for (int64_t p = 0; p < batch; ++p)
    for (int64_t i = 0; i < m; ++i) {
      double rowSum = 0;
      for (int64_t l = 0; l < k; ++l)
        rowSum += opA(p, i, l);
      if (grad)
        ok &= gotVector[i] == float(rowSum);
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t l = 0; l < k; ++l)
          sum += opA(p, i, l) * double(transB ? b[j * k + l] : b[l * n + j]);
        int64_t at = (p * m + i) * n + j;
        double expected = alpha * sum + beta * c[at] + (bias ? vector[j] : 0);
        ok &= got[at] == roundTo(cType, expected);
      }
    }
  char name[160];
  std::snprintf(name, sizeof(name), "gemm %s%s %s->%s batch %lld %s%s",
                apart ? "apart " : "",
                bias   ? "bias"
                : grad ? "bgrad_a"
                       : "none",
                dtypeName(aType), dtypeName(cType), (long long)batch,
                transA ? "T" : "N", transB ? "T" : "N");
  expect(ok, name);
  for (void *buffer : {dA, dB, dC, dV})
    ops().free(buffer);
  if (apart)
    ops().free(dD);
}

const int32_t kEpilogueTypes[][2] = {{AMP_DTYPE_F32, AMP_DTYPE_F32},
                                     {AMP_DTYPE_F16, AMP_DTYPE_F16},
                                     {AMP_DTYPE_BF16, AMP_DTYPE_F32},
                                     {AMP_DTYPE_BF16, AMP_DTYPE_BF16}};

/// The bias epilogue cuBLASLt takes for an output type.
int32_t biasEpilogue(int32_t cType) {
  return cType == AMP_DTYPE_F32 ? AMP_GEMM_EPILOGUE_BIAS
                                : AMP_GEMM_EPILOGUE_BIAS_C_TYPE;
}

/// Where cuBLASLt computes a bias gradient (f32, so beside an f32 C; A
/// transposed), as seen on an H200: elsewhere it refuses, and so does the
/// emulated device.
bool takesBiasGradient(int32_t cType, int transA) {
  return cType == AMP_DTYPE_F32 && transA;
}

} // namespace

int checkEpilogueCase(int32_t aType, int32_t cType, int32_t epilogue,
                      int transA, int transB) {
  bool grad = epilogue == AMP_GEMM_EPILOGUE_BGRAD_A;
  epilogueCase(aType, cType, epilogue, grad || transA ? 1 : 3, transA, transB,
               /*seed=*/5);
  if (ops().synchronize() != 0)
    std::printf("error: %s\n", ops().last_error());
  return failures ? 1 : 0;
}

int checkEpilogues() {
  uint32_t seed = 7;
  for (const auto &type : kEpilogueTypes)
    for (int transA = 0; transA < 2; ++transA)
      for (int transB = 0; transB < 2; ++transB) {
        // The batch of 3 is folded into m only when A is not transposed.
        epilogueCase(type[0], type[1], biasEpilogue(type[1]), transA ? 1 : 3,
                     transA, transB, seed += 5);
        if (takesBiasGradient(type[1], transA))
          epilogueCase(type[0], type[1], AMP_GEMM_EPILOGUE_BGRAD_A, 1, transA,
                       transB, seed += 5);
      }
  expect(ops().synchronize() == 0, "no error");
  std::printf("%s\n",
              failures ? "epilogue checks FAILED" : "epilogue checks passed");
  return failures ? 1 : 0;
}

/// amp_gpu_gemm_ex with C (a residual, beta 1) and D apart: no epilogue,
/// the bias, and the bias gradient (beta 0) besides D.
int checkGemmsApart() {
  uint32_t seed = 11;
  for (const auto &type : kEpilogueTypes)
    for (int transA = 0; transA < 2; ++transA)
      for (int transB = 0; transB < 2; ++transB) {
        int64_t batch = transA ? 1 : 3;
        epilogueCase(type[0], type[1], 0, batch, transA, transB, seed += 5,
                     /*apart=*/true);
        epilogueCase(type[0], type[1], biasEpilogue(type[1]), batch, transA,
                     transB, seed += 5, /*apart=*/true);
        if (takesBiasGradient(type[1], transA))
          epilogueCase(type[0], type[1], AMP_GEMM_EPILOGUE_BGRAD_A, 1, transA,
                       transB, seed += 5, /*apart=*/true);
      }
  expect(ops().synchronize() == 0, "no error");
  std::printf("%s\n", failures ? "apart checks FAILED" : "apart checks passed");
  return failures ? 1 : 0;
}

int checkEpilogueError(const std::string &what) {
  float *a = deviceBuffer<float>(64), *b = deviceBuffer<float>(64);
  float *c = deviceBuffer<float>(64), *v = deviceBuffer<float>(8);
  bool grad = what == "batch" || what == "bgrad-f16" || what == "bgrad-nn";
  int32_t epilogue = what == "unknown" ? 99
                     : grad            ? AMP_GEMM_EPILOGUE_BGRAD_A
                                       : AMP_GEMM_EPILOGUE_BIAS;
  int32_t type =
      what == "f32-bias" || what == "bgrad-f16" ? AMP_DTYPE_F16 : AMP_DTYPE_F32;
  amp_gpu_gemm_epilogue(type, type, what == "batch" ? 2 : 1, 4, 4, 4,
                        what == "bgrad-nn" ? 0 : 1, 0, a, 16, b, 16, c, 1.0f,
                        0.0f, 0, epilogue, what == "null" ? nullptr : v,
                        nullptr);
  std::printf("error: %s\n", ops().last_error());
  return 1;
}

namespace {

/// GELU's tanh form and its derivative, in double.
double geluTanh(double x) {
  return 0.5 * x *
         (1 + std::tanh(0.79788456080286535588 * (x + 0.044715 * x * x * x)));
}
double geluTanhDerivative(double x) {
  const double k = 0.79788456080286535588, c = 0.044715;
  double t = std::tanh(k * (x + c * x * x * x));
  return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * k * (1 + 3 * c * x * x);
}

/// The unit in the last place of `dtype` at `value`.
double ulp(int32_t dtype, double value) {
  int bits = dtype == AMP_DTYPE_F32 ? 24 : dtype == AMP_DTYPE_F16 ? 11 : 8;
  int exponent;
  std::frexp(std::fabs(value) > 0x1p-14 ? value : 0x1p-14, &exponent);
  return std::ldexp(1.0, exponent - bits);
}

/// amp_gpu_gemm_aux, C and D apart (alpha 2, beta 0.5): with `forward`,
/// GELU_AUX_BIAS (or GELU_AUX without `bias`) against x = alpha op(A) op(B)
/// + beta C [+ bias] computed exactly: aux must be x rounded once and D
/// gelu(x) within half a unit of D's type plus `tolerance` (relative to
/// |x| + 1, the error of the f32 formula); else DGELU with an aux of D's
/// type: D = x gelu'(aux), likewise. aux has leading dimension `auxLd`;
/// its padding, C and the bias must be left as they were.
void geluCase(int32_t aType, int32_t cType, bool forward, bool bias,
              int64_t batch, int transA, int transB, int64_t auxLd, bool shareB,
              uint32_t seed, double tolerance) {
  const int64_t m = 5, n = 16, k = 9;
  int32_t epilogue = !forward ? AMP_GEMM_EPILOGUE_DGELU
                     : bias   ? AMP_GEMM_EPILOGUE_GELU_AUX_BIAS
                              : AMP_GEMM_EPILOGUE_GELU_AUX;
  int64_t strideB = shareB ? 0 : k * n;
  std::vector<float> a = dyadic(batch * m * k, seed);
  std::vector<float> b = dyadic((shareB ? 1 : batch) * k * n, seed + 1);
  std::vector<float> c = dyadic(batch * m * n, seed + 2);
  std::vector<float> vector = dyadic(n, seed + 3);
  std::vector<float> aux = dyadic(batch * m * auxLd, seed + 4);
  float alpha = 2.0f, beta = 0.5f;
  void *dA = upload(aType, a), *dB = upload(aType, b), *dC = upload(cType, c);
  void *dV = upload(cType, vector), *dAux = upload(cType, aux);
  void *dD = upload(cType, std::vector<float>(c.size()));
  amp_gpu_gemm_aux(aType, cType, batch, m, n, k, transA, transB, dA, m * k, dB,
                   strideB, dC, alpha, beta, /*allow_tf32=*/0, epilogue,
                   bias ? dV : nullptr, dAux, auxLd, dD, mgpuStreamCreate());
  std::vector<float> got = download(cType, dD, c.size());
  std::vector<float> gotAux = download(cType, dAux, aux.size());
  bool ok = download(cType, dC, c.size()) == c &&
            download(cType, dV, vector.size()) == vector;
  double worst = 0;
  for (int64_t p = 0; p < batch; ++p)
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < auxLd; ++j) {
        int64_t at = (p * m + i) * auxLd + j;
        if (j >= n || !forward)
          ok &= gotAux[at] == aux[at]; // padding, or DGELU's input
      }
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t l = 0; l < k; ++l)
          sum += double(transA ? a[p * m * k + l * m + i]
                               : a[p * m * k + i * k + l]) *
                 double(transB ? b[p * strideB + j * k + l]
                               : b[p * strideB + l * n + j]);
        int64_t at = (p * m + i) * n + j, auxAt = (p * m + i) * auxLd + j;
        double x = alpha * sum + beta * c[at] + (bias ? vector[j] : 0);
        double expected;
        if (forward) {
          ok &= gotAux[auxAt] == roundTo(cType, x);
          expected = geluTanh(x);
        } else {
          expected = x * geluTanhDerivative(aux[auxAt]);
        }
        double error = std::fabs(got[at] - expected);
        double bound =
            0.5 * ulp(cType, expected) + tolerance * (std::fabs(x) + 1);
        worst = std::max(worst, error / bound);
        ok &= error <= bound;
      }
    }
  char name[200];
  std::snprintf(name, sizeof(name),
                "gemm aux %s %s->%s batch %lld%s %s%s aux_ld %lld",
                !forward ? "dgelu"
                : bias   ? "gelu_aux_bias"
                         : "gelu_aux",
                dtypeName(aType), dtypeName(cType), (long long)batch,
                shareB ? " shared B" : "", transA ? "T" : "N",
                transB ? "T" : "N", (long long)auxLd);
  if (!ok)
    std::printf("worst error / bound: %g\n", worst);
  expect(ok, name);
  for (void *buffer : {dA, dB, dC, dV, dAux, dD})
    ops().free(buffer);
}

} // namespace

int checkGeluEpilogues(double tolerance) {
  const int32_t types[][2] = {{AMP_DTYPE_F32, AMP_DTYPE_F32},
                              {AMP_DTYPE_F16, AMP_DTYPE_F16},
                              {AMP_DTYPE_BF16, AMP_DTYPE_BF16}};
  uint32_t seed = 13;
  for (const auto &type : types)
    for (int transA = 0; transA < 2; ++transA)
      for (int transB = 0; transB < 2; ++transB) {
        // A shared B, folded into m when A is untransposed; own Bs (the
        // aux's batch stride); a padded aux.
        geluCase(type[0], type[1], true, true, 3, transA, transB, 16, true,
                 seed += 7, tolerance);
        geluCase(type[0], type[1], true, false, 2, transA, transB, 24, false,
                 seed += 7, tolerance);
        geluCase(type[0], type[1], false, false, 3, transA, transB, 16, true,
                 seed += 7, tolerance);
        geluCase(type[0], type[1], false, false, 2, transA, transB, 24, false,
                 seed += 7, tolerance);
      }
  expect(ops().synchronize() == 0, "no error");
  std::printf("%s\n", failures ? "gelu checks FAILED" : "gelu checks passed");
  return failures ? 1 : 0;
}

int checkAuxError(const std::string &what) {
  float *a = deviceBuffer<float>(256), *b = deviceBuffer<float>(256);
  float *c = deviceBuffer<float>(256), *v = deviceBuffer<float>(16);
  // An aux of 8 x 16 f32 (16 x 8 for "short": too small for m x n).
  float *aux = deviceBuffer<float>(what == "bounds" ? 64 : 256);
  int32_t epilogue = what == "bias"      ? AMP_GEMM_EPILOGUE_BIAS
                     : what == "no-bias" ? AMP_GEMM_EPILOGUE_GELU_AUX_BIAS
                                         : AMP_GEMM_EPILOGUE_GELU_AUX;
  int64_t auxLd = what == "ld12" ? 12 : what == "ld8" ? 8 : 16;
  void *auxPointer = what == "null"         ? nullptr
                     : what == "misaligned" ? static_cast<void *>(aux + 1)
                                            : aux;
  if (what == "no-aux")
    amp_gpu_gemm_epilogue(AMP_DTYPE_F32, AMP_DTYPE_F32, 1, 8, 16, 8, 0, 0, a, 0,
                          b, 0, c, 1.0f, 0.0f, 0, AMP_GEMM_EPILOGUE_DGELU, v,
                          nullptr);
  else
    amp_gpu_gemm_aux(AMP_DTYPE_F32, AMP_DTYPE_F32, 1, 8, 16, 8, 0, 0, a, 0, b,
                     0, c, 1.0f, 0.0f, 0, epilogue,
                     what == "no-bias" ? nullptr : v, auxPointer, auxLd, c,
                     nullptr);
  std::printf("error: %s\n", ops().last_error());
  return 1;
}

/// 1 x 1 x 1: (1 + 2^-11)(1 + 2^-12). TF32 rounds the first to 1 + 2^-10
/// (ties away from zero) and the second to 1; f32 keeps both.
int checkTF32() {
  float a = 1.0f + std::ldexp(1.0f, -11), b = 1.0f + std::ldexp(1.0f, -12);
  float zero = 0;
  float *dA = deviceBuffer(1, &a), *dB = deviceBuffer(1, &b);
  float *dC = deviceBuffer(1, &zero);
  amp_gpu_gemm(AMP_DTYPE_F32, AMP_DTYPE_F32, 1, 1, 1, 1, 0, 0, dA, 0, dB, 0, dC,
               1.0f, 0.0f, /*allow_tf32=*/1, nullptr);
  float tf32 = toHost(dC, 1)[0];
  amp_gpu_gemm(AMP_DTYPE_F32, AMP_DTYPE_F32, 1, 1, 1, 1, 0, 0, dA, 0, dB, 0, dC,
               1.0f, 0.0f, /*allow_tf32=*/0, nullptr);
  float f32 = toHost(dC, 1)[0];
  // The result, for a GPU: allow_tf32 permits TF32, cuBLASLt need not use
  // it (an H200's cuBLASLt 13.1 did not give 1 + 2^-10 here).
  std::printf("allow_tf32 result: %a, without: %a\n", tf32, f32);
  expect(tf32 == 1.0f + std::ldexp(1.0f, -10), "TF32 rounds the inputs");
  expect(f32 == a * b, "f32 does not");
  return failures ? 1 : 0;
}

} // namespace amp::check
