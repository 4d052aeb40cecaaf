/*===- DeviceRuntime.h - device memory for compiled models ---------*- C
-*-===*\
|*                                                                            *|
|* Internal contract between the model runtime (lib/Runtime/ModelState.h,    *|
|* which owns the state behind the C ABI of ModelABI.h) and a device backend. *|
|* A library amp-compile makes for --target=cuda runs its entry points on     *|
|* device pointers: the model runtime keeps a host copy of every tensor (what *|
|* amp_state_tensor returns) and a device copy, and moves data through these  *|
|* operations. The CPU target has no device backend (the descriptor's         *|
|* `device` is null) and runs on the host copies directly.                    *|
|*                                                                            *|
|* Every operation works on the backend's one stream, in order. Functions     *|
|* returning int32_t return 0 on success and non-zero on failure, with the    *|
|* reason in last_error(); an asynchronous failure (a kernel fault, a failed  *|
|* launch inside compiled code) is sticky and reported by the next call.      *|
\*===----------------------------------------------------------------------===*/

#ifndef AMP_RUNTIME_DEVICERUNTIME_H
#define AMP_RUNTIME_DEVICERUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct amp_device_ops {
  /* "cuda". */
  const char *name;
  /* Finds the driver and a device, creates the context and the stream.
     Idempotent; fails with a clear reason (no driver, no device, a device
     older than the code was compiled for, ...). */
  int32_t (*init)(void);
  const char *(*last_error)(void);
  /* A description of the device for progress lines, e.g.
     "NVIDIA H200 (sm_90, 139.8 GiB)". Valid after init. */
  const char *(*device_name)(void);
  /* Device memory of `bytes` bytes (from a pool), or null on failure. */
  void *(*alloc)(size_t bytes);
  void (*free)(void *device);
  int32_t (*copy_to_device)(void *device, const void *host, size_t bytes);
  /* Waits for the stream, then copies: `host` is valid on return. */
  int32_t (*copy_to_host)(void *host, const void *device, size_t bytes);
  int32_t (*copy_on_device)(void *to, const void *from, size_t bytes);
  int32_t (*memset_zero)(void *device, size_t bytes);
  /* Waits for all work on the stream; returns the sticky error if any. */
  int32_t (*synchronize)(void);
  /* Page-locks `bytes` of host memory at `host` so that copies from it run
     at the link's full speed: 0 on success; a failure (a locked-memory
     limit) is not sticky, the memory stays pageable and copies still work.
     A copy from locked memory may still be running when copy_to_device
     returns: the caller leaves the buffer alone until the stream has run it
     (the next copy_to_host or synchronize). Optional (null). */
  int32_t (*pin_host)(void *host, size_t bytes);
  void (*unpin_host)(void *host);

  /* Asynchronous steps (amp_train_step_begin in ModelABI.h): inputs are
     uploaded on a second stream, the upload stream, while the step stream
     still runs the step before; events order the two. Optional (all null
     where unsupported: steps then run synchronously). `stream` is an
     amp_device_stream. */
  void *(*event_create)(void);
  void (*event_destroy)(void *event);
  int32_t (*event_record)(void *event, int32_t stream);
  /* Work queued on `stream` after this call waits for `event`. */
  int32_t (*stream_wait_event)(int32_t stream, void *event);
  /* The host waits for `event`; returns the sticky error if any. */
  int32_t (*event_synchronize)(void *event);
  /* A copy queued on `stream` that returns at once: a page-locked `host`
     is read or written while the stream runs it, so the caller leaves it
     alone until an event recorded after the copy has completed. */
  int32_t (*copy_async)(void *to, const void *from, size_t bytes,
                        int32_t toDevice, int32_t stream);
} amp_device_ops;

enum amp_device_stream {
  AMP_DEVICE_STEP_STREAM = 0,
  AMP_DEVICE_UPLOAD_STREAM = 1
};

/* The CUDA backend (lib/Runtime/CUDARuntime.cpp, libamp_cuda_runtime.a). */
const amp_device_ops *amp_cuda_device_ops(void);

#ifdef __cplusplus
}
#endif

#endif /* AMP_RUNTIME_DEVICERUNTIME_H */
