//===- FindNonfinite.h - amp-run --find-nonfinite ---------------*- C++ -*-===//
//
// The command line of --find-nonfinite and how amp-run gets the
// instrumented library (amp-compile beside it, the file cached beside the
// library); the re-run and the report are lib/Target/ModelABI's
// NonfiniteFinder, which the Python package shares (docs/Debugging.md).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUN_FINDNONFINITE_H
#define AMP_RUN_FINDNONFINITE_H

#include "amp/Runtime/NonfiniteABI.h"
#include "amp/Target/ModelABI/NonfiniteFinder.h"

#include "llvm/Support/CommandLine.h"

#include <memory>
#include <string>

namespace amp {

/// The options of --find-nonfinite (their own category in --help).
llvm::cl::OptionCategory &nonfiniteOptionCategory();

/// Null unless --find-nonfinite was given; `error` is set when its options
/// are wrong. The instrumented library of `libraryPath` is built on demand
/// with the amp-compile arguments the loaded library records
/// (`buildArgument`, its amp_build_argument; null when it has none).
std::unique_ptr<mlir::amp::NonfiniteFinder> createNonfiniteFinder(
    const std::string &libraryPath, const mlir::amp::TrainedModel &model,
    decltype(&amp_build_argument) buildArgument, std::string &error);

/// --find-nonfinite as given ("first" for the bare option, "every"), or
/// empty when it was not: ranks of a data-parallel run must agree on it.
std::string findNonfiniteSetting();

/// Prints the report of step `step`, if the finder made one; false with
/// `error` when the re-run failed.
bool checkNonfiniteStep(mlir::amp::NonfiniteFinder &finder, int64_t step,
                        amp_state *state, float loss, std::string &error);

/// Writes --find-nonfinite-report (JSON), if given.
bool writeNonfiniteReport(const mlir::amp::NonfiniteFinder &finder,
                          std::string &error);

} // namespace amp

#endif // AMP_RUN_FINDNONFINITE_H
