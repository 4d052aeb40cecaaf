//===- Driver.cpp - the driver API: device, context, streams, memory ------===//
//
// The subset of libcuda.so.1 that lib/Runtime resolves (AMP_CUDA_DRIVER_-
// FUNCTIONS in lib/Runtime/CUDADriver.h), by the same versioned names. There
// is one device, one (primary) context, and every stream executes its work
// synchronously, in order, when it is issued; events are therefore always
// complete. A stream being captured (cuStreamBeginCapture) records its work
// as the nodes of a graph instead, which cuGraphLaunch runs; the calls CUDA
// refuses during a capture are refused, and invalidate it, so that a step
// that is not capture-safe fails here as on a GPU. Module loading and
// launches are in Launch.cpp.
//
//===----------------------------------------------------------------------===//

#include "Device.h"
#include "Export.h"

#include <cuda.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

using namespace amp::emulator;

namespace {

const char kDeviceName[] = "AMP emulated CUDA device";

/// A distinct non-null handle for the context, which has no state.
int contextObject;

CUresult invalid(const std::string &detail) {
  return CUresult(setDetail(false, CUDA_ERROR_INVALID_VALUE, detail));
}

/// A copy or fill touching device memory must stay within one allocation.
CUresult checkDevice(const void *pointer, size_t bytes, const char *what) {
  if (isDeviceRange(pointer, bytes))
    return CUDA_SUCCESS;
  char address[32];
  std::snprintf(address, sizeof(address), "%p", pointer);
  return invalid(std::string(what) + " of " + std::to_string(bytes) +
                 " bytes at " + address +
                 " is not within one device "
                 "allocation (" +
                 describeAllocation(pointer) + ")");
}

template <typename T>
CUresult fill(CUdeviceptr to, T value, size_t count, const char *what) {
  void *pointer = reinterpret_cast<void *>(to);
  if (CUresult r = checkDevice(pointer, count * sizeof(T), what))
    return r;
  T *out = static_cast<T *>(pointer);
  for (size_t i = 0; i < count; ++i)
    out[i] = value;
  return CUDA_SUCCESS;
}

void *ptr(CUdeviceptr p) { return reinterpret_cast<void *>(p); }

//===----------------------------------------------------------------------===//
// Streams, events and captures
//===----------------------------------------------------------------------===//

/// A stream's handle: distinct per cuStreamCreate, so that a capture is of
/// one stream and the work of another still runs.
struct Stream {
  int unused = 0;
};

struct Event {
  /// Last recorded on a stream while it was captured: CUDA refuses to wait
  /// for it on the host.
  bool recordedInCapture = false;
};

struct Capture {
  std::vector<StreamWork> nodes;
  CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_GLOBAL;
  std::thread::id thread;
  /// The first refused call, which invalidated the capture ("" when valid).
  std::string invalidated;
};

/// A graph and its executable form share the (immutable) nodes, and so
/// does a launch recorded into another capture.
struct GraphObject {
  std::shared_ptr<const std::vector<StreamWork>> nodes;
};

/// Never destroyed, like the memory (Device.cpp).
struct Streams {
  std::mutex mutex;
  std::set<const void *> created;
  std::map<const void *, Capture> captures;
};

Streams &streams() {
  static Streams *instance = new Streams();
  return *instance;
}

/// cuThreadExchangeStreamCaptureMode's mode of this thread.
thread_local CUstreamCaptureMode threadMode = CU_STREAM_CAPTURE_MODE_GLOBAL;
/// The stream this thread is capturing, or null.
thread_local const void *threadCapture = nullptr;

/// Records `detail` as the reason the capture of `stream` is invalid (the
/// first reason is kept); the caller holds the mutex.
void invalidateLocked(Streams &s, const void *stream,
                      const std::string &detail) {
  auto it = s.captures.find(stream);
  if (it != s.captures.end() && it->second.invalidated.empty())
    it->second.invalidated = detail;
}

/// What CUDA says of a call it refuses during a capture; invalidates the
/// capture of `stream` (or every capture, for null).
CUresult refuse(Streams &s, const void *stream, const std::string &detail) {
  if (stream)
    invalidateLocked(s, stream, detail);
  else
    for (auto &entry : s.captures)
      invalidateLocked(s, entry.first, detail);
  return CUresult(
      setDetail(false, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, detail));
}

/// cuThreadExchangeStreamCaptureMode's rule for "potentially unsafe" calls
/// (cuMemAlloc, cuMemFree: not stream ordered, so a graph would not replay
/// them): refused in global mode while this thread captures (not relaxed)
/// or another thread captures in global mode; in thread-local mode only
/// for this thread's own capture; never in relaxed mode.
CUresult refuseUnsafe(const char *call) {
  if (threadMode == CU_STREAM_CAPTURE_MODE_RELAXED)
    return CUDA_SUCCESS;
  Streams &s = streams();
  std::lock_guard<std::mutex> lock(s.mutex);
  for (auto &[stream, capture] : s.captures) {
    bool own = capture.thread == std::this_thread::get_id();
    if ((own && capture.mode != CU_STREAM_CAPTURE_MODE_RELAXED) ||
        (!own && threadMode == CU_STREAM_CAPTURE_MODE_GLOBAL &&
         capture.mode == CU_STREAM_CAPTURE_MODE_GLOBAL))
      return refuse(s, stream,
                    std::string(call) +
                        " during a stream capture in global mode: it is not "
                        "stream ordered, so the graph would not replay it");
  }
  return CUDA_SUCCESS;
}

/// A host wait for `stream`: refused while it is captured (its work has
/// not run, and will not until the graph is launched).
CUresult refuseWait(const void *stream, const char *call) {
  Streams &s = streams();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.captures.count(stream))
    return CUDA_SUCCESS;
  return refuse(s, stream,
                std::string(call) +
                    " on a stream being captured: its work is recorded "
                    "into a graph, not run, so there is nothing to wait for");
}

