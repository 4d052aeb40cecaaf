//===- ModelRuntime.cpp - the C ABI of compiled models --------------------===//
//
// Linked into every library amp-compile makes. Owns the state buffers, runs
// the compiled entry points through their packed wrappers, and saves and
// loads checkpoints. Plain C++ with no dependency on LLVM or MLIR.
//
//===----------------------------------------------------------------------===//

#include "amp/Runtime/DataParallel.h"
#include "amp/Runtime/ModelDescriptor.h"
#include "amp/Runtime/NonfiniteABI.h"
#include "amp/Runtime/Numerics.h"
#include "amp/Support/InputFile.h"
#include "amp/Support/OutputFile.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fcntl.h>
#include <memory>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>
#ifdef __linux__
#include <sys/sysinfo.h>
#endif

// Defined only in libraries built with --data-parallel (amp_dp_runtime).
extern "C" __attribute__((weak)) const amp_dp_hooks *amp_dp_hooks_get(void);
// Defined by the glue of libraries whose graphs read through indices.
extern "C" __attribute__((weak)) const char *amp_index_sites(int32_t entry);
// Defined only in GPU libraries (CUDACollectives.cpp).
extern "C" __attribute__((weak)) int32_t
amp_gpu_dp_synchronize(const char **error);

namespace {
thread_local std::string lastError;

int32_t fail(std::string message) {
  lastError = std::move(message);
  return 1;
}

const amp_model_descriptor &model() { return *amp_model_descriptor_get(); }

using amp::Random;
using amp::storeValue;

/// The byte size of a tensor whose size amp_state_create checked.
size_t byteSize(const amp_tensor_info &info) {
  size_t bytes = 0;
  amp::tensorBytes(info, bytes);
  return bytes;
}

bool isCheckpointed(const amp_tensor_info &info) {
  return info.role != AMP_ROLE_INPUT && info.role != AMP_ROLE_LABEL;
}

/// A zeroed, 64-byte aligned buffer; `data` is null when the allocation
/// failed.
struct Buffer {
  explicit Buffer(size_t bytes) : data(nullptr, &std::free), size(bytes) {
    if (bytes > SIZE_MAX - 63)
      return;
    data.reset(static_cast<char *>(
        std::aligned_alloc(64, std::max<size_t>(64, (bytes + 63) / 64 * 64))));
    if (data)
      std::memset(data.get(), 0, bytes);
  }
  std::unique_ptr<char, void (*)(void *)> data;
  size_t size;
};

int32_t outOfMemory(const std::string &what, size_t bytes) {
  return fail("cannot allocate " + std::to_string(bytes) + " bytes for " +
              what + ": out of memory");
}

void initialize(const amp_tensor_info &info, void *data, Random &random) {
  switch (info.init) {
  case AMP_INIT_ZEROS:
    return; // buffers start zeroed
  case AMP_INIT_VALUES:
    std::memcpy(data, info.init_values, byteSize(info));
    return;
  case AMP_INIT_ONES:
  case AMP_INIT_CONSTANT: {
    double value = info.init == AMP_INIT_ONES ? 1.0 : info.init_constant;
    for (int64_t i = 0; i < info.num_elements; ++i)
      storeValue(data, info.dtype, i, value);
    return;
  }
  case AMP_INIT_COPY_OF:
    return; // once every tensor is initialised (initializeCopies)
  case AMP_INIT_UNIFORM_FAN_IN: {
    double bound =
        1.0 / std::sqrt(static_cast<double>(std::max<int64_t>(1, info.fan_in)));
    for (int64_t i = 0; i < info.num_elements; ++i)
      storeValue(data, info.dtype, i, (2 * random.uniform() - 1) * bound);
    return;
  }
  }
}

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

/// Where the current contents of a tensor are, on a device target.
enum class Freshness {
  Same,       // host and device copies agree
  HostNewer,  // written on the host (created, loaded, handed out to write)
  DeviceNewer // updated by a step
};
} // namespace

namespace {
int32_t waitForDataParallelStep();
int32_t finishDataParallelStep(float *loss);

/// Whether the entry writes result `index` into the buffer of the tensor it
/// updates (it has no buffer of its own).
bool isInPlace(const amp_entry_descriptor &entry, int32_t index) {
  return entry.result_in_place && entry.result_in_place[index];
}

/// The entry's index-range result (amp-check-indices), or -1.
int32_t indexRangesResult(const amp_entry_descriptor &entry) {
  for (int32_t i = 0; i < entry.num_results; ++i)
    if (std::strcmp(entry.results[i].name, AMP_INDEX_RANGES_NAME) == 0)
      return i;
  return -1;
}

/// Line `row` of the entry's site table ("kind<TAB>location"), or "".
std::string indexSite(const amp_entry_descriptor &entry, int64_t row) {
  const char *table = amp_index_sites
                          ? amp_index_sites(&entry == &model().eval ? 1 : 0)
                          : nullptr;
  for (; table && *table && row > 0; --row) {
    table = std::strchr(table, '\n');
    table = table ? table + 1 : nullptr;
  }
  if (!table || !*table)
    return "";
  return std::string(table, std::strcspn(table, "\n"));
}

/// Fails naming the first op whose indices left their range, from the
/// entry's index-range result (AMP_INDEX_COLUMNS i64 per site); a training
/// step that fails this way skipped its updates on the device.
int32_t checkIndexRanges(const amp_entry_descriptor &entry,
                         const void *ranges) {
  int32_t result = indexRangesResult(entry);
  if (result < 0 || !ranges)
    return 0;
  int64_t sites = entry.results[result].num_elements / AMP_INDEX_COLUMNS;
  for (int64_t k = 0; k < sites; ++k) {
    int64_t row[AMP_INDEX_COLUMNS];
    std::memcpy(row,
                static_cast<const char *>(ranges) +
                    k * AMP_INDEX_COLUMNS * sizeof(int64_t),
                sizeof(row));
    int64_t lower = row[AMP_INDEX_LOWER], upper = row[AMP_INDEX_UPPER];
    int64_t bad = row[AMP_INDEX_MIN] < lower    ? row[AMP_INDEX_MIN]
                  : row[AMP_INDEX_MAX] >= upper ? row[AMP_INDEX_MAX]
                                                : lower;
    if (bad >= lower && bad < upper)
      continue;
    std::string site = indexSite(entry, k);
    size_t tab = site.find('\t');
    std::string where =
        tab == std::string::npos
            ? "index check " + std::to_string(k)
            : site.substr(0, tab) + " at " + site.substr(tab + 1);
    return fail(
        "index " + std::to_string(bad) + " out of range [" +
        std::to_string(lower) + ", " + std::to_string(upper) + ") in " + where +
        (&entry == &model().train_step ? "; the step's updates were skipped"
                                       : ""));
  }
  return 0;
}

/// What the host uploads before every step: callers write inputs, labels
/// and hyper-parameters in place through pointers they keep.
bool isUploadedEveryStep(const amp_tensor_info &info) {
  return info.role == AMP_ROLE_INPUT || info.role == AMP_ROLE_LABEL ||
         info.role == AMP_ROLE_HYPERPARAMETER;
}

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
/// amp_train_step_begin: a second set of input and label buffers (the next
/// step's upload fills one set while the running step reads the other),
/// events ordering the two streams, and page-locked slots that receive each
/// begun step's loss and skipped flag.
struct StepPipeline {
  /// The host slot of one begun step: the loss, the skipped flag, then the
  /// loss scales (4 bytes each, from kScalesOffset), then the index ranges
  /// (from rangesOffset).
  static constexpr size_t kFieldBytes = 32, kScalesOffset = 64;

