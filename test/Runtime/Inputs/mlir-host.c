/* Loads a shared library made from MLIR's lowering of Inputs/add.mlir and
   linked with libamp_cuda_runtime.a, as a program loads a model library:
   its global constructor loads the GPU code through mgpuModuleLoad (or
   mgpuModuleLoadJIT). Then it calls the host function, whose launch goes
   through mgpuModuleGetFunction / mgpuLaunchKernel, and prints the runtime's
   error. Only for machines where the runtime cannot start: on a GPU the
   kernel would run on the null buffers passed here. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>

#include "amp/Runtime/DeviceRuntime.h"

typedef void (*AddF32)(void *, void *, int64_t, int64_t, int64_t, int64_t,
                       int64_t, void *, void *, int64_t, int64_t, int64_t,
                       int64_t, int64_t, void *, void *, int64_t, int64_t,
                       int64_t, int64_t, int64_t);

int main(int argc, char **argv) {
  if (argc != 2)
    return 2;
  void *library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    printf("dlopen failed: %s\n", dlerror());
    return 1;
  }
  const amp_device_ops *(*getOps)(void) =
      (const amp_device_ops *(*)(void))dlsym(library, "amp_cuda_device_ops");
  AddF32 add = (AddF32)dlsym(library, "add_f32");
  if (!getOps || !add) {
    printf("missing symbols\n");
    return 1;
  }
  printf("loaded: %s\n", getOps()->last_error());
  add(0, 0, 0, 1000, 8, 8, 1, 0, 0, 0, 1000, 8, 8, 1, 0, 0, 0, 1000, 8, 8, 1);
  printf("after the launch: %s\n", getOps()->last_error());
  dlclose(library);
  printf("unloaded\n");
  return 0;
}
