//===- Device.h - the emulated CUDA device's shared state -------*- C++ -*-===//
//
// Internal to libamp_cuda_emulator.so. Device memory is host memory; every
// allocation is surrounded by red zones and starts filled with a NaN
// pattern. Errors carry a detailed message that cuGetErrorString and
// cublasLtGetStatusString return, so that lib/Runtime's own messages (which
// append the driver's description) name the kernel and the allocation.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_RUNTIME_EMULATOR_DEVICE_H
#define AMP_LIB_RUNTIME_EMULATOR_DEVICE_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace amp {
namespace emulator {

/// What fresh device memory is filled with: 0xff bytes are a NaN in f32,
/// f16 and bf16 alike, so results computed from memory no one wrote are NaN.
constexpr unsigned char kFreshByte = 0xff;
/// What red zones hold.
constexpr unsigned char kRedZoneByte = 0xa5;
/// Bytes of red zone before each allocation (and at least after it); also
/// the allocation alignment, as cuMemAlloc's.
constexpr size_t kRedZoneBytes = 256;

/// The device's total memory as reported (allocations are host memory).
constexpr size_t kDeviceBytes = size_t(16) << 30;

//===----------------------------------------------------------------------===//
// Error details
//===----------------------------------------------------------------------===//

/// Records `detail` as the description of the last error with `code` (a
/// CUresult or cublasStatus_t) and returns `code`.
int setDetail(bool blas, int code, const std::string &detail);
/// The detail recorded for `code`, or null.
const char *detailFor(bool blas, int code);

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

/// A new allocation of `bytes`, red zones set and contents NaN; null when
/// the host has no memory.
void *allocate(size_t bytes);
/// False when `pointer` is not the start of a live allocation.
bool release(void *pointer);
/// The runtime's pool hands out `bytes` of the allocation at `pointer`
/// (fresh NaN, the rest red zone), or takes it back (`freed`: all of it red
/// zone, so that a kernel writing a freed block is caught). False when
/// `pointer` is not an allocation or `bytes` exceeds it.
bool markInUse(void *pointer, size_t bytes, bool freed);
/// Whether [pointer, pointer + bytes) lies within one live allocation.
bool isDeviceRange(const void *pointer, size_t bytes);
/// Whether `pointer` lies in a live allocation (of any size).
bool isDevicePointer(const void *pointer);
/// "allocation #3 (4096 bytes at 0x...)" for the allocation holding
/// `pointer`, or "no allocation".
std::string describeAllocation(const void *pointer);
/// Checks every red zone; on damage returns a description of the first
/// damaged allocation and where, and restores its red zones. "" when intact.
std::string checkRedZones();
/// Bytes currently allocated.
size_t bytesInUse();
/// Whether `stream` is a stream work can be queued on: null (the default
/// stream) or one cuStreamCreate returned. Every stream runs its work when
/// it is issued, so work on any of them is in issue order. A stream being
/// captured into a graph is not one for callers that would run their work
/// at once (the capture is then invalidated): they use `issue`.
bool isStream(const void *stream);

//===----------------------------------------------------------------------===//
// Graphs (Driver.cpp): stream capture, cuGraphInstantiate, cuGraphLaunch
//===----------------------------------------------------------------------===//

/// Work issued on a stream: returns 0 (CUDA_SUCCESS) or a CUresult whose
/// detail it recorded (setDetail), as failedNode does.
using StreamWork = std::function<int()>;

/// What a library's work that failed in a graph returns: the launch fails
/// with CUDA_ERROR_LAUNCH_FAILED and `detail`.
int failedNode(const std::string &detail);

/// Whether `stream` is being captured (cuStreamBeginCapture).
bool isCapturing(const void *stream);
/// Runs `work` now, or, while `stream` is being captured, records it as a
/// node of the graph, run at every cuGraphLaunch of it (then CUDA_SUCCESS).
/// What `work` reads (pointers, values) it must hold by value: a graph
/// replays the arguments of its capture.
int issue(const void *stream, StreamWork work);
/// The runtime's pool marking a block (ampEmuPoolBlock) is host
/// bookkeeping that orders with the work around it: while this thread
/// captures a stream it becomes a node of that graph.
int issueOnCapturingThread(StreamWork work);

//===----------------------------------------------------------------------===//
// Profile (AMP_EMULATOR_PROFILE=FILE): JSON lines written at exit.
//===----------------------------------------------------------------------===//

bool profiling();
void recordProfileLine(std::string line);
std::string jsonString(const std::string &text);

} // namespace emulator
} // namespace amp

#endif // AMP_LIB_RUNTIME_EMULATOR_DEVICE_H