  StepPipeline(const amp_device_ops *device, size_t numScales,
               size_t rangesBytes)
      : device(device),
        rangesOffset((kScalesOffset + 4 * numScales + 7) / 8 * 8),
        slotBytes((rangesOffset + rangesBytes + 63) / 64 * 64),
        slots(kMaxStepsInFlight * slotBytes) {}
  StepPipeline(const StepPipeline &) = delete;
  ~StepPipeline() {
    device->synchronize();
    for (void *event : {uploaded, spareFree, done[0], done[1]})
      if (event)
        device->event_destroy(event);
    if (slotsPinned)
      device->unpin_host(slots.data.get());
  }

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
} // namespace

struct amp_state {
  const amp_device_ops *device = nullptr;
  std::vector<Buffer> tensors;
  std::vector<DeviceBuffer> deviceTensors;
  std::vector<Freshness> freshness;
  std::vector<void *> pinned; // page-locked host copies (pinStreamedTensors)
  ResultBuffers stepResults;
  ResultBuffers evalResults;
  /// amp_train_step_begin's steps not finished yet, oldest first.
  std::deque<BegunStep> begun;
  std::unique_ptr<StepPipeline> pipeline;
  /// The loss scales after the step amp_train_step_finish returned last;
  /// whether one has.
  std::vector<float> finishedScales;
  bool finishedAny = false;

  ~amp_state() {
    pipeline.reset(); // drains the streams before anything is freed
    if (device)
      unpinStreamedTensors();
  }

  int32_t deviceError(const std::string &what) {
    return fail(what + ": " + device->last_error());
  }

  /// Allocates device copies of every tensor and of the results; the host
  /// copies are uploaded before the first step.
  int32_t createDeviceBuffers() {
    if (device->init() != 0)
      return deviceError("cannot use the GPU");
    for (const Buffer &tensor : tensors) {
      deviceTensors.emplace_back(device, tensor.size);
      if (!deviceTensors.back().data)
        return deviceError("cannot allocate " + std::to_string(tensor.size) +
                           " bytes for tensor '" +
                           model().tensors[deviceTensors.size() - 1].name +
                           "' on the GPU");
    }
    freshness.assign(tensors.size(), Freshness::HostNewer);
    pinStreamedTensors();
    for (ResultBuffers *results : {&stepResults, &evalResults})
      for (const Buffer &result : results->host) {
        if (result.size == 0) { // written in place (allocateResults)
          results->device.emplace_back(device);
          continue;
        }
        results->device.emplace_back(device, result.size);
        if (!results->device.back().data)
          return deviceError("cannot allocate " + std::to_string(result.size) +
                             " bytes for step results on the GPU");
      }
    return 0;
  }

  /// Inputs and labels are uploaded before every step: their host copies of
  /// 1 MiB or more are page-locked, so the copy runs at the link's speed
  /// (pageable memory is staged by the driver at a fraction of it). Where
  /// the lock is refused they stay pageable.
  void pinStreamedTensors() {
    if (!device->pin_host)
      return;
    for (size_t i = 0; i < tensors.size(); ++i) {
      int32_t role = model().tensors[i].role;
      if ((role == AMP_ROLE_INPUT || role == AMP_ROLE_LABEL) &&
          tensors[i].size >= (size_t(1) << 20) &&
          device->pin_host(tensors[i].data.get(), tensors[i].size) == 0)
        pinned.push_back(tensors[i].data.get());
    }
  }

  /// Unlocks before the host copies are freed (the stream is drained).
  void unpinStreamedTensors() {
    if (pinned.empty())
      return;
    device->synchronize();
    for (void *host : pinned)
      device->unpin_host(host);
    pinned.clear();
  }

  /// Makes the host copy of tensor `index` current.
  int32_t syncToHost(int32_t index) {
    if (!device || freshness[index] != Freshness::DeviceNewer)
      return 0;
    if (device->copy_to_host(tensors[index].data.get(),
                             deviceTensors[index].data, tensors[index].size))
      return deviceError(std::string("cannot read '") +
                         model().tensors[index].name + "' from the GPU");
    freshness[index] = Freshness::Same;
    return 0;
  }

  /// The host copy of tensor `index`, current, for the caller to read and
  /// write: a write reaches the device before the next step.
  void *hostTensorForWriting(int32_t index) {
    if (syncToHost(index))
      return nullptr;
    markWrittenOnHost(index);
    return tensors[index].data.get();
  }

  /// A master weight's low-precision copy (AMP_INIT_COPY_OF): its f32
  /// parameter rounded to nearest even.
  int32_t initializeCopy(int32_t index) {
    const amp_tensor_info &info = model().tensors[index];
    int32_t source = info.copy_of;
    if (syncToHost(source) != 0)
      return 1;
    const float *master =
        reinterpret_cast<const float *>(tensors[source].data.get());
    for (int64_t i = 0; i < info.num_elements; ++i)
      storeValue(tensors[index].data.get(), info.dtype, i, master[i]);
    markWrittenOnHost(index);
    return 0;
  }

  void markWrittenOnHost(int32_t index) {
    if (device)
      freshness[index] = Freshness::HostNewer;
  }

  /// Uploads what the host wrote: inputs, labels and hyper-parameters every
  /// time (callers fill them in place through a pointer they keep), state
  /// tensors when written since the last upload.
  /// With `everyStepUploaded`, what isUploadedEveryStep is already there
  /// (uploadNextInputs).
  int32_t syncToDevice(const amp_entry_descriptor &entry,
                       bool everyStepUploaded = false) {
    for (int32_t i = 0; i < entry.num_args; ++i) {
      int32_t index = entry.args[i];
      bool alwaysFromHost = isUploadedEveryStep(model().tensors[index]);
      if ((!alwaysFromHost && freshness[index] != Freshness::HostNewer) ||
          (everyStepUploaded && alwaysFromHost))
        continue;
      if (device->copy_to_device(deviceTensors[index].data,
                                 tensors[index].data.get(),
                                 tensors[index].size))
        return deviceError(std::string("cannot copy '") +
                           model().tensors[index].name + "' to the GPU");
      if (!alwaysFromHost)
        freshness[index] = Freshness::Same;
    }
    return 0;
  }

  /// Reads result `index` of an entry (the loss, the skipped flag) into its
  /// host buffer.
  int32_t resultToHost(ResultBuffers &results, int32_t index) {
    if (!device || index < 0)
      return 0;
    if (device->copy_to_host(results.host[index].data.get(),
                             results.device[index].data,
                             results.host[index].size))
      return deviceError("the GPU step failed");
    return 0;
  }

