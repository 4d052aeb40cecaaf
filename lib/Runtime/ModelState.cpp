//===- ModelState.cpp - creating a model's state, host and device copies --===//
//
// The amp_state of ModelState.h: its creation (checked against the
// machine's memory before anything is allocated) and the host and device
// copies of its tensors; ModelSteps.cpp runs entry points on them.
//
//===----------------------------------------------------------------------===//

#include "ModelState.h"

#include "amp/Runtime/Numerics.h"

#include <cmath>
#include <cstring>
#ifdef __linux__
#include <sys/sysinfo.h>
#endif

using namespace amp::runtime;
using amp::Random;
using amp::storeValue;

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

namespace {
thread_local std::string lastErrorMessage;
} // namespace

int32_t amp::runtime::fail(std::string message) {
  lastErrorMessage = std::move(message);
  return 1;
}

const char *amp::runtime::lastError() { return lastErrorMessage.c_str(); }

int32_t amp::runtime::outOfMemory(const std::string &what, size_t bytes) {
  return fail("cannot allocate " + std::to_string(bytes) + " bytes for " +
              what + ": out of memory");
}

size_t amp::runtime::byteSize(const amp_tensor_info &info) {
  size_t bytes = 0;
  amp::tensorBytes(info, bytes);
  return bytes;
}

bool amp::runtime::isCheckpointed(const amp_tensor_info &info) {
  return info.role != AMP_ROLE_INPUT && info.role != AMP_ROLE_LABEL;
}

int32_t amp::runtime::findTensor(const char *name) {
  for (int32_t i = 0; i < model().num_tensors; ++i)
    if (std::strcmp(model().tensors[i].name, name) == 0)
      return i;
  return -1;
}

std::string amp::runtime::shapeString(int32_t rank, const int64_t *shape) {
  std::string text;
  for (int32_t d = 0; d < rank; ++d)
    text += (d ? "x" : "") + std::to_string(shape[d]);
  return rank ? text : "scalar";
}

Buffer::Buffer(size_t bytes) : data(nullptr, &std::free), size(bytes) {
  if (bytes > SIZE_MAX - 63)
    return;
  data.reset(static_cast<char *>(
      std::aligned_alloc(64, std::max<size_t>(64, (bytes + 63) / 64 * 64))));
  if (data)
    std::memset(data.get(), 0, bytes);
}

//===----------------------------------------------------------------------===//
// Creation
//===----------------------------------------------------------------------===//

namespace {
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
    return; // once every tensor is initialised (initializeCopy)
  case AMP_INIT_UNIFORM_FAN_IN: {
    double bound =
        1.0 / std::sqrt(static_cast<double>(std::max<int64_t>(1, info.fan_in)));
    for (int64_t i = 0; i < info.num_elements; ++i)
      storeValue(data, info.dtype, i, (2 * random.uniform() - 1) * bound);
    return;
  }
  }
}

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

/// Allocates and initialises the host copy of every tensor.
int32_t createHostTensors(amp_state &state, uint64_t seed) {
  Random random{seed};
  for (int32_t i = 0; i < model().num_tensors; ++i) {
    const amp_tensor_info &info = model().tensors[i];
    state.tensors.emplace_back(byteSize(info));
    if (!state.tensors.back().data)
      return outOfMemory(std::string("tensor '") + info.name + "'",
                         byteSize(info));
    initialize(info, state.tensors.back().data.get(), random);
  }
  return 0;
}
} // namespace

amp_state *amp_state::create(uint64_t seed) {
  if (checkStateFits() != 0)
    return nullptr;
  auto state = std::make_unique<amp_state>();
  if (createHostTensors(*state, seed) != 0)
    return nullptr;
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
  if (startDataParallel(*state) != 0 || state->prepareStepGraphs() != 0)
    return nullptr;
  return state.release();
}

amp_state::~amp_state() {
  pipeline.reset(); // drains the streams before anything is freed
  stepGraphs.reset();
  if (device)
    unpinStreamedTensors();
}

//===----------------------------------------------------------------------===//
// Host and device copies
//===----------------------------------------------------------------------===//

int32_t amp_state::deviceError(const std::string &what) {
  return fail(what + ": " + device->last_error());
}

int32_t amp_state::createDeviceBuffers() {
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
void amp_state::pinStreamedTensors() {
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

void amp_state::unpinStreamedTensors() {
  if (pinned.empty())
    return;
  device->synchronize();
  for (void *host : pinned)
    device->unpin_host(host);
  pinned.clear();
}

int32_t amp_state::syncToHost(int32_t index) {
  if (!device || freshness[index] != Freshness::DeviceNewer)
    return 0;
  if (device->copy_to_host(tensors[index].data.get(), deviceTensors[index].data,
                           tensors[index].size))
    return deviceError(std::string("cannot read '") +
                       model().tensors[index].name + "' from the GPU");
  freshness[index] = Freshness::Same;
  return 0;
}

void *amp_state::hostTensorForWriting(int32_t index) {
  if (syncToHost(index))
    return nullptr;
  markWrittenOnHost(index);
  return tensors[index].data.get();
}

int32_t amp_state::initializeCopy(int32_t index) {
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

void amp_state::markWrittenOnHost(int32_t index) {
  if (device)
    freshness[index] = Freshness::HostNewer;
}

/// Inputs, labels and hyper-parameters go up every time (callers fill them
/// in place through a pointer they keep), state tensors when written since
/// the last upload. With `everyStepUploaded`, what isUploadedEveryStep is
/// already there (uploadNextInputs).
int32_t amp_state::syncToDevice(const amp_entry_descriptor &entry,
                                bool everyStepUploaded) {
  for (int32_t i = 0; i < entry.num_args; ++i) {
    int32_t index = entry.args[i];
    bool alwaysFromHost = isUploadedEveryStep(model().tensors[index]);
    if ((!alwaysFromHost && freshness[index] != Freshness::HostNewer) ||
        (everyStepUploaded && alwaysFromHost))
      continue;
    if (device->copy_to_device(deviceTensors[index].data,
                               tensors[index].data.get(), tensors[index].size))
      return deviceError(std::string("cannot copy '") +
                         model().tensors[index].name + "' to the GPU");
    if (!alwaysFromHost)
      freshness[index] = Freshness::Same;
  }
  return 0;
}

int32_t amp_state::resultToHost(ResultBuffers &results, int32_t index) {
  if (!device || index < 0)
    return 0;
  if (device->copy_to_host(results.host[index].data.get(),
                           results.device[index].data,
                           results.host[index].size))
    return deviceError("the GPU step failed");
  return 0;
}
