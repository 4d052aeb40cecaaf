//===- EmulatorCheck.cpp - tests of the emulated CUDA device --------------===//
//
// amp-cuda-emulator-check KERNELS.so MODE: lib/Runtime's own code (the CUDA
// runtime built to open libamp_cuda_emulator.so) on the emulated device, one
// check per process because the runtime's errors are sticky. KERNELS.so is
// the hand-written kernel object (EmulatorKernels.cpp); the program wraps it
// in the kernel object header and loads it through mgpuModuleLoad, as a
// model library's constructor does.
//
//   device            init; prints the device description
//   kernels           launches: 3-d ids, fill, barriers with static and
//                     dynamic shared memory, warp shuffles (every mode)
//   nan-fill          a kernel reading memory nobody wrote gets NaN
//   overflow          an out-of-bounds write is an error naming the kernel
//                     and the allocation
//   skipped-barrier   a barrier half the block skips is an error
//   stray-shuffle     a shuffle reading a lane not in it is an error
//   bad-params        a launch with the wrong parameter count is an error
//   bad-param-size    a launch packing an argument smaller than the
//                     kernel's parameter is an error
//   gemm              amp_gpu_gemm (cuBLASLt layouts of lib/Runtime) against
//                     a reference: every dtype, transpose, batch stride
//   gemm-epilogue     amp_gpu_gemm_epilogue's bias and bias-gradient
//                     epilogues against a reference
//   gemm-epilogue-error WHAT  a bad epilogue call (unknown, null, batch,
//                     f32-bias, bgrad-f16, bgrad-nn)
//   gemm-apart        amp_gpu_gemm_ex with C and D apart against a reference
//                     is an error
//   gemm-gelu         amp_gpu_gemm_aux's GELU epilogues against a reference
//   gemm-aux-error WHAT  a bad amp_gpu_gemm_aux call (ld12, ld8,
//                     misaligned, null, bounds, bias, no-bias, no-aux)
//   lt-aux-rule WHAT  the emulated cuBLASLt called directly with a GELU aux
//                     matrix it must refuse (ld12, ld8, f16, stride, null)
//                     or take (ok)
//   gemm-tf32         TF32 rounds f32 inputs to 10 mantissa bits
//   gemm-bounds       an operand beyond its allocation is an error
//   gemm-stream       a GEMM queued on something that is not a stream is an
//                     error
//   corrupt WHAT      loading a damaged object: magic, version, elf, table
//   nccl              amp_gpu_dp_* as one rank on the emulated NCCL
//                     (CollectiveChecks.cpp; built with MPI only)
//   mlir-kernels      the kernels of test/Target/Emulator/Inputs/
//                     kernels.mlir, compiled by the emulator target (KERNELS
//                     is then the kernel object itself)
//
//===----------------------------------------------------------------------===//

#include "../GemmChecks.h"

#include "amp/Runtime/CUDAKernels.h"
#include "amp/Runtime/DeviceRuntime.h"
#include "amp/Runtime/EmulatorABI.h"
#include "amp/Runtime/ModelABI.h"
#include "amp/Runtime/Numerics.h"

#ifdef AMP_CHECK_HAS_MPI
#define OMPI_SKIP_MPICXX 1
#include <mpi.h>
#endif

#include <cublasLt.h>
#include <dlfcn.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" {
void *mgpuModuleLoad(void *data, size_t sizeBytes);
void *mgpuModuleGetFunction(void *module, const char *name);
void *mgpuStreamCreate();
void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t sharedBytes, void *stream,
                      void **params, void **extra, size_t paramsCount);
}

