//===- Driver.cpp - the driver API: device, context, streams, memory ------===//
//
// The subset of libcuda.so.1 that lib/Runtime resolves (AMP_CUDA_DRIVER_-
// FUNCTIONS in lib/Runtime/CUDADriver.h), by the same versioned names. There
// is one device, one (primary) context, and every stream executes its work
// synchronously, in order, when it is issued; events are therefore always
// complete. Module loading and launches are in Launch.cpp.
//
//===----------------------------------------------------------------------===//

#include "Device.h"
#include "Export.h"

#include <cuda.h>

#include <cstdio>
#include <cstring>
#include <string>

using namespace amp::emulator;

namespace {

const char kDeviceName[] = "AMP emulated CUDA device";

/// Distinct non-null handles for the objects that have no state.
int contextObject, streamObject, eventObject;

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

} // namespace

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

AMP_EMU_EXPORT CUresult cuCtxSynchronize() { return CUDA_SUCCESS; }

AMP_EMU_EXPORT CUresult cuStreamCreate(CUstream *stream, unsigned int) {
  *stream = reinterpret_cast<CUstream>(&streamObject);
  return CUDA_SUCCESS;
}

AMP_EMU_EXPORT CUresult cuStreamDestroy_v2(CUstream) { return CUDA_SUCCESS; }

bool amp::emulator::isStream(const void *stream) {
  return !stream || stream == &streamObject;
}

AMP_EMU_EXPORT CUresult cuStreamSynchronize(CUstream) { return CUDA_SUCCESS; }

// Work is done when it is issued: a stream is always complete.
AMP_EMU_EXPORT CUresult cuStreamQuery(CUstream) { return CUDA_SUCCESS; }

AMP_EMU_EXPORT CUresult cuStreamWaitEvent(CUstream, CUevent, unsigned int) {
  return CUDA_SUCCESS;
}

AMP_EMU_EXPORT CUresult cuEventCreate(CUevent *event, unsigned int) {
  *event = reinterpret_cast<CUevent>(&eventObject);
  return CUDA_SUCCESS;
}

AMP_EMU_EXPORT CUresult cuEventDestroy_v2(CUevent) { return CUDA_SUCCESS; }

AMP_EMU_EXPORT CUresult cuEventRecord(CUevent, CUstream) {
  return CUDA_SUCCESS;
}

AMP_EMU_EXPORT CUresult cuEventSynchronize(CUevent) { return CUDA_SUCCESS; }

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
  if (release(ptr(pointer)))
    return CUDA_SUCCESS;
  return invalid("cuMemFree of a pointer that is not a live allocation");
}

AMP_EMU_EXPORT CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr to, const void *from,
                                             size_t bytes, CUstream) {
  if (CUresult r = checkDevice(ptr(to), bytes, "the destination of a copy"))
    return r;
  std::memmove(ptr(to), from, bytes);
  return CUDA_SUCCESS;
}

AMP_EMU_EXPORT CUresult cuMemcpyDtoHAsync_v2(void *to, CUdeviceptr from,
                                             size_t bytes, CUstream) {
  if (CUresult r = checkDevice(ptr(from), bytes, "the source of a copy"))
    return r;
  std::memmove(to, ptr(from), bytes);
  return CUDA_SUCCESS;
}

AMP_EMU_EXPORT CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr to, CUdeviceptr from,
                                             size_t bytes, CUstream) {
  if (CUresult r = checkDevice(ptr(to), bytes, "the destination of a copy"))
    return r;
  if (CUresult r = checkDevice(ptr(from), bytes, "the source of a copy"))
    return r;
  std::memmove(ptr(to), ptr(from), bytes);
  return CUDA_SUCCESS;
}

/// Unified addressing: either side may be host memory; a side inside a
/// device allocation must stay inside it.
AMP_EMU_EXPORT CUresult cuMemcpyAsync(CUdeviceptr to, CUdeviceptr from,
                                      size_t bytes, CUstream) {
  for (CUdeviceptr side : {to, from})
    if (isDevicePointer(ptr(side)))
      if (CUresult r = checkDevice(ptr(side), bytes, "a side of a copy"))
        return r;
  std::memmove(ptr(to), ptr(from), bytes);
  return CUDA_SUCCESS;
}

AMP_EMU_EXPORT CUresult cuMemsetD8Async(CUdeviceptr to, unsigned char value,
                                        size_t count, CUstream) {
  return fill<unsigned char>(to, value, count, "a byte fill");
}

AMP_EMU_EXPORT CUresult cuMemsetD16Async(CUdeviceptr to, unsigned short value,
                                         size_t count, CUstream) {
  return fill<unsigned short>(to, value, count, "a 16-bit fill");
}

AMP_EMU_EXPORT CUresult cuMemsetD32Async(CUdeviceptr to, unsigned int value,
                                         size_t count, CUstream) {
  return fill<unsigned int>(to, value, count, "a 32-bit fill");
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
/// the device's checks see the sizes compiled code asked for.
AMP_EMU_EXPORT void ampEmuPoolBlock(void *block, size_t bytes, int freed) {
  markInUse(block, bytes, freed != 0);
}
