//===- ModelState.h - the state of a compiled model -------------*- C++ -*-===//
//
// Internal to amp_model_runtime. An amp_state (ModelABI.h) owns a host
// buffer for every tensor of the model (ModelDescriptor.h) and, on a device
// target, a device copy with which side is newer; it runs the compiled entry
// points on them. The parts:
//   ModelState.cpp        creating the state, moving tensors between host and
//                         device
//   ModelSteps.cpp        running an entry point to completion
//   OverlappedSteps.cpp   amp_train_step_begin's steps queued on a device
//   ModelDataParallel.cpp the state's side of data parallelism
//   Checkpoint.cpp        the checkpoint format (Checkpoint.h)
//   ModelEntryPoints.cpp  the C ABI over all of them
// Plain C++ with no dependency on LLVM or MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_RUNTIME_MODELSTATE_H
#define AMP_LIB_RUNTIME_MODELSTATE_H

#include "amp/Runtime/DataParallel.h"
#include "amp/Runtime/ModelDescriptor.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <memory>
#include <string>
#include <utility>
#include <vector>

// Linked into every model library: the internals stay out of its exported
// symbols, beside the C ABI, as they did in one file.
#pragma GCC visibility push(hidden)

struct amp_device_graph_ops; // DeviceGraphs.h

namespace amp::runtime {

/// Records `message` as amp_last_error() and returns 1.
int32_t fail(std::string message);
/// What fail recorded last on this thread.
const char *lastError();
/// Fails saying that `bytes` for `what` cannot be allocated.
int32_t outOfMemory(const std::string &what, size_t bytes);

inline const amp_model_descriptor &model() {
  return *amp_model_descriptor_get();
}

/// The byte size of a tensor whose size amp_state_create checked.
size_t byteSize(const amp_tensor_info &info);
/// Whether checkpoints hold the tensor (all but inputs and labels).
bool isCheckpointed(const amp_tensor_info &info);
/// The index of the tensor named `name`, or -1.
int32_t findTensor(const char *name);
/// "2x3", or "scalar".
std::string shapeString(int32_t rank, const int64_t *shape);

/// Whether the entry writes result `index` into the buffer of the tensor it
/// updates (it has no buffer of its own).
inline bool isInPlace(const amp_entry_descriptor &entry, int32_t index) {
  return entry.result_in_place && entry.result_in_place[index];
}
/// The entry's index-range result (amp-check-indices), or -1
/// (ModelSteps.cpp, as the next).
int32_t indexRangesResult(const amp_entry_descriptor &entry);
/// Fails naming the first op whose indices left their range, from the
/// entry's index-range result `ranges` (may be null).
int32_t checkIndexRanges(const amp_entry_descriptor &entry, const void *ranges);
/// What the host uploads before every step: callers write inputs, labels
/// and hyper-parameters in place through pointers they keep.
inline bool isUploadedEveryStep(const amp_tensor_info &info) {
  return info.role == AMP_ROLE_INPUT || info.role == AMP_ROLE_LABEL ||
         info.role == AMP_ROLE_HYPERPARAMETER;
}

/// A zeroed, 64-byte aligned buffer; `data` is null when the allocation
/// failed.
struct Buffer {
  explicit Buffer(size_t bytes);
  std::unique_ptr<char, void (*)(void *)> data;
  size_t size;
};

/// Device memory of one tensor, from the backend's pool.
struct DeviceBuffer {
  DeviceBuffer(const amp_device_ops *ops, size_t bytes)
      : ops(ops), data(ops->alloc(std::max<size_t>(bytes, 1))), size(bytes) {}
  /// No buffer (a result written in place).
  explicit DeviceBuffer(const amp_device_ops *ops)
      : ops(ops), data(nullptr), size(0) {}
  DeviceBuffer(DeviceBuffer &&other) noexcept
      : ops(other.ops), data(other.data), size(other.size) {
    other.data = nullptr;
  }
  DeviceBuffer(const DeviceBuffer &) = delete;
  ~DeviceBuffer() {
    if (data)
      ops->free(data);
  }
  const amp_device_ops *ops;
  void *data;
  size_t size;
};

/// The buffers one entry point writes its results to, allocated once.
struct ResultBuffers {
  std::vector<Buffer> host;
  std::vector<DeviceBuffer> device;
};

/// At most this many steps begun and not finished (amp_train_step_begin):
/// one running, one whose inputs are being uploaded.
constexpr size_t kMaxStepsInFlight = 2;

/// A step amp_train_step_begin started: queued on the device (its loss and
/// skipped flag land in `slot` of the pipeline), or run at once.
struct BegunStep {
  bool queued = false;
  int32_t slot = 0;
  float loss = 0;
  int32_t skipped = 0;
  /// The loss scales after the step (a step that ran at once).
  std::vector<float> scales;
};

/// What overlapped steps need on a device, made at the first
/// amp_train_step_begin (OverlappedSteps.cpp): a second set of input and
/// label buffers (the next step's upload fills one set while the running
/// step reads the other), events ordering the two streams, and page-locked
/// slots that receive each begun step's loss and skipped flag.
struct StepPipeline {
  /// The host slot of one begun step: the loss, the skipped flag, then the
  /// loss scales (4 bytes each, from kScalesOffset), then the index ranges
  /// (from rangesOffset).
  static constexpr size_t kFieldBytes = 32, kScalesOffset = 64;

