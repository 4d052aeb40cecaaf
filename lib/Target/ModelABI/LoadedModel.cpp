//===- LoadedModel.cpp - a compiled model library, loaded -----------------===//

#include "amp/Target/ModelABI/LoadedModel.h"

#include <dlfcn.h>

using namespace mlir::amp;

std::unique_ptr<LoadedModel> LoadedModel::open(const std::string &path,
                                               std::string &error) {
  std::unique_ptr<LoadedModel> model(new LoadedModel);
  // dlopen searches the library path for a bare file name: callers pass an
  // absolute path.
  model->handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!model->handle) {
    const char *reason = dlerror();
    error = "cannot load '" + path + "': " + (reason ? reason : "unknown");
    return nullptr;
  }
  auto resolve = [&](const char *symbol, auto &member) {
    member = reinterpret_cast<std::decay_t<decltype(member)>>(
        dlsym(model->handle, symbol));
    return member != nullptr;
  };
  bool complete = true;
#define AMP_RESOLVE(symbol, member) complete &= resolve(#symbol, model->member);
  AMP_MODEL_ABI_FUNCTIONS(AMP_RESOLVE)
#undef AMP_RESOLVE
#define AMP_RESOLVE_OPTIONAL(symbol, member) resolve(#symbol, model->member);
  AMP_MODEL_ABI_OPTIONAL_FUNCTIONS(AMP_RESOLVE_OPTIONAL)
#undef AMP_RESOLVE_OPTIONAL
  if (!complete) {
    error = "'" + path +
            "' is not a library made by amp-compile (the model "
            "ABI is missing)";
    return nullptr;
  }
  if (model->abiVersion() != AMP_ABI_VERSION) {
    error = "'" + path + "' has model ABI version " +
            std::to_string(model->abiVersion()) + " but this amp speaks " +
            std::to_string(AMP_ABI_VERSION);
    return nullptr;
  }
  return model;
}

LoadedModel::~LoadedModel() {
  if (handle)
    dlclose(handle);
}
