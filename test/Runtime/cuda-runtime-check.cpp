//===- cuda-runtime-check.cpp - tests of libamp_cuda_runtime --------------===//
//
// amp-cuda-runtime-check MODE [ARG]: one check per process, because the
// runtime's errors are sticky. The lit tests in this directory run it.
//
//   init                    init; prints "device: ..." or "error: ..." (exit 1)
//   no-gpu                  the mgpu* ABI and the device ops after a failed
//                           start (no driver, or the toolkit's stub driver)
//   gemm-error dtype|size   amp_gpu_gemm argument checks (need no GPU)
//   pool-sizes              the pool's size rounding
//   driver-symbols LIB      every driver symbol the runtime uses is in LIB
//   cublaslt                libcublasLt.so.13 loads and has every function
//   gpu                     memory, pool, launches, GEMMs (needs a GPU)
//   gemm-exact, gemm-epilogue, gemm-apart, gemm-tf32, gemm-gelu
//                           the GEMM checks the emulated device runs
//                           (GemmChecks.h), on the GPU; gemm-gelu allows
//                           2^-10 relative for a hardware tanh (PTX's
//                           tanh.approx.f32 is within 2^-10.987)
//   nccl                    amp_gpu_dp_* as one rank on the device's NCCL
//                           (CollectiveChecks.cpp; needs a GPU and NCCL)
//   epilogue-case A C E TA TB  one amp_gpu_gemm_epilogue case: dtypes A and
//                           C (f32, f16, bf16), epilogue E (bias, bgrad,
//                           bias-c), transposes TA and TB (0 or 1)
//   load-file IMAGE         mgpuModuleLoad of a cubin/fatbin file
//   load-newer-ptx          mgpuModuleLoadJIT of PTX for a newer GPU
//
// Like a model library made by amp-compile, this program loads its GPU code
// (a small PTX kernel) from a global constructor of priority 123, which runs
// before the runtime's own static initializers: it must neither print nor
// abort when there is no driver.
//
//===----------------------------------------------------------------------===//

#include "CUDADriver.h"
#include "CUDAGemm.h"
#include "CUDAPool.h"
#include "GemmChecks.h"

#include "amp/Runtime/CUDAKernels.h"
#include "amp/Runtime/DeviceRuntime.h"
#include "amp/Runtime/ModelABI.h"
#include "amp/Runtime/Numerics.h"

#include <dlfcn.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

// The mgpu* ABI as MLIR 22's host code declares it (pointers for CUmodule,
// CUfunction, CUstream).
extern "C" {
void *mgpuModuleLoad(void *data, size_t sizeBytes);
void *mgpuModuleLoadJIT(void *data, int optLevel);
void mgpuModuleUnload(void *module);
void *mgpuModuleGetFunction(void *module, const char *name);
void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t sharedBytes, void *stream,
                      void **params, void **extra, size_t paramsCount);
void *mgpuStreamCreate();
void mgpuStreamDestroy(void *stream);
void mgpuStreamSynchronize(void *stream);
void *mgpuMemAlloc(uint64_t sizeBytes, void *stream, bool isHostShared);
void mgpuMemFree(void *pointer, void *stream);
void mgpuMemcpy(void *to, void *from, size_t sizeBytes, void *stream);
void mgpuMemset32(void *to, unsigned int value, size_t count, void *stream);
void mgpuMemset16(void *to, unsigned short value, size_t count, void *stream);
}

namespace {

/// out[i] = value for i < n, one thread per element (validated with ptxas
/// -arch=sm_90).
const char kFillPtx[] = R"(.version 8.0
.target sm_90
.address_size 64

.visible .entry amp_check_fill(
    .param .u64 amp_check_fill_out,
    .param .u32 amp_check_fill_n,
    .param .f32 amp_check_fill_value)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<5>;
  .reg .f32 %f<2>;

  ld.param.u64 %rd1, [amp_check_fill_out];
  ld.param.u32 %r1, [amp_check_fill_n];
  ld.param.f32 %f1, [amp_check_fill_value];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.ge.u32 %p1, %r5, %r1;
  @%p1 bra DONE;
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r5, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.f32 [%rd4], %f1;
DONE:
  ret;
}
)";