  /// The scaler's sticky "stuck at the minimum scale" flag, if one is set
  /// (amp-loss-scaling with error-at-min); -1 otherwise.
  /// The loss scales' tensors (scaler state named "...scale"), in order.
  static std::vector<int32_t> lossScaleTensors() {
    std::vector<int32_t> indices;
    for (int32_t i = 0; i < model().num_tensors; ++i)
      if (amp::isLossScale(model().tensors[i]))
        indices.push_back(i);
    return indices;
  }

  /// The loss scales as the state holds them now.
  int32_t readScales(std::vector<float> &scales) {
    for (int32_t index : lossScaleTensors()) {
      if (syncToHost(index))
        return 1;
      float scale;
      std::memcpy(&scale, tensors[index].data.get(), sizeof(float));
      scales.push_back(scale);
    }
    return 0;
  }

  int32_t stuckScaler() {
    for (int32_t i = 0; i < model().num_tensors; ++i) {
      const amp_tensor_info &info = model().tensors[i];
      size_t length = std::strlen(info.name);
      if (info.role == AMP_ROLE_SCALER_STATE && info.dtype == AMP_DTYPE_I1 &&
          length >= 12 &&
          std::strcmp(info.name + length - 12, "stuck_at_min") == 0 &&
          syncToHost(i) == 0 &&
          *reinterpret_cast<const uint8_t *>(tensors[i].data.get()) != 0)
        return i;
    }
    return -1;
  }

  void *argumentPointer(int32_t index) {
    return device ? deviceTensors[index].data : tensors[index].data.get();
  }

  void *resultPointer(ResultBuffers &results, int32_t index) {
    return device ? results.device[index].data : results.host[index].data.get();
  }

  /// Makes result `index` the new contents of tensor `update`: a copy on
  /// the host, a swap of buffers on the device.
  void updateTensor(ResultBuffers &results, int32_t index, int32_t update) {
    if (!device) {
      std::memcpy(tensors[update].data.get(), results.host[index].data.get(),
                  results.host[index].size);
      return;
    }
    std::swap(deviceTensors[update].data, results.device[index].data);
    freshness[update] = Freshness::DeviceNewer;
  }

  /// Fails naming the first integer label of `entry` outside its classes:
  /// cross-entropy would read past the logits' row.
  int32_t checkLabels(const amp_entry_descriptor &entry) {
    for (int32_t i = 0; i < entry.num_args; ++i) {
      const amp_tensor_info &info = model().tensors[entry.args[i]];
      const void *data = tensors[entry.args[i]].data.get();
      int64_t bad = amp::firstLabelOutOfRange(info, data);
      if (bad >= 0)
        return fail(std::string("label '") + info.name + "' element " +
                    std::to_string(bad) + " is " +
                    std::to_string(amp::loadInteger(data, info.dtype, bad)) +
                    ", outside the classes [0, " +
                    std::to_string(info.label_range) + ")");
    }
    return 0;
  }

  /// Runs (on a device: queues) the entry point on the current buffers.
  void callEntry(const amp_entry_descriptor &entry, ResultBuffers &results) {
    std::vector<void *> pointers;
    for (int32_t i = 0; i < entry.num_args; ++i)
      pointers.push_back(argumentPointer(entry.args[i]));
    for (int32_t i = 0; i < entry.num_results; ++i)
      pointers.push_back(resultPointer(results, i));
    entry.entry(pointers.data());
  }

  void applyUpdates(const amp_entry_descriptor &entry, ResultBuffers &results) {
    for (int32_t i = 0; i < entry.num_results; ++i) {
      int32_t update = entry.result_updates[i];
      if (update < 0)
        continue;
      if (!isInPlace(entry, i))
        updateTensor(results, i, update);
      else if (device) // the step wrote the tensor's own device buffer
        freshness[update] = Freshness::DeviceNewer;
    }
  }

  /// The loss and skipped flag of a step that ran, from host copies of its
  /// results (null where the entry has none); fails after the step if the
  /// scaler is stuck.
  int32_t reportStep(const void *lossData, const void *skippedData, float *loss,
                     int32_t *skipped) {
    if (loss && lossData)
      std::memcpy(loss, lossData, sizeof(float));
    if (skipped)
      *skipped =
          skippedData ? *static_cast<const uint8_t *>(skippedData) != 0 : 0;
    // The step ran and its results are in place; the error tells the caller
    // that training cannot go on usefully.
    if (int32_t stuck = stuckScaler(); stuck >= 0)
      return fail(std::string("loss scale '") + model().tensors[stuck].name +
                  "' is stuck at its minimum: a gradient overflowed at "
                  "min-scale (error-at-min)");
    return 0;
  }

  const void *hostResult(const ResultBuffers &results, int32_t index) const {
    return index >= 0 ? results.host[index].data.get() : nullptr;
  }

  int32_t run(const amp_entry_descriptor &entry, ResultBuffers &results,
              float *loss, int32_t *skipped) {
    if (checkLabels(entry) || (device && syncToDevice(entry)))
      return 1;
    callEntry(entry, results);
    if (int32_t status = waitForDataParallelStep())
      return status;
    if (int32_t status = finishDataParallelStep(nullptr)) {
      if (device) // the caller may write page-locked inputs being copied
        device->synchronize();
      return status;
    }
    applyUpdates(entry, results);
    int32_t ranges = indexRangesResult(entry);
    if (resultToHost(results, entry.loss_result) ||
        resultToHost(results, entry.skipped_result) ||
        resultToHost(results, ranges))
      return 1;
    if (device && device->synchronize() != 0)
      return deviceError("the GPU step failed");
    const void *lossData = hostResult(results, entry.loss_result);
    float averaged = 0;
    if (loss && lossData) {
      std::memcpy(&averaged, lossData, sizeof(float));
      if (finishDataParallelStep(&averaged))
        return 1;
      lossData = &averaged;
    }
    if (checkIndexRanges(entry, hostResult(results, ranges)))
      return 1;
    return reportStep(lossData, hostResult(results, entry.skipped_result), loss,
                      skipped);
  }

  //===--------------------------------------------------------------------===//
  // Overlapped steps (amp_train_step_begin)
  //===--------------------------------------------------------------------===//

  /// Whether steps can overlap their uploads: a device with a second stream.
  bool canOverlapSteps() const {
    return device && device->event_create && device->copy_async &&
           device->stream_wait_event && device->event_synchronize;
  }

  int32_t preparePipeline() {
    if (pipeline)
      return 0;
    const amp_entry_descriptor &entry = model().train_step;
    int32_t ranges = indexRangesResult(entry);
    auto p = std::make_unique<StepPipeline>(
        device, lossScaleTensors().size(),
        ranges >= 0 ? stepResults.host[ranges].size : 0);
    for (int32_t i = 0; i < entry.num_args; ++i) {
      int32_t index = entry.args[i];
      // Hyper-parameters too: a copy from pageable memory on the step
      // stream may wait for the step before.
      if (!isUploadedEveryStep(model().tensors[index]))
        continue;
      p->spare.emplace_back(index, DeviceBuffer(device, tensors[index].size));
      if (!p->spare.back().second.data)
        return deviceError("cannot allocate a second buffer for '" +
                           std::string(model().tensors[index].name) +
                           "' on the GPU (asynchronous steps)");
    }
    for (void **event : {&p->uploaded, &p->spareFree, &p->done[0], &p->done[1]})
      if (!(*event = device->event_create()))
        return deviceError("cannot create a GPU event");
    if (!p->slots.data)
      return fail("out of memory for the step results' slots");
    // A pageable slot still works: its copy then waits for the step.
    p->slotsPinned = device->pin_host &&
                     device->pin_host(p->slots.data.get(), p->slots.size) == 0;
    pipeline = std::move(p);
    return 0;
  }