namespace {

using namespace amp::check;

/// The kernel object: the header, then the shared object's bytes. A file
/// that is a kernel object already (from the emulator target) is used as
/// it is.
std::vector<char> kernelObject(const char *path) {
  std::ifstream file(path, std::ios::binary);
  std::vector<char> elf((std::istreambuf_iterator<char>(file)),
                        std::istreambuf_iterator<char>());
  if (elf.size() >= AMP_EMU_MAGIC_BYTES &&
      std::memcmp(elf.data(), AMP_EMU_MAGIC, AMP_EMU_MAGIC_BYTES) == 0)
    return elf;
  amp_emu_object_header header;
  std::memcpy(header.magic, AMP_EMU_MAGIC, AMP_EMU_MAGIC_BYTES);
  header.version = AMP_EMU_VERSION;
  header.header_bytes = sizeof(header);
  header.elf_bytes = elf.size();
  std::vector<char> object(sizeof(header));
  std::memcpy(object.data(), &header, sizeof(header));
  object.insert(object.end(), elf.begin(), elf.end());
  return object;
}

void *module = nullptr;

void *kernel(const char *name) {
  void *function = mgpuModuleGetFunction(module, name);
  if (!function)
    std::printf("error: %s\n", ops().last_error());
  return function;
}

void launch(const char *name, const uint32_t grid[3], const uint32_t block[3],
            std::vector<void *> params, int32_t sharedBytes = 0) {
  mgpuLaunchKernel(kernel(name), grid[0], grid[1], grid[2], block[0], block[1],
                   block[2], sharedBytes, nullptr, params.data(), nullptr,
                   params.size());
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

void checkIds() {
  const uint32_t grid[3] = {3, 2, 2}, block[3] = {4, 3, 2};
  size_t count = 12 * 24;
  uint32_t *out = deviceBuffer<uint32_t>(count);
  launch("ids", grid, block, {&out});
  std::vector<uint32_t> got = toHost(out, count);
  bool ok = true;
  for (uint32_t bz = 0, slot = 0; bz < 2; ++bz)
    for (uint32_t by = 0; by < 2; ++by)
      for (uint32_t bx = 0; bx < 3; ++bx)
        for (uint32_t tz = 0; tz < 2; ++tz)
          for (uint32_t ty = 0; ty < 3; ++ty)
            for (uint32_t tx = 0; tx < 4; ++tx, ++slot)
              ok &= got[slot] ==
                    (bx | by << 4 | bz << 8 | tx << 12 | ty << 18 | tz << 24);
  expect(ok, "3-d grid of 3-d blocks: every thread sees its ids");
}

void checkFill() {
  uint32_t n = 1000;
  float value = 2.5f;
  float *out = deviceBuffer<float>(n);
  const uint32_t grid[3] = {4, 1, 1}, block[3] = {256, 1, 1};
  launch("amp_check_fill", grid, block, {&out, &n, &value});
  std::vector<float> got = toHost(out, n);
  bool ok = true;
  for (float v : got)
    ok &= v == 2.5f;
  expect(ok, "fill (threads as a loop)");
}

void checkReverse() {
  const uint32_t n = 256, blocks = 3;
  std::vector<float> in(n * blocks);
  for (uint32_t i = 0; i < in.size(); ++i)
    in[i] = float(i);
  float *dIn = deviceBuffer(in.size(), in.data());
  float *dOut = deviceBuffer<float>(in.size());
  const uint32_t grid[3] = {blocks, 1, 1}, block[3] = {n, 1, 1};
  launch("reverse", grid, block, {&dIn, &dOut});
  std::vector<float> got = toHost(dOut, in.size());
  bool ok = true;
  for (uint32_t b = 0; b < blocks; ++b)
    for (uint32_t i = 0; i < n; ++i)
      ok &= got[b * n + i] == in[b * n + n - 1 - i];
  expect(ok, "barrier with static shared memory (block reverse)");
}

void checkBlockSum() {
  const uint32_t n = 512, blocks = 2;
  std::vector<float> in(n * blocks);
  for (uint32_t i = 0; i < in.size(); ++i)
    in[i] = float(i % 7);
  float *dIn = deviceBuffer(in.size(), in.data());
  float *dOut = deviceBuffer<float>(blocks);
  const uint32_t grid[3] = {blocks, 1, 1}, block[3] = {n, 1, 1};
  launch("block_sum", grid, block, {&dIn, &dOut}, n * 4);
  std::vector<float> got = toHost(dOut, blocks);
  bool ok = true;
  for (uint32_t b = 0; b < blocks; ++b) {
    float sum = 0;
    for (uint32_t i = 0; i < n; ++i)
      sum += in[b * n + i];
    ok &= got[b] == sum;
  }
  expect(ok, "barriers with dynamic shared memory (tree sum)");
}

void checkWarpSum() {
  const uint32_t n = 128;
  std::vector<float> in(n);
  for (uint32_t i = 0; i < n; ++i)
    in[i] = float(i);
  float *dIn = deviceBuffer(n, in.data());
  float *dOut = deviceBuffer<float>(n / 32);
  const uint32_t grid[3] = {1, 1, 1}, block[3] = {n, 1, 1};
  launch("warp_sum", grid, block, {&dIn, &dOut});
  std::vector<float> got = toHost(dOut, n / 32);
  bool ok = true;
  for (uint32_t w = 0; w < n / 32; ++w)
    ok &= got[w] == float(32 * 32 * w + 31 * 32 / 2);
  expect(ok, "xor shuffles (warp butterfly sum)");
}

void checkShuffleModes() {
  // 40 threads: a full warp and one of 8 lanes.
  const uint32_t n = 40;
  int32_t *out = deviceBuffer<int32_t>(n * 4);
  const uint32_t grid[3] = {1, 1, 1}, block[3] = {n, 1, 1};
  launch("shuffle_modes", grid, block, {&out});
  std::vector<int32_t> got = toHost(out, n * 4);
  bool ok = true;
  for (uint32_t i = 0; i < n; ++i) {
    int32_t lane = int32_t(i % 32), lanes = i < 32 ? 32 : 8;
    auto value = [&](int32_t source) {
      return source >= 0 && source < lanes ? source + 100 : -1;
    };
    ok &= got[i * 4 + 0] == value(lane - 1);
    ok &= got[i * 4 + 1] == value(lane + 1);
    ok &= got[i * 4 + 2] == value(3);
    ok &= got[i * 4 + 3] == value(lane ^ 5);
  }
  expect(ok, "shuffle up, down, idx and xor, full and partial warps");
}

int checkKernels() {
  checkIds();
  checkFill();
  checkReverse();
  checkBlockSum();
  checkWarpSum();
  checkShuffleModes();
  expect(ops().synchronize() == 0, "no error");
  std::printf("%s\n",
              failures ? "kernel checks FAILED" : "kernel checks passed");
  return failures ? 1 : 0;
}

int checkNanFill() {
  uint32_t n = 64;
  float *in = deviceBuffer<float>(n), *out = deviceBuffer<float>(n);
  const uint32_t grid[3] = {1, 1, 1}, block[3] = {n, 1, 1};
  launch("copy", grid, block, {&in, &out, &n});
  std::vector<float> got = toHost(out, n);
  bool allNaN = true;
  for (float v : got)
    allNaN &= std::isnan(v);
  expect(allNaN, "a kernel reading fresh device memory gets NaN");
  return failures ? 1 : 0;
}

/// Launches a broken kernel; the runtime's sticky error says why.
int expectLaunchError(const char *name, const uint32_t block[3],
                      std::vector<void *> params) {
  const uint32_t grid[3] = {1, 1, 1};
  launch(name, grid, block, params);
  std::printf("error: %s\n", ops().last_error());
  return 1;
}

int checkOverflow() {
  uint32_t n = 100;
  float *out = deviceBuffer<float>(n);
  const uint32_t block[3] = {128, 1, 1};
  return expectLaunchError("overflow", block, {&out, &n});
}

int checkSkippedBarrier() {
  const uint32_t block[3] = {64, 1, 1};
  return expectLaunchError("skipped_barrier", block, {});
}

int checkStrayShuffle() {
  const uint32_t block[3] = {32, 1, 1};
  return expectLaunchError("stray_shuffle", block, {});
}

int checkBadParams() {
  float *out = deviceBuffer<float>(4);
  const uint32_t block[3] = {4, 1, 1};
  // amp_check_fill takes three.
  return expectLaunchError("amp_check_fill", block, {&out});
}

int checkBadParamSize() {
  // Packed as MLIR packs a launch's arguments, with a 32-bit value where
  // amp_check_fill takes a pointer (8, 4, 4 bytes).
  struct {
    uint32_t out;
    uint32_t count;
    float value;
  } args = {0, 4, 1.0f};
  const uint32_t block[3] = {4, 1, 1};
  return expectLaunchError("amp_check_fill", block,
                           {&args.out, &args.count, &args.value});
}

//===----------------------------------------------------------------------===//
// GEMMs (the shared checks are in ../GemmChecks.cpp)
//===----------------------------------------------------------------------===//

/// An 8 x 8 x 8 f32 GEMM that the emulator must refuse: B's allocation
/// holds `bElements` floats and, with `cAsStream`, the stream argument is
/// C's device buffer. Prints the error.
int checkGemmRefused(size_t bElements, bool cAsStream) {
  float *a = deviceBuffer<float>(64), *b = deviceBuffer<float>(bElements);
  float *c = deviceBuffer<float>(64);
  amp_gpu_gemm(AMP_DTYPE_F32, AMP_DTYPE_F32, 1, 8, 8, 8, 0, 0, a, 0, b, 0, c,
               1.0f, 0.0f, 0, cAsStream ? c : nullptr);
  std::printf("error: %s\n", ops().last_error());
  return 1;
}

/// The emulated cuBLASLt called directly (the library the runtime opened,
/// beside KERNELS.so) with GELU aux descriptors the runtime never builds:
/// an f32 D of 16 x 8 (cuBLASLt's rows x columns) with GELU_AUX and `what`:
/// ld12 (aux leading dimension 12), ld8 (below the 16 rows), f16 (an aux
/// type other than D's), stride (2 batches, aux batch stride 132), null (no
/// aux pointer) or ok. Prints the heuristic's and the matmul's statuses.
int checkLtAuxRule(const std::string &kernels, const std::string &what) {
  std::string library =
      kernels.substr(0, kernels.rfind('/') + 1) + "libamp_cuda_emulator.so";
  void *lt = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
#define RESOLVE(name)                                                          \
  auto name =                                                                  \
      reinterpret_cast<decltype(&::name)>(lt ? dlsym(lt, #name) : nullptr);    \
  if (!name) {                                                                 \
    std::printf("error: %s lacks " #name "\n", library.c_str());               \
    return 1;                                                                  \
  }
  RESOLVE(cublasLtCreate)
  RESOLVE(cublasLtMatmulDescCreate)
  RESOLVE(cublasLtMatmulDescSetAttribute)
  RESOLVE(cublasLtMatrixLayoutCreate)
  RESOLVE(cublasLtMatrixLayoutSetAttribute)
  RESOLVE(cublasLtMatmulPreferenceCreate)
  RESOLVE(cublasLtMatmulAlgoGetHeuristic)
  RESOLVE(cublasLtMatmul)
  RESOLVE(cublasLtGetStatusName)
  RESOLVE(cublasLtGetStatusString)
#undef RESOLVE
  const int64_t rows = 16, cols = 8, k = 8;
  int32_t batch = what == "stride" ? 2 : 1;
  float *a = deviceBuffer<float>(2 * rows * k), *b = deviceBuffer<float>(256);
  float *d = deviceBuffer<float>(2 * rows * cols);
  float *aux = deviceBuffer<float>(2 * 24 * cols + 8);
  cublasLtHandle_t handle;
  cublasLtMatmulDesc_t desc;
  cublasLtMatrixLayout_t la, lb, ld;
  cublasLtMatmulPreference_t preference;
  cublasLtCreate(&handle);
  cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F);
  cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_GELU_AUX;
  int64_t auxLd = what == "ld12" ? 12 : what == "ld8" ? 8 : 16;
  int64_t auxStride = 132;
  int32_t auxType = CUDA_R_16F;
  void *auxPointer = what == "null" ? nullptr : aux;
  cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue,
                                 sizeof(epilogue));
  cublasLtMatmulDescSetAttribute(desc,
                                 CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER,
                                 &auxPointer, sizeof(auxPointer));
  cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD,
                                 &auxLd, sizeof(auxLd));
  if (what == "stride")
    cublasLtMatmulDescSetAttribute(
        desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE, &auxStride,
        sizeof(auxStride));
  if (what == "f16")
    cublasLtMatmulDescSetAttribute(desc,
                                   CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE,
                                   &auxType, sizeof(auxType));
  cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, rows, k, rows);
  cublasLtMatrixLayoutCreate(&lb, CUDA_R_32F, k, cols, k);
  cublasLtMatrixLayoutCreate(&ld, CUDA_R_32F, rows, cols, rows);
  int64_t strides[] = {rows * k, 0, rows * cols};
  cublasLtMatrixLayout_t layouts[] = {la, lb, ld};
  for (int i = 0; i < 3; ++i) {
    cublasLtMatrixLayoutSetAttribute(
        layouts[i], CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch, sizeof(batch));
    cublasLtMatrixLayoutSetAttribute(
        layouts[i], CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &strides[i],
        sizeof(strides[i]));
  }
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

int checkCorrupt(std::vector<char> object, const std::string &what) {
  auto *header = reinterpret_cast<amp_emu_object_header *>(object.data());
  if (what == "magic")
    std::memcpy(object.data(),
                "\x7f"
                "ELF",
                4);
  else if (what == "version")
    header->version = 99;
  else if (what == "elf")
    object.resize(sizeof(*header) + header->elf_bytes / 2),
        header = reinterpret_cast<amp_emu_object_header *>(object.data()),
        header->elf_bytes = object.size() - sizeof(*header);
  void *loaded = mgpuModuleLoad(object.data(), object.size());
  std::printf("%s: %s\n", loaded ? "loaded" : "error", ops().last_error());
  return loaded ? 0 : 1;
}

//===----------------------------------------------------------------------===//
// Kernels compiled from MLIR by the emulator target
//===----------------------------------------------------------------------===//

/// A 1-d memref<256xf32> as a kernel compiled from MLIR takes it: five
/// parameters (allocated and aligned pointers, offset, size, stride).
struct MemRef1D {
  float *allocated, *aligned;
  int64_t offset = 0, size = 256, stride = 1;
  explicit MemRef1D(float *data) : allocated(data), aligned(data) {}
  void append(std::vector<void *> &params) {
    for (void *field : {(void *)&allocated, (void *)&aligned, (void *)&offset,
                        (void *)&size, (void *)&stride})
      params.push_back(field);
  }
};

void launchMlir(const char *name, uint32_t blocks, uint32_t threads,
                MemRef1D in, MemRef1D out) {
  std::vector<void *> params;
  in.append(params);
  out.append(params);
  const uint32_t grid[3] = {blocks, 1, 1}, block[3] = {threads, 1, 1};
  launch(name, grid, block, params);
}

int checkMlirKernels() {
  std::vector<float> in(256);
  for (int i = 0; i < 256; ++i)
    in[i] = float(i % 17) / 8.0f - 1.0f;
  float *dIn = deviceBuffer(256, in.data());
  float *reversed = deviceBuffer<float>(256), *warps = deviceBuffer<float>(256);
  float *sums = deviceBuffer<float>(256);
  launchMlir("reverse_erf", 1, 256, MemRef1D(dIn), MemRef1D(reversed));
  launchMlir("warp_sum", 2, 128, MemRef1D(dIn), MemRef1D(warps));
  launchMlir("block_sum", 1, 256, MemRef1D(dIn), MemRef1D(sums));
  std::vector<float> r = toHost(reversed, 256), w = toHost(warps, 256),
                     s = toHost(sums, 256);
  bool erfOk = true, warpOk = true, sumOk = true;
  float total = 0;
  for (float v : in)
    total += v;
  for (int i = 0; i < 256; ++i) {
    erfOk &= std::fabs(r[i] - std::erf(in[255 - i])) <= 1e-6f;
    float warp = 0;
    for (int j = i / 32 * 32; j < i / 32 * 32 + 32; ++j)
      warp += in[j];
    warpOk &= w[i] == warp; // exact: multiples of 1/8
    sumOk &= s[i] == total;
  }
  expect(erfOk, "reverse_erf: workgroup memory, barrier, erf");
  expect(warpOk, "warp_sum: xor shuffles");
  expect(sumOk, "block_sum: gpu.all_reduce");
  expect(ops().synchronize() == 0, "no error");
  return failures ? 1 : 0;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: amp-cuda-emulator-check KERNELS.so MODE\n");
    return 2;
  }
  std::string mode = argv[2], arg = argc > 3 ? argv[3] : "";
  if (ops().init() != 0) {
    std::printf("error: %s\n", ops().last_error());
    return 1;
  }
  std::printf("device: %s\n", ops().device_name());
  std::vector<char> object = kernelObject(argv[1]);
  if (mode == "corrupt")
    return checkCorrupt(object, arg);
  module = mgpuModuleLoad(object.data(), object.size());
  if (!module) {
    std::printf("error: %s\n", ops().last_error());
    return 1;
  }
  if (mode == "device")
    return 0;
  if (mode == "kernels")
    return checkKernels();
  if (mode == "nan-fill")
    return checkNanFill();
  if (mode == "overflow")
    return checkOverflow();
  if (mode == "skipped-barrier")
    return checkSkippedBarrier();
  if (mode == "stray-shuffle")
    return checkStrayShuffle();
  if (mode == "bad-params")
    return checkBadParams();
  if (mode == "bad-param-size")
    return checkBadParamSize();
  if (mode == "gemm")
    return checkGemms();
  if (mode == "gemm-epilogue")
    return checkEpilogues();
  if (mode == "gemm-apart")
    return checkGemmsApart();
  if (mode == "gemm-epilogue-error")
    return checkEpilogueError(arg);
  if (mode == "gemm-tf32")
    return checkTF32();
  // The emulated cuBLASLt evaluates GELU in f32 with the host's tanh: a few
  // f32 units.
  if (mode == "gemm-gelu")
    return checkGeluEpilogues(/*tolerance=*/0x1p-20);
  if (mode == "gemm-aux-error")
    return checkAuxError(arg);
  if (mode == "lt-aux-rule")
    return checkLtAuxRule(argv[1], arg);
  if (mode == "gemm-bounds")
    return checkGemmRefused(32, false); // B claims 8 x 8, holds 8 x 4
  if (mode == "gemm-stream")
    return checkGemmRefused(64, true); // the stream is a device buffer
  if (mode == "mlir-kernels")
    return checkMlirKernels();
#ifdef AMP_CHECK_HAS_MPI
  if (mode == "nccl") {
    // The emulated NCCL runs over the launcher's MPI, which the
    // data-parallel runtime initializes in a model library: here, this
    // process is a world of one.
    MPI_Init(nullptr, nullptr);
    int status = checkCollectives();
    MPI_Finalize();
    return status;
  }
#endif
  std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
  return 2;
}
