//===- ModelEntryPoints.cpp - the C ABI of compiled models ----------------===//
//
// The amp_* functions of ModelABI.h, linked into every library amp-compile
// makes: each checks its arguments and calls the state (ModelState.h) or
// the checkpoint format (Checkpoint.h).
//
//===----------------------------------------------------------------------===//

#include "Checkpoint.h"
#include "ModelState.h"

#include "amp/Runtime/DTypeName.h"
#include "amp/Runtime/Numerics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

// Every other symbol of the runtime is hidden (ModelState.h), and so would
// these be, as they take the hidden amp_state.
#define AMP_ABI_EXPORT __attribute__((visibility("default")))

using namespace amp::runtime;
using amp::storeValue;

extern "C" {

AMP_ABI_EXPORT int32_t amp_dp_rank(void) {
  return dataParallel() ? dataParallel()->rank() : 0;
}
AMP_ABI_EXPORT int32_t amp_dp_world_size(void) {
  return dataParallel() ? dataParallel()->world_size() : 1;
}

AMP_ABI_EXPORT int32_t amp_abi_version(void) { return AMP_ABI_VERSION; }
AMP_ABI_EXPORT const char *amp_last_error(void) { return lastError(); }
AMP_ABI_EXPORT int32_t amp_num_tensors(void) { return model().num_tensors; }
AMP_ABI_EXPORT const amp_tensor_info *amp_tensor(int32_t index) {
  if (index < 0 || index >= model().num_tensors)
    return nullptr;
  return &model().tensors[index];
}
AMP_ABI_EXPORT int32_t amp_has_eval(void) { return model().has_eval; }

AMP_ABI_EXPORT amp_state *amp_state_create(uint64_t seed) {
  return amp_state::create(seed);
}

AMP_ABI_EXPORT void amp_state_destroy(amp_state *state) { delete state; }

AMP_ABI_EXPORT void *amp_state_tensor(amp_state *state, const char *name) {
  int32_t index = findTensor(name);
  if (index < 0) {
    fail(std::string("the model has no tensor named '") + name + "'");
    return nullptr;
  }
  return state->hostTensorForWriting(index);
}

AMP_ABI_EXPORT int32_t amp_set_hyperparameter(amp_state *state,
                                              const char *name, double value) {
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
                "' must be finite in its dtype " + amp::dtypeName(info.dtype) +
                ", got " + text);
  }
  void *data = state->hostTensorForWriting(index);
  if (!data)
    return 1;
  for (int64_t i = 0; i < info.num_elements; ++i)
    storeValue(data, info.dtype, i, value);
  return 0;
}

AMP_ABI_EXPORT int32_t amp_train_step(amp_state *state, float *loss,
                                      int32_t *skipped) {
  if (int32_t status =
          state->run(model().train_step, state->stepResults, loss, skipped))
    return status;
  if (int32_t status = broadcastBuffers(*state))
    return status;
  return checkReplicas(*state);
}

AMP_ABI_EXPORT int32_t amp_train_step_begin(amp_state *state) {
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

AMP_ABI_EXPORT int32_t amp_train_step_finish(amp_state *state, float *loss,
                                             int32_t *skipped) {
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

AMP_ABI_EXPORT int32_t amp_train_step_finished_scales(amp_state *state,
                                                      float *scales,
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

AMP_ABI_EXPORT int32_t amp_eval(amp_state *state, float *loss) {
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
AMP_ABI_EXPORT int32_t amp_num_eval_results(void) {
  if (!model().has_eval)
    return 0;
  int32_t ranges = indexRangesResult(model().eval);
  return ranges >= 0 ? ranges : model().eval.num_results;
}

AMP_ABI_EXPORT const amp_tensor_info *amp_eval_result_info(int32_t index) {
  if (index < 0 || index >= amp_num_eval_results()) {
    fail("the forward model has no result " + std::to_string(index));
    return nullptr;
  }
  return &model().eval.results[index];
}

AMP_ABI_EXPORT const void *amp_eval_result(const amp_state *state,
                                           int32_t index) {
  if (!amp_eval_result_info(index))
    return nullptr;
  return state->evalResults.host[index].data.get();
}

AMP_ABI_EXPORT int32_t amp_state_save(const amp_state *state,
                                      const char *path) {
  // Saving refreshes the host copies (a cache) and changes nothing else.
  return saveCheckpoint(*const_cast<amp_state *>(state), path);
}

AMP_ABI_EXPORT int32_t amp_state_load(amp_state *state, const char *path) {
  return loadCheckpoint(*state, path);
}

} // extern "C"