  /// Uploads inputs, labels and hyper-parameters into the spare set on the
  /// upload stream once every reader of that set has run, and makes it the
  /// current set; returns when the host copies may be written again.
  int32_t uploadNextInputs() {
    StepPipeline &p = *pipeline;
    if (p.spareFreeRecorded &&
        device->stream_wait_event(AMP_DEVICE_UPLOAD_STREAM, p.spareFree))
      return deviceError("cannot order the upload after the step before");
    for (auto &[index, buffer] : p.spare)
      if (device->copy_async(buffer.data, tensors[index].data.get(),
                             tensors[index].size, 1, AMP_DEVICE_UPLOAD_STREAM))
        return deviceError(std::string("cannot copy '") +
                           model().tensors[index].name + "' to the GPU");
    if (device->event_record(p.uploaded, AMP_DEVICE_UPLOAD_STREAM) ||
        device->event_synchronize(p.uploaded) ||
        device->stream_wait_event(AMP_DEVICE_STEP_STREAM, p.uploaded))
      return deviceError("cannot upload the step's inputs");
    for (auto &[index, buffer] : p.spare)
      std::swap(deviceTensors[index].data, buffer.data);
    // What the step stream holds so far read the set that is now spare.
    if (device->event_record(p.spareFree, AMP_DEVICE_STEP_STREAM))
      return deviceError("cannot record a GPU event");
    p.spareFreeRecorded = true;
    return 0;
  }

  /// Queues copies of the step's loss and skipped flag into its slot, and
  /// the slot's event after them.
  int32_t queueStepReport(const amp_entry_descriptor &entry, int32_t slot) {
    StepPipeline &p = *pipeline;
    int32_t fields[2] = {entry.loss_result, entry.skipped_result};
    for (int32_t f = 0; f < 2; ++f) {
      int32_t index = fields[f];
      if (index < 0)
        continue;
      if (stepResults.host[index].size > StepPipeline::kFieldBytes)
        return fail("a step's loss or skipped flag is larger than " +
                    std::to_string(StepPipeline::kFieldBytes) + " bytes");
      if (device->copy_async(p.slot(slot) + f * StepPipeline::kFieldBytes,
                             stepResults.device[index].data,
                             stepResults.host[index].size, 0,
                             AMP_DEVICE_STEP_STREAM))
        return deviceError("cannot read the step's loss from the GPU");
    }
    // The step's new loss scales: the state's buffers hold them once its
    // updates are applied (applyUpdates swapped them in).
    std::vector<int32_t> scales = lossScaleTensors();
    for (size_t k = 0; k < scales.size(); ++k)
      if (device->copy_async(p.slot(slot) + StepPipeline::kScalesOffset + 4 * k,
                             deviceTensors[scales[k]].data, sizeof(float), 0,
                             AMP_DEVICE_STEP_STREAM))
        return deviceError("cannot read the step's loss scale from the GPU");
    if (int32_t ranges = indexRangesResult(entry);
        ranges >= 0 && device->copy_async(p.slot(slot) + p.rangesOffset,
                                          stepResults.device[ranges].data,
                                          stepResults.host[ranges].size, 0,
                                          AMP_DEVICE_STEP_STREAM))
      return deviceError("cannot read the step's index ranges from the GPU");
    if (device->event_record(p.done[slot], AMP_DEVICE_STEP_STREAM))
      return deviceError("cannot record a GPU event");
    return 0;
  }

  int32_t beginStep(BegunStep &step) {
    const amp_entry_descriptor &entry = model().train_step;
    if (checkLabels(entry) || preparePipeline() || uploadNextInputs() ||
        syncToDevice(entry, /*everyStepUploaded=*/true))
      return 1;
    callEntry(entry, stepResults);
    applyUpdates(entry, stepResults);
    step.queued = true;
    step.slot = int32_t(pipeline->begun++ % kMaxStepsInFlight);
    return queueStepReport(entry, step.slot);
  }

