//===- CUDARuntime.cpp - the CUDA device backend and the mgpu* ABI
//---------===//
//
// Two C interfaces over the same state (CUDADriver.h, CUDAPool.h):
//  - amp_cuda_device_ops(), the device backend of the model runtime
//    (DeviceRuntime.h);
//  - the mgpu* functions that MLIR 22 emits calls to in host code:
//    gpu-to-llvm (memory, streams, events) and the translation of
//    gpu.binary / gpu.launch_func with the default #gpu.select_object
//    handler (module loading from a global constructor, launches).
//
// Nothing here prints or aborts: a failure becomes the sticky error, and the
// operations after it do nothing. This matters most for mgpuModuleLoad, which
// runs from a global constructor as soon as a model library is loaded, on
// machines with or without a GPU.
//
//===----------------------------------------------------------------------===//

#include "CUDADriver.h"
#include "CUDAPool.h"
#include "DeviceGraphs.h"

#include "amp/Runtime/DeviceRuntime.h"

#include <climits>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>

using namespace amp::cuda;

namespace {

//===----------------------------------------------------------------------===//
// amp_device_ops
//===----------------------------------------------------------------------===//

int32_t status() { return failed() ? 1 : 0; }

int32_t deviceInit() { return ready() ? 0 : 1; }

const char *deviceLastError() { return lastError(); }

/// The device stays named after a later error (out of memory, a fault).
const char *deviceName() {
  return initialize() ? device().description.c_str() : "no CUDA device";
}

void *deviceAlloc(size_t bytes) { return poolAllocate(bytes); }

void deviceFree(void *pointer) { poolFree(pointer); }

CUdeviceptr devicePointer(const void *pointer) {
  return reinterpret_cast<CUdeviceptr>(pointer);
}

std::string copyWhat(const char *direction, size_t bytes) {
  return std::string("copying ") + formatBytes(double(bytes)) + " " + direction;
}

/// Created at the first asynchronous step; non-blocking like the step
/// stream, and kept for the life of the process as that one is.
CUstream uploadStream() {
  static CUstream upload = nullptr;
  static std::once_flag once;
  std::call_once(once, [] {
    if (ready())
      check(api().cuStreamCreate(&upload, CU_STREAM_NON_BLOCKING),
            "creating the CUDA upload stream (cuStreamCreate)");
  });
  return upload;
}

CUstream streamNamed(int32_t which) {
  return which == AMP_DEVICE_UPLOAD_STREAM ? uploadStream() : stream();
}

/// Queued on stream `which`. A pageable host buffer is staged by the driver
/// before the call returns (to the device) or the copy completes (to the
/// host); a pinned one (pinHost) is read or written while the stream runs
/// the copy.
int32_t copyAsync(void *to, const void *from, size_t bytes, int32_t toDevice,
                  int32_t which) {
  if (!ready() || !streamNamed(which))
    return 1;
  if (bytes == 0)
    return 0;
  CUstream on = streamNamed(which);
  if (toDevice)
    checkLazily(
        api().cuMemcpyHtoDAsync_v2(devicePointer(to), from, bytes, on),
        [&] { return copyWhat("to the GPU (cuMemcpyHtoDAsync)", bytes); });
  else
    checkLazily(
        api().cuMemcpyDtoHAsync_v2(to, devicePointer(from), bytes, on),
        [&] { return copyWhat("from the GPU (cuMemcpyDtoHAsync)", bytes); });
  return status();
}

int32_t copyToDevice(void *to, const void *from, size_t bytes) {
  return copyAsync(to, from, bytes, /*toDevice=*/1, AMP_DEVICE_STEP_STREAM);
}

/// The host reads `to` when this returns, so the stream is drained: this is
/// also where asynchronous kernel failures surface.
int32_t copyToHost(void *to, const void *from, size_t bytes) {
  if (copyAsync(to, from, bytes, /*toDevice=*/0, AMP_DEVICE_STEP_STREAM))
    return 1;
  synchronizeStream("waiting for the GPU to finish a copy to the host "
                    "(cuStreamSynchronize)");
  return status();
}

int32_t copyOnDevice(void *to, const void *from, size_t bytes) {
  if (!ready())
    return 1;
  if (bytes == 0)
    return 0;
  checkLazily(
      api().cuMemcpyDtoDAsync_v2(devicePointer(to), devicePointer(from), bytes,
                                 stream()),
      [&] { return copyWhat("on the GPU (cuMemcpyDtoDAsync)", bytes); });
  return status();
}

int32_t memsetZero(void *pointer, size_t bytes) {
  if (!ready())
    return 1;
  if (bytes == 0)
    return 0;
  CUdeviceptr to = devicePointer(pointer);
  // 32-bit stores when the buffer allows them: the usual case (f32 tensors,
  // pool blocks are 256-byte aligned) and faster than byte stores.
  CUresult result = (to % 4 == 0 && bytes % 4 == 0)
                        ? api().cuMemsetD32Async(to, 0, bytes / 4, stream())
                        : api().cuMemsetD8Async(to, 0, bytes, stream());
  checkLazily(result, [&] {
    return "zeroing " + formatBytes(double(bytes)) +
           " of GPU memory (cuMemsetAsync)";
  });
  return status();
}

int32_t deviceSynchronize() {
  synchronizeStream("waiting for the GPU (cuStreamSynchronize)");
  return status();
}

/// Not through check(): a refused lock (RLIMIT_MEMLOCK) is not an error of
/// the step, the buffer just stays pageable.
int32_t pinHost(void *host, size_t bytes) {
  if (!ready() || bytes == 0)
    return 1;
  return api().cuMemHostRegister_v2(host, bytes, 0) == CUDA_SUCCESS ? 0 : 1;
}

/// Also after a sticky error: the memory is freed next.
void unpinHost(void *host) {
  if (initialize())
    api().cuMemHostUnregister(host);
}

//===----------------------------------------------------------------------===//
// Events (asynchronous steps)
//===----------------------------------------------------------------------===//

void *eventCreate() {
  CUevent event = nullptr;
  if (!ready() || !check(api().cuEventCreate(&event, CU_EVENT_DISABLE_TIMING),
                         "creating a CUDA event (cuEventCreate)"))
    return nullptr;
  return event;
}

void eventDestroy(void *event) {
  if (event && initialize())
    api().cuEventDestroy_v2(static_cast<CUevent>(event));
}

int32_t eventRecord(void *event, int32_t which) {
  if (!ready() || !streamNamed(which))
    return 1;
  checkLazily(
      api().cuEventRecord(static_cast<CUevent>(event), streamNamed(which)),
      [] { return std::string("recording a CUDA event (cuEventRecord)"); });
  return status();
}

int32_t streamWaitEvent(int32_t which, void *event) {
  if (!ready() || !streamNamed(which))
    return 1;
  checkLazily(api().cuStreamWaitEvent(streamNamed(which),
                                      static_cast<CUevent>(event), 0),
              [] {
                return std::string(
                    "ordering the CUDA streams (cuStreamWaitEvent)");
              });
  return status();
}

/// Also where an asynchronous failure of the work before the event surfaces.
int32_t eventSynchronize(void *event) {
  if (!ready())
    return 1;
  check(api().cuEventSynchronize(static_cast<CUevent>(event)),
        "waiting for the GPU (cuEventSynchronize)");
  return status();
}

const amp_device_ops kCudaOps = {
    "cuda",          deviceInit,       deviceLastError,   deviceName,
    deviceAlloc,     deviceFree,       copyToDevice,      copyToHost,
    copyOnDevice,    memsetZero,       deviceSynchronize, pinHost,
    unpinHost,       eventCreate,      eventDestroy,      eventRecord,
    streamWaitEvent, eventSynchronize, copyAsync,
};

//===----------------------------------------------------------------------===//
// Graphs (DeviceGraphs.h): the step stream captured and replayed
//===----------------------------------------------------------------------===//

/// The reason the last capture failed; never destroyed, like the state.
const char *captureFailure(std::string reason) {
  static std::string *text = new std::string();
  *text = std::move(reason);
  return text->c_str();
}

/// The stream steps are captured on, created at the first capture: other
/// threads keep issuing on the step stream meanwhile, and none of their
/// work joins the graph.
CUstream captureStream() {
  static CUstream capture = nullptr;
  static std::once_flag once;
  std::call_once(once, [] {
    check(api().cuStreamCreate(&capture, CU_STREAM_NON_BLOCKING),
          "creating the CUDA capture stream (cuStreamCreate)");
  });
  return capture;
}

int32_t graphBeginCapture(const char **reason) {
  if (!ready() || !captureStream()) {
    *reason = captureFailure(lastError());
    return 1;
  }
  // Thread-local mode: a host wait or cuMemAlloc in the step invalidates
  // the capture (the pool allocates in relaxed mode on purpose), while
  // other threads of the process (PyTorch's, say) stay free to allocate.
  CUresult result = api().cuStreamBeginCapture_v2(
      captureStream(), CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
  if (result != CUDA_SUCCESS) {
    *reason = captureFailure(
        describe(result, "capturing the step (cuStreamBeginCapture)"));
    return 1;
  }
  setThreadStream(captureStream());
  beginCaptureErrors();
  poolBeginCapture();
  return 0;
}

void *graphEndCapture(const char **reason) {
  setThreadStream(nullptr);
  std::string error = endCaptureErrors();
  CUgraph graph = nullptr;
  CUresult result = api().cuStreamEndCapture(captureStream(), &graph);
  CUgraphExec exec = nullptr;
  if (result != CUDA_SUCCESS)
    error = describe(result, "ending the capture (cuStreamEndCapture)") +
            (error.empty() ? "" : "; the capture's first error: " + error);
  else if (!error.empty())
    error = "the captured step failed: " + error;
  if (error.empty()) {
    result = api().cuGraphInstantiateWithFlags(&exec, graph, 0);
    if (result != CUDA_SUCCESS) {
      error = describe(result, "instantiating the captured step "
                               "(cuGraphInstantiateWithFlags)");
      exec = nullptr;
    }
  }
  if (graph)
    api().cuGraphDestroy(graph);
  poolEndCapture(exec != nullptr);
  if (!exec)
    *reason = captureFailure(std::move(error));
  return exec;
}

int32_t graphLaunch(void *graph) {
  if (!ready())
    return 1;
  check(api().cuGraphLaunch(static_cast<CUgraphExec>(graph), stepStream()),
        "launching the training step's CUDA graph (cuGraphLaunch)");
  return status();
}

/// Also after a sticky error: the pool's blocks for graphs are released.
void graphDestroy(void *graph) {
  if (!graph || !initialize())
    return;
  api().cuGraphExecDestroy(static_cast<CUgraphExec>(graph));
  poolGraphDestroyed();
}

const amp_device_graph_ops kCudaGraphOps = {graphBeginCapture, graphEndCapture,
                                            graphLaunch, graphDestroy};

//===----------------------------------------------------------------------===//
// Modules and functions
//===----------------------------------------------------------------------===//

/// Functions looked up per module, and the name of every function for launch
/// errors. MLIR's lowering calls mgpuModuleGetFunction before every launch;
/// the cache makes that a hash lookup instead of a driver call.
struct Functions {
  std::mutex mutex;
  std::unordered_map<CUmodule, std::unordered_map<std::string, CUfunction>>
      byModule;
  std::unordered_map<CUfunction, std::string> names;
};

/// Never destroyed: modules are unloaded from global destructors.
Functions &functions() {
  static Functions *instance = new Functions();
  return *instance;
}

std::string kernelName(CUfunction function) {
  Functions &f = functions();
  std::lock_guard<std::mutex> lock(f.mutex);
  auto it = f.names.find(function);
  return it == f.names.end() ? std::string("<unknown>") : it->second;
}

/// The errors that mean "this code was built for another GPU" get the
/// architecture to rebuild for.
bool isArchitectureMismatch(CUresult result) {
  return result == CUDA_ERROR_NO_BINARY_FOR_GPU ||
         result == CUDA_ERROR_INVALID_PTX ||
         result == CUDA_ERROR_INVALID_IMAGE ||
         result == CUDA_ERROR_UNSUPPORTED_PTX_VERSION;
}

bool checkModuleLoad(CUresult result, const char *what, const char *jitLog) {
  if (result == CUDA_SUCCESS)
    return true;
  std::string message = describe(result, what);
  if (isArchitectureMismatch(result))
    message += "; the library's GPU code does not run on this " +
               device().name + " (" + smName() +
               "): recompile the model with --chip=" + smName();
  if (result == CUDA_ERROR_UNSUPPORTED_PTX_VERSION)
    message += ", or update the NVIDIA driver";
  if (jitLog && *jitLog)
    message += "\nPTX compiler log:\n" + std::string(jitLog);
  return fail(message);
}

void forgetModule(CUmodule module) {
  Functions &f = functions();
  std::lock_guard<std::mutex> lock(f.mutex);
  auto it = f.byModule.find(module);
  if (it == f.byModule.end())
    return;
  for (auto &entry : it->second)
    f.names.erase(entry.second);
  f.byModule.erase(it);
}

/// The grid and block sizes the driver takes are unsigned int.
bool fitsLaunchDimension(intptr_t value) {
  return value >= 1 && static_cast<uintmax_t>(value) <= UINT_MAX;
}

std::string launchWhat(CUfunction function, const intptr_t grid[3],
                       const intptr_t block[3], int32_t sharedBytes) {
  return "launching kernel " + kernelName(function) + " (grid " +
         std::to_string(grid[0]) + "x" + std::to_string(grid[1]) + "x" +
         std::to_string(grid[2]) + ", block " + std::to_string(block[0]) + "x" +
         std::to_string(block[1]) + "x" + std::to_string(block[2]) + ", " +
         std::to_string(sharedBytes) + " bytes of shared memory)";
}

/// Whether a host-side wait in compiled code (mgpuStreamSynchronize,
/// mgpuEventSynchronize) must block. See mgpuStreamSynchronize.
bool hostMustWait() { return poolHasManagedBlocks(); }

/// The start of an MLIR ranked memref descriptor: two pointers and the
/// offset, followed by `rank` sizes and `rank` strides (int64_t each).
struct MemRefDescriptorHeader {
  char *allocated;
  char *aligned;
  int64_t offset;
};

const int64_t *memrefSizesAndStrides(const MemRefDescriptorHeader *memref) {
  return reinterpret_cast<const int64_t *>(memref + 1);
}

/// The bytes a strided memref spans from its first element.
uint64_t memrefSpanBytes(int64_t rank, const MemRefDescriptorHeader *memref,
                         int64_t elementBytes) {
  const int64_t *sizesAndStrides = memrefSizesAndStrides(memref);
  int64_t lastElement = 0;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t size = sizesAndStrides[i];
    int64_t stride = sizesAndStrides[rank + i];
    if (size == 0)
      return 0;
    lastElement += (size - 1) * stride;
  }
  return uint64_t(lastElement + 1) * uint64_t(elementBytes);
}

} // namespace

