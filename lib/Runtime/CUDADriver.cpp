//===- CUDADriver.cpp - the CUDA driver API, loaded at run time -----------===//
//
// Loads libcuda.so.1, selects the device, keeps its primary context and the
// runtime's one stream, and turns driver errors into sticky messages.
//
// All state lives in a heap object that is never destroyed: model libraries
// call into the runtime from global constructors (module loading, which runs
// before this library's own static initializers when both are in one shared
// object) and from global destructors (module unloading, which may run after
// them), so neither may touch an object with a constructor or destructor of
// its own.
//
//===----------------------------------------------------------------------===//

#include "CUDADriver.h"

#include <dlfcn.h>

#include <atomic>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

using namespace amp::cuda;

// The library opened as the driver: an emulator build of the runtime opens
// the emulated device (lib/Runtime/Emulator) instead.
#ifndef AMP_CUDA_DRIVER_LIBRARY
#define AMP_CUDA_DRIVER_LIBRARY "libcuda.so.1"
#endif
// Where the driver is looked for after the default search path ("": not).
#ifndef AMP_CUDA_DRIVER_FALLBACK_DIR
#define AMP_CUDA_DRIVER_FALLBACK_DIR ""
#endif

namespace {

struct State {
  // Sticky error.
  std::mutex errorMutex;
  std::atomic<bool> hasError{false};
  std::string error;
  /// The thread capturing the stream into a graph, and the capture's first
  /// error (beginCaptureErrors).
  std::atomic<bool> capturing{false};
  std::thread::id captureThread;
  std::string captureError;

  // Initialization: runs once, under initMutex; initDone lets later calls
  // skip the mutex.
  std::mutex initMutex;
  std::atomic<bool> initDone{false};
  bool initStarted = false;
  bool initSucceeded = false;
  int requestedOrdinal = 0;
  /// Whether mgpuSetDefaultDevice chose the device (else the launcher's
  /// local rank does).
  bool ordinalRequested = false;

