//===- LoadedModel.h - a compiled model library, loaded ---------*- C++ -*-===//
//
// The one loader of compiled model libraries (amp-run, amp-bisect through
// amp-run, the Python package, the nonfinite finder; Python scripts that
// call the ABI with ctypes through libamp_loader.so, LoaderCAPI.h). A
// library with the C ABI of include/amp/Runtime/ModelABI.h is opened with
// its own symbol scope (several models live in one process: the Python
// package loads one per amp.compile) and its entry points resolved by name,
// after two checks of the file, before any of it is mapped:
//
// - its ELF structure (amp/Support/ELFFile.h): a file cut short would make
//   the dynamic loader fault;
// - the checksum amp-compile appended to it (LibraryChecksum.h): bytes
//   flipped anywhere (.dynamic, .dynsym, .rela.dyn, code, data) made the
//   dynamic loader or the first call die of SIGSEGV.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_HOST_LOADEDMODEL_H
#define AMP_HOST_LOADEDMODEL_H

#include "amp/Host/LibraryChecksum.h"
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
  /// another model's calls; with `deepBind`, RTLD_DEEPBIND too: its own
  /// definitions first, for a second copy of a model's runtime in a
  /// process). Null with `error` set ("cannot load 'PATH': REASON") when it
  /// is damaged, cannot be opened, lacks the ABI or speaks another version
  /// of it.
  static std::unique_ptr<LoadedModel>
  open(const std::string &path, std::string &error, bool deepBind = false);
  ~LoadedModel();
  LoadedModel(const LoadedModel &) = delete;
  LoadedModel &operator=(const LoadedModel &) = delete;

  /// Any other symbol the library defines (or its dependencies), or null.
  void *symbol(const char *name) const;

#define AMP_DECLARE_FUNCTION(symbol, member)                                   \
  decltype(&::symbol) member = nullptr;
  AMP_MODEL_ABI_FUNCTIONS(AMP_DECLARE_FUNCTION)
  AMP_MODEL_ABI_OPTIONAL_FUNCTIONS(AMP_DECLARE_FUNCTION)
#undef AMP_DECLARE_FUNCTION

private:
  LoadedModel() = default;
  void *handle = nullptr;
  /// The verified file, open while it is loaded: the loader maps it through
  /// /proc/self/fd/N, and knows objects by that name.
  int fd = -1;
};

} // namespace mlir::amp

#endif // AMP_HOST_LOADEDMODEL_H