CUresult runNodes(const std::vector<StreamWork> &nodes) {
  for (const StreamWork &node : nodes)
    if (int r = node())
      return CUresult(r);
  return CUDA_SUCCESS;
}

} // namespace

bool amp::emulator::isCapturing(const void *stream) {
  Streams &s = streams();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.captures.count(stream) != 0;
}

int amp::emulator::issue(const void *stream, StreamWork work) {
  {
    Streams &s = streams();
    std::lock_guard<std::mutex> lock(s.mutex);
    auto it = s.captures.find(stream);
    if (it != s.captures.end()) {
      it->second.nodes.push_back(std::move(work));
      return CUDA_SUCCESS;
    }
  }
  return work();
}

int amp::emulator::failedNode(const std::string &detail) {
  return setDetail(false, CUDA_ERROR_LAUNCH_FAILED, detail);
}

int amp::emulator::issueOnCapturingThread(StreamWork work) {
  return threadCapture ? issue(threadCapture, std::move(work)) : work();
}

//===----------------------------------------------------------------------===//
// Errors, versions, device
//===----------------------------------------------------------------------===//

AMP_EMU_EXPORT CUresult cuGetErrorName(CUresult error, const char **name) {
  switch (error) {
#define AMP_EMU_NAME(code)                                                     \
  case code:                                                                   \
    *name = #code;                                                             \
    return CUDA_SUCCESS;
    AMP_EMU_NAME(CUDA_SUCCESS)
    AMP_EMU_NAME(CUDA_ERROR_INVALID_VALUE)
    AMP_EMU_NAME(CUDA_ERROR_OUT_OF_MEMORY)
    AMP_EMU_NAME(CUDA_ERROR_INVALID_DEVICE)
    AMP_EMU_NAME(CUDA_ERROR_INVALID_SOURCE)
    AMP_EMU_NAME(CUDA_ERROR_INVALID_HANDLE)
    AMP_EMU_NAME(CUDA_ERROR_NOT_FOUND)
    AMP_EMU_NAME(CUDA_ERROR_ILLEGAL_ADDRESS)
    AMP_EMU_NAME(CUDA_ERROR_LAUNCH_FAILED)
    AMP_EMU_NAME(CUDA_ERROR_INVALID_IMAGE)
    AMP_EMU_NAME(CUDA_ERROR_NOT_SUPPORTED)
    AMP_EMU_NAME(CUDA_ERROR_ILLEGAL_STATE)
    AMP_EMU_NAME(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED)
    AMP_EMU_NAME(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED)
    AMP_EMU_NAME(CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD)
#undef AMP_EMU_NAME
  default:
    *name = nullptr;
    return CUDA_ERROR_INVALID_VALUE;
  }
}