  StepPipeline(const amp_device_ops *device, size_t numScales,
               size_t rangesBytes);
  StepPipeline(const StepPipeline &) = delete;
  ~StepPipeline();

  const amp_device_ops *device;
  /// Tensor index and the buffer of the other set, per tensor uploaded
  /// every step.
  std::vector<std::pair<int32_t, DeviceBuffer>> spare;
  /// Upload stream: this step's inputs are on the device.
  void *uploaded = nullptr;
  /// Step stream: every reader of the spare set has run.
  void *spareFree = nullptr;
  bool spareFreeRecorded = false;
  /// Step stream: the step in slot k has run and its results were copied.
  void *done[kMaxStepsInFlight] = {};
  size_t rangesOffset;
  size_t slotBytes;
  Buffer slots;
  bool slotsPinned = false;
  uint64_t begun = 0;

  char *slot(int32_t k) { return slots.data.get() + size_t(k) * slotBytes; }
};

/// The training step as CUDA graphs (ModelSteps.cpp, DeviceGraphs.h): one
/// captured per set of buffers the step is called on (results are swapped
/// with the tensors they update, so the sets alternate), after one step run
/// as it is (cuBLASLt's and cuDNN's plans and the pool's blocks are made
/// outside any capture), then replayed.
struct StepGraphs {
  /// At most this many graphs: a plain step's two sets and a pipelined
  /// step's (amp_train_step_begin) two more; the oldest goes first.
  static constexpr size_t kMaxGraphs = 4;

  explicit StepGraphs(const ::amp_device_graph_ops *ops) : ops(ops) {}
  StepGraphs(const StepGraphs &) = delete;
  ~StepGraphs();
  void clear();

  /// Null when graphs are not used (the reason in `disabledReason`).
  const ::amp_device_graph_ops *ops;
  std::string disabledReason;
  bool warmedUp = false;
  /// The entry's argument and result pointers each graph was captured on.
  std::vector<std::pair<std::vector<void *>, void *>> graphs;
  int64_t captured = 0, launched = 0;
};

//===----------------------------------------------------------------------===//
// Data parallelism (ModelDataParallel.cpp, docs/DataParallel.md)
//===----------------------------------------------------------------------===//

/// The data-parallel runtime's hooks, or null in a library without it.
const amp_dp_hooks *dataParallel();
/// Joins the other ranks and starts from rank 0's state, or refuses to run
/// one replica of several without data parallelism.
int32_t startDataParallel(amp_state &state);
/// On a GPU, waits for the step's collectives with a timeout.
int32_t waitForDataParallelStep();
/// Without a loss: reports an error a collective of the step recorded; with
/// one: averages it over the ranks.
int32_t finishDataParallelStep(float *loss);
/// Broadcasts rank 0's buffers (batch-norm statistics) after a step.
int32_t broadcastBuffers(amp_state &state);
/// With AMP_DP_CHECK_REPLICAS, checks that the replicas are identical.
int32_t checkReplicas(amp_state &state);

} // namespace amp::runtime

struct __attribute__((visibility("hidden"))) amp_state {
  using Buffer = amp::runtime::Buffer;
  using DeviceBuffer = amp::runtime::DeviceBuffer;
  using ResultBuffers = amp::runtime::ResultBuffers;
  using BegunStep = amp::runtime::BegunStep;

  /// Where the current contents of a tensor are, on a device target.
  enum class Freshness {
    Same,       // host and device copies agree
    HostNewer,  // written on the host (created, loaded, handed out to write)
    DeviceNewer // updated by a step
  };

  const amp_device_ops *device = nullptr;
  std::vector<Buffer> tensors;
  std::vector<DeviceBuffer> deviceTensors;
  std::vector<Freshness> freshness;
  std::vector<void *> pinned; // page-locked host copies (pinStreamedTensors)
  ResultBuffers stepResults;
  ResultBuffers evalResults;
  /// amp_train_step_begin's steps not finished yet, oldest first.
  std::deque<BegunStep> begun;
  std::unique_ptr<amp::runtime::StepPipeline> pipeline;
  /// The loss scales after the step amp_train_step_finish returned last;
  /// whether one has.
  std::vector<float> finishedScales;
  bool finishedAny = false;
  /// The training step's CUDA graphs; null on the CPU.
  std::unique_ptr<amp::runtime::StepGraphs> stepGraphs;