  int32_t finishStep(const BegunStep &step, float *loss, int32_t *skipped) {
    const amp_entry_descriptor &entry = model().train_step;
    if (device->event_synchronize(pipeline->done[step.slot]))
      return deviceError("the GPU step failed");
    const char *slot = pipeline->slot(step.slot);
    finishedScales.resize(lossScaleTensors().size());
    if (!finishedScales.empty()) // memcpy takes no null pointer, even for 0
      std::memcpy(finishedScales.data(), slot + StepPipeline::kScalesOffset,
                  finishedScales.size() * sizeof(float));
    if (checkIndexRanges(entry, slot + pipeline->rangesOffset))
      return 1;
    return reportStep(
        entry.loss_result >= 0 ? slot : nullptr,
        entry.skipped_result >= 0 ? slot + StepPipeline::kFieldBytes : nullptr,
        loss, skipped);
  }
};

namespace {
/// Host out-buffers of one entry point; fails naming the result whose buffer
/// cannot be allocated. A result written in place gets an empty one.
int32_t allocateResults(const amp_entry_descriptor &entry,
                        ResultBuffers &results) {
  for (int32_t i = 0; i < entry.num_results; ++i) {
    results.host.emplace_back(isInPlace(entry, i) ? 0
                                                  : byteSize(entry.results[i]));
    if (!results.host.back().data)
      return outOfMemory(std::string("result '") + entry.results[i].name + "'",
                         results.host.back().size);
  }
  return 0;
}

int32_t findTensor(const char *name) {
  for (int32_t i = 0; i < model().num_tensors; ++i)
    if (std::strcmp(model().tensors[i].name, name) == 0)
      return i;
  return -1;
}

std::string shapeString(int32_t rank, const int64_t *shape) {
  std::string text;
  for (int32_t d = 0; d < rank; ++d)
    text += (d ? "x" : "") + std::to_string(shape[d]);
  return rank ? text : "scalar";
}

/// The bytes of RAM and swap of this machine, or 0 when unknown.
uint64_t machineMemory() {
#ifdef __linux__
  struct sysinfo info;
  if (::sysinfo(&info) == 0)
    return (static_cast<uint64_t>(info.totalram) + info.totalswap) *
           info.mem_unit;
#endif
  return 0;
}

/// Adds the bytes of `info` to `total`; fails naming the tensor when its size
/// cannot be represented.
int32_t addBytes(const amp_tensor_info &info, const char *what, uint64_t &total,
                 uint64_t &largest, std::string &largestName) {
  size_t bytes = 0;
  if (!amp::tensorBytes(info, bytes) ||
      __builtin_add_overflow(total, bytes, &total))
    return fail(std::string(what) + " '" + info.name + "' of shape " +
                shapeString(info.rank, info.shape) +
                " has more bytes than an address space holds");
  if (bytes > largest) {
    largest = bytes;
    largestName = info.name;
  }
  return 0;
}

/// Checks, before allocating anything, that the host buffers of the state
/// (every tensor and the results of both entry points) fit in this
/// machine's memory: touching more would end in the OOM killer.
int32_t checkStateFits() {
  uint64_t total = 0, largest = 0;
  std::string largestName;
  for (int32_t i = 0; i < model().num_tensors; ++i)
    if (addBytes(model().tensors[i], "tensor", total, largest, largestName))
      return 1;
  auto addResults = [&](const amp_entry_descriptor &entry) {
    for (int32_t i = 0; i < entry.num_results; ++i)
      if (!isInPlace(entry, i) &&
          addBytes(entry.results[i], "result", total, largest, largestName))
        return 1;
    return 0;
  };
  if (addResults(model().train_step) ||
      (model().has_eval && addResults(model().eval)))
    return 1;
  uint64_t memory = machineMemory();
  if (memory && total > memory)
    return fail("the model state needs " + std::to_string(total) + " bytes ('" +
                largestName + "' alone needs " + std::to_string(largest) +
                ") but this machine has " + std::to_string(memory) +
                " bytes of memory");
  return 0;
}

//===----------------------------------------------------------------------===//
// Checkpoints (docs/Driver.md, "Checkpoints")
//===----------------------------------------------------------------------===//

constexpr char kCheckpointMagic[8] = {'A', 'M', 'P', 'S', 'T', 'A', 'T', 'E'};
/// Version 2 is version 1 followed by the CRC-32 of everything before it;
/// both are read.
constexpr uint32_t kCheckpointVersion = 2;
constexpr uint32_t kMaxNameLength = 4096;
constexpr int32_t kMaxRank = 16;

/// CRC-32 as zlib computes it (reflected polynomial 0xEDB88320), eight bytes
/// at a time: a checkpoint of gigabytes is checked at memory speed.
struct Crc32Tables {
  uint32_t table[8][256];
};

constexpr Crc32Tables makeCrc32Tables() {
  Crc32Tables tables{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t crc = i;
    for (int bit = 0; bit < 8; ++bit)
      crc = crc & 1 ? 0xEDB88320u ^ (crc >> 1) : crc >> 1;
    tables.table[0][i] = crc;
  }
  for (int k = 1; k < 8; ++k)
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t previous = tables.table[k - 1][i];
      tables.table[k][i] = (previous >> 8) ^ tables.table[0][previous & 0xff];
    }
  return tables;
}

constexpr Crc32Tables kCrc32 = makeCrc32Tables();

/// The CRC-32 of `size` bytes following those whose CRC-32 is `crc`.
uint32_t crc32(uint32_t crc, const void *data, size_t size) {
  const auto &t = kCrc32.table;
  const unsigned char *bytes = static_cast<const unsigned char *>(data);
  crc = ~crc;
  for (; size >= 8; size -= 8, bytes += 8) {
    uint32_t low, high;
    std::memcpy(&low, bytes, 4);
    std::memcpy(&high, bytes + 4, 4);
    low ^= crc;
    crc = t[7][low & 0xff] ^ t[6][(low >> 8) & 0xff] ^
          t[5][(low >> 16) & 0xff] ^ t[4][low >> 24] ^ t[3][high & 0xff] ^
          t[2][(high >> 8) & 0xff] ^ t[1][(high >> 16) & 0xff] ^
          t[0][high >> 24];
  }
  for (; size; --size, ++bytes)
    crc = t[0][(crc ^ *bytes) & 0xff] ^ (crc >> 8);
  return ~crc;
}

std::string cannotWrite(const std::string &path, int error) {
  return "cannot write '" + path + "': " + std::strerror(error);
}

/// Writes a checkpoint's fields, keeping the CRC-32 of what it wrote and
/// the errno of the first failure.
struct CheckpointWriter {
  FILE *file;
  uint32_t crc = 0;
  int error = 0;

  void bytes(const void *data, size_t size) {
    errno = 0;
    if (error || size == 0)
      return;
    if (std::fwrite(data, 1, size, file) != size) {
      error = errno ? errno : EIO;
      return;
    }
    crc = crc32(crc, data, size);
  }
  template <typename T> void value(const T &value) { bytes(&value, sizeof(T)); }
};

void writeCheckpoint(const amp_state &state, CheckpointWriter &writer) {
  uint32_t count = 0;
  for (int32_t i = 0; i < model().num_tensors; ++i)
    count += isCheckpointed(model().tensors[i]);
  writer.bytes(kCheckpointMagic, 8);
  writer.value(kCheckpointVersion);
  writer.value(count);
  for (int32_t i = 0; i < model().num_tensors; ++i) {
    const amp_tensor_info &info = model().tensors[i];
    if (!isCheckpointed(info))
      continue;
    uint32_t nameLength = std::strlen(info.name);
    uint64_t bytes = byteSize(info);
    writer.value(nameLength);
    writer.bytes(info.name, nameLength);
    writer.value(info.dtype);
    writer.value(info.rank);
    writer.bytes(info.shape, sizeof(int64_t) * info.rank);
    writer.value(bytes);
    writer.bytes(state.tensors[i].data.get(), bytes);
  }
  uint32_t crc = writer.crc;
  writer.value(crc);
}

/// Flushes and closes `file`, first making a regular file durable (a
/// checkpoint renamed over the last one must not be empty after a crash);
/// returns the errno of the first failure, or 0.
int closeDurably(FILE *file, bool durable) {
  int error = std::fflush(file) != 0 ? errno : 0;
  if (!error && durable && ::fsync(::fileno(file)) != 0)
    error = errno;
  if (std::fclose(file) != 0 && !error)
    error = errno;
  return error;
}

/// Memory from malloc, freed with free.
using MallocBytes = std::unique_ptr<char, void (*)(void *)>;

/// The whole contents of the regular file `path` (amp::InputFile: a
/// device, a FIFO or a directory is refused unread), refused unread when it
/// is far larger than the `limit` bytes a checkpoint can have; false with
/// the reason in `error`.
bool readWholeFile(const char *path, uint64_t limit, MallocBytes &contents,
                   size_t &size, std::string &error) {
  amp::InputFile file;
  if (!file.open(path, error))
    return false;
  // A few bytes too many are read, for the parser's exact message.
  constexpr uint64_t kSlack = 1 << 20;
  if (file.size() > limit + kSlack) {
    error = "it has " + std::to_string(file.size()) +
            " bytes, far more than the " + std::to_string(limit) +
            " a checkpoint of this model can have";
    return false;
  }
  size = static_cast<size_t>(file.size());
  // One byte more: malloc(0) may return null.
  contents.reset(static_cast<char *>(std::malloc(size + 1)));
  if (!contents) {
    error = "not enough memory to read it";
    return false;
  }
  return file.read(contents.get(), error);
}

/// The most bytes a checkpoint of this model can have.
uint64_t maxCheckpointSize() {
  uint64_t size = 8 + 4 + 4 + 4;
  for (int32_t i = 0; i < model().num_tensors; ++i) {
    const amp_tensor_info &info = model().tensors[i];
    size +=
        4 + std::strlen(info.name) + 4 + 4 + 8 * info.rank + 8 + byteSize(info);
  }
  return size;
}

/// One tensor record of a checkpoint, pointing into the file's bytes.
struct CheckpointTensor {
  std::string name;
  int32_t dtype = 0, rank = 0;
  std::vector<int64_t> shape;
  uint64_t bytes = 0;
  const char *data = nullptr;
};

/// Reads the records of a checkpoint held in memory and checks that they
/// are well formed and intact, without looking at the model. Every problem
/// is an error naming the file: a truncation at any offset, a bit flip
/// anywhere (version 2 carries a CRC-32), trailing bytes.
class CheckpointParser {
public:
  CheckpointParser(const std::string &path, const char *data, size_t size)
      : path(path), data(data), size(size) {}

