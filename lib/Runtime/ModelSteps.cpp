//===- ModelSteps.cpp - running an entry point of a compiled model --------===//
//
// One call of a compiled entry point to completion (amp_state::run): the
// integer labels are checked, what the host wrote is uploaded, the packed
// wrapper is called on the state's buffers, the results become the new
// state, and the loss, skipped flag and index ranges (amp-check-indices)
// are read back and checked. OverlappedSteps.cpp queues steps instead. On a
// GPU both replay the training step from a CUDA graph (StepGraphs).
//
//===----------------------------------------------------------------------===//

#include "ModelState.h"

#include "DeviceGraphs.h"

#include "amp/Runtime/NonfiniteABI.h"
#include "amp/Runtime/Numerics.h"

#include <cstdlib>
#include <cstring>

// Defined by the glue of libraries whose graphs read through indices.
extern "C" __attribute__((weak)) const char *amp_index_sites(int32_t entry);

using namespace amp::runtime;

//===----------------------------------------------------------------------===//
// Index ranges (amp-check-indices)
//===----------------------------------------------------------------------===//

int32_t amp::runtime::indexRangesResult(const amp_entry_descriptor &entry) {
  for (int32_t i = 0; i < entry.num_results; ++i)
    if (std::strcmp(entry.results[i].name, AMP_INDEX_RANGES_NAME) == 0)
      return i;
  return -1;
}

namespace {
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

/// The index of site `k` that left [lower, upper), or `lower` when none did.
int64_t badIndex(const void *ranges, int64_t k, int64_t &lower,
                 int64_t &upper) {
  int64_t row[AMP_INDEX_COLUMNS];
  std::memcpy(row,
              static_cast<const char *>(ranges) +
                  k * AMP_INDEX_COLUMNS * sizeof(int64_t),
              sizeof(row));
  lower = row[AMP_INDEX_LOWER];
  upper = row[AMP_INDEX_UPPER];
  return row[AMP_INDEX_MIN] < lower    ? row[AMP_INDEX_MIN]
         : row[AMP_INDEX_MAX] >= upper ? row[AMP_INDEX_MAX]
                                       : lower;
}
} // namespace