  /// The model's initial state (seeded where random), or null with the
  /// reason in amp_last_error().
  static amp_state *create(uint64_t seed);
  ~amp_state();

  //===--------------------------------------------------------------------===//
  // Host and device copies (ModelState.cpp)
  //===--------------------------------------------------------------------===//

  int32_t deviceError(const std::string &what);
  /// Allocates device copies of every tensor and of the results; the host
  /// copies are uploaded before the first step.
  int32_t createDeviceBuffers();
  /// Page-locks the host copies of large inputs and labels.
  void pinStreamedTensors();
  /// Unlocks before the host copies are freed (the stream is drained).
  void unpinStreamedTensors();
  /// Makes the host copy of tensor `index` current.
  int32_t syncToHost(int32_t index);
  /// The host copy of tensor `index`, current, for the caller to read and
  /// write: a write reaches the device before the next step.
  void *hostTensorForWriting(int32_t index);
  /// A master weight's low-precision copy (AMP_INIT_COPY_OF): its f32
  /// parameter rounded to nearest even.
  int32_t initializeCopy(int32_t index);
  void markWrittenOnHost(int32_t index);
  /// Uploads what the host wrote before `entry` runs.
  int32_t syncToDevice(const amp_entry_descriptor &entry,
                       bool everyStepUploaded = false);
  /// Reads result `index` of an entry into its host buffer.
  int32_t resultToHost(ResultBuffers &results, int32_t index);

  //===--------------------------------------------------------------------===//
  // Running an entry point (ModelSteps.cpp)
  //===--------------------------------------------------------------------===//

  /// The loss scales' tensors (scaler state named "...scale"), in order.
  static std::vector<int32_t> lossScaleTensors();
  /// The loss scales as the state holds them now.
  int32_t readScales(std::vector<float> &scales);
  /// The tensor of a set "stuck at the minimum scale" flag, or -1.
  int32_t stuckScaler();
  /// Fails naming the first integer label of `entry` outside its classes.
  int32_t checkLabels(const amp_entry_descriptor &entry);
  /// Runs (on a device: queues) the entry point on the current buffers; the
  /// training step from a CUDA graph where it can.
  void callEntry(const amp_entry_descriptor &entry, ResultBuffers &results);
  /// Sets up stepGraphs: AMP_CUDA_GRAPHS (0 or 1, default 1) and whether the
  /// library can (ModelSteps.cpp).
  int32_t prepareStepGraphs();
  /// Makes the entry's results the new contents of the tensors they update.
  void applyUpdates(const amp_entry_descriptor &entry, ResultBuffers &results);
  /// Gives the loss and skipped flag of a step that ran, from host copies of
  /// its results (null where the entry has none).
  int32_t reportStep(const void *lossData, const void *skippedData, float *loss,
                     int32_t *skipped);
  /// Runs the entry point to completion and reports its loss.
  int32_t run(const amp_entry_descriptor &entry, ResultBuffers &results,
              float *loss, int32_t *skipped);

  //===--------------------------------------------------------------------===//
  // Overlapped steps (OverlappedSteps.cpp)
  //===--------------------------------------------------------------------===//

  /// Whether steps can overlap their uploads: a device with a second stream.
  bool canOverlapSteps() const;
  /// Queues a training step on the device behind the upload of its inputs.
  int32_t beginStep(BegunStep &step);
  /// Waits for a step beginStep queued and reports it.
  int32_t finishStep(const BegunStep &step, float *loss, int32_t *skipped);

private:
  void *argumentPointer(int32_t index);
  void *resultPointer(ResultBuffers &results, int32_t index);
  void updateTensor(ResultBuffers &results, int32_t index, int32_t update);
  /// Queues the training step on `pointers` from a graph; false when it
  /// must run as it is.
  bool launchStepGraph(const std::vector<void *> &pointers,
                       const amp_entry_descriptor &entry);
  const void *hostResult(const ResultBuffers &results, int32_t index) const;
  int32_t preparePipeline();
  int32_t uploadNextInputs();
  int32_t queueStepResults(const amp_entry_descriptor &entry, int32_t slot);
  int32_t queueStepReport(const amp_entry_descriptor &entry, int32_t slot);
};

#pragma GCC visibility pop

#endif // AMP_LIB_RUNTIME_MODELSTATE_H
