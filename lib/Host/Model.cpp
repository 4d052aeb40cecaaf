//===- Model.cpp - a compiled model library, bound for a run --------------===//

#include "amp/Host/Model.h"
#include "amp/Runtime/Numerics.h"
#include "amp/Support/OutputFile.h"

#include "llvm/ADT/StringRef.h"

using llvm::StringRef;

namespace {
template <typename T>
bool resolve(const mlir::amp::LoadedModel &library, const char *name, T &fn) {
  fn = reinterpret_cast<T>(library.symbol(name));
  return fn != nullptr;
}
} // namespace

std::optional<amp::Model> amp::loadModel(const std::string &path,
                                         std::string &error) {
  // The loader checks the file, resolves the model ABI and its version.
  auto loaded = mlir::amp::LoadedModel::open(path, error);
  if (!loaded)
    return std::nullopt;
  const mlir::amp::LoadedModel &library = *loaded.release();
  Model m;
#define AMP_COPY_FUNCTION(symbol, member) m.member = library.member;
  AMP_MODEL_ABI_FUNCTIONS(AMP_COPY_FUNCTION)
  AMP_MODEL_ABI_OPTIONAL_FUNCTIONS(AMP_COPY_FUNCTION)
#undef AMP_COPY_FUNCTION
  resolve(library, "amp_cuda_device_ops", m.cudaDevice);
  resolve(library, "amp_build_argument", m.buildArgument);
  resolve(library, "amp_dp_allgather", m.dpAllgather);
  resolve(library, "openblas_set_num_threads", m.setBlasThreads);
  resolve(library, "amp_cpu_sgemm", m.runtimeSgemm);
  resolve(library, "amp_set_num_threads", m.setThreads);
  // The library's copy of amp::OutputFile lists the checkpoint it is
  // saving: a signal then removes that temporary too (libraries older than
  // the hook have none).
  void (*removeTemporaries)() = nullptr;
  if (resolve(library, "amp_output_file_remove_temporaries", removeTemporaries))
    amp::addSignalCleanup(removeTemporaries);
  // A run writes evaluation results (--eval-output): the loader has them
  // optional, a run does not.
  if (!m.numEvalResults || !m.evalResultInfo || !m.evalResult) {
    error = "it is not a library made by amp-compile (the model ABI is "
            "missing)";
    return std::nullopt;
  }
  return m;
}

const amp_tensor_info *amp::findLearningRate(const Model &model) {
  for (int32_t i = 0; i < model.numTensors(); ++i) {
    const amp_tensor_info *info = model.tensor(i);
    if (info->role == AMP_ROLE_HYPERPARAMETER &&
        StringRef(info->name) == kLearningRateName)
      return info;
  }
  return nullptr;
}

bool amp::accumulatesGradients(const Model &model) {
  for (int32_t i = 0; i < model.numTensors(); ++i)
    if (model.tensor(i)->role == AMP_ROLE_HYPERPARAMETER &&
        StringRef(model.tensor(i)->name) == kAccumulateName)
      return true;
  return false;
}

bool amp::completedUpdate(const Model &model, amp_state *state) {
  auto *microStep =
      static_cast<const float *>(model.stateTensor(state, kMicroStepName));
  return !microStep || *microStep == 0;
}

bool amp::readLossScales(const Model &model, amp_state *state,
                         llvm::SmallVectorImpl<float> &scales) {
  for (int32_t i = 0; i < model.numTensors(); ++i) {
    const amp_tensor_info *info = model.tensor(i);
    if (!amp::isLossScale(*info))
      continue;
    auto *scale = static_cast<float *>(model.stateTensor(state, info->name));
    if (!scale)
      return false;
    scales.push_back(*scale);
  }
  return true;
}

mlir::amp::TrainedModel amp::trainedModel(const Model &model) {
  return {model.numTensors, model.tensor, model.stateTensor, model.lastError};
}
