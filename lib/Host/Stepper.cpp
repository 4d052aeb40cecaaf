//===- Stepper.cpp - the per-step rules of a model state ------------------===//

#include "amp/Host/Stepper.h"
#include "amp/Host/Diagnostics.h"
#include "amp/Runtime/DTypeName.h"
#include "amp/Runtime/Numerics.h"

#include "llvm/ADT/StringRef.h"

#include <chrono>

using namespace amp;

std::optional<std::string>
amp::learningRateProblem(double value, const amp_tensor_info &info) {
  if (std::isnan(value))
    return std::string("is not a number");
  if (value < 0)
    return std::string("is negative");
  if (value == 0)
    return std::string("is 0, which trains nothing");
  if (std::isinf(value))
    return std::string("is infinite");
  uint64_t stored = 0;
  storeValue(&stored, info.dtype, 0, value);
  double rounded = amp::loadValue(&stored, info.dtype, 0);
  if (rounded > 0 && std::isfinite(rounded))
    return std::nullopt;
  return "is " + formatNumber(rounded) + " in " + dtypeName(info.dtype) +
         ", the type of the model's '" + info.name + "'";
}

Stepper::Stepper(const Model &model, amp_state *state)
    : model(model), state(state) {
  for (int32_t i = 0; i < model.numTensors(); ++i)
    if (llvm::StringRef(model.tensor(i)->name) == kMicroStepName)
      countsMicroBatches = true;
}

bool Stepper::trainMicroBatch(MicroBatch &result, std::string &error) {
  if (model.trainStep(state, &result.loss, &result.skipped) != 0) {
    error = model.lastError();
    return false;
  }
  result.completed = completedUpdate();
  return true;
}

bool Stepper::runUpdate(llvm::function_ref<bool()> before,
                        llvm::function_ref<bool(float loss)> after,
                        Update &update, std::string &error) {
  // Far above any real accumulation: a library whose counter never returns
  // to zero is an error, not a hang.
  constexpr int64_t kMaxMicroBatches = int64_t(1) << 24;
  double lossSum = 0;
  MicroBatch last;
  do {
    if (!before())
      return false;
    auto start = std::chrono::steady_clock::now();
    bool ran = trainMicroBatch(last, error);
    update.seconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    if (!ran || !after(last.loss))
      return false;
    lossSum += last.loss;
    update.skipped |= last.skipped;
    ++update.microBatches;
  } while (!last.completed && update.microBatches < kMaxMicroBatches);
  if (!last.completed) {
    error = "no update after " + std::to_string(update.microBatches) +
            " micro-batches";
    return false;
  }
  update.loss = float(lossSum / double(update.microBatches));
  return true;
}

bool Stepper::hasOverlappedSteps() const {
  return model.beginStep && model.finishStep;
}

bool Stepper::finishReportsScales() const {
  if (model.finishedScales)
    return true;
  for (int32_t i = 0; i < model.numTensors(); ++i)
    if (amp::isLossScale(*model.tensor(i)))
      return false;
  return true;
}

bool Stepper::beginStep(std::string &error) {
  if (model.beginStep(state) == 0)
    return true;
  error = model.lastError();
  return false;
}

bool Stepper::finishStep(MicroBatch &result,
                         llvm::SmallVectorImpl<float> *scales,
                         std::string &error) {
  if (model.finishStep(state, &result.loss, &result.skipped) != 0) {
    error = model.lastError();
    return false;
  }
  if (!scales || !model.finishedScales)
    return true;
  int32_t count = model.finishedScales(state, nullptr, 0);
  scales->resize(std::max(count, 0));
  if (count >= 0 && model.finishedScales(state, scales->data(), count) == count)
    return true;
  error = "cannot read its loss scales: " + std::string(model.lastError());
  return false;
}

std::optional<double> Stepper::readLearningRate() const {
  const amp_tensor_info *info = learningRate();
  const void *data = info ? model.stateTensor(state, info->name) : nullptr;
  if (!data)
    return std::nullopt;
  return amp::loadValue(data, info->dtype, 0);
}

bool Stepper::setLearningRate(double lr, std::string &error) {
  if (model.setHyperparameter(state, kLearningRateName, lr) == 0)
    return true;
  error = model.lastError();
  return false;
}

std::optional<std::string>
Stepper::scheduledRateProblem(const LRSchedule &schedule, double base,
                              int64_t step) const {
  const amp_tensor_info *info = learningRate();
  if (!info)
    return std::nullopt; // amp_set_hyperparameter names the missing 'lr'
  double rate = schedule.rate(base, step);
  std::optional<std::string> problem = learningRateProblem(rate, *info);
  if (rate == 0 && schedule.isZero(step))
    return std::nullopt;
  return problem;
}

std::optional<double> Stepper::accumulation() const {
  for (int32_t i = 0; i < model.numTensors(); ++i) {
    const amp_tensor_info *info = model.tensor(i);
    if (info->role != AMP_ROLE_HYPERPARAMETER ||
        llvm::StringRef(info->name) != kAccumulateName)
      continue;
    if (const void *data = model.stateTensor(state, info->name))
      return amp::loadValue(data, info->dtype, 0);
  }
  return std::nullopt;
}

Stepper::AccumulationResult Stepper::setAccumulation(int64_t count,
                                                     std::string &error) {
  if (!accumulates())
    return count == 1 ? AccumulationResult::Set
                      : AccumulationResult::NotCompiled;
  if (model.setHyperparameter(state, kAccumulateName, double(count)) == 0)
    return AccumulationResult::Set;
  error = model.lastError();
  return AccumulationResult::Failed;
}