/// The detail of the last error with this code: what the emulated device
/// knows that a real one would not say (the kernel, the allocation).
AMP_EMU_EXPORT CUresult cuGetErrorString(CUresult error, const char **text) {
  const char *detail = detailFor(false, error);
  *text = detail ? detail : "emulated CUDA device error";
  return CUDA_SUCCESS;
}

AMP_EMU_EXPORT CUresult cuInit(unsigned int) { return CUDA_SUCCESS; }

AMP_EMU_EXPORT CUresult cuDriverGetVersion(int *version) {
  *version = CUDA_VERSION;
  return CUDA_SUCCESS;
}

AMP_EMU_EXPORT CUresult cuDeviceGetCount(int *count) {
  *count = 1;
  return CUDA_SUCCESS;
}

AMP_EMU_EXPORT CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  if (ordinal != 0)
    return CUDA_ERROR_INVALID_DEVICE;
  *device = 0;
  return CUDA_SUCCESS;
}

AMP_EMU_EXPORT CUresult cuDeviceGetName(char *name, int length, CUdevice) {
  if (length <= 0)
    return CUDA_ERROR_INVALID_VALUE;
  std::strncpy(name, kDeviceName, size_t(length) - 1);
  name[length - 1] = 0;
  return CUDA_SUCCESS;
}

/// An sm_90 (the architecture amp's GPU pipeline targets by default).
AMP_EMU_EXPORT CUresult cuDeviceGetAttribute(int *value,
                                             CUdevice_attribute attribute,
                                             CUdevice) {
  switch (attribute) {
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
    *value = 9;
    break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
    *value = 0;
    break;
  case CU_DEVICE_ATTRIBUTE_WARP_SIZE:
    *value = 32;
    break;
  case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
    *value = 1024;
    break;
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
    *value = 1;
    break;
  default:
    *value = 0;
  }
  return CUDA_SUCCESS;
}

AMP_EMU_EXPORT CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice) {
  *bytes = kDeviceBytes;
  return CUDA_SUCCESS;
}

//===----------------------------------------------------------------------===//
// Context, streams, events: all work is done when it is issued.
//===----------------------------------------------------------------------===//

AMP_EMU_EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *context, CUdevice) {
  *context = reinterpret_cast<CUcontext>(&contextObject);
  return CUDA_SUCCESS;
}

AMP_EMU_EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice) {
  return CUDA_SUCCESS;
}

AMP_EMU_EXPORT CUresult cuCtxSetCurrent(CUcontext) { return CUDA_SUCCESS; }

AMP_EMU_EXPORT CUresult cuCtxSynchronize() {
  Streams &s = streams();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.captures.empty())
    return CUDA_SUCCESS;
  return refuse(s, nullptr,
                "cuCtxSynchronize during a stream capture: the captured "
                "stream's work is recorded, not run");
}

AMP_EMU_EXPORT CUresult cuStreamCreate(CUstream *stream, unsigned int) {
  Streams &s = streams();
  std::lock_guard<std::mutex> lock(s.mutex);
  auto *created = new Stream();
  s.created.insert(created);
  *stream = reinterpret_cast<CUstream>(created);
  return CUDA_SUCCESS;
}

AMP_EMU_EXPORT CUresult cuStreamDestroy_v2(CUstream stream) {
  Streams &s = streams();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.created.erase(stream))
    return invalid("cuStreamDestroy of something that is not a stream");
  s.captures.erase(stream);
  delete reinterpret_cast<Stream *>(stream);
  return CUDA_SUCCESS;
}

