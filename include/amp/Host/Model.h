//===- Model.h - a compiled model library, bound for a run ------*- C++ -*-===//
//
// A library made by amp-compile as a run drives it: the model ABI's
// functions as the one loader (mlir::amp::LoadedModel) resolved them, the
// run-side symbols beside them (the device, data parallelism, threads, the
// build arguments of --find-nonfinite), and what a run reads of the
// training-step contract (the learning rate, gradient accumulation's
// counter, the loss scales).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_HOST_MODEL_H
#define AMP_HOST_MODEL_H

#include "amp/Host/LoadedModel.h"
#include "amp/Host/NonfiniteFinder.h"
#include "amp/Runtime/DeviceRuntime.h"
#include "amp/Runtime/ModelABI.h"
#include "amp/Runtime/NonfiniteABI.h"
#include "amp/Runtime/StateNames.h"

#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace amp {

/// The state names a run finds tensors by (StateNames.h).
inline constexpr char kLearningRateName[] = AMP_STATE_LEARNING_RATE;
inline constexpr char kAccumulateName[] = AMP_STATE_ACCUMULATE;
inline constexpr char kMicroStepName[] = AMP_STATE_MICRO_STEP;

/// A loaded library's C ABI.
struct Model {
#define AMP_DECLARE_FUNCTION(symbol, member)                                   \
  decltype(&::symbol) member = nullptr;
  /// The model ABI (null optional functions in libraries older than them).
  AMP_MODEL_ABI_FUNCTIONS(AMP_DECLARE_FUNCTION)
  AMP_MODEL_ABI_OPTIONAL_FUNCTIONS(AMP_DECLARE_FUNCTION)
#undef AMP_DECLARE_FUNCTION
  /// Only in libraries compiled for --target=cuda.
  decltype(&amp_cuda_device_ops) cudaDevice = nullptr;
  /// What rebuilds the library (--find-nonfinite's instrumented build).
  decltype(&amp_build_argument) buildArgument = nullptr;
  /// The all-gather of the start-up agreement check (DataParallel.h).
  int32_t (*dpAllgather)(const void *, int64_t, void *,
                         const char **) = nullptr;
  /// OpenBLAS's thread count, in CPU libraries older than amp_cpu_sgemm
  /// (which call the BLAS on the runtime's threads, each call on one).
  void (*setBlasThreads)(int) = nullptr;
  void (*runtimeSgemm)() = nullptr;
  /// The runtime's threads for parallel loops (absent in older libraries).
  int32_t (*setThreads)(int32_t) = nullptr;
};

/// Loads the library at `path` through the one loader (the file checked
/// before dlopen) and binds it; none with `error` set otherwise. Never
/// unloaded: the runtime's threads live until the process ends.
std::optional<Model> loadModel(const std::string &path, std::string &error);

/// The model's learning rate, the hyper-parameter 'lr', or null.
const amp_tensor_info *findLearningRate(const Model &model);

/// Whether the library accumulates gradients (has kAccumulateName).
bool accumulatesGradients(const Model &model);

/// Whether the last call completed an optimizer update: always without
/// gradient accumulation; with it, when the micro-batch counter is back at
/// zero.
bool completedUpdate(const Model &model, amp_state *state);

/// Reads the loss scales of the model, one per loss (scaler-state tensors
/// named "...scale"), in the model's order; none without loss scaling.
/// False when a scale cannot be read (from a GPU whose step failed).
bool readLossScales(const Model &model, amp_state *state,
                    llvm::SmallVectorImpl<float> &scales);

/// What the precision debugger reads of the model.
mlir::amp::TrainedModel trainedModel(const Model &model);

} // namespace amp

#endif // AMP_HOST_MODEL_H
