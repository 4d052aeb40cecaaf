//===- Bisect.h - find the ops a mixed-precision step needs in fp32 -*- C++
//-*-//
//
// amp-bisect's logic (docs/Debugging.md): compare the mixed-precision
// training step with the fp32 one over a few steps and find a small set of
// ops to pin to fp32 (bisection over the low-precision ops, then a greedy
// minimisation) so that the loss stays within a tolerance of fp32.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DRIVER_BISECT_H
#define AMP_DRIVER_BISECT_H

#include "amp/Pipelines/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace mlir::amp {

/// What amp-bisect was asked.
struct BisectOptions {
  std::string model;
  /// amp-compile's options that shape the step, as "--NAME=VALUE"
  /// (--precision=fp16|bf16 required; --policy is what amp-bisect writes):
  /// the in-process step build reads them as training pipeline options, and
  /// amp-compile gets them as they are.
  SmallVector<std::string> compileArguments;
  int64_t steps = 5;
  uint64_t seed = 1;
  double tolerance = 0.01;
  std::string output;
  /// Where amp-compile and amp-run are.
  std::string toolDirectory;
};

/// The location names (what a policy pin matches) of the ops of the built
/// step that compute in a low-precision type, in op order, each once;
/// `unnamed` counts those without a name, which no pin can name.
SmallVector<std::string> lowPrecisionOpNames(ModuleOp step, unsigned &unnamed);

/// The bytes the step's amp.cast ops write: elements times element size.
int64_t castBytes(ModuleOp step);

/// The largest relative deviation of `run`'s loss from `reference`'s over
/// their steps; infinity when `run` is shorter or not finite.
double maxRelativeDeviation(ArrayRef<double> reference, ArrayRef<double> run);

/// A small subset of `candidates` whose pinning keeps `deviation` within
/// `tolerance`, assuming pinning all of them does: bisection (drop a half
/// that is not needed, split one that is), then a greedy pass dropping each
/// remaining pin that is not needed.
SmallVector<std::string>
minimisePins(ArrayRef<std::string> candidates,
             function_ref<double(ArrayRef<std::string>)> deviation,
             double tolerance);

/// The whole search: writes the policy to `options.output` and the report to
/// `report`. On failure, `message` says why (or the diagnostics did).
LogicalResult runBisect(MLIRContext &context, const BisectOptions &options,
                        llvm::raw_ostream &report, std::string &message);

/// Stops the search for `signal` (SIGINT, SIGTERM, SIGHUP), from a signal
/// handler (async-signal-safe): the running trial's process group gets
/// SIGTERM (SIGKILL on a second signal), and runBisect fails at its next
/// step, leaving no trial folder and no temporary of the policy. The caller
/// then ends as the signal would have (bisectInterruption()).
void interruptBisect(int signal);

/// The signal given to interruptBisect, or 0.
int bisectInterruption();

} // namespace mlir::amp

#endif // AMP_DRIVER_BISECT_H
