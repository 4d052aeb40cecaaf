//===- DeviceGraphs.h - the training step as one CUDA graph -----*- C++ -*-===//
//
// Internal contract between the model runtime (ModelSteps.cpp) and the CUDA
// backend (CUDARuntime.cpp), beside amp_device_ops (DeviceRuntime.h): the
// step stream captured into a graph (cuStreamBeginCapture/EndCapture),
// instantiated and launched. The model runtime captures the compiled
// training step once per set of buffers it is called on and replays it each
// step (docs/GPURuntime.md, "The step as one CUDA graph"). A CPU library
// does not link the CUDA backend: the weak reference is null there.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_RUNTIME_DEVICEGRAPHS_H
#define AMP_LIB_RUNTIME_DEVICEGRAPHS_H

#include <stdint.h>

extern "C" {

struct amp_state;

typedef struct amp_device_graph_ops {
  /* Starts capturing, on this thread, what is issued on the step stream
     (into a stream of its own, in thread-local mode): work is recorded,
     not run, and the calls CUDA refuses during a capture (a host wait,
     cuMemAlloc) invalidate it. Errors on this thread until end_capture
     belong to the capture. 0, or non-zero with the reason in *reason (not
     sticky). */
  int32_t (*begin_capture)(const char **reason);
  /* Ends the capture and instantiates the graph: the executable graph, or
     null with the reason in *reason (the capture's first error or the
     driver's refusal). Nothing captured has run either way; a failure is
     not sticky. */
  void *(*end_capture)(const char **reason);
  /* Launches the graph on the step stream; 0, or the sticky error. */
  int32_t (*launch)(void *graph);
  void (*destroy)(void *graph);
} amp_device_graph_ops;

/* The CUDA backend's (CUDARuntime.cpp). */
__attribute__((weak)) const amp_device_graph_ops *
amp_cuda_device_graph_ops(void);

/* How the training steps of `state` ran: the graphs captured and the steps
   launched from one (a capture counts once it is launched). Returns 0 when
   steps run from graphs, else 1 with the reason in amp_last_error():
   AMP_CUDA_GRAPHS=0, a CPU or data-parallel library, or a capture that
   failed (then the steps run as they are, without a graph). Exported from
   model libraries; amp-run reports it. */
int32_t amp_cuda_graph_stats(struct amp_state *state, int64_t *captured,
                             int64_t *launched);
}

#endif // AMP_LIB_RUNTIME_DEVICEGRAPHS_H