bool amp::emulator::isStream(const void *stream) {
  Streams &s = streams();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (stream && !s.created.count(stream))
    return false;
  if (!s.captures.count(stream))
    return true;
  // A library call that would run now, in the middle of recorded work.
  invalidateLocked(s, stream,
                   "a cuBLASLt or cuDNN call was issued on a stream being "
                   "captured, and the emulated library runs its calls when "
                   "issued instead of recording them (it refused the call)");
  return false;
}

AMP_EMU_EXPORT CUresult cuStreamSynchronize(CUstream stream) {
  return refuseWait(stream, "cuStreamSynchronize");
}

// Work is done when it is issued: a stream is always complete.
AMP_EMU_EXPORT CUresult cuStreamQuery(CUstream stream) {
  return refuseWait(stream, "cuStreamQuery");
}

AMP_EMU_EXPORT CUresult cuStreamWaitEvent(CUstream, CUevent, unsigned int) {
  return CUDA_SUCCESS;
}

AMP_EMU_EXPORT CUresult cuEventCreate(CUevent *event, unsigned int) {
  *event = reinterpret_cast<CUevent>(new Event());
  return CUDA_SUCCESS;
}

AMP_EMU_EXPORT CUresult cuEventDestroy_v2(CUevent event) {
  delete reinterpret_cast<Event *>(event);
  return CUDA_SUCCESS;
}

AMP_EMU_EXPORT CUresult cuEventRecord(CUevent event, CUstream stream) {
  if (!event)
    return CUDA_ERROR_INVALID_HANDLE;
  reinterpret_cast<Event *>(event)->recordedInCapture = isCapturing(stream);
  return CUDA_SUCCESS;
}

AMP_EMU_EXPORT CUresult cuEventSynchronize(CUevent event) {
  if (!event)
    return CUDA_ERROR_INVALID_HANDLE;
  if (!reinterpret_cast<Event *>(event)->recordedInCapture)
    return CUDA_SUCCESS;
  Streams &s = streams();
  std::lock_guard<std::mutex> lock(s.mutex);
  return refuse(s, nullptr,
                "cuEventSynchronize on an event recorded in a stream "
                "capture: it marks a point of a graph, not of the device's "
                "work");
}

//===----------------------------------------------------------------------===//
// Graphs: a capture records the stream's work; a graph replays it.
//===----------------------------------------------------------------------===//

AMP_EMU_EXPORT CUresult
cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode *mode) {
  if (!mode)
    return invalid("cuThreadExchangeStreamCaptureMode with a null mode");
  std::swap(threadMode, *mode);
  return CUDA_SUCCESS;
}

AMP_EMU_EXPORT CUresult cuStreamBeginCapture_v2(CUstream stream,
                                                CUstreamCaptureMode mode) {
  Streams &s = streams();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!stream)
    return CUresult(setDetail(false, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                              "the legacy NULL stream cannot be captured"));
  if (!s.created.count(stream))
    return invalid("cuStreamBeginCapture of something that is not a stream");
  if (s.captures.count(stream))
    return CUresult(setDetail(false, CUDA_ERROR_ILLEGAL_STATE,
                              "cuStreamBeginCapture of a stream that is "
                              "already being captured"));
  Capture &capture = s.captures[stream];
  capture.mode = mode;
  capture.thread = std::this_thread::get_id();
  threadCapture = stream;
  return CUDA_SUCCESS;
}