/// A training step that fails this way skipped its updates on the device.
int32_t amp::runtime::checkIndexRanges(const amp_entry_descriptor &entry,
                                       const void *ranges) {
  int32_t result = indexRangesResult(entry);
  if (result < 0 || !ranges)
    return 0;
  int64_t sites = entry.results[result].num_elements / AMP_INDEX_COLUMNS;
  for (int64_t k = 0; k < sites; ++k) {
    int64_t lower = 0, upper = 0;
    int64_t bad = badIndex(ranges, k, lower, upper);
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

//===----------------------------------------------------------------------===//
// Running an entry point
//===----------------------------------------------------------------------===//

std::vector<int32_t> amp_state::lossScaleTensors() {
  std::vector<int32_t> indices;
  for (int32_t i = 0; i < model().num_tensors; ++i)
    if (amp::isLossScale(model().tensors[i]))
      indices.push_back(i);
  return indices;
}

int32_t amp_state::readScales(std::vector<float> &scales) {
  for (int32_t index : lossScaleTensors()) {
    if (syncToHost(index))
      return 1;
    float scale;
    std::memcpy(&scale, tensors[index].data.get(), sizeof(float));
    scales.push_back(scale);
  }
  return 0;
}

/// The scaler's sticky flag of amp-loss-scaling with error-at-min.
int32_t amp_state::stuckScaler() {
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

void *amp_state::argumentPointer(int32_t index) {
  return device ? deviceTensors[index].data : tensors[index].data.get();
}

void *amp_state::resultPointer(ResultBuffers &results, int32_t index) {
  return device ? results.device[index].data : results.host[index].data.get();
}

/// Makes result `index` the new contents of tensor `update`: a copy on the
/// host, a swap of buffers on the device.
void amp_state::updateTensor(ResultBuffers &results, int32_t index,
                             int32_t update) {
  if (!device) {
    std::memcpy(tensors[update].data.get(), results.host[index].data.get(),
                results.host[index].size);
    return;
  }
  std::swap(deviceTensors[update].data, results.device[index].data);
  freshness[update] = Freshness::DeviceNewer;
}

/// Cross-entropy would read past the logits' row.
int32_t amp_state::checkLabels(const amp_entry_descriptor &entry) {
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

void amp_state::callEntry(const amp_entry_descriptor &entry,
                          ResultBuffers &results) {
  std::vector<void *> pointers;
  for (int32_t i = 0; i < entry.num_args; ++i)
    pointers.push_back(argumentPointer(entry.args[i]));
  for (int32_t i = 0; i < entry.num_results; ++i)
    pointers.push_back(resultPointer(results, i));
  if (!launchStepGraph(pointers, entry))
    entry.entry(pointers.data());
}

//===----------------------------------------------------------------------===//
// The training step as CUDA graphs
//===----------------------------------------------------------------------===//

StepGraphs::~StepGraphs() { clear(); }

void StepGraphs::clear() {
  if (!ops)
    return;
  for (auto &graph : graphs)
    ops->destroy(graph.second);
  graphs.clear();
}

int32_t amp_state::prepareStepGraphs() {
  const char *setting = std::getenv("AMP_CUDA_GRAPHS");
  if (setting && std::strcmp(setting, "0") != 0 &&
      std::strcmp(setting, "1") != 0)
    return fail(std::string("AMP_CUDA_GRAPHS must be 0 (steps without CUDA "
                            "graphs) or 1 (the default), not '") +
                setting + "'");
  const amp_device_graph_ops *ops = device && amp_cuda_device_graph_ops
                                        ? amp_cuda_device_graph_ops()
                                        : nullptr;
  stepGraphs = std::make_unique<StepGraphs>(ops);
  std::string &reason = stepGraphs->disabledReason;
  if (!ops)
    reason = "the library runs on the CPU";
  else if (setting && std::strcmp(setting, "0") == 0)
    reason = "AMP_CUDA_GRAPHS=0";
  else if (dataParallel())
    // The collectives and the replica checks need each step's host side.
    reason = "the library is data-parallel";
  if (!reason.empty())
    stepGraphs->ops = nullptr;
  return 0;
}

/// The first step runs as it is: it makes cuBLASLt's and cuDNN's plans and
/// fills the pool, none of which may happen during a capture. After it, a
/// step on buffers no graph has seen is captured and its graph launched; a
/// capture that fails turns graphs off for the state (its steps run as
/// they are, which reports any error of the step itself).
bool amp_state::launchStepGraph(const std::vector<void *> &pointers,
                                const amp_entry_descriptor &entry) {
  StepGraphs *g = stepGraphs.get();
  if (&entry != &model().train_step || !g || !g->ops)
    return false;
  for (auto &[key, graph] : g->graphs)
    if (key == pointers) {
      g->ops->launch(graph);
      ++g->launched;
      return true;
    }
  if (!g->warmedUp) {
    g->warmedUp = true;
    return false;
  }
  if (g->graphs.size() == StepGraphs::kMaxGraphs) {
    g->ops->destroy(g->graphs.front().second);
    g->graphs.erase(g->graphs.begin());
  }
  const char *reason = nullptr;
  if (g->ops->begin_capture(&reason) == 0) {
    entry.entry(const_cast<void **>(pointers.data()));
    if (void *graph = g->ops->end_capture(&reason)) {
      g->graphs.emplace_back(pointers, graph);
      ++g->captured;
      g->ops->launch(graph);
      ++g->launched;
      return true;
    }
  }
  g->disabledReason = std::string("capturing the step failed: ") +
                      (reason ? reason : "unknown reason");
  g->clear();
  g->ops = nullptr;
  return false;
}

extern "C" __attribute__((visibility("default"))) int32_t
amp_cuda_graph_stats(amp_state *state, int64_t *captured, int64_t *launched) {
  const StepGraphs *g = state->stepGraphs.get();
  if (captured)
    *captured = g ? g->captured : 0;
  if (launched)
    *launched = g ? g->launched : 0;
  if (g && g->ops)
    return 0;
  return fail("the training steps run without CUDA graphs: " +
              (g ? g->disabledReason : std::string("no state")));
}

void amp_state::applyUpdates(const amp_entry_descriptor &entry,
                             ResultBuffers &results) {
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

/// Fails after the step if the scaler is stuck.
int32_t amp_state::reportStep(const void *lossData, const void *skippedData,
                              float *loss, int32_t *skipped) {
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

const void *amp_state::hostResult(const ResultBuffers &results,
                                  int32_t index) const {
  return index >= 0 ? results.host[index].data.get() : nullptr;
}

int32_t amp_state::run(const amp_entry_descriptor &entry,
                       ResultBuffers &results, float *loss, int32_t *skipped) {
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
