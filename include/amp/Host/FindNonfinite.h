//===- FindNonfinite.h - amp-run --find-nonfinite ---------------*- C++ -*-===//
//
// The settings of --find-nonfinite and how the host gets the instrumented
// library (the amp-compile beside the running program, the file cached
// beside the library); the re-run and the report are NonfiniteFinder's
// (NonfiniteFinder.h), which the Python package shares (docs/Debugging.md).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_HOST_FINDNONFINITE_H
#define AMP_HOST_FINDNONFINITE_H

#include "amp/Host/NonfiniteFinder.h"
#include "amp/Runtime/NonfiniteABI.h"

#include <memory>
#include <optional>
#include <string>

namespace amp {

/// --find-nonfinite[=MODE] and --find-nonfinite-report=FILE as given.
struct NonfiniteSettings {
  /// MODE as given (empty for the bare option); none without the option.
  std::optional<std::string> mode;
  std::string reportPath;

  /// The mode ("first" for the bare option, "every"), or empty without
  /// the option: ranks of a data-parallel run must agree on it.
  std::string setting() const;
};

/// Null unless --find-nonfinite was given; `error` is set when its settings
/// are wrong. The instrumented library of `libraryPath` is built on demand
/// with the amp-compile arguments the loaded library records
/// (`buildArgument`, its amp_build_argument; null when it has none).
std::unique_ptr<mlir::amp::NonfiniteFinder> createNonfiniteFinder(
    const NonfiniteSettings &settings, const std::string &libraryPath,
    const mlir::amp::TrainedModel &model,
    decltype(&amp_build_argument) buildArgument, std::string &error);

/// Prints the report of step `step`, if the finder made one; false with
/// `error` when the re-run failed.
bool checkNonfiniteStep(mlir::amp::NonfiniteFinder &finder, int64_t step,
                        amp_state *state, float loss, std::string &error);

/// Writes the reports to `reportPath` (JSON), if not empty.
bool writeNonfiniteReport(const mlir::amp::NonfiniteFinder &finder,
                          const std::string &reportPath, std::string &error);

} // namespace amp

#endif // AMP_HOST_FINDNONFINITE_H