  void *library = nullptr;
  DriverAPI api;
  DeviceInfo device;
  CUcontext context = nullptr;
  CUstream stream = nullptr;
};

State &state() {
  static State *instance = new State();
  return *instance;
}

/// Whether the primary context is current on this thread. A plain bool:
/// thread_local objects with constructors have the same ordering problem as
/// globals.
thread_local bool contextIsCurrent = false;

/// The CUDA version this runtime was built against ("13.0"): the driver must
/// support at least its major version (minor version compatibility lets a
/// 13.0 driver run code built with any 13.x toolkit).
constexpr int kToolkitVersion = CUDA_VERSION;

std::string formatVersion(int version) {
  return std::to_string(version / 1000) + "." +
         std::to_string(version % 1000 / 10);
}

/// Names for the errors that matter when cuGetErrorName cannot be called
/// (the driver did not load, or is the toolkit's stub).
const char *fallbackErrorName(CUresult result) {
  switch (result) {
  case CUDA_ERROR_INVALID_VALUE:
    return "CUDA_ERROR_INVALID_VALUE";
  case CUDA_ERROR_OUT_OF_MEMORY:
    return "CUDA_ERROR_OUT_OF_MEMORY";
  case CUDA_ERROR_NOT_INITIALIZED:
    return "CUDA_ERROR_NOT_INITIALIZED";
  case CUDA_ERROR_DEINITIALIZED:
    return "CUDA_ERROR_DEINITIALIZED";
  case CUDA_ERROR_STUB_LIBRARY:
    return "CUDA_ERROR_STUB_LIBRARY";
  case CUDA_ERROR_NO_DEVICE:
    return "CUDA_ERROR_NO_DEVICE";
  case CUDA_ERROR_INVALID_DEVICE:
    return "CUDA_ERROR_INVALID_DEVICE";
  case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
    return "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH";
  case CUDA_ERROR_NO_BINARY_FOR_GPU:
    return "CUDA_ERROR_NO_BINARY_FOR_GPU";
  case CUDA_ERROR_INVALID_PTX:
    return "CUDA_ERROR_INVALID_PTX";
  case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
    return "CUDA_ERROR_UNSUPPORTED_PTX_VERSION";
  default:
    return nullptr;
  }
}

/// Advice appended to some errors.
const char *hintFor(CUresult result) {
  switch (result) {
  case CUDA_ERROR_STUB_LIBRARY:
    return "; the CUDA toolkit's stub libcuda.so was loaded instead of the "
           "NVIDIA driver's library (check LD_LIBRARY_PATH)";
  case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
  case CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE:
    return "; the NVIDIA driver is too old or does not match the kernel "
           "module (update the driver, check nvidia-smi)";
  case CUDA_ERROR_ILLEGAL_ADDRESS:
  case CUDA_ERROR_LAUNCH_FAILED:
  case CUDA_ERROR_MISALIGNED_ADDRESS:
  case CUDA_ERROR_ILLEGAL_INSTRUCTION:
  case CUDA_ERROR_HARDWARE_STACK_ERROR:
  case CUDA_ERROR_LAUNCH_TIMEOUT:
    return "; a kernel or copy issued earlier on the stream failed on the "
           "device, and the context is unusable";
  default:
    return "";
  }
}

template <typename Fn> bool resolve(void *library, const char *name, Fn &fn) {
  fn = reinterpret_cast<Fn>(dlsym(library, name));
  return fn != nullptr;
}

//===----------------------------------------------------------------------===//
// Initialization steps, each recording its own error.
//===----------------------------------------------------------------------===//

bool openDriver(State &s) {
  std::string reason;
  s.library = openLibrary(AMP_CUDA_DRIVER_LIBRARY, AMP_CUDA_DRIVER_FALLBACK_DIR,
                          reason);
  if (s.library)
    return true;
  return fail("no NVIDIA driver: " AMP_CUDA_DRIVER_LIBRARY
              " cannot be loaded (" +
              reason +
              "); a GPU library needs a machine with an NVIDIA GPU and its "
              "driver (build it with amp-compile --target=cuda-emulator to "
              "run it on the emulated device instead)");
}

/// The version check comes before resolving everything else, so that an old
/// driver is reported as such rather than as a missing symbol.
bool checkDriverVersion(State &s) {
  if (!resolve(s.library, "cuDriverGetVersion", s.api.cuDriverGetVersion) ||
      !resolve(s.library, "cuInit", s.api.cuInit))
    return fail("libcuda.so.1 is not an NVIDIA driver library: it has no "
                "cuDriverGetVersion or cuInit");
  // cuGetErrorName/String first, so that the version query's own failure
  // (the stub library) gets a readable name.
  resolve(s.library, "cuGetErrorName", s.api.cuGetErrorName);
  resolve(s.library, "cuGetErrorString", s.api.cuGetErrorString);
  int version = 0;
  if (!check(s.api.cuDriverGetVersion(&version),
             "querying the NVIDIA driver's version (cuDriverGetVersion)"))
    return false;
  s.device.driverVersion = version;
  if (version / 1000 >= kToolkitVersion / 1000)
    return true;
  return fail(
      "the NVIDIA driver is too old: it supports CUDA " +
      formatVersion(version) + ", but this runtime was built with the CUDA " +
      formatVersion(kToolkitVersion) + " toolkit and needs a driver for CUDA " +
      std::to_string(kToolkitVersion / 1000) +
      ".0 or newer (update the NVIDIA driver)");
}

bool resolveDriverFunctions(State &s) {
#define AMP_CUDA_RESOLVE(name)                                                 \
  if (!resolve(s.library, #name, s.api.name))                                  \
    return fail("the NVIDIA driver (CUDA " +                                   \
                formatVersion(s.device.driverVersion) +                        \
                ") lacks " #name ", which the CUDA " +                         \
                formatVersion(kToolkitVersion) +                               \
                " runtime needs (update the NVIDIA driver)");
  AMP_CUDA_DRIVER_FUNCTIONS(AMP_CUDA_RESOLVE)
#undef AMP_CUDA_RESOLVE
  // The emulated device's extensions (lib/Runtime/Emulator); null otherwise.
  resolve(s.library, "ampEmuSetLaunchParamCount",
          s.api.ampEmuSetLaunchParamCount);
  resolve(s.library, "ampEmuPoolBlock", s.api.ampEmuPoolBlock);
  return true;
}

const char *kNoDevice =
    "no CUDA device: the NVIDIA driver is loaded but finds no GPU (check "
    "nvidia-smi and CUDA_VISIBLE_DEVICES)";

bool initDriver(State &s) {
  CUresult result = s.api.cuInit(0);
  if (result == CUDA_ERROR_NO_DEVICE)
    return fail(kNoDevice);
  return check(result, "initializing the NVIDIA driver (cuInit)");
}

/// The process's rank on its node when a launcher started several (mpirun,
/// srun, torchrun), else 0: each data-parallel rank takes its own GPU of
/// the node, as NCCL needs.
int launcherLocalRank() {
  for (const char *name : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
                           "SLURM_LOCALID", "LOCAL_RANK"}) {
    const char *text = std::getenv(name);
    char *end = nullptr;
    long rank = text ? std::strtol(text, &end, 10) : -1;
    if (text && end != text && !*end && rank >= 0 && rank < INT_MAX)
      return int(rank);
  }
  return 0;
}

bool selectDevice(State &s) {
  int count = 0;
  CUresult result = s.api.cuDeviceGetCount(&count);
  if (result == CUDA_ERROR_NO_DEVICE || (result == CUDA_SUCCESS && count == 0))
    return fail(kNoDevice);
  if (!check(result, "counting CUDA devices (cuDeviceGetCount)"))
    return false;
  DeviceInfo &d = s.device;
  d.ordinal =
      s.ordinalRequested ? s.requestedOrdinal : launcherLocalRank() % count;
  if (d.ordinal < 0 || d.ordinal >= count)
    return fail("CUDA device " + std::to_string(d.ordinal) +
                " was requested, but the driver finds " +
                std::to_string(count) + " device(s)");
  if (!check(s.api.cuDeviceGet(&d.device, d.ordinal),
             "getting CUDA device " + std::to_string(d.ordinal)))
    return false;
  char name[256] = {0};
  if (!check(s.api.cuDeviceGetName(name, sizeof(name) - 1, d.device),
             "querying the device name") ||
      !check(s.api.cuDeviceGetAttribute(
                 &d.ccMajor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                 d.device),
             "querying the compute capability") ||
      !check(s.api.cuDeviceGetAttribute(
                 &d.ccMinor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                 d.device),
             "querying the compute capability") ||
      !check(s.api.cuDeviceTotalMem_v2(&d.totalBytes, d.device),
             "querying the device memory size"))
    return false;
  d.name = name;
  d.description = d.name + " (" + smName() + ", " +
                  formatBytes(static_cast<double>(d.totalBytes)) + ")";
  return true;
}

/// The primary context is the one the CUDA runtime (inside cuBLASLt) uses
/// too, so cuBLASLt and our launches share memory and the stream without any
/// context juggling.
bool createContextAndStream(State &s) {
  if (!check(s.api.cuDevicePrimaryCtxRetain(&s.context, s.device.device),
             "creating the CUDA context on " + s.device.name +
                 " (cuDevicePrimaryCtxRetain)") ||
      !check(s.api.cuCtxSetCurrent(s.context),
             "making the CUDA context current"))
    return false;
  contextIsCurrent = true;
  // Non-blocking: the stream does not synchronize with the legacy NULL
  // stream. Everything the runtime does names this stream explicitly, and a
  // library elsewhere in the process using the NULL stream (or a synchronous
  // cuMemcpy) must not serialize with, or stall, the training step.
  return check(s.api.cuStreamCreate(&s.stream, CU_STREAM_NON_BLOCKING),
               "creating the CUDA stream");
}

} // namespace

//===----------------------------------------------------------------------===//
// Sticky errors
//===----------------------------------------------------------------------===//

namespace {
/// Whether this thread is capturing; the caller holds the error mutex.
bool capturingHere(const State &s) {
  return s.capturing && s.captureThread == std::this_thread::get_id();
}
} // namespace

bool amp::cuda::fail(const std::string &message) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.errorMutex);
  if (capturingHere(s)) {
    if (s.captureError.empty())
      s.captureError = message;
    return false;
  }
  if (!s.hasError.load(std::memory_order_relaxed)) {
    s.error = message;
    s.hasError.store(true, std::memory_order_release);
  }
  return false;
}

