//===- FindNonfinite.h - amp-run --find-nonfinite ---------------*- C++ -*-===//
//
// When a step goes non-finite (or on every step), re-runs it from the state
// saved just before it in the library rebuilt with amp-compile
// --instrument-nonfinite, and reports the first op whose results went inf
// or NaN from finite operands (docs/Debugging.md).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUN_FINDNONFINITE_H
#define AMP_RUN_FINDNONFINITE_H

#include "amp/Runtime/ModelABI.h"

#include "llvm/Support/CommandLine.h"

#include <memory>
#include <string>

namespace amp {

/// The options of --find-nonfinite (their own category in --help).
llvm::cl::OptionCategory &nonfiniteOptionCategory();

/// What the finder reads from the library being trained.
struct TrainedModel {
  std::string libraryPath;
  decltype(&amp_num_tensors) numTensors;
  decltype(&amp_tensor) tensor;
  decltype(&amp_state_tensor) stateTensor;
  decltype(&amp_last_error) lastError;
};

class NonfiniteFinder {
public:
  /// Null unless --find-nonfinite was given; `error` is set when its
  /// options are wrong.
  static std::unique_ptr<NonfiniteFinder> create(const TrainedModel &model,
                                                 std::string &error);
  ~NonfiniteFinder();

  /// Saves the state the next step starts from, when it may be needed.
  /// False with `error` when the state cannot be read.
  bool beforeStep(amp_state *state, std::string &error);

  /// After step `step`: `trigger` says what went non-finite ("" when
  /// nothing did). Re-runs the step instrumented when asked to and prints
  /// the report; false with `error` when that cannot be done.
  bool afterStep(int64_t step, const std::string &trigger, std::string &error);

  /// Writes --find-nonfinite-report (JSON), if given.
  bool writeReport(std::string &error);

  /// Whether the finder wants the trigger computed after each step.
  bool isActive() const;

  struct Impl;

private:
  explicit NonfiniteFinder(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl;
};

} // namespace amp

#endif // AMP_RUN_FINDNONFINITE_H