  bool parse(std::vector<CheckpointTensor> &tensors) {
    if (size < 8 || std::memcmp(data, kCheckpointMagic, 8) != 0) {
      if (size < 8 && std::memcmp(data, kCheckpointMagic, size) == 0)
        return truncated("its header");
      return error("is not an amp checkpoint");
    }
    offset = 8;
    uint32_t version = 0, count = 0;
    if (!read(version))
      return truncated("its version");
    if (version != 1 && version != 2)
      return error("has checkpoint version " + std::to_string(version) +
                   "; this runtime reads versions 1 and 2");
    if (!read(count))
      return truncated("its tensor count");
    for (uint32_t k = 0; k < count; ++k) {
      tensors.emplace_back();
      if (!parseTensor(k, tensors.back()))
        return false;
    }
    size_t end = offset;
    uint32_t stored = 0;
    if (version == 2 && !read(stored))
      return truncated("its checksum");
    if (offset != size)
      return error("is corrupt: " + std::to_string(size - offset) +
                   " bytes follow its last tensor");
    if (version == 2 && crc32(0, data, end) != stored)
      return error("is corrupt: its contents do not match their checksum");
    return true;
  }

private:
  bool error(const std::string &reason) {
    fail("'" + path + "' " + reason);
    return false;
  }
  bool truncated(const std::string &what) {
    return error("is truncated (or corrupt): " + what + " would end past " +
                 "the end of the file, at byte " + std::to_string(size));
  }
  bool bytes(size_t count, const char *&at) {
    if (size - offset < count)
      return false;
    at = data + offset;
    offset += count;
    return true;
  }
  template <typename T> bool read(T &value) {
    const char *at = nullptr;
    if (!bytes(sizeof(T), at))
      return false;
    std::memcpy(&value, at, sizeof(T));
    return true;
  }

  bool parseTensor(uint32_t k, CheckpointTensor &tensor) {
    std::string which = "tensor #" + std::to_string(k);
    uint32_t nameLength = 0;
    const char *name = nullptr;
    if (!read(nameLength))
      return truncated(which);
    if (nameLength > kMaxNameLength)
      return error("is corrupt: " + which + " has a name of " +
                   std::to_string(nameLength) + " bytes");
    if (!bytes(nameLength, name))
      return truncated(which);
    tensor.name.assign(name, nameLength);
    which += " ('" + tensor.name + "')";
    if (!read(tensor.dtype) || !read(tensor.rank))
      return truncated(which);
    if (tensor.dtype < AMP_DTYPE_F32 || tensor.dtype > AMP_DTYPE_I1 ||
        tensor.rank < 0 || tensor.rank > kMaxRank)
      return error("is corrupt: " + which + " has dtype " +
                   std::to_string(tensor.dtype) + " and rank " +
                   std::to_string(tensor.rank));
    tensor.shape.resize(tensor.rank);
    uint64_t elements = 1;
    for (int64_t &dim : tensor.shape)
      if (!read(dim))
        return truncated(which);
      else if (dim < 0 || __builtin_mul_overflow(
                              elements, static_cast<uint64_t>(dim), &elements))
        return error("is corrupt: " + which + " has shape " +
                     shapeString(tensor.rank, tensor.shape.data()));
    uint64_t expected = 0;
    if (!read(tensor.bytes))
      return truncated(which);
    if (__builtin_mul_overflow(elements, amp::elementBytes(tensor.dtype),
                               &expected) ||
        tensor.bytes != expected)
      return error("is corrupt: " + which + " has " +
                   std::to_string(tensor.bytes) + " bytes but its shape " +
                   shapeString(tensor.rank, tensor.shape.data()) + " needs " +
                   std::to_string(expected));
    if (!bytes(tensor.bytes, tensor.data))
      return truncated(which + "'s data");
    return true;
  }

  const std::string &path;
  const char *data;
  size_t size;
  size_t offset = 0;
};

std::string dtypeName(int32_t dtype) {
  static const char *const names[] = {"f32", "f16", "bf16", "i64", "i32", "i1"};
  return dtype >= 0 && dtype <= AMP_DTYPE_I1 ? names[dtype]
                                             : std::to_string(dtype);
}

/// Matches checkpoint records to the model's state tensors by name, dtype
/// and shape; `indices` gets each record's tensor index.
int32_t matchCheckpoint(const std::string &path,
                        const std::vector<CheckpointTensor> &records,
                        std::vector<int32_t> &indices,
                        std::vector<bool> &seen) {
  for (const CheckpointTensor &record : records) {
    int32_t index = findTensor(record.name.c_str());
    if (index < 0 || !isCheckpointed(model().tensors[index]))
      return fail("checkpoint tensor '" + record.name +
                  "' is not part of this model's state (is '" + path +
                  "' a checkpoint of another model?)");
    if (seen[index])
      return fail("'" + path + "' is corrupt: it holds tensor '" + record.name +
                  "' twice");
    const amp_tensor_info &info = model().tensors[index];
    if (record.dtype != info.dtype || record.rank != info.rank ||
        !std::equal(record.shape.begin(), record.shape.end(), info.shape))
      return fail("checkpoint tensor '" + record.name + "' has shape " +
                  shapeString(record.rank, record.shape.data()) +
                  " and dtype " + dtypeName(record.dtype) +
                  " but the model expects " +
                  shapeString(info.rank, info.shape) + " and dtype " +
                  dtypeName(info.dtype) + " (in '" + path + "')");
    seen[index] = true;
    indices.push_back(index);
  }
  // A copy of a master weight can be recomputed (a checkpoint from a run
  // without master weights); anything else missing is an error.
  for (int32_t i = 0; i < model().num_tensors; ++i)
    if (isCheckpointed(model().tensors[i]) && !seen[i] &&
        model().tensors[i].init != AMP_INIT_COPY_OF)
      return fail("checkpoint '" + path + "' lacks tensor '" +
                  model().tensors[i].name + "'");
  return 0;
}
} // namespace

//===----------------------------------------------------------------------===//
// Data parallelism (docs/DataParallel.md)
//===----------------------------------------------------------------------===//