extern "C" const amp_device_ops *amp_cuda_device_ops(void) { return &kCudaOps; }

extern "C" const amp_device_graph_ops *amp_cuda_device_graph_ops(void) {
  return &kCudaGraphOps;
}

//===----------------------------------------------------------------------===//
// The mgpu* ABI (MLIR 22). Declarations in LLVM IR terms: ptr for pointers,
// i64 for intptr_t / size_t / uint64_t, i32, i16, i8 for bool.
//===----------------------------------------------------------------------===//

extern "C" {

/// declare ptr @mgpuModuleLoad(ptr, i64): a cubin or fatbin embedded in the
/// library (gpu-module-to-binary format=bin/fatbin). Runs from a global
/// constructor: returns null with the sticky error instead of failing loudly.
CUmodule mgpuModuleLoad(void *data, size_t /*sizeBytes*/) {
  if (!ready())
    return nullptr;
  // The driver reads the image's own headers; the size is not needed.
  CUmodule module = nullptr;
  if (!checkModuleLoad(api().cuModuleLoadData(&module, data),
                       "loading the library's GPU code (cuModuleLoadData)",
                       nullptr))
    return nullptr;
  return module;
}

/// declare ptr @mgpuModuleLoadJIT(ptr, i32): PTX text (format=isa), compiled
/// by the driver at `optLevel`; the compiler's log goes into the error.
CUmodule mgpuModuleLoadJIT(void *data, int optLevel) {
  if (!ready())
    return nullptr;
  char log[8192] = {0};
  unsigned optimization =
      static_cast<unsigned>(optLevel < 0 ? 0 : (optLevel > 4 ? 4 : optLevel));
  CUjit_option options[] = {CU_JIT_OPTIMIZATION_LEVEL, CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {reinterpret_cast<void *>(uintptr_t(optimization)), log,
                    reinterpret_cast<void *>(uintptr_t(sizeof(log) - 1))};
  CUmodule module = nullptr;
  if (!checkModuleLoad(
          api().cuModuleLoadDataEx(&module, data, 3, options, values),
          "compiling the library's PTX for the GPU "
          "(cuModuleLoadDataEx)",
          log))
    return nullptr;
  return module;
}

/// declare void @mgpuModuleUnload(ptr): from a global destructor. At process
/// exit the driver may already be shutting down, so a failure is ignored.
void mgpuModuleUnload(CUmodule module) {
  if (!module)
    return;
  forgetModule(module);
  (void)api().cuModuleUnload(module);
}

/// declare ptr @mgpuModuleGetFunction(ptr, ptr)
CUfunction mgpuModuleGetFunction(CUmodule module, const char *name) {
  if (!module || !name || !ready())
    return nullptr;
  Functions &f = functions();
  std::lock_guard<std::mutex> lock(f.mutex);
  auto &cache = f.byModule[module];
  auto it = cache.find(name);
  if (it != cache.end())
    return it->second;
  CUfunction function = nullptr;
  if (!check(api().cuModuleGetFunction(&function, module, name),
             std::string("finding kernel ") + name +
                 " in the library's GPU code (cuModuleGetFunction)"))
    return nullptr;
  cache.emplace(name, function);
  f.names.emplace(function, name);
  return function;
}

/// declare void @mgpuLaunchKernel(ptr, i64 x6, i32, ptr, ptr, ptr, i64).
/// A null function (its module failed to load, typically because there is no
/// driver) is skipped: the reason is already the sticky error.
void mgpuLaunchKernel(CUfunction function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t sharedBytes, CUstream /*stream*/,
                      void **params, void **extra, size_t paramsCount) {
  if (!function) {
    fail("launching a GPU kernel whose code did not load");
    return;
  }
  if (!ready())
    return;
  const intptr_t grid[3] = {gridX, gridY, gridZ};
  const intptr_t block[3] = {blockX, blockY, blockZ};
  // The description (a lookup and formatting) only when something failed.
  auto what = [&] { return launchWhat(function, grid, block, sharedBytes); };
  for (int i = 0; i < 3; ++i)
    if (!fitsLaunchDimension(grid[i]) || !fitsLaunchDimension(block[i])) {
      fail(what() + " failed: grid and block sizes must be in [1, 2^32)");
      return;
    }
  if (sharedBytes < 0) {
    fail(what() + " failed: negative shared memory size");
    return;
  }
  // Dynamic shared memory above 48 KiB must be opted into per function.
  if (sharedBytes > 48 * 1024 &&
      !check(api().cuFuncSetAttribute(
                 function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                 sharedBytes),
             what() + ": raising the dynamic shared memory limit"))
    return;
  if (api().ampEmuSetLaunchParamCount)
    api().ampEmuSetLaunchParamCount(paramsCount);
  // Always the runtime's stream (every MLIR stream is it, see
  // mgpuStreamCreate).
  checkLazily(api().cuLaunchKernel(
                  function, unsigned(gridX), unsigned(gridY), unsigned(gridZ),
                  unsigned(blockX), unsigned(blockY), unsigned(blockZ),
                  unsigned(sharedBytes), stream(), params, extra),
              what);
}

/// declare ptr @mgpuStreamCreate(): every stream MLIR asks for is the
/// runtime's one stream, so all work (kernels, copies, cuBLASLt) is ordered
/// and the pool can reuse blocks in stream order. Null without a GPU.
CUstream mgpuStreamCreate() { return ready() ? stream() : nullptr; }

/// declare void @mgpuStreamDestroy(ptr): the stream lives as long as the
/// process.
void mgpuStreamDestroy(CUstream /*stream*/) {}

/// declare void @mgpuStreamSynchronize(ptr). gpu-to-llvm calls this after
/// every gpu.launch_func that is not async. It does not block: all work is
/// in order on one stream, compiled host code never dereferences device
/// memory, and the model runtime drains the stream before the host reads
/// device results (copy_to_host, synchronize), which is also where a kernel
/// fault is reported. Blocking here would make the CPU wait for each kernel
/// before queueing the next, leaving the GPU idle for a launch latency
/// between kernels. The one exception is live managed memory (gpu.alloc
/// host_shared), which compiled host code may read directly.
void mgpuStreamSynchronize(CUstream /*stream*/) {
  if (hostMustWait())
    synchronizeStream("waiting for the GPU (cuStreamSynchronize)");
}

/// declare void @mgpuStreamWaitEvent(ptr, ptr): the event was recorded on
/// the same, in-order stream, so the wait is already implied.
void mgpuStreamWaitEvent(CUstream /*stream*/, CUevent /*event*/) {}

/// declare ptr @mgpuEventCreate()
CUevent mgpuEventCreate() { return static_cast<CUevent>(eventCreate()); }

/// declare void @mgpuEventDestroy(ptr)
void mgpuEventDestroy(CUevent event) {
  if (event && ready())
    check(api().cuEventDestroy_v2(event),
          "destroying a CUDA event (cuEventDestroy)");
}

/// declare void @mgpuEventSynchronize(ptr): like mgpuStreamSynchronize.
void mgpuEventSynchronize(CUevent event) {
  if (event && hostMustWait() && ready())
    check(api().cuEventSynchronize(event),
          "waiting for the GPU (cuEventSynchronize)");
}

/// declare void @mgpuEventRecord(ptr, ptr)
void mgpuEventRecord(CUevent event, CUstream /*stream*/) {
  if (event && ready())
    check(api().cuEventRecord(event, stream()),
          "recording a CUDA event (cuEventRecord)");
}

/// declare ptr @mgpuMemAlloc(i64, ptr, i8): from the pool, in stream order;
/// host-shared (managed) memory directly from the driver.
void *mgpuMemAlloc(uint64_t sizeBytes, CUstream /*stream*/, bool isHostShared) {
  return isHostShared ? poolAllocateManaged(sizeBytes)
                      : poolAllocate(sizeBytes);
}

/// declare void @mgpuMemFree(ptr, ptr)
void mgpuMemFree(void *pointer, CUstream /*stream*/) { poolFree(pointer); }

/// declare void @mgpuMemcpy(ptr, ptr, i64, ptr): any direction (unified
/// addressing tells host from device pointers).
void mgpuMemcpy(void *to, void *from, size_t sizeBytes, CUstream /*stream*/) {
  if (sizeBytes == 0 || !ready())
    return;
  checkLazily(api().cuMemcpyAsync(devicePointer(to), devicePointer(from),
                                  sizeBytes, stream()),
              [&] { return copyWhat("(cuMemcpyAsync)", sizeBytes); });
}

/// declare void @mgpuMemset32(ptr, i32, i64, ptr): `count` 32-bit values.
void mgpuMemset32(void *to, unsigned int value, size_t count,
                  CUstream /*stream*/) {
  if (count == 0 || !ready())
    return;
  checkLazily(api().cuMemsetD32Async(devicePointer(to), value, count, stream()),
              [] { return "filling GPU memory (cuMemsetD32Async)"; });
}

/// declare void @mgpuMemset16(ptr, i16, i64, ptr): `count` 16-bit values.
void mgpuMemset16(void *to, unsigned short value, size_t count,
                  CUstream /*stream*/) {
  if (count == 0 || !ready())
    return;
  checkLazily(api().cuMemsetD16Async(devicePointer(to), value, count, stream()),
              [] { return "filling GPU memory (cuMemsetD16Async)"; });
}

/// Page-locks host memory (gpu.host_register), so that kernels may access
/// it and copies from it are asynchronous.
void mgpuMemHostRegister(void *pointer, uint64_t sizeBytes) {
  if (!pointer || sizeBytes == 0 || !ready())
    return;
  check(api().cuMemHostRegister_v2(pointer, sizeBytes, 0),
        "page-locking " + formatBytes(double(sizeBytes)) +
            " of host memory (cuMemHostRegister)");
}

void mgpuMemHostUnregister(void *pointer) {
  if (!pointer || !ready())
    return;
  check(api().cuMemHostUnregister(pointer),
        "unlocking host memory (cuMemHostUnregister)");
}

/// declare void @mgpuMemHostRegisterMemRef(i64, ptr, i64): `descriptor`
/// points to a ranked memref descriptor of rank `rank`.
void mgpuMemHostRegisterMemRef(int64_t rank, void *descriptor,
                               int64_t elementBytes) {
  auto *memref = static_cast<const MemRefDescriptorHeader *>(descriptor);
  mgpuMemHostRegister(memref->aligned + memref->offset * elementBytes,
                      memrefSpanBytes(rank, memref, elementBytes));
}

/// declare void @mgpuMemHostUnregisterMemRef(i64, ptr, i64)
void mgpuMemHostUnregisterMemRef(int64_t /*rank*/, void *descriptor,
                                 int64_t elementBytes) {
  auto *memref = static_cast<const MemRefDescriptorHeader *>(descriptor);
  mgpuMemHostUnregister(memref->aligned + memref->offset * elementBytes);
}

/// declare void @mgpuSetDefaultDevice(i32): the device the runtime will
/// initialize; switching devices after that is an error.
void mgpuSetDefaultDevice(int32_t ordinal) { setDefaultDevice(ordinal); }

} // extern "C"