/// What the startup constructor loaded, as MLIR keeps it: a plain pointer.
void *startupModule = nullptr;
bool startupLoadRan = false;

/// glibc passes argc and argv to ELF constructors. The GEMM argument checks
/// must be the first error, so they skip the load.
__attribute__((constructor(123))) void loadAtStartup(int argc, char **argv) {
  if (argc >= 2 && std::strcmp(argv[1], "gemm-error") == 0)
    return;
  startupLoadRan = true;
  startupModule = mgpuModuleLoadJIT(const_cast<char *>(kFillPtx), 2);
}

const amp_device_ops &ops() { return *amp_cuda_device_ops(); }

//===----------------------------------------------------------------------===//
// Modes that need no GPU
//===----------------------------------------------------------------------===//

int checkInit() {
  if (ops().init() != 0) {
    std::printf("error: %s\n", ops().last_error());
    return 1;
  }
  std::printf("device: %s\n", ops().device_name());
  return 0;
}

int failures = 0;

void expect(bool condition, const char *what) {
  if (condition)
    return;
  ++failures;
  std::printf("FAIL: %s\n", what);
}

/// After a failed start every entry point must return quietly, report
/// failure where it can, and keep the first error.
int checkNoGPU() {
  expect(startupLoadRan && !startupModule,
         "mgpuModuleLoadJIT at startup returns null");
  std::string first = ops().last_error();
  expect(!first.empty(), "the failed startup load recorded an error");
  std::printf("error after startup: %s\n", first.c_str());
  expect(ops().init() != 0, "init fails");
  expect(std::strcmp(ops().device_name(), "no CUDA device") == 0,
         "device_name says there is no device");
  void *function = mgpuModuleGetFunction(startupModule, "amp_check_fill");
  expect(!function, "mgpuModuleGetFunction of a null module returns null");
  void *stream = mgpuStreamCreate();
  expect(!stream, "mgpuStreamCreate returns null");
  uint32_t n = 4;
  float value = 1.0f;
  void *out = nullptr;
  void *params[] = {&out, &n, &value};
  mgpuLaunchKernel(function, 1, 1, 1, 32, 1, 1, 0, stream, params, nullptr, 3);
  mgpuStreamSynchronize(stream);
  mgpuStreamDestroy(stream);
  expect(!mgpuMemAlloc(64, stream, false), "mgpuMemAlloc returns null");
  mgpuMemFree(nullptr, stream);
  expect(!ops().alloc(64), "alloc returns null");
  float host[4] = {0, 0, 0, 0};
  expect(ops().copy_to_device(nullptr, host, sizeof(host)) != 0,
         "copy_to_device fails");
  expect(ops().copy_to_host(host, nullptr, sizeof(host)) != 0,
         "copy_to_host fails");
  expect(ops().memset_zero(nullptr, 16) != 0, "memset_zero fails");
  expect(ops().synchronize() != 0, "synchronize fails");
  amp_gpu_gemm(AMP_DTYPE_F16, AMP_DTYPE_F32, 1, 2, 2, 2, 0, 0, host, 4, host, 4,
               host, 1.0f, 0.0f, 0, nullptr);
  mgpuModuleUnload(startupModule);
  expect(first == ops().last_error(),
         "the first error is kept through the launch and every later call");
  std::printf("error after launch: %s\n", ops().last_error());
  std::printf("%s\n",
              failures ? "no-gpu checks FAILED" : "no-gpu checks passed");
  return failures ? 2 : 0;
}

int checkGemmError(const std::string &which) {
  float buffer[16] = {0};
  if (which == "dtype")
    amp_gpu_gemm(AMP_DTYPE_F32, AMP_DTYPE_F16, 1, 2, 2, 2, 0, 0, buffer, 4,
                 buffer, 4, buffer, 1.0f, 0.0f, 0, nullptr);
  else
    amp_gpu_gemm(AMP_DTYPE_BF16, AMP_DTYPE_F32, 2, 0, 2, 2, 0, 0, buffer, 4,
                 buffer, 4, buffer, 1.0f, 0.0f, 0, nullptr);
  std::printf("gemm error: %s\n", ops().last_error());
  // Sticky: init reports the same error.
  int status = ops().init();
  std::printf("init after it: %d %s\n", status, ops().last_error());
  return 1;
}