/// Ends the capture either way; an invalidated one gives no graph.
AMP_EMU_EXPORT CUresult cuStreamEndCapture(CUstream stream, CUgraph *graph) {
  Streams &s = streams();
  std::unique_lock<std::mutex> lock(s.mutex);
  auto it = s.captures.find(stream);
  if (it == s.captures.end())
    return CUresult(setDetail(false, CUDA_ERROR_ILLEGAL_STATE,
                              "cuStreamEndCapture of a stream that is not "
                              "being captured"));
  if (it->second.mode != CU_STREAM_CAPTURE_MODE_RELAXED &&
      it->second.thread != std::this_thread::get_id())
    return CUresult(setDetail(false, CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD,
                              "cuStreamEndCapture on another thread than "
                              "the capture's"));
  Capture capture = std::move(it->second);
  s.captures.erase(it);
  if (threadCapture == stream)
    threadCapture = nullptr;
  if (graph)
    *graph = nullptr;
  if (!capture.invalidated.empty())
    return CUresult(
        setDetail(false, CUDA_ERROR_STREAM_CAPTURE_INVALIDATED,
                  "the capture was invalidated: " + capture.invalidated));
  if (!graph)
    return invalid("cuStreamEndCapture with a null graph");
  *graph = reinterpret_cast<CUgraph>(
      new GraphObject{std::make_shared<const std::vector<StreamWork>>(
          std::move(capture.nodes))});
  return CUDA_SUCCESS;
}

AMP_EMU_EXPORT CUresult cuGraphInstantiateWithFlags(CUgraphExec *exec,
                                                    CUgraph graph,
                                                    unsigned long long) {
  if (!exec || !graph)
    return invalid("cuGraphInstantiate with a null graph or result");
  // The executable graph is a copy: the graph may be destroyed first.
  *exec = reinterpret_cast<CUgraphExec>(
      new GraphObject(*reinterpret_cast<GraphObject *>(graph)));
  return CUDA_SUCCESS;
}

/// Runs the graph's nodes in order (or records them, into a stream being
/// captured); the first failing node's error is the launch's.
AMP_EMU_EXPORT CUresult cuGraphLaunch(CUgraphExec exec, CUstream stream) {
  if (!exec)
    return CUDA_ERROR_INVALID_HANDLE;
  {
    Streams &s = streams();
    std::lock_guard<std::mutex> lock(s.mutex);
    if (stream && !s.created.count(stream))
      return invalid("cuGraphLaunch on something that is not a stream");
  }
  auto nodes = reinterpret_cast<GraphObject *>(exec)->nodes;
  return CUresult(issue(stream, [nodes] { return int(runNodes(*nodes)); }));
}

AMP_EMU_EXPORT CUresult cuGraphExecDestroy(CUgraphExec exec) {
  delete reinterpret_cast<GraphObject *>(exec);
  return CUDA_SUCCESS;
}

AMP_EMU_EXPORT CUresult cuGraphDestroy(CUgraph graph) {
  delete reinterpret_cast<GraphObject *>(graph);
  return CUDA_SUCCESS;
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

AMP_EMU_EXPORT CUresult cuMemGetInfo_v2(size_t *freeBytes, size_t *total) {
  *total = kDeviceBytes;
  size_t used = bytesInUse();
  *freeBytes = used < kDeviceBytes ? kDeviceBytes - used : 0;
  return CUDA_SUCCESS;
}

AMP_EMU_EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *pointer, size_t bytes) {
  if (CUresult r = refuseUnsafe("cuMemAlloc"))
    return r;
  if (bytes == 0)
    return invalid("cuMemAlloc of 0 bytes");
  if (bytes > kDeviceBytes - bytesInUse())
    return CUresult(setDetail(false, CUDA_ERROR_OUT_OF_MEMORY,
                              "the emulated device's memory is exhausted"));
  void *block = allocate(bytes);
  if (!block)
    return CUresult(setDetail(false, CUDA_ERROR_OUT_OF_MEMORY,
                              "the host has no memory for the emulated "
                              "device's allocation"));
  *pointer = reinterpret_cast<CUdeviceptr>(block);
  return CUDA_SUCCESS;
}

AMP_EMU_EXPORT CUresult cuMemAllocManaged(CUdeviceptr *pointer, size_t bytes,
                                          unsigned int) {
  return cuMemAlloc_v2(pointer, bytes);
}

AMP_EMU_EXPORT CUresult cuMemFree_v2(CUdeviceptr pointer) {
  if (CUresult r = refuseUnsafe("cuMemFree"))
    return r;
  if (release(ptr(pointer)))
    return CUDA_SUCCESS;
  return invalid("cuMemFree of a pointer that is not a live allocation");
}

