//===- ModelRuntime.cpp - the C ABI of compiled models
//---------------------===//
//
// Linked into every library amp-compile makes. Owns the state buffers, runs
// the compiled entry points through their packed wrappers, and saves and
// loads checkpoints. Plain C++ with no dependency on LLVM or MLIR.
//
//===----------------------------------------------------------------------===//

#include "amp/Runtime/ModelDescriptor.h"
#include "amp/Runtime/Numerics.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace {
thread_local std::string lastError;

int32_t fail(std::string message) {
  lastError = std::move(message);
  return 1;
}

const amp_model_descriptor &model() { return *amp_model_descriptor_get(); }

using amp::Random;
using amp::storeValue;

size_t byteSize(const amp_tensor_info &info) {
  return static_cast<size_t>(info.num_elements) * amp::elementBytes(info.dtype);
}

bool isCheckpointed(const amp_tensor_info &info) {
  return info.role != AMP_ROLE_INPUT && info.role != AMP_ROLE_LABEL;
}

/// A 64-byte aligned buffer.
struct Buffer {
  explicit Buffer(size_t bytes)
      : data(static_cast<char *>(std::aligned_alloc(
                 64, std::max<size_t>(64, (bytes + 63) / 64 * 64))),
             &std::free),
        size(bytes) {
    std::memset(data.get(), 0, bytes);
  }
  std::unique_ptr<char, void (*)(void *)> data;
  size_t size;
};

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

