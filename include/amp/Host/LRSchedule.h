//===- LRSchedule.h - amp-run's --lr-schedule -------------------*- C++ -*-===//
//
// Learning-rate schedules from a spec "NAME[:KEY=VALUE,...]", with the
// formulas of python/amp/schedules.py (PyTorch's LinearLR,
// CosineAnnealingLR, StepLR) and its keyword names:
//   constant
//   linear_warmup:warmup_steps=W[,start_factor=0]
//   cosine:total_steps=T[,min_lr=0]
//   warmup_cosine:warmup_steps=W,total_steps=T[,min_lr=0]
//   step_decay:step_size=S[,gamma=0.1]
//
//===----------------------------------------------------------------------===//

#ifndef AMP_HOST_LRSCHEDULE_H
#define AMP_HOST_LRSCHEDULE_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace amp {

struct LRSchedule {
  enum class Kind { Constant, LinearWarmup, Cosine, WarmupCosine, StepDecay };
  Kind kind = Kind::Constant;
  double warmupSteps = 0, startFactor = 0, totalSteps = 0, minLR = 0;
  double stepSize = 0, gamma = 0.1;

  /// Parses `spec`; false with `error` saying what is wrong otherwise.
  bool parse(llvm::StringRef spec, std::string &error);
  /// The rate of step `step` (0 for the first) from the base rate `lr`.
  double rate(double lr, int64_t step) const;
  /// Whether the formula's rate at step `step` is exactly 0 for any base
  /// rate (a warm-up's first step from 0, cosine's end at min_lr=0, a decay
  /// by gamma=0), rather than a positive one that underflowed.
  bool isZero(int64_t step) const;
  /// The steps of [0, steps) among which the schedule takes its largest
  /// rate and its smallest rate above 0 (it is monotone between them), so
  /// that checking them checks every step.
  llvm::SmallVector<int64_t> extremeSteps(int64_t steps) const;
};

} // namespace amp

#endif // AMP_HOST_LRSCHEDULE_H