bool amp::cuda::failed() {
  State &s = state();
  if (s.hasError.load(std::memory_order_acquire))
    return true;
  if (!s.capturing.load(std::memory_order_acquire))
    return false;
  std::lock_guard<std::mutex> lock(s.errorMutex);
  return capturingHere(s) && !s.captureError.empty();
}

void amp::cuda::beginCaptureErrors() {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.errorMutex);
  s.capturing = true;
  s.captureThread = std::this_thread::get_id();
  s.captureError.clear();
}

std::string amp::cuda::endCaptureErrors() {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.errorMutex);
  s.capturing = false;
  return std::move(s.captureError);
}

const char *amp::cuda::lastError() {
  State &s = state();
  if (!failed())
    return "";
  // The first error is never replaced, so its buffer stays valid.
  return s.error.c_str();
}

std::string amp::cuda::describe(CUresult result, const std::string &what) {
  const DriverAPI &a = state().api;
  const char *name = nullptr;
  const char *text = nullptr;
  if (a.cuGetErrorName && a.cuGetErrorName(result, &name) != CUDA_SUCCESS)
    name = nullptr;
  if (a.cuGetErrorString && a.cuGetErrorString(result, &text) != CUDA_SUCCESS)
    text = nullptr;
  if (!name)
    name = fallbackErrorName(result);
  std::string message = what + " failed: ";
  message += name ? name : "CUDA error " + std::to_string(result);
  if (text)
    message += std::string(" (") + text + ")";
  return message + hintFor(result);
}