namespace {
const amp_dp_hooks *dataParallel() {
  return amp_dp_hooks_get ? amp_dp_hooks_get() : nullptr;
}

/// The number of processes a launcher started this one among (mpirun,
/// srun's PMI, torchrun), or 1.
int64_t launcherWorldSize(const char *&variable) {
  for (const char *name :
       {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "WORLD_SIZE"}) {
    const char *text = std::getenv(name);
    if (!text)
      continue;
    char *end = nullptr;
    long long size = std::strtoll(text, &end, 10);
    if (end != text && !*end && size > 1) {
      variable = name;
      return size;
    }
  }
  return 1;
}

/// Joins the other ranks and starts from rank 0's state, or refuses to run
/// one replica of several without data parallelism.
int32_t startDataParallel(amp_state &state) {
  const amp_dp_hooks *hooks = dataParallel();
  if (!hooks) {
    const char *variable = nullptr;
    int64_t size = launcherWorldSize(variable);
    if (size > 1)
      return fail("this library was built without data parallelism but "
                  "runs as one of " +
                  std::to_string(size) + " processes (" + variable + "=" +
                  std::to_string(size) +
                  "): each would train alone; build it with amp-compile "
                  "--data-parallel, or run one process");
    return 0;
  }
  const char *error = nullptr;
  if (hooks->init(&error))
    return fail(error);
  // A launcher without MPI (torchrun) leaves MPI a world of one: every
  // process would train alone.
  const char *variable = nullptr;
  int64_t launched = launcherWorldSize(variable);
  if (launched > 1 && launched != hooks->world_size())
    return fail("this process is one of " + std::to_string(launched) + " (" +
                variable + "=" + std::to_string(launched) +
                ") but MPI sees a world of " +
                std::to_string(hooks->world_size()) +
                ": data-parallel libraries meet through MPI, so start them "
                "with mpirun -np " +
                std::to_string(launched) +
                " (a launch without MPI, such as torchrun, is not supported)");
  // Before the first step the state is on the host (HostNewer): what is
  // broadcast there is what the first step uploads.
  for (int32_t i = 0; i < model().num_tensors; ++i) {
    int32_t role = model().tensors[i].role;
    if (role == AMP_ROLE_INPUT || role == AMP_ROLE_LABEL)
      continue;
    if (hooks->broadcast(state.tensors[i].data.get(), state.tensors[i].size,
                         &error))
      return fail(error);
  }
  return 0;
}

/// On a GPU, waits for the step's NCCL calls at most AMP_DP_TIMEOUT
/// seconds: a rank that stopped fails the step instead of hanging it.
int32_t waitForDataParallelStep() {
  if (!model().device || !dataParallel() || !amp_gpu_dp_synchronize)
    return 0;
  const char *error = nullptr;
  if (amp_gpu_dp_synchronize(&error))
    return fail(error ? error : "the data-parallel GPU step failed");
  return 0;
}

/// Without a loss: reports an error a collective of the step recorded (a
/// rank stopped); with one: averages it over the ranks, and checks the
/// replicas when AMP_DP_CHECK_REPLICAS is set.
int32_t finishDataParallelStep(float *loss) {
  const amp_dp_hooks *hooks = dataParallel();
  if (!hooks)
    return 0;
  const char *error = nullptr;
  if (!loss) {
    if (const char *stepError = hooks->take_step_error())
      return fail(stepError);
    return 0;
  }
  if (hooks->mean(loss, &error))
    return fail(error);
  return 0;
}
} // namespace

/// Buffers (batch-norm running statistics) come from each rank's own
/// batch; rank 0's are broadcast after every step, as DDP's default
/// broadcast_buffers, so that the replicas stay identical.
static int32_t broadcastBuffers(amp_state &state) {
  const amp_dp_hooks *hooks = dataParallel();
  if (!hooks || hooks->world_size() == 1)
    return 0;
  const char *error = nullptr;
  for (int32_t i = 0; i < model().num_tensors; ++i) {
    if (model().tensors[i].role != AMP_ROLE_BUFFER)
      continue;
    // On a GPU: downloaded, broadcast, uploaded by the next step.
    void *data = state.hostTensorForWriting(i);
    if (!data)
      return 1;
    if (hooks->broadcast(data, state.tensors[i].size, &error))
      return fail(error);
  }
  return 0;
}

/// Gradient accumulators (amp-accumulate-gradients: "<name>.grad_accum",
/// "<name>.grad_accumN") hold each rank's own sums between the all-reduces
/// of the last micro-step; every other state tensor is replicated.
static bool isRankLocal(const amp_tensor_info &info) {
  return info.role == AMP_ROLE_OPTIMIZER_STATE &&
         std::strstr(info.name, ".grad_accum") != nullptr;
}

/// The state of every replica must stay bit-identical; a check for tests
/// and debugging (rank 0's AMP_DP_CHECK_REPLICAS=1) compares every state
/// tensor after each step.
static int32_t checkReplicas(amp_state &state) {
  const amp_dp_hooks *hooks = dataParallel();
  if (!hooks || !hooks->check_replicas())
    return 0;
  const char *error = nullptr;
  for (int32_t i = 0; i < model().num_tensors; ++i) {
    const amp_tensor_info &info = model().tensors[i];
    if (info.role == AMP_ROLE_INPUT || info.role == AMP_ROLE_LABEL ||
        isRankLocal(info))
      continue;
    if (state.syncToHost(i) ||
        hooks->check_same(state.tensors[i].data.get(), state.tensors[i].size,
                          info.name, &error))
      return fail(error);
  }
  return 0;
}

