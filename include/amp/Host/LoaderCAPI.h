//===- LoaderCAPI.h - the one loader, for C and ctypes callers ----*- C -*-===//
//
// mlir::amp::LoadedModel (LoadedModel.h) behind a C interface, built as
// libamp_loader.so, for programs that cannot link C++: the Python scripts
// that call a model library's C ABI through ctypes (the test harnesses and
// the benchmarks, test/lib/python/amp_testing.py) open it here, with the
// checks amp-run and the Python package make (the file's structure, its
// checksum, the ABI and its version), instead of with dlopen themselves.
// Plain C, so that one build serves every Python version; LLVM's Support
// linked statically and no MLIR, so that it goes where amp-run goes (GPU
// machines without LLVM, scripts/gpu-machine.sh).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_HOST_LOADERCAPI_H
#define AMP_HOST_LOADERCAPI_H

#ifdef __cplusplus
extern "C" {
#endif

/* A model library, open. */
typedef struct amp_loaded_model amp_loaded_model;

/* Opens the model library at `path` as LoadedModel::open does (RTLD_LOCAL:
   several models in one process). Null when the file is damaged, cannot be
   opened, lacks the model ABI or speaks another version of it;
   amp_loader_error() then says why. The library stays loaded until the
   process exits, as one opened by ctypes does: the states made from it and
   the function addresses handed out point into it. */
amp_loaded_model *amp_loader_open(const char *path);

/* Why this thread's last amp_loader_open failed ("cannot load 'PATH':
   REASON"); empty after one that succeeded. */
const char *amp_loader_error(void);

/* The address of `name` in the library (an entry point of
   include/amp/Runtime/ModelABI.h, or any other symbol it defines), or null
   when it has none. */
void *amp_loader_symbol(const amp_loaded_model *model, const char *name);

#ifdef __cplusplus
}
#endif

#endif /* AMP_HOST_LOADERCAPI_H */
