//===- NonfiniteFinder.h - name the first op that made inf/NaN --*- C++ -*-===//
//
// The runtime half of precision debugging (docs/Debugging.md), shared by
// amp-run --find-nonfinite and the Python package (amp.debug): the state is
// saved before each step; when a step makes the loss or the state inf or
// NaN (or on every step), the step is re-run from that state in the
// instrumented library (amp-compile --instrument-nonfinite, built on demand
// by the caller) and its records name the first op whose results went
// non-finite from finite operands. Only LLVM's Support: amp-run does not
// link MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_HOST_NONFINITEFINDER_H
#define AMP_HOST_NONFINITEFINDER_H

#include "amp/Runtime/ModelABI.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace mlir::amp {

/// The model ABI of the library being trained, as far as the finder reads
/// it.
struct TrainedModel {
  decltype(&amp_num_tensors) numTensors;
  decltype(&amp_tensor) tensor;
  decltype(&amp_state_tensor) stateTensor;
  decltype(&amp_last_error) lastError;
};

/// The first inf or NaN in the state a checkpoint would hold (inputs and
/// labels excepted), as "tensor 'NAME' element I is VALUE", or "".
std::string describeNonfiniteState(const TrainedModel &model, amp_state *state);

/// What went inf or NaN in a step ("the loss is inf", or as
/// describeNonfiniteState), or "" when nothing did.
std::string nonfiniteTrigger(const TrainedModel &model, amp_state *state,
                             float loss);

/// The op a report names (a "site" of the instrumented step) and what the
/// instrumented step recorded for it.
struct NonfiniteOp {
  int64_t index = -1;
  std::string kind, name, location, precision;
  float operandMin = 0, operandMax = 0;
  /// Whether the op computed in f32 stays finite; unknown without an f32
  /// form.
  std::optional<bool> finiteInF32;
};

/// One re-run step: what went non-finite and the first op that made it.
struct NonfiniteReport {
  int64_t step = 0;
  std::string trigger;
  /// None when the state before the step already held inf or NaN.
  std::optional<NonfiniteOp> site;
};

/// The report as amp-run prints it (several lines, each ending in '\n').
void printNonfiniteReport(llvm::raw_ostream &os, const NonfiniteReport &report);

/// The report as one object of the JSON report's "reports" array.
std::string nonfiniteReportJSON(const NonfiniteReport &report);

/// The JSON report: {"reports": [...]} and a newline.
void writeNonfiniteReports(llvm::raw_ostream &os,
                           llvm::ArrayRef<NonfiniteReport> reports);

/// When steps are re-run: at the first that goes non-finite, or each.
enum class NonfiniteMode { First, Every };

/// "" and "first" are First, "every" is Every; none otherwise.
std::optional<NonfiniteMode> parseNonfiniteMode(llvm::StringRef text);

/// Builds the instrumented library of the trained step (the same model and
/// options, with --instrument-nonfinite) and sets `path` to it, or returns
/// false with `error`. Called once, at the first re-run.
using InstrumentedBuilder =
    std::function<bool(std::string &path, std::string &error)>;

class NonfiniteFinder {
public:
  NonfiniteFinder(const TrainedModel &model, NonfiniteMode mode,
                  InstrumentedBuilder build);
  ~NonfiniteFinder();
  NonfiniteFinder(const NonfiniteFinder &) = delete;
  NonfiniteFinder &operator=(const NonfiniteFinder &) = delete;

  /// Whether the next step is checked (First stops after its report).
  bool isActive() const;

  /// Saves the state the next step starts from, while active. False with
  /// `error` when the state cannot be read.
  bool beforeStep(amp_state *state, std::string &error);

  /// After step `step` (1-based) left `state` and `loss`: re-runs the step
  /// instrumented when it went non-finite (always with Every) and sets
  /// `report` when there is something to report. False with `error` when
  /// the re-run cannot be made.
  bool afterStep(int64_t step, amp_state *state, float loss,
                 std::optional<NonfiniteReport> &report, std::string &error);

  /// Every report so far.
  llvm::ArrayRef<NonfiniteReport> reports() const;

  struct Impl;

private:
  std::unique_ptr<Impl> impl;
};

} // namespace mlir::amp

#endif // AMP_HOST_NONFINITEFINDER_H