// Copies and fills are checked when they run: while a stream is captured,
// the runtime's pool hands out blocks whose marks (ampEmuPoolBlock) are
// nodes of the graph too.

AMP_EMU_EXPORT CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr to, const void *from,
                                             size_t bytes, CUstream stream) {
  return CUresult(issue(stream, [=] {
    if (CUresult r = checkDevice(ptr(to), bytes, "the destination of a copy"))
      return int(r);
    std::memmove(ptr(to), from, bytes);
    return int(CUDA_SUCCESS);
  }));
}

AMP_EMU_EXPORT CUresult cuMemcpyDtoHAsync_v2(void *to, CUdeviceptr from,
                                             size_t bytes, CUstream stream) {
  return CUresult(issue(stream, [=] {
    if (CUresult r = checkDevice(ptr(from), bytes, "the source of a copy"))
      return int(r);
    std::memmove(to, ptr(from), bytes);
    return int(CUDA_SUCCESS);
  }));
}

AMP_EMU_EXPORT CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr to, CUdeviceptr from,
                                             size_t bytes, CUstream stream) {
  return CUresult(issue(stream, [=] {
    if (CUresult r = checkDevice(ptr(to), bytes, "the destination of a copy"))
      return int(r);
    if (CUresult r = checkDevice(ptr(from), bytes, "the source of a copy"))
      return int(r);
    std::memmove(ptr(to), ptr(from), bytes);
    return int(CUDA_SUCCESS);
  }));
}

/// Unified addressing: either side may be host memory; a side inside a
/// device allocation must stay inside it.
AMP_EMU_EXPORT CUresult cuMemcpyAsync(CUdeviceptr to, CUdeviceptr from,
                                      size_t bytes, CUstream stream) {
  return CUresult(issue(stream, [=] {
    for (CUdeviceptr side : {to, from})
      if (isDevicePointer(ptr(side)))
        if (CUresult r = checkDevice(ptr(side), bytes, "a side of a copy"))
          return int(r);
    std::memmove(ptr(to), ptr(from), bytes);
    return int(CUDA_SUCCESS);
  }));
}

AMP_EMU_EXPORT CUresult cuMemsetD8Async(CUdeviceptr to, unsigned char value,
                                        size_t count, CUstream stream) {
  return CUresult(issue(stream, [=] {
    return int(fill<unsigned char>(to, value, count, "a byte fill"));
  }));
}

AMP_EMU_EXPORT CUresult cuMemsetD16Async(CUdeviceptr to, unsigned short value,
                                         size_t count, CUstream stream) {
  return CUresult(issue(stream, [=] {
    return int(fill<unsigned short>(to, value, count, "a 16-bit fill"));
  }));
}

AMP_EMU_EXPORT CUresult cuMemsetD32Async(CUdeviceptr to, unsigned int value,
                                         size_t count, CUstream stream) {
  return CUresult(issue(stream, [=] {
    return int(fill<unsigned int>(to, value, count, "a 32-bit fill"));
  }));
}

/// Host memory is device memory already.
AMP_EMU_EXPORT CUresult cuMemHostRegister_v2(void *, size_t, unsigned int) {
  return CUDA_SUCCESS;
}

AMP_EMU_EXPORT CUresult cuMemHostUnregister(void *) { return CUDA_SUCCESS; }

//===----------------------------------------------------------------------===//
// Extensions lib/Runtime resolves optionally (a real driver lacks them)
//===----------------------------------------------------------------------===//

/// The runtime's pool rounds requests up and reuses blocks; it tells the
/// device which bytes of a block it hands out (they become fresh NaN, the
/// rest red zone) and when it takes a block back (all red zone), so that
/// the device's checks see the sizes compiled code asked for. During a
/// capture on this thread the mark is a node of the graph: it takes effect
/// between the captured kernels, at every launch.
AMP_EMU_EXPORT void ampEmuPoolBlock(void *block, size_t bytes, int freed) {
  issueOnCapturingThread([=] {
    markInUse(block, bytes, freed != 0);
    return int(CUDA_SUCCESS);
  });
}