int checkPoolSizes() {
  const size_t sizes[] = {0,       1,
                          512,     513,
                          4000,    (1 << 20) - 1,
                          1 << 20, (1 << 20) + 1,
                          5 << 20, 5767168,
                          6 << 20, (size_t(3) << 30) + 1};
  for (size_t size : sizes)
    std::printf("%zu -> %zu\n", size, amp::cuda::poolRoundedSize(size));
  return 0;
}

int checkDriverSymbols(const char *path) {
  void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    std::printf("error: %s\n", dlerror());
    return 1;
  }
  int count = 0, missing = 0;
  for (const char *const *name = amp::cuda::driverSymbolNames(); *name;
       ++name, ++count)
    if (!dlsym(library, *name)) {
      std::printf("missing: %s\n", *name);
      ++missing;
    }
  std::printf("%d of %d driver symbols resolve\n", count - missing, count);
  return missing ? 1 : 0;
}

int checkCublasLt() {
  if (!amp::cuda::loadCublasLt()) {
    std::printf("error: %s\n", ops().last_error());
    return 1;
  }
  std::printf("cuBLASLt loaded, every function resolves\n");
  return 0;
}

//===----------------------------------------------------------------------===//
// Module loading errors (need a GPU)
//===----------------------------------------------------------------------===//

int checkLoadFile(const char *path) {
  if (ops().init() != 0) {
    std::printf("error: %s\n", ops().last_error());
    return 1;
  }
  std::ifstream file(path, std::ios::binary);
  std::vector<char> image((std::istreambuf_iterator<char>(file)),
                          std::istreambuf_iterator<char>());
  void *module = mgpuModuleLoad(image.data(), image.size());
  if (!module) {
    std::printf("error: %s\n", ops().last_error());
    return 1;
  }
  std::printf("loaded\n");
  return 0;
}

int checkLoadNewerPtx() {
  if (ops().init() != 0) {
    std::printf("error: %s\n", ops().last_error());
    return 1;
  }
  std::string ptx = kFillPtx;
  ptx.replace(ptx.find(".version 8.0"), 12, ".version 8.8");
  ptx.replace(ptx.find(".target sm_90"), 13, ".target sm_100");
  void *module = mgpuModuleLoadJIT(&ptx[0], 2);
  if (!module) {
    std::printf("error: %s\n", ops().last_error());
    return 1;
  }
  std::printf("loaded\n");
  return 0;
}

//===----------------------------------------------------------------------===//
// GPU checks
//===----------------------------------------------------------------------===//

bool checkStatus(int32_t status, const char *what) {
  if (status == 0)
    return true;
  ++failures;
  std::printf("FAIL: %s: %s\n", what, ops().last_error());
  return false;
}

void checkCopies() {
  const size_t count = 1000;
  std::vector<float> host(count), back(count, -1.0f);
  for (size_t i = 0; i < count; ++i)
    host[i] = float(i) * 0.5f - 7.0f;
  void *first = ops().alloc(count * sizeof(float));
  void *second = ops().alloc(count * sizeof(float));
  expect(first && second, "alloc");
  checkStatus(ops().copy_to_device(first, host.data(), count * 4),
              "copy_to_device");
  checkStatus(ops().copy_on_device(second, first, count * 4), "copy_on_device");
  checkStatus(ops().copy_to_host(back.data(), second, count * 4),
              "copy_to_host");
  expect(back == host, "host -> device -> device -> host round trip");
  // 37 bytes from byte 12 takes the byte-store path, 400 bytes from byte
  // 400 the 32-bit one.
  checkStatus(ops().memset_zero(static_cast<char *>(second) + 12, 37),
              "memset_zero (bytes)");
  checkStatus(ops().memset_zero(static_cast<char *>(second) + 400, 400),
              "memset_zero (words)");
  checkStatus(ops().copy_to_host(back.data(), second, count * 4),
              "copy_to_host");
  std::vector<unsigned char> bytes(count * 4);
  std::memcpy(bytes.data(), back.data(), bytes.size());
  std::vector<unsigned char> expected(count * 4);
  std::memcpy(expected.data(), host.data(), expected.size());
  std::memset(expected.data() + 12, 0, 37);
  std::memset(expected.data() + 400, 0, 400);
  expect(bytes == expected, "memset_zero clears exactly the bytes asked for");
  ops().free(first);
  ops().free(second);
}

