//===- LoaderCAPI.cpp - the one loader, for C and ctypes callers ----------===//
//
// An amp_loaded_model is the LoadedModel itself, never destroyed
// (LoaderCAPI.h says why).
//
//===----------------------------------------------------------------------===//

#include "amp/Host/LoaderCAPI.h"

#include "amp/Host/LoadedModel.h"

#include <string>

using mlir::amp::LoadedModel;

namespace {
/// Per thread, as dlerror's message is.
thread_local std::string lastError;
} // namespace

amp_loaded_model *amp_loader_open(const char *path) {
  if (!path) {
    lastError = "amp_loader_open: no path";
    return nullptr;
  }
  std::unique_ptr<LoadedModel> model = LoadedModel::open(path, lastError);
  if (!model)
    return nullptr;
  lastError.clear();
  return reinterpret_cast<amp_loaded_model *>(model.release());
}

const char *amp_loader_error(void) { return lastError.c_str(); }

void *amp_loader_symbol(const amp_loaded_model *model, const char *name) {
  if (!model || !name)
    return nullptr;
  return reinterpret_cast<const LoadedModel *>(model)->symbol(name);
}
