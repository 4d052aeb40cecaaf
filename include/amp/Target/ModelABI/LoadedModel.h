//===- LoadedModel.h - a compiled model library, loaded ---------*- C++ -*-===//
//
// A library with the C ABI of include/amp/Runtime/ModelABI.h, opened with
// its own symbol scope (several models live in one process: the Python
// package loads one per amp.compile) and its entry points resolved by name.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_TARGET_MODELABI_LOADEDMODEL_H
#define AMP_TARGET_MODELABI_LOADEDMODEL_H

#include "amp/Runtime/ModelABI.h"

#include <memory>
#include <string>

namespace mlir::amp {

/// The model ABI's functions; the optional ones (eval results, data
/// parallelism, overlapped steps) are null in libraries older than them.
#define AMP_MODEL_ABI_FUNCTIONS(X)                                             \
  X(amp_abi_version, abiVersion)                                               \
  X(amp_last_error, lastError)                                                 \
  X(amp_num_tensors, numTensors)                                               \
  X(amp_tensor, tensor)                                                        \
  X(amp_has_eval, hasEval)                                                     \
  X(amp_state_create, create)                                                  \
  X(amp_state_destroy, destroy)                                                \
  X(amp_state_tensor, stateTensor)                                             \
  X(amp_set_hyperparameter, setHyperparameter)                                 \
  X(amp_train_step, trainStep)                                                 \
  X(amp_eval, eval)                                                            \
  X(amp_state_save, save)                                                      \
  X(amp_state_load, load)
#define AMP_MODEL_ABI_OPTIONAL_FUNCTIONS(X)                                    \
  X(amp_num_eval_results, numEvalResults)                                      \
  X(amp_eval_result_info, evalResultInfo)                                      \
  X(amp_eval_result, evalResult)                                               \
  X(amp_dp_rank, dpRank)                                                       \
  X(amp_dp_world_size, dpWorldSize)                                            \
  X(amp_train_step_begin, beginStep)                                           \
  X(amp_train_step_finish, finishStep)                                         \
  X(amp_train_step_finished_scales, finishedScales)

class LoadedModel {
public:
  /// Opens the library at `path` (RTLD_LOCAL: its runtime does not serve
  /// another model's calls). Null with `error` set when it cannot be opened,
  /// lacks the ABI or speaks another version of it.
  static std::unique_ptr<LoadedModel> open(const std::string &path,
                                           std::string &error);
  ~LoadedModel();
  LoadedModel(const LoadedModel &) = delete;
  LoadedModel &operator=(const LoadedModel &) = delete;

#define AMP_DECLARE_FUNCTION(symbol, member)                                   \
  decltype(&::symbol) member = nullptr;
  AMP_MODEL_ABI_FUNCTIONS(AMP_DECLARE_FUNCTION)
  AMP_MODEL_ABI_OPTIONAL_FUNCTIONS(AMP_DECLARE_FUNCTION)
#undef AMP_DECLARE_FUNCTION

private:
  LoadedModel() = default;
  void *handle = nullptr;
};

} // namespace mlir::amp

#endif // AMP_TARGET_MODELABI_LOADEDMODEL_H
