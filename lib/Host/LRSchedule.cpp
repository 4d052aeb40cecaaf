//===- LRSchedule.cpp - amp-run's --lr-schedule ---------------------------===//

#include "amp/Host/LRSchedule.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"

#include <algorithm>
#include <cmath>

using namespace llvm;
using Kind = amp::LRSchedule::Kind;

namespace {
/// A keyword of a schedule: where its value goes, the least value, whether
/// it counts steps (an integer), and whether it must be given.
struct Key {
  StringRef name;
  double *value;
  double low;
  bool integer;
  bool required;
};

SmallVector<Key> keysOf(amp::LRSchedule &s) {
  Key warmup{"warmup_steps", &s.warmupSteps, 1, true, true};
  Key total{"total_steps", &s.totalSteps, 1, true, true};
  Key minLR{"min_lr", &s.minLR, 0, false, false};
  switch (s.kind) {
  case Kind::Constant:
    return {};
  case Kind::LinearWarmup:
    return {warmup, {"start_factor", &s.startFactor, 0, false, false}};
  case Kind::Cosine:
    return {total, minLR};
  case Kind::WarmupCosine:
    return {warmup, total, minLR};
  case Kind::StepDecay:
    return {{"step_size", &s.stepSize, 1, true, true},
            {"gamma", &s.gamma, 0, false, false}};
  }
  return {};
}

double cosine(double lr, double total, double minLR, double step) {
  step = std::min(step, total);
  return minLR + (lr - minLR) * (1 + std::cos(M_PI * step / total)) / 2;
}

double linearWarmup(double lr, double warmup, double startFactor, double step) {
  if (step >= warmup)
    return lr;
  return lr * (startFactor + (1 - startFactor) * step / warmup);
}
} // namespace

bool amp::LRSchedule::parse(StringRef spec, std::string &error) {
  auto [name, arguments] = spec.split(':');
  std::optional<Kind> parsed = StringSwitch<std::optional<Kind>>(name)
                                   .Case("constant", Kind::Constant)
                                   .Case("linear_warmup", Kind::LinearWarmup)
                                   .Case("cosine", Kind::Cosine)
                                   .Case("warmup_cosine", Kind::WarmupCosine)
                                   .Case("step_decay", Kind::StepDecay)
                                   .Default(std::nullopt);
  if (!parsed) {
    error = "unknown schedule '" + name.str() +
            "' (constant, linear_warmup, cosine, warmup_cosine, step_decay)";
    return false;
  }
  kind = *parsed;
  SmallVector<Key> keys = keysOf(*this);
  SmallVector<StringRef> given;
  SmallVector<StringRef> items;
  if (!arguments.empty())
    arguments.split(items, ',');
  for (StringRef item : items) {
    auto [keyName, text] = item.split('=');
    auto *key = llvm::find_if(
        keys, [&](const Key &k) { return k.name == keyName.trim(); });
    if (key == keys.end()) {
      std::string names;
      for (const Key &k : keys)
        names += (names.empty() ? "" : ", ") + k.name.str();
      error = "'" + name.str() + "' has no parameter '" + keyName.str() +
              "' (" + (names.empty() ? "it takes none" : names) + ")";
      return false;
    }
    if (llvm::is_contained(given, key->name)) {
      error = "'" + key->name.str() + "' is given twice";
      return false;
    }
    given.push_back(key->name);
    double value;
    if (text.trim().getAsDouble(value) || !std::isfinite(value) ||
        value < key->low || (key->integer && value != std::floor(value))) {
      error = "'" + key->name.str() + "' must be a finite " +
              (key->integer ? "integer" : "number") +
              " >= " + std::to_string(int(key->low)) + ", got '" + text.str() +
              "'";
      return false;
    }
    *key->value = value;
  }
  for (const Key &key : keys)
    if (key.required && !llvm::is_contained(given, key.name)) {
      error = "'" + name.str() + "' needs '" + key.name.str() + "='";
      return false;
    }
  return true;
}

double amp::LRSchedule::rate(double lr, int64_t step) const {
  double s = static_cast<double>(step);
  switch (kind) {
  case Kind::Constant:
    return lr;
  case Kind::LinearWarmup:
    return linearWarmup(lr, warmupSteps, startFactor, s);
  case Kind::Cosine:
    return cosine(lr, totalSteps, minLR, s);
  case Kind::WarmupCosine:
    if (s < warmupSteps)
      return linearWarmup(lr, warmupSteps, 0, s);
    return cosine(lr, std::max(1.0, totalSteps - warmupSteps), minLR,
                  s - warmupSteps);
  case Kind::StepDecay:
    return lr * std::pow(gamma, std::floor(s / stepSize));
  }
  return lr;
}

bool amp::LRSchedule::isZero(int64_t step) const {
  double s = static_cast<double>(step);
  switch (kind) {
  case Kind::Constant:
    return false;
  case Kind::LinearWarmup:
    return startFactor == 0 && step == 0;
  case Kind::Cosine:
    return minLR == 0 && s >= totalSteps;
  case Kind::WarmupCosine:
    return step == 0 ||
           (minLR == 0 &&
            s - warmupSteps >= std::max(1.0, totalSteps - warmupSteps));
  case Kind::StepDecay:
    return gamma == 0 && s >= stepSize;
  }
  return false;
}

SmallVector<int64_t> amp::LRSchedule::extremeSteps(int64_t steps) const {
  // The ends of each monotone piece, and the step after a piece's zero
  // start or before its zero end: there the rate is least above 0.
  SmallVector<double> candidates = {0};
  double warmup = warmupSteps, total = totalSteps;
  switch (kind) {
  case Kind::Constant:
  case Kind::StepDecay: // lr * gamma^k, monotone in k
    break;
  case Kind::LinearWarmup:
    candidates.append({1, warmup - 1, warmup});
    break;
  case Kind::Cosine:
    candidates.append({total - 1, total});
    break;
  case Kind::WarmupCosine: {
    double end = warmup + std::max(1.0, total - warmup);
    candidates.append({1, warmup - 1, warmup, end - 1, end});
    break;
  }
  }
  SmallVector<int64_t> result;
  if (steps > 0)
    result.push_back(steps - 1);
  for (double step : candidates)
    if (step >= 0 && step < double(steps))
      result.push_back(static_cast<int64_t>(step));
  llvm::sort(result);
  result.erase(std::unique(result.begin(), result.end()), result.end());
  return result;
}