bool amp::cuda::check(CUresult result, const std::string &what) {
  if (result == CUDA_SUCCESS)
    return true;
  return fail(describe(result, what));
}

std::string amp::cuda::formatBytes(double bytes) {
  char buffer[64];
  if (bytes >= 1024.0 * 1024.0 * 1024.0)
    std::snprintf(buffer, sizeof(buffer), "%.1f GiB",
                  bytes / (1024.0 * 1024.0 * 1024.0));
  else
    std::snprintf(buffer, sizeof(buffer), "%.1f MiB",
                  bytes / (1024.0 * 1024.0));
  return buffer;
}

//===----------------------------------------------------------------------===//
// Driver, device, context, stream
//===----------------------------------------------------------------------===//

bool amp::cuda::initialize() {
  State &s = state();
  if (s.initDone.load(std::memory_order_acquire))
    return s.initSucceeded;
  std::lock_guard<std::mutex> lock(s.initMutex);
  if (!s.initStarted) {
    s.initStarted = true;
    // An error recorded before init (say, a bad argument) also fails it:
    // errors are sticky.
    s.initSucceeded = !failed() && openDriver(s) && checkDriverVersion(s) &&
                      resolveDriverFunctions(s) && initDriver(s) &&
                      selectDevice(s) && createContextAndStream(s);
    s.initDone.store(true, std::memory_order_release);
  }
  return s.initSucceeded;
}

bool amp::cuda::ready() {
  if (!initialize() || failed())
    return false;
  if (contextIsCurrent)
    return true;
  State &s = state();
  // Compiled code and the model runtime may run on a thread other than the
  // one that initialized the runtime; the driver's current context is per
  // thread.
  if (!check(s.api.cuCtxSetCurrent(s.context),
             "making the CUDA context current"))
    return false;
  contextIsCurrent = true;
  return true;
}

const DriverAPI &amp::cuda::api() { return state().api; }

const DeviceInfo &amp::cuda::device() { return state().device; }

namespace {
/// This thread's capture stream (a plain pointer: see contextIsCurrent).
thread_local CUstream threadStream = nullptr;
} // namespace

CUstream amp::cuda::stream() {
  return threadStream ? threadStream : state().stream;
}

CUstream amp::cuda::stepStream() { return state().stream; }

void amp::cuda::setThreadStream(CUstream capture) { threadStream = capture; }

bool amp::cuda::setDefaultDevice(int ordinal) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.initMutex);
  if (!s.initStarted) {
    s.requestedOrdinal = ordinal;
    s.ordinalRequested = true;
    return true;
  }
  if (ordinal == s.requestedOrdinal)
    return true;
  return fail("selecting CUDA device " + std::to_string(ordinal) +
              " after the runtime started on device " +
              std::to_string(s.requestedOrdinal) +
              " is not supported (the runtime uses one device)");
}

bool amp::cuda::synchronizeStream(const char *what) {
  if (!ready())
    return false;
  return check(api().cuStreamSynchronize(stream()), what);
}

void *amp::cuda::openLibrary(const char *name, const char *fallbackDir,
                             std::string &error) {
  void *library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (library)
    return library;
  const char *reason = dlerror();
  error = reason ? reason : "unknown reason";
  if (!*fallbackDir)
    return nullptr;
  std::string fallback = std::string(fallbackDir) + "/" + name;
  library = dlopen(fallback.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library)
    return library;
  reason = dlerror();
  error += "; " + (reason ? std::string(reason) : fallback);
  return nullptr;
}

std::string amp::cuda::smName() {
  const DeviceInfo &d = device();
  return "sm_" + std::to_string(d.ccMajor) + std::to_string(d.ccMinor);
}

const char *const *amp::cuda::driverSymbolNames() {
#define AMP_CUDA_NAME(name) #name,
  static const char *const names[] = {
      "cuInit", "cuDriverGetVersion",
      AMP_CUDA_DRIVER_FUNCTIONS(AMP_CUDA_NAME) nullptr};
#undef AMP_CUDA_NAME
  return names;
}
