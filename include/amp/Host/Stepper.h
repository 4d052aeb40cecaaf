//===- Stepper.h - the per-step rules of a model state ----------*- C++ -*-===//
//
// The one owner of the rules for stepping an open model state, which
// amp-run's Session and the Python package's Trainer (through the
// extension, python/src/AmpModule.cpp) both follow:
//
// - a training step's call on one micro-batch, and whether it completed an
//   optimizer update (gradient accumulation's micro-batch counter back at
//   zero); an update as micro-batches until one completes it;
// - the overlapped step (amp_train_step_begin, then _finish with the loss
//   scales of the step it finished);
// - the learning rate: set, read, checked in the type the model stores it
//   in, and an --lr-schedule's rate at a step;
// - the micro-batches per update, and the loss scales.
//
// Writing a micro-batch's inputs and reporting its outcome stay with the
// caller; so do the messages that name a caller's options.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_HOST_STEPPER_H
#define AMP_HOST_STEPPER_H

#include "amp/Host/LRSchedule.h"
#include "amp/Host/Model.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <cmath>
#include <optional>
#include <string>

namespace amp {

/// Why `value` cannot be a learning rate stored as `info`'s dtype, or
/// nothing when it is positive and finite there: a rate of 0 trains
/// nothing, and 1e-50 is 0 in f32.
std::optional<std::string> learningRateProblem(double value,
                                               const amp_tensor_info &info);

/// The rules above on one state of `model` (neither is owned).
class Stepper {
public:
  Stepper(const Model &model, amp_state *state);

  /// What one call of the training step (a micro-batch) gave.
  struct MicroBatch {
    float loss = NAN;
    int32_t skipped = 0;
    /// Whether it completed an optimizer update.
    bool completed = true;
  };
  /// What one optimizer update gave: its micro-batches' mean loss, whether
  /// its update was skipped and the seconds of its step calls.
  struct Update {
    float loss = NAN;
    int32_t skipped = 0;
    int64_t microBatches = 0;
    double seconds = 0;
  };

  /// Runs the training step once on the batch in the state; false with
  /// the library's error otherwise.
  bool trainMicroBatch(MicroBatch &result, std::string &error);

  /// One optimizer update: micro-batches until one completes it, `before`
  /// writing each one's batch and `after` seeing its loss. False when a
  /// hook returns false (which reported why: `error` is left empty), with
  /// the library's error, or when no micro-batch completes an update.
  bool runUpdate(llvm::function_ref<bool()> before,
                 llvm::function_ref<bool(float loss)> after, Update &update,
                 std::string &error);

  /// Whether the library has overlapped steps (amp_train_step_begin and
  /// _finish), and whether each finish gives its step's loss scales (or
  /// the model scales no loss).
  bool hasOverlappedSteps() const;
  bool finishReportsScales() const;
  /// Begins a step on the batch in the state; false with the library's
  /// error.
  bool beginStep(std::string &error);
  /// Finishes the oldest begun step; its loss scales into `scales` when
  /// given. False with the library's error.
  bool finishStep(MicroBatch &result, llvm::SmallVectorImpl<float> *scales,
                  std::string &error);

  /// Whether the last call completed an optimizer update.
  bool completedUpdate() const {
    return !countsMicroBatches || amp::completedUpdate(model, state);
  }
  /// The loss scales, one per loss (none without loss scaling); false when
  /// one cannot be read.
  bool lossScales(llvm::SmallVectorImpl<float> &scales) const {
    return readLossScales(model, state, scales);
  }

  /// The hyper-parameter 'lr', or null.
  const amp_tensor_info *learningRate() const {
    return findLearningRate(model);
  }
  /// The state's learning rate; none without 'lr' or when it cannot be
  /// read.
  std::optional<double> readLearningRate() const;
  /// Sets 'lr'; false with the library's error (which names a missing
  /// 'lr').
  bool setLearningRate(double lr, std::string &error);
  /// Why `schedule`'s rate from `base` at step `step` (0 for the first)
  /// cannot be used, or nothing: it must be positive and finite in the
  /// type of 'lr', or exactly 0 by the formula (a warm-up from 0, cosine's
  /// end at min_lr=0, step_decay's gamma=0). Nothing without 'lr'.
  std::optional<std::string> scheduledRateProblem(const LRSchedule &schedule,
                                                  double base,
                                                  int64_t step) const;

  /// Whether the library accumulates gradients.
  bool accumulates() const { return accumulatesGradients(model); }
  /// The micro-batches per update the state holds (0: the compiled count);
  /// none without gradient accumulation.
  std::optional<double> accumulation() const;
  enum class AccumulationResult { Set, NotCompiled, Failed };
  /// Sets the micro-batches per update: 1 is also fine for a library that
  /// does not accumulate (NotCompiled for another count); Failed with the
  /// library's error.
  AccumulationResult setAccumulation(int64_t count, std::string &error);

private:
  const Model &model;
  amp_state *state;
  /// Whether the state has gradient accumulation's micro-batch counter:
  /// asking a state for a tensor it lacks records an error in the library
  /// (and, in a data-parallel library unloaded from Python, made the
  /// process fault at exit), so a step without one asks for nothing.
  bool countsMicroBatches = false;
};

} // namespace amp

#endif // AMP_HOST_STEPPER_H