void checkPoolReuse() {
  using amp::cuda::poolStats;
  void *block = ops().alloc(4000);
  ops().free(block);
  amp::cuda::PoolStats before = poolStats();
  // 3900 bytes rounds to the same 4096-byte class.
  void *again = ops().alloc(3900);
  amp::cuda::PoolStats after = poolStats();
  expect(again == block, "a freed block is reused for the same size class");
  expect(after.driverAllocations == before.driverAllocations &&
             after.reuses == before.reuses + 1,
         "reuse does not call the driver");
  ops().free(again);
  // 5.5 MiB and 5.9 MiB share the 6 MiB class.
  void *large = ops().alloc(size_t(5.5 * (1 << 20)));
  ops().free(large);
  expect(ops().alloc(size_t(5.9 * (1 << 20))) == large,
         "large blocks are reused within their size class");
  ops().free(large);
  // Compiled code allocates and frees every step: a loop must not grow the
  // pool.
  size_t driverAllocations = poolStats().driverAllocations;
  for (int step = 0; step < 100; ++step) {
    void *a = mgpuMemAlloc(1 << 16, nullptr, false);
    void *b = mgpuMemAlloc(3 << 20, nullptr, false);
    mgpuMemFree(b, nullptr);
    mgpuMemFree(a, nullptr);
  }
  expect(poolStats().driverAllocations <= driverAllocations + 2,
         "a step loop is served from the pool");
}

/// The kernel loaded at startup, launched through the mgpu ABI as compiled
/// host code does (stream create, launch, synchronize, destroy).
void checkLaunch() {
  expect(startupModule != nullptr, "the startup module loaded");
  void *function = mgpuModuleGetFunction(startupModule, "amp_check_fill");
  expect(function != nullptr, "mgpuModuleGetFunction");
  expect(mgpuModuleGetFunction(startupModule, "amp_check_fill") == function,
         "mgpuModuleGetFunction is cached");
  const uint32_t n = 1000;
  void *out = mgpuMemAlloc(n * 4, nullptr, false);
  mgpuMemset32(out, 0, n, nullptr);
  float value = 2.5f;
  void *params[] = {&out, const_cast<uint32_t *>(&n), &value};
  void *stream = mgpuStreamCreate();
  mgpuLaunchKernel(function, (n + 255) / 256, 1, 1, 256, 1, 1, 0, stream,
                   params, nullptr, 3);
  mgpuStreamSynchronize(stream);
  mgpuStreamDestroy(stream);
  std::vector<float> back(n);
  checkStatus(ops().copy_to_host(back.data(), out, n * 4), "launch");
  bool filled = true;
  for (float v : back)
    filled &= v == 2.5f;
  expect(filled, "the kernel wrote every element");
  // mgpuMemset16 / mgpuMemcpy.
  void *half = mgpuMemAlloc(64, nullptr, false);
  mgpuMemset16(half, 0x3c00, 32, nullptr); // f16 1.0
  std::vector<uint16_t> halves(32);
  mgpuMemcpy(halves.data(), half, 64, nullptr);
  checkStatus(ops().synchronize(), "mgpuMemset16/mgpuMemcpy");
  bool ones = true;
  for (uint16_t h : halves)
    ones &= h == 0x3c00;
  expect(ones, "mgpuMemset16 then mgpuMemcpy to the host");
  mgpuMemFree(half, nullptr);
  mgpuMemFree(out, nullptr);
}

//===----------------------------------------------------------------------===//
// GEMM checks against a CPU reference
//===----------------------------------------------------------------------===//

