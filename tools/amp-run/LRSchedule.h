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

#ifndef AMP_RUN_LRSCHEDULE_H
#define AMP_RUN_LRSCHEDULE_H

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
};

} // namespace amp

#endif // AMP_RUN_LRSCHEDULE_H
