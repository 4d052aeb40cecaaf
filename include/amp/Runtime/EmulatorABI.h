/*===- EmulatorABI.h - kernels of the emulated CUDA device ----------*- C
 *-*-===*
 *
 * The contract between kernels compiled for the emulated CUDA device (the
 * emulator target of gpu-module-to-binary, or kernels written by hand for
 * tests) and the device itself, libamp_cuda_emulator.so, which stands in for
 * libcuda.so.1 and libcublasLt.so.13 (docs/GPURuntime.md, "Emulated device").
 *
 * Kernel object (what cuModuleLoadData takes, embedded in a model library
 * where a cubin would be): an amp_emu_object_header followed by `elf_bytes`
 * bytes of a host ELF shared object. The device writes the shared object to
 * an anonymous file and dlopens it; it must export AMP_EMU_TABLE_SYMBOL, an
 * amp_emu_module: the kernels it holds.
 *
 * Kernel entry: void entry(void **params, amp_emu_thread *thread). `params`
 * is cuLaunchKernel's parameter array (one pointer per declared parameter,
 * to a value of param_sizes[i] bytes). The entry runs once per thread of the
 * grid; `thread` says which, and is how the kernel reaches its block's
 * shared memory and the collective operations (barrier, warp shuffle).
 * Kernels whose flags lack AMP_EMU_USES_SYNC run their threads as a plain
 * loop; the others run every thread of a block as a fiber, so that a barrier
 * or a shuffle suspends the thread until its block or warp arrives.
 *
 * Plain C: kernels and the generated code depend on nothing else.
 *
 *===----------------------------------------------------------------------===*/

#ifndef AMP_RUNTIME_EMULATORABI_H
#define AMP_RUNTIME_EMULATORABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* "AMPEMU" followed by the format version in the last two bytes. */
#define AMP_EMU_MAGIC "AMPEMU\0\1"
#define AMP_EMU_MAGIC_BYTES 8
#define AMP_EMU_VERSION 1
#define AMP_EMU_TABLE_SYMBOL "amp_emu_table"
#define AMP_EMU_WARP_SIZE 32

typedef struct amp_emu_object_header {
  char magic[AMP_EMU_MAGIC_BYTES]; /* AMP_EMU_MAGIC */
  uint32_t version;                /* AMP_EMU_VERSION */
  uint32_t header_bytes;           /* sizeof(amp_emu_object_header) */
  uint64_t elf_bytes;              /* size of the shared object that follows */
} amp_emu_object_header;

/* gpu.shuffle's modes (the values of MLIR's gpu::ShuffleMode). */
enum amp_emu_shuffle_mode {
  AMP_EMU_SHUFFLE_XOR = 0,
  AMP_EMU_SHUFFLE_DOWN = 1,
  AMP_EMU_SHUFFLE_UP = 2,
  AMP_EMU_SHUFFLE_IDX = 3
};

struct amp_emu_thread;

/* The collective operations, provided by the device. */
typedef struct amp_emu_callbacks {
  /* gpu.barrier: every thread of the block must reach it. */
  void (*barrier)(struct amp_emu_thread *thread);
  /* gpu.shuffle on 32 bits within groups of `width` lanes of the warp; sets
   * *valid to whether the source lane exists (the value is then the source
   * lane's, otherwise the caller's own). Every lane of the warp must take
   * part. */
  uint32_t (*shuffle)(struct amp_emu_thread *thread, uint32_t value,
                      int32_t offset, int32_t width, int32_t mode,
                      int32_t *valid);
} amp_emu_callbacks;

typedef struct amp_emu_thread {
  uint32_t thread_id[3];
  uint32_t block_id[3];
  uint32_t block_dim[3];
  uint32_t grid_dim[3];
  uint32_t lane_id; /* linear thread index % AMP_EMU_WARP_SIZE */
  uint32_t reserved;
  /* The block's shared memory: static_shared_bytes of the kernel, then the
   * launch's dynamic shared memory, 16-byte aligned. */
  char *shared_memory;
  const amp_emu_callbacks *callbacks;
  void *device_private; /* the device's, not the kernel's */
  /* Bytes the thread loaded from and stored to device memory (the kernel's
   * pointer parameters), counted by kernels from the emulator target; the
   * device sums them per launch. */
  uint64_t loaded_bytes;
  uint64_t stored_bytes;
  /* Floating-point operations the thread executed, counted likewise (1 per
   * element of an arithmetic op, compare or math function; fma 2). */
  uint64_t flops;
} amp_emu_thread;

/* The kernel uses barrier or shuffle: its threads must run as fibers. */
#define AMP_EMU_USES_SYNC 1u

typedef struct amp_emu_kernel {
  const char *name;
  void (*entry)(void **params, amp_emu_thread *thread);
  uint32_t param_count;
  uint32_t flags;              /* AMP_EMU_USES_SYNC */
  const uint32_t *param_sizes; /* param_count entries, bytes */
  uint64_t static_shared_bytes;
} amp_emu_kernel;

typedef struct amp_emu_module {
  uint32_t version; /* AMP_EMU_VERSION */
  uint32_t kernel_count;
  const amp_emu_kernel *kernels;
} amp_emu_module;

/* Emulator extension the runtime resolves optionally (absent from a real
 * driver): the number of parameters of the next cuLaunchKernel on this
 * thread, which the driver API does not pass but MLIR's launches know:
 * void ampEmuSetLaunchParamCount(uint64_t count). */
#define AMP_EMU_SET_PARAM_COUNT_SYMBOL "ampEmuSetLaunchParamCount"
/* And the bytes of a block the runtime's pool hands out (or, with `freed`,
 * takes back): void ampEmuPoolBlock(void *block, size_t bytes, int freed). */
#define AMP_EMU_POOL_BLOCK_SYMBOL "ampEmuPoolBlock"
/* The profile in memory, for amp-run --profile (without a file, unlike
 * AMP_EMULATOR_PROFILE): start recording, returning the number of lines
 * already recorded: uint64_t ampEmuProfileStart(void); then hand every
 * JSON line from the `first` to `each`, in order:
 * void ampEmuProfileForEach(uint64_t first,
 *     void (*each)(const char *line, void *context), void *context). */
#define AMP_EMU_PROFILE_START_SYMBOL "ampEmuProfileStart"
#define AMP_EMU_PROFILE_FOR_EACH_SYMBOL "ampEmuProfileForEach"

#ifdef __cplusplus
}
#endif

#endif /* AMP_RUNTIME_EMULATORABI_H */