struct GemmCase {
  const char *name;
  int32_t aType, cType;
  int64_t batch, m, n, k;
  int32_t transA, transB;
  bool broadcastA, broadcastB;
  float alpha, beta;
  int32_t tf32;
  /// Multiples of 1/8 in [-2, 2]: exact in f16, bf16 and TF32, and every
  /// product and f32 partial sum is exact for these sizes (at most 18
  /// significant bits), so the GPU's f32 accumulation, in whatever order,
  /// gives the exact result. Otherwise uniform floats in [-1, 1].
  bool dyadic;
};

float roundTo(int32_t dtype, float value) {
  if (dtype == AMP_DTYPE_F16)
    return amp::halfToFloat(amp::floatToHalf(value));
  if (dtype == AMP_DTYPE_BF16)
    return amp::bfloat16ToFloat(amp::floatToBFloat16(value));
  return value;
}

std::vector<char> encode(int32_t dtype, const std::vector<float> &values) {
  size_t width = dtype == AMP_DTYPE_F32 ? 4 : 2;
  std::vector<char> bytes(values.size() * width);
  for (size_t i = 0; i < values.size(); ++i) {
    if (dtype == AMP_DTYPE_F32) {
      std::memcpy(&bytes[i * 4], &values[i], 4);
      continue;
    }
    uint16_t bits = dtype == AMP_DTYPE_F16 ? amp::floatToHalf(values[i])
                                           : amp::floatToBFloat16(values[i]);
    std::memcpy(&bytes[i * 2], &bits, 2);
  }
  return bytes;
}

std::vector<float> decode(int32_t dtype, const std::vector<char> &bytes) {
  size_t width = dtype == AMP_DTYPE_F32 ? 4 : 2;
  std::vector<float> values(bytes.size() / width);
  for (size_t i = 0; i < values.size(); ++i) {
    if (dtype == AMP_DTYPE_F32) {
      std::memcpy(&values[i], &bytes[i * 4], 4);
      continue;
    }
    uint16_t bits;
    std::memcpy(&bits, &bytes[i * 2], 2);
    values[i] = dtype == AMP_DTYPE_F16 ? amp::halfToFloat(bits)
                                       : amp::bfloat16ToFloat(bits);
  }
  return values;
}

std::vector<float> randomValues(size_t count, int32_t dtype, bool dyadic,
                                std::mt19937 &random) {
  std::uniform_int_distribution<int> eighths(-16, 16);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> values(count);
  for (float &v : values)
    v = roundTo(dtype, dyadic ? eighths(random) / 8.0f : uniform(random));
  return values;
}

/// The error allowed for one output element whose exact value is `exact`,
/// with `magnitude` = |alpha| sum |a b| + |beta c|:
///  - dyadic inputs: the f32 result is exact; one rounding to the output
///    type (half an ulp, one ulp allowed for the epilogue's order);
///  - f32: recursive f32 summation error, k ulps of the magnitude;
///  - TF32: inputs rounded to 10 mantissa bits (relative 2^-10 each when
///    truncated), so 2^-9 of the magnitude, plus the f32 summation.
double tolerance(const GemmCase &c, double exact, double magnitude) {
  double ulp = c.cType == AMP_DTYPE_F16    ? std::ldexp(1.0, -10)
               : c.cType == AMP_DTYPE_BF16 ? std::ldexp(1.0, -7)
                                           : std::ldexp(1.0, -23);
  double rounding = ulp * std::fabs(exact) + 1e-30;
  if (c.dyadic)
    return rounding;
  double summation = double(c.k) * std::ldexp(1.0, -23) * magnitude;
  if (c.tf32)
    summation += std::ldexp(1.0, -9) * magnitude;
  return rounding + summation;
}

