//===- CUDADriver.h - the CUDA driver API, loaded at run time ---*- C++ -*-===//
//
// Internal to libamp_cuda_runtime. The driver (libcuda.so.1) is opened with
// dlopen when the runtime is first used, never linked: a model library built
// for the GPU must load, and report a clear error, on a machine without an
// NVIDIA driver. cuda.h is included for its types and enum values only; every
// function is called through the table below, resolved by its exact
// (versioned) symbol name.
//
// The runtime keeps one device, its primary context and one stream. Errors
// are sticky: the first one is kept, and every later operation does nothing
// and reports failure.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_RUNTIME_CUDADRIVER_H
#define AMP_LIB_RUNTIME_CUDADRIVER_H

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace amp {
namespace cuda {

/// The driver functions the runtime calls, by the symbol names cuda.h maps
/// the API names to (cuMemAlloc -> cuMemAlloc_v2, ...). The per-thread
/// default stream variants (_ptsz/_ptds) are not used: every operation names
/// the runtime's stream explicitly.
#define AMP_CUDA_DRIVER_FUNCTIONS(X)                                           \
  X(cuGetErrorName)                                                            \
  X(cuGetErrorString)                                                          \
  X(cuDeviceGetCount)                                                          \
  X(cuDeviceGet)                                                               \
  X(cuDeviceGetName)                                                           \
  X(cuDeviceGetAttribute)                                                      \
  X(cuDeviceTotalMem_v2)                                                       \
  X(cuDevicePrimaryCtxRetain)                                                  \
  X(cuDevicePrimaryCtxRelease_v2)                                              \
  X(cuCtxSetCurrent)                                                           \
  X(cuCtxSynchronize)                                                          \
  X(cuStreamCreate)                                                            \
  X(cuStreamDestroy_v2)                                                        \
  X(cuStreamSynchronize)                                                       \
  X(cuStreamQuery)                                                             \
  X(cuStreamWaitEvent)                                                         \
  X(cuEventCreate)                                                             \
  X(cuEventDestroy_v2)                                                         \
  X(cuEventRecord)                                                             \
  X(cuEventSynchronize)                                                        \
  X(cuMemGetInfo_v2)                                                           \
  X(cuMemAlloc_v2)                                                             \
  X(cuMemAllocManaged)                                                         \
  X(cuMemFree_v2)                                                              \
  X(cuMemcpyHtoDAsync_v2)                                                      \
  X(cuMemcpyDtoHAsync_v2)                                                      \
  X(cuMemcpyDtoDAsync_v2)                                                      \
  X(cuMemcpyAsync)                                                             \
  X(cuMemsetD8Async)                                                           \
  X(cuMemsetD16Async)                                                          \
  X(cuMemsetD32Async)                                                          \
  X(cuMemHostRegister_v2)                                                      \
  X(cuMemHostUnregister)                                                       \
  X(cuModuleLoadData)                                                          \
  X(cuModuleLoadDataEx)                                                        \
  X(cuModuleUnload)                                                            \
  X(cuModuleGetFunction)                                                       \
  X(cuFuncSetAttribute)                                                        \
  X(cuLaunchKernel)                                                            \
  X(cuThreadExchangeStreamCaptureMode)                                         \
  X(cuStreamBeginCapture_v2)                                                   \
  X(cuStreamEndCapture)                                                        \
  X(cuGraphInstantiateWithFlags)                                               \
  X(cuGraphLaunch)                                                             \
  X(cuGraphExecDestroy)                                                        \
  X(cuGraphDestroy)

/// Function pointers with the exact prototypes of cuda.h (decltype does not
/// reference the symbols, so nothing links against libcuda).
struct DriverAPI {
  decltype(&::cuInit) cuInit = nullptr;
  decltype(&::cuDriverGetVersion) cuDriverGetVersion = nullptr;
  /// Only the emulated device (libamp_cuda_emulator.so) has it: the
  /// parameter count of the next launch, which cuLaunchKernel does not take,
  /// so that a mismatch with the kernel is an error rather than a crash.
  void (*ampEmuSetLaunchParamCount)(uint64_t) = nullptr;
  /// Likewise: which bytes of a block the pool hands out or takes back, so
  /// that the emulated device's red zones and NaN fill follow them.
  void (*ampEmuPoolBlock)(void *, size_t, int) = nullptr;
#define AMP_CUDA_DECLARE(name) decltype(&::name) name = nullptr;
  AMP_CUDA_DRIVER_FUNCTIONS(AMP_CUDA_DECLARE)
#undef AMP_CUDA_DECLARE
};

/// What init found.
struct DeviceInfo {
  int ordinal = 0;
  CUdevice device = 0;
  int ccMajor = 0;
  int ccMinor = 0;
  size_t totalBytes = 0;
  int driverVersion = 0;   // e.g. 13000 for CUDA 13.0
  std::string name;        // "NVIDIA H200"
  std::string description; // "NVIDIA H200 (sm_90, 139.8 GiB)"
};

//===----------------------------------------------------------------------===//
// Sticky errors
//===----------------------------------------------------------------------===//

/// Records `message` unless an error is already recorded. Returns false so
/// that callers can `return fail(...)`. While this thread captures the
/// stream (beginCaptureErrors), the error belongs to the capture instead:
/// nothing captured has run, and the capture is discarded.
bool fail(const std::string &message);
/// Whether an error has been recorded (or, during a capture on this thread,
/// the capture has one).
bool failed();

/// From now until endCaptureErrors, errors on this thread are the
/// capture's (CUDA graphs, CUDARuntime.cpp).
void beginCaptureErrors();
/// Ends that; the capture's first error, or "".
std::string endCaptureErrors();
/// The first error, or "" when there was none. The pointer stays valid.
const char *lastError();

/// dlopen(name) (RTLD_LOCAL: its symbols must not satisfy anyone else's
/// references by accident), then dlopen(fallbackDir/name) when fallbackDir
/// is not empty; null, with the loader's reasons in `error`, when neither
/// loads.
void *openLibrary(const char *name, const char *fallbackDir,
                  std::string &error);

/// "<what> failed: CUDA_ERROR_X (<driver's description>)".
std::string describe(CUresult result, const std::string &what);
/// Records describe(result, what) when result is not CUDA_SUCCESS.
bool check(CUresult result, const std::string &what);
/// check() for the hot paths (launches, copies): `what()` builds the
/// description only when there is an error to describe.
template <typename WhatFn> bool checkLazily(CUresult result, WhatFn what) {
  return result == CUDA_SUCCESS || fail(describe(result, what()));
}

/// Bytes as "1.5 MiB" / "139.8 GiB".
std::string formatBytes(double bytes);

//===----------------------------------------------------------------------===//
// Driver, device, context, stream
//===----------------------------------------------------------------------===//

/// Loads the driver, selects the device, retains its primary context and
/// creates the stream, once; later calls return the first outcome. Never
/// prints or aborts (it runs from global constructors of model libraries).
bool initialize();
/// initialize(), then makes the context current on the calling thread (once
/// per thread), and false when a sticky error is recorded. Every operation
/// that calls the driver starts with this.
bool ready();

/// Valid after a successful initialize().
const DriverAPI &api();
const DeviceInfo &device();
/// The stream work is issued on: the runtime's one stream or, on a thread
/// capturing the training step into a CUDA graph, the stream being
/// captured (so that other threads' work is not captured with it).
CUstream stream();
/// The runtime's one stream, whatever this thread captures.
CUstream stepStream();
/// Makes stream() `capture` on this thread (null: the runtime's again).
void setThreadStream(CUstream capture);

/// The device ordinal initialize() uses (mgpuSetDefaultDevice). Returns
/// false, with an error, when called after initialize() with another device.
bool setDefaultDevice(int ordinal);

/// Waits for the stream; false (with the error) when it or earlier work
/// failed.
bool synchronizeStream(const char *what);

/// The device's "sm_XY".
std::string smName();

/// Every symbol the runtime resolves from libcuda.so.1, null-terminated (the
/// check program tests them against the toolkit's stub library).
const char *const *driverSymbolNames();

} // namespace cuda
} // namespace amp

#endif // AMP_LIB_RUNTIME_CUDADRIVER_H