extern "C" {

int32_t amp_dp_rank(void) {
  return dataParallel() ? dataParallel()->rank() : 0;
}
int32_t amp_dp_world_size(void) {
  return dataParallel() ? dataParallel()->world_size() : 1;
}

int32_t amp_abi_version(void) { return AMP_ABI_VERSION; }
const char *amp_last_error(void) { return lastError.c_str(); }
int32_t amp_num_tensors(void) { return model().num_tensors; }
const amp_tensor_info *amp_tensor(int32_t index) {
  if (index < 0 || index >= model().num_tensors)
    return nullptr;
  return &model().tensors[index];
}
int32_t amp_has_eval(void) { return model().has_eval; }

amp_state *amp_state_create(uint64_t seed) {
  if (checkStateFits() != 0)
    return nullptr;
  auto state = std::make_unique<amp_state>();
  Random random{seed};
  for (int32_t i = 0; i < model().num_tensors; ++i) {
    const amp_tensor_info &info = model().tensors[i];
    state->tensors.emplace_back(byteSize(info));
    if (!state->tensors.back().data) {
      outOfMemory(std::string("tensor '") + info.name + "'", byteSize(info));
      return nullptr;
    }
    initialize(info, state->tensors.back().data.get(), random);
  }
  if (allocateResults(model().train_step, state->stepResults) != 0 ||
      (model().has_eval &&
       allocateResults(model().eval, state->evalResults) != 0))
    return nullptr;
  if (model().device) {
    state->device = model().device();
    if (state->createDeviceBuffers() != 0)
      return nullptr;
  }
  for (int32_t i = 0; i < model().num_tensors; ++i)
    if (model().tensors[i].init == AMP_INIT_COPY_OF &&
        state->initializeCopy(i) != 0)
      return nullptr;
  if (startDataParallel(*state) != 0)
    return nullptr;
  return state.release();
}

void amp_state_destroy(amp_state *state) { delete state; }

void *amp_state_tensor(amp_state *state, const char *name) {
  int32_t index = findTensor(name);
  if (index < 0) {
    fail(std::string("the model has no tensor named '") + name + "'");
    return nullptr;
  }
  return state->hostTensorForWriting(index);
}

int32_t amp_set_hyperparameter(amp_state *state, const char *name,
                               double value) {
  int32_t index = findTensor(name);
  if (index < 0 || model().tensors[index].role != AMP_ROLE_HYPERPARAMETER)
    return fail(std::string("the model has no hyper-parameter named '") + name +
                "'");
  const amp_tensor_info &info = model().tensors[index];
  // A NaN learning rate would silently ruin the state at the next step.
  uint64_t stored = 0;
  storeValue(&stored, info.dtype, 0, value);
  if (!std::isfinite(value) ||
      !std::isfinite(amp::loadValue(&stored, info.dtype, 0))) {
    char text[32];
    std::snprintf(text, sizeof(text), "%g", value);
    return fail(std::string("hyper-parameter '") + name +
                "' must be finite in its dtype " + dtypeName(info.dtype) +
                ", got " + text);
  }
  void *data = state->hostTensorForWriting(index);
  if (!data)
    return 1;
  for (int64_t i = 0; i < info.num_elements; ++i)
    storeValue(data, info.dtype, i, value);
  return 0;
}

int32_t amp_train_step(amp_state *state, float *loss, int32_t *skipped) {
  if (int32_t status =
          state->run(model().train_step, state->stepResults, loss, skipped))
    return status;
  if (int32_t status = broadcastBuffers(*state))
    return status;
  return checkReplicas(*state);
}

int32_t amp_train_step_begin(amp_state *state) {
  if (state->begun.size() >= kMaxStepsInFlight)
    return fail("amp_train_step_begin: " + std::to_string(kMaxStepsInFlight) +
                " steps are begun and not finished; call "
                "amp_train_step_finish first");
  BegunStep step;
  if (state->canOverlapSteps() && !dataParallel()) {
    if (state->beginStep(step))
      return 1;
  } else if (int32_t status =
                 amp_train_step(state, &step.loss, &step.skipped)) {
    return status;
  } else if (state->readScales(step.scales)) {
    return 1;
  }
  state->begun.push_back(std::move(step));
  return 0;
}

int32_t amp_train_step_finish(amp_state *state, float *loss, int32_t *skipped) {
  if (state->begun.empty())
    return fail("amp_train_step_finish: no step is begun "
                "(amp_train_step_begin)");
  BegunStep step = std::move(state->begun.front());
  state->begun.pop_front();
  state->finishedAny = true;
  if (step.queued)
    return state->finishStep(step, loss, skipped);
  state->finishedScales = std::move(step.scales);
  if (loss)
    *loss = step.loss;
  if (skipped)
    *skipped = step.skipped;
  return 0;
}

int32_t amp_train_step_finished_scales(amp_state *state, float *scales,
                                       int32_t capacity) {
  if (!state->finishedAny) {
    fail("amp_train_step_finished_scales: no step begun with "
         "amp_train_step_begin has finished");
    return -1;
  }
  if (capacity < 0 || (capacity > 0 && !scales)) {
    fail("amp_train_step_finished_scales: a negative capacity or no array");
    return -1;
  }
  int32_t count = int32_t(state->finishedScales.size());
  std::copy_n(state->finishedScales.begin(), std::min(count, capacity), scales);
  return count;
}

int32_t amp_eval(amp_state *state, float *loss) {
  if (!model().has_eval)
    return fail("this library has no forward model to evaluate");
  // Leaving *loss as it was would pass the caller's initial value off as a
  // loss.
  if (loss && model().eval.loss_result < 0)
    return fail("the forward model of this library computes no loss (a "
                "library made by an amp-compile older than this runtime: "
                "compile it again)");
  if (int32_t status =
          state->run(model().eval, state->evalResults, loss, nullptr))
    return status;
  // The outputs are the caller's to read (amp_eval_result).
  for (int32_t i = 0; i < model().eval.num_results; ++i)
    if (state->resultToHost(state->evalResults, i))
      return 1;
  return 0;
}

// The forward model's index ranges (amp-check-indices, its last result)
// are the runtime's, not an output.
int32_t amp_num_eval_results(void) {
  if (!model().has_eval)
    return 0;
  int32_t ranges = indexRangesResult(model().eval);
  return ranges >= 0 ? ranges : model().eval.num_results;
}

const amp_tensor_info *amp_eval_result_info(int32_t index) {
  if (index < 0 || index >= amp_num_eval_results()) {
    fail("the forward model has no result " + std::to_string(index));
    return nullptr;
  }
  return &model().eval.results[index];
}

const void *amp_eval_result(const amp_state *state, int32_t index) {
  if (!amp_eval_result_info(index))
    return nullptr;
  return state->evalResults.host[index].data.get();
}

int32_t amp_state_save(const amp_state *constState, const char *path) {
  // Saving leaves the state as it is; bringing the host copies up to date
  // with the device only refreshes a cache.
  amp_state *state = const_cast<amp_state *>(constState);
  for (int32_t i = 0; i < model().num_tensors; ++i)
    if (isCheckpointed(model().tensors[i]) && state->syncToHost(i) != 0)
      return 1;
  amp::OutputFile output;
  std::string error;
  if (!output.open(path, error))
    return fail(error);
  // "-" is standard output (amp::OutputFile's rule), not a file named "-".
  FILE *file = output.writePath() == "-"
                   ? ::fdopen(::dup(STDOUT_FILENO), "wb")
                   : std::fopen(output.writePath().c_str(), "wb");
  if (!file)
    return fail(cannotWrite(path, errno));
  CheckpointWriter writer{file};
  writeCheckpoint(*state, writer);
  int closeError = closeDurably(file, !output.isDirect());
  if (writer.error || closeError)
    return fail(cannotWrite(path, writer.error ? writer.error : closeError));
  return output.commit(error) ? 0 : fail(error);
}

int32_t amp_state_load(amp_state *state, const char *path) {
  MallocBytes contents(nullptr, &std::free);
  size_t size = 0;
  std::string reason;
  if (!readWholeFile(path, maxCheckpointSize(), contents, size, reason))
    return fail(std::string("cannot read checkpoint '") + path +
                "': " + reason);
  // Check everything before changing the state: a bad file changes nothing.
  std::vector<CheckpointTensor> records;
  if (!CheckpointParser(path, contents.get(), size).parse(records))
    return 1;
  std::vector<int32_t> indices;
  std::vector<bool> seen(model().num_tensors, false);
  if (matchCheckpoint(path, records, indices, seen))
    return 1;
  for (size_t k = 0; k < records.size(); ++k) {
    std::memcpy(state->tensors[indices[k]].data.get(), records[k].data,
                records[k].bytes);
    state->markWrittenOnHost(indices[k]);
  }
  for (int32_t i = 0; i < model().num_tensors; ++i)
    if (model().tensors[i].init == AMP_INIT_COPY_OF && !seen[i] &&
        state->initializeCopy(i) != 0)
      return 1;
  return 0;
}

} // extern "C"