void runGemmCase(const GemmCase &c, std::mt19937 &random) {
  int64_t batchesA = c.broadcastA ? 1 : c.batch;
  int64_t batchesB = c.broadcastB ? 1 : c.batch;
  int64_t strideA = c.broadcastA ? 0 : c.m * c.k;
  int64_t strideB = c.broadcastB ? 0 : c.k * c.n;
  std::vector<float> a =
      randomValues(batchesA * c.m * c.k, c.aType, c.dyadic, random);
  std::vector<float> b =
      randomValues(batchesB * c.k * c.n, c.aType, c.dyadic, random);
  std::vector<float> c0 = randomValues(c.batch * c.m * c.n, c.cType,
                                       /*dyadic=*/true, random);
  std::vector<char> aBytes = encode(c.aType, a), bBytes = encode(c.aType, b),
                    cBytes = encode(c.cType, c0);
  void *da = ops().alloc(aBytes.size());
  void *db = ops().alloc(bBytes.size());
  void *dc = ops().alloc(cBytes.size());
  ops().copy_to_device(da, aBytes.data(), aBytes.size());
  ops().copy_to_device(db, bBytes.data(), bBytes.size());
  ops().copy_to_device(dc, cBytes.data(), cBytes.size());
  amp_gpu_gemm(c.aType, c.cType, c.batch, c.m, c.n, c.k, c.transA, c.transB, da,
               strideA, db, strideB, dc, c.alpha, c.beta, c.tf32, nullptr);
  std::vector<char> result(cBytes.size());
  if (!checkStatus(ops().copy_to_host(result.data(), dc, result.size()),
                   c.name))
    return;
  std::vector<float> got = decode(c.cType, result);
  int64_t bad = 0;
  double worst = 0;
  for (int64_t batch = 0; batch < c.batch; ++batch) {
    const float *A = a.data() + batch * strideA;
    const float *B = b.data() + batch * strideB;
    for (int64_t i = 0; i < c.m; ++i)
      for (int64_t j = 0; j < c.n; ++j) {
        double sum = 0, magnitude = 0;
        for (int64_t l = 0; l < c.k; ++l) {
          double x = c.transA ? A[l * c.m + i] : A[i * c.k + l];
          double y = c.transB ? B[j * c.k + l] : B[l * c.n + j];
          sum += x * y;
          magnitude += std::fabs(x * y);
        }
        size_t at = size_t((batch * c.m + i) * c.n + j);
        double exact = double(c.alpha) * sum + double(c.beta) * c0[at];
        magnitude =
            std::fabs(c.alpha) * magnitude + std::fabs(double(c.beta) * c0[at]);
        double error = std::fabs(double(got[at]) - exact);
        worst = std::max(worst, error);
        if (error > tolerance(c, exact, magnitude))
          ++bad;
      }
  }
  if (bad) {
    ++failures;
    std::printf("FAIL: gemm %s: %lld elements out of tolerance (worst error "
                "%g)\n",
                c.name, (long long)bad, worst);
  } else {
    std::printf("gemm %s: ok (worst error %g)\n", c.name, worst);
  }
  ops().free(da);
  ops().free(db);
  ops().free(dc);
}

void checkGemms() {
  const int32_t F32 = AMP_DTYPE_F32, F16 = AMP_DTYPE_F16, BF16 = AMP_DTYPE_BF16;
  const GemmCase cases[] = {
      {"f32", F32, F32, 1, 37, 53, 61, 0, 0, false, false, 1, 0, 0, false},
      {"f32 tf32", F32, F32, 1, 37, 53, 61, 0, 0, false, false, 1, 0, 1, false},
      {"f32 tf32 exact", F32, F32, 1, 64, 48, 96, 0, 1, false, false, 1, 0, 1,
       true},
      {"f32 batched trans_b beta=1", F32, F32, 2, 33, 17, 20, 0, 1, false,
       false, 1, 1, 0, false},
      {"f16->f32 NN", F16, F32, 3, 40, 24, 72, 0, 0, false, false, 2, 0.5f, 0,
       true},
      {"f16->f32 NT", F16, F32, 3, 40, 24, 72, 0, 1, false, false, 2, 0.5f, 0,
       true},
      {"f16->f32 TN", F16, F32, 3, 40, 24, 72, 1, 0, false, false, 2, 0.5f, 0,
       true},
      {"f16->f32 TT", F16, F32, 3, 40, 24, 72, 1, 1, false, false, 2, 0.5f, 0,
       true},
      {"f16->f16 linear", F16, F16, 1, 128, 256, 64, 0, 1, false, false, 1, 0,
       0, true},
      {"bf16->f32 broadcast B", BF16, F32, 4, 31, 45, 50, 0, 0, false, true, 1,
       0, 0, true},
      {"bf16->bf16 broadcast A, trans_a", BF16, BF16, 3, 16, 64, 32, 1, 0, true,
       false, 1, 0.5f, 0, true},
      {"bf16->f32 1024^3", BF16, F32, 1, 1024, 1024, 1024, 0, 0, false, false,
       1, 0, 0, true},
  };
  std::mt19937 random(42);
  for (const GemmCase &c : cases)
    runGemmCase(c, random);
}