struct amp_state {
  const amp_device_ops *device = nullptr;
  std::vector<Buffer> tensors;
  std::vector<DeviceBuffer> deviceTensors;
  std::vector<Freshness> freshness;
  ResultBuffers stepResults;
  ResultBuffers evalResults;

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
        return deviceError("cannot allocate the model state on the GPU");
    }
    freshness.assign(tensors.size(), Freshness::HostNewer);
    for (ResultBuffers *results : {&stepResults, &evalResults})
      for (const Buffer &result : results->host) {
        results->device.emplace_back(device, result.size);
        if (!results->device.back().data)
          return deviceError("cannot allocate step results on the GPU");
      }
    return 0;
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
  int32_t syncToDevice(const amp_entry_descriptor &entry) {
    for (int32_t i = 0; i < entry.num_args; ++i) {
      int32_t index = entry.args[i];
      int32_t role = model().tensors[index].role;
      bool alwaysFromHost = role == AMP_ROLE_INPUT || role == AMP_ROLE_LABEL ||
                            role == AMP_ROLE_HYPERPARAMETER;
      if (!alwaysFromHost && freshness[index] != Freshness::HostNewer)
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

  int32_t run(const amp_entry_descriptor &entry, ResultBuffers &results,
              float *loss, int32_t *skipped) {
    if (device && syncToDevice(entry))
      return 1;
    std::vector<void *> pointers;
    for (int32_t i = 0; i < entry.num_args; ++i)
      pointers.push_back(argumentPointer(entry.args[i]));
    for (int32_t i = 0; i < entry.num_results; ++i)
      pointers.push_back(resultPointer(results, i));
    entry.entry(pointers.data());
    for (int32_t i = 0; i < entry.num_results; ++i)
      if (entry.result_updates[i] >= 0)
        updateTensor(results, i, entry.result_updates[i]);
    if (resultToHost(results, entry.loss_result) ||
        resultToHost(results, entry.skipped_result))
      return 1;
    if (device && device->synchronize() != 0)
      return deviceError("the GPU step failed");
    if (loss && entry.loss_result >= 0)
      *loss = *reinterpret_cast<float *>(
          results.host[entry.loss_result].data.get());
    if (skipped)
      *skipped = entry.skipped_result >= 0
                     ? *reinterpret_cast<uint8_t *>(
                           results.host[entry.skipped_result].data.get()) != 0
                     : 0;
    // The step ran and its results are in place; the error tells the caller
    // that training cannot go on usefully.
    if (int32_t stuck = stuckScaler(); stuck >= 0)
      return fail(std::string("loss scale '") + model().tensors[stuck].name +
                  "' is stuck at its minimum: a gradient overflowed at "
                  "min-scale (error-at-min)");
    return 0;
  }
};

namespace {
/// Host out-buffers of one entry point.
ResultBuffers allocateResults(const amp_entry_descriptor &entry) {
  ResultBuffers results;
  for (int32_t i = 0; i < entry.num_results; ++i)
    results.host.emplace_back(byteSize(entry.results[i]));
  return results;
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

constexpr char kCheckpointMagic[8] = {'A', 'M', 'P', 'S', 'T', 'A', 'T', 'E'};
constexpr uint32_t kCheckpointVersion = 1;

struct FileCloser {
  void operator()(FILE *file) const { std::fclose(file); }
};
using File = std::unique_ptr<FILE, FileCloser>;

template <typename T> bool writeValue(FILE *file, const T &value) {
  return std::fwrite(&value, sizeof(T), 1, file) == 1;
}
template <typename T> bool readValue(FILE *file, T &value) {
  return std::fread(&value, sizeof(T), 1, file) == 1;
}
} // namespace

extern "C" {

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
  auto state = std::make_unique<amp_state>();
  Random random{seed};
  for (int32_t i = 0; i < model().num_tensors; ++i) {
    const amp_tensor_info &info = model().tensors[i];
    state->tensors.emplace_back(byteSize(info));
    initialize(info, state->tensors.back().data.get(), random);
  }
  state->stepResults = allocateResults(model().train_step);
  if (model().has_eval)
    state->evalResults = allocateResults(model().eval);
  if (model().device) {
    state->device = model().device();
    if (state->createDeviceBuffers() != 0)
      return nullptr;
  }
  for (int32_t i = 0; i < model().num_tensors; ++i)
    if (model().tensors[i].init == AMP_INIT_COPY_OF &&
        state->initializeCopy(i) != 0)
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
  void *data = state->hostTensorForWriting(index);
  if (!data)
    return 1;
  for (int64_t i = 0; i < info.num_elements; ++i)
    storeValue(data, info.dtype, i, value);
  return 0;
}

int32_t amp_train_step(amp_state *state, float *loss, int32_t *skipped) {
  return state->run(model().train_step, state->stepResults, loss, skipped);
}

int32_t amp_eval(amp_state *state, float *loss) {
  if (!model().has_eval)
    return fail("this library has no forward model to evaluate");
  return state->run(model().eval, state->evalResults, loss, nullptr);
}

int32_t amp_state_save(const amp_state *constState, const char *path) {
  // Saving leaves the state as it is; bringing the host copies up to date
  // with the device only refreshes a cache.
  amp_state *state = const_cast<amp_state *>(constState);
  for (int32_t i = 0; i < model().num_tensors; ++i)
    if (isCheckpointed(model().tensors[i]) && state->syncToHost(i) != 0)
      return 1;
  std::string temporary = std::string(path) + ".tmp";
  File file(std::fopen(temporary.c_str(), "wb"));
  if (!file)
    return fail("cannot write '" + temporary + "': " + std::strerror(errno));
  uint32_t count = 0;
  for (int32_t i = 0; i < model().num_tensors; ++i)
    count += isCheckpointed(model().tensors[i]);
  bool ok = std::fwrite(kCheckpointMagic, 1, 8, file.get()) == 8 &&
            writeValue(file.get(), kCheckpointVersion) &&
            writeValue(file.get(), count);
  for (int32_t i = 0; ok && i < model().num_tensors; ++i) {
    const amp_tensor_info &info = model().tensors[i];
    if (!isCheckpointed(info))
      continue;
    uint32_t nameLength = std::strlen(info.name);
    uint64_t bytes = byteSize(info);
    ok = writeValue(file.get(), nameLength) &&
         std::fwrite(info.name, 1, nameLength, file.get()) == nameLength &&
         writeValue(file.get(), info.dtype) &&
         writeValue(file.get(), info.rank) &&
         std::fwrite(info.shape, sizeof(int64_t), info.rank, file.get()) ==
             static_cast<size_t>(info.rank) &&
         writeValue(file.get(), bytes) &&
         std::fwrite(state->tensors[i].data.get(), 1, bytes, file.get()) ==
             bytes;
  }
  if (!ok || std::fclose(file.release()) != 0) {
    std::remove(temporary.c_str());
    return fail("cannot write '" + temporary + "'");
  }
  if (std::rename(temporary.c_str(), path) != 0) {
    std::remove(temporary.c_str());
    return fail(std::string("cannot write '") + path +
                "': " + std::strerror(errno));
  }
  return 0;
}

int32_t amp_state_load(amp_state *state, const char *path) {
  File file(std::fopen(path, "rb"));
  if (!file)
    return fail(std::string("cannot open checkpoint '") + path +
                "': " + std::strerror(errno));
  char magic[8];
  uint32_t version = 0, count = 0;
  if (std::fread(magic, 1, 8, file.get()) != 8 ||
      std::memcmp(magic, kCheckpointMagic, 8) != 0)
    return fail(std::string("'") + path + "' is not an amp checkpoint");
  if (!readValue(file.get(), version) || version != kCheckpointVersion)
    return fail(std::string("'") + path + "' has checkpoint version " +
                std::to_string(version) + ", expected " +
                std::to_string(kCheckpointVersion));
  if (!readValue(file.get(), count))
    return fail(std::string("'") + path + "' is truncated");
  // Read everything before changing the state: a bad file changes nothing.
  std::vector<std::pair<int32_t, std::vector<char>>> loaded;
  std::vector<bool> seen(model().num_tensors, false);
  for (uint32_t k = 0; k < count; ++k) {
    uint32_t nameLength = 0;
    if (!readValue(file.get(), nameLength) || nameLength > 4096)
      return fail(std::string("'") + path + "' is truncated or corrupt");
    std::string name(nameLength, '\0');
    int32_t dtype = 0, rank = 0;
    if (std::fread(name.data(), 1, nameLength, file.get()) != nameLength ||
        !readValue(file.get(), dtype) || !readValue(file.get(), rank) ||
        rank < 0 || rank > 16)
      return fail(std::string("'") + path + "' is truncated or corrupt");
    std::vector<int64_t> shape(rank);
    uint64_t bytes = 0;
    if (std::fread(shape.data(), sizeof(int64_t), rank, file.get()) !=
            static_cast<size_t>(rank) ||
        !readValue(file.get(), bytes))
      return fail(std::string("'") + path + "' is truncated or corrupt");
    int32_t index = findTensor(name.c_str());
    if (index < 0 || !isCheckpointed(model().tensors[index]))
      return fail("checkpoint tensor '" + name +
                  "' is not part of this model's state");
    const amp_tensor_info &info = model().tensors[index];
    if (dtype != info.dtype || rank != info.rank ||
        !std::equal(shape.begin(), shape.end(), info.shape) ||
        bytes != byteSize(info))
      return fail("checkpoint tensor '" + name + "' has shape " +
                  shapeString(rank, shape.data()) + " and dtype " +
                  std::to_string(dtype) + " but the model expects " +
                  shapeString(info.rank, info.shape) + " and dtype " +
                  std::to_string(info.dtype));
    std::vector<char> data(bytes);
    if (std::fread(data.data(), 1, bytes, file.get()) != bytes)
      return fail(std::string("'") + path + "' is truncated");
    seen[index] = true;
    loaded.emplace_back(index, std::move(data));
  }
  // A copy of a master weight can be recomputed (a checkpoint from a run
  // without master weights); anything else missing is an error.
  for (int32_t i = 0; i < model().num_tensors; ++i)
    if (isCheckpointed(model().tensors[i]) && !seen[i] &&
        model().tensors[i].init != AMP_INIT_COPY_OF)
      return fail(std::string("checkpoint '") + path + "' lacks tensor '" +
                  model().tensors[i].name + "'");
  for (auto &[index, data] : loaded) {
    std::memcpy(state->tensors[index].data.get(), data.data(), data.size());
    state->markWrittenOnHost(index);
  }
  for (int32_t i = 0; i < model().num_tensors; ++i)
    if (model().tensors[i].init == AMP_INIT_COPY_OF && !seen[i] &&
        state->initializeCopy(i) != 0)
      return 1;
  return 0;
}

} // extern "C"