int checkGPU() {
  if (checkInit() != 0)
    return 1;
  checkCopies();
  checkPoolReuse();
  checkLaunch();
  checkGemms();
  checkStatus(ops().synchronize(), "final synchronize");
  if (failures) {
    std::printf("%d GPU checks FAILED\n", failures);
    return 1;
  }
  std::printf("all GPU checks passed\n");
  return 0;
}

int32_t dtypeCode(const std::string &name) {
  return name == "f16"    ? AMP_DTYPE_F16
         : name == "bf16" ? AMP_DTYPE_BF16
                          : AMP_DTYPE_F32;
}

int checkEpilogueCase(char **argv) {
  if (checkInit() != 0)
    return 1;
  std::string epilogue = argv[4];
  return amp::check::checkEpilogueCase(
      dtypeCode(argv[2]), dtypeCode(argv[3]),
      epilogue == "bgrad"    ? AMP_GEMM_EPILOGUE_BGRAD_A
      : epilogue == "bias-c" ? AMP_GEMM_EPILOGUE_BIAS_C_TYPE
                             : AMP_GEMM_EPILOGUE_BIAS,
      std::atoi(argv[5]), std::atoi(argv[6]));
}

} // namespace

int main(int argc, char **argv) {
  std::string mode = argc >= 2 ? argv[1] : "";
  std::string arg = argc >= 3 ? argv[2] : "";
  if (mode == "init")
    return checkInit();
  if (mode == "no-gpu")
    return checkNoGPU();
  if (mode == "gemm-error")
    return checkGemmError(arg);
  if (mode == "pool-sizes")
    return checkPoolSizes();
  if (mode == "driver-symbols" && !arg.empty())
    return checkDriverSymbols(arg.c_str());
  if (mode == "cublaslt")
    return checkCublasLt();
  if (mode == "gpu")
    return checkGPU();
  if (mode == "load-file" && !arg.empty())
    return checkLoadFile(arg.c_str());
  if (mode == "load-newer-ptx")
    return checkLoadNewerPtx();
  if (mode == "epilogue-case" && argc == 7)
    return checkEpilogueCase(argv);
  // The emulated device's exact GEMM checks, on the GPU.
  if (mode == "gemm-exact" || mode == "gemm-epilogue" || mode == "gemm-apart" ||
      mode == "gemm-tf32" || mode == "gemm-gelu" || mode == "nccl") {
    if (checkInit() != 0)
      return 1;
    return mode == "gemm-exact"      ? amp::check::checkGemms()
           : mode == "gemm-epilogue" ? amp::check::checkEpilogues()
           : mode == "gemm-apart"    ? amp::check::checkGemmsApart()
           : mode == "gemm-gelu"     ? amp::check::checkGeluEpilogues(0x1p-10)
           : mode == "nccl"          ? amp::check::checkCollectives()
                                     : amp::check::checkTF32();
  }
  std::fprintf(stderr, "usage: amp-cuda-runtime-check init|no-gpu|gemm-error "
                       "dtype|gemm-error size|pool-sizes|driver-symbols LIB|"
                       "cublaslt|gpu|load-file IMAGE|load-newer-ptx|gemm-exact|"
                       "gemm-epilogue|gemm-apart|gemm-tf32|gemm-gelu|nccl\n");
  return 2;
}
