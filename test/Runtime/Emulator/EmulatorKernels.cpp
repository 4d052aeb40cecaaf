//===- EmulatorKernels.cpp - kernels written by hand for the emulator -----===//
//
// A shared object in the emulated device's kernel ABI (amp/Runtime/
// EmulatorABI.h), as the emulator target makes from a gpu.module, for the
// tests of the device itself (amp-cuda-emulator-check): launches, 3-d ids,
// barriers with static and dynamic shared memory, every shuffle mode, and
// kernels that are deliberately broken (an out-of-bounds write, a barrier
// that half the block skips, a shuffle reading a lane not in it).
//
//===----------------------------------------------------------------------===//

#include "amp/Runtime/EmulatorABI.h"

#include <cstdint>

namespace {

template <typename T> T &param(void **params, int i) {
  return *static_cast<T *>(params[i]);
}

uint32_t globalX(const amp_emu_thread *t) {
  return t->block_id[0] * t->block_dim[0] + t->thread_id[0];
}

uint32_t linearThread(const amp_emu_thread *t) {
  return (t->thread_id[2] * t->block_dim[1] + t->thread_id[1]) *
             t->block_dim[0] +
         t->thread_id[0];
}

void barrier(amp_emu_thread *t) { t->callbacks->barrier(t); }

uint32_t shuffle(amp_emu_thread *t, uint32_t value, int32_t offset,
                 int32_t mode, int32_t *valid) {
  return t->callbacks->shuffle(t, value, offset, AMP_EMU_WARP_SIZE, mode,
                               valid);
}

/// out[i] = value for i < n (the runtime check's fill kernel), counting
/// its stores as kernels from the emulator target do.
void fill(void **params, amp_emu_thread *t) {
  float *out = param<float *>(params, 0);
  uint32_t n = param<uint32_t>(params, 1);
  uint32_t i = globalX(t);
  if (i < n) {
    out[i] = param<float>(params, 2);
    t->stored_bytes += sizeof(float);
  }
}

/// out[i] = in[i] for i < n.
void copy(void **params, amp_emu_thread *t) {
  const float *in = param<float *>(params, 0);
  float *out = param<float *>(params, 1);
  uint32_t i = globalX(t);
  if (i < param<uint32_t>(params, 2))
    out[i] = in[i];
}

/// Every thread of a 3-d grid of 3-d blocks writes its ids to its own slot.
void ids(void **params, amp_emu_thread *t) {
  uint32_t *out = param<uint32_t *>(params, 0);
  uint32_t block =
      (t->block_id[2] * t->grid_dim[1] + t->block_id[1]) * t->grid_dim[0] +
      t->block_id[0];
  uint32_t threads = t->block_dim[0] * t->block_dim[1] * t->block_dim[2];
  uint32_t slot = block * threads + linearThread(t);
  out[slot] = t->block_id[0] | t->block_id[1] << 4 | t->block_id[2] << 8 |
              t->thread_id[0] << 12 | t->thread_id[1] << 18 |
              t->thread_id[2] << 24;
}

/// Reverses each block's slice through static shared memory: without the
/// barrier a thread would read a slot its partner has not written yet.
void reverse(void **params, amp_emu_thread *t) {
  const float *in = param<float *>(params, 0);
  float *out = param<float *>(params, 1);
  float *tile = reinterpret_cast<float *>(t->shared_memory);
  uint32_t tid = t->thread_id[0], n = t->block_dim[0];
  uint32_t base = t->block_id[0] * n;
  tile[tid] = in[base + tid];
  barrier(t);
  out[base + tid] = tile[n - 1 - tid];
}

/// Tree sum of each block's slice in dynamic shared memory (after the
/// kernel's 16 static bytes), log2(blockDim) barriers.
void blockSum(void **params, amp_emu_thread *t) {
  const float *in = param<float *>(params, 0);
  float *out = param<float *>(params, 1);
  float *partial = reinterpret_cast<float *>(t->shared_memory + 16);
  uint32_t tid = t->thread_id[0], n = t->block_dim[0];
  partial[tid] = in[t->block_id[0] * n + tid];
  barrier(t);
  for (uint32_t half = n / 2; half > 0; half /= 2) {
    if (tid < half)
      partial[tid] += partial[tid + half];
    barrier(t);
  }
  if (tid == 0)
    out[t->block_id[0]] = partial[0];
}

/// Butterfly sum over each warp with xor shuffles; lane 0 writes it.
void warpSum(void **params, amp_emu_thread *t) {
  const float *in = param<float *>(params, 0);
  float *out = param<float *>(params, 1);
  float value = in[globalX(t)];
  for (int32_t offset = 16; offset > 0; offset /= 2) {
    uint32_t bits, other;
    __builtin_memcpy(&bits, &value, 4);
    int32_t valid;
    other = shuffle(t, bits, offset, AMP_EMU_SHUFFLE_XOR, &valid);
    float theirs;
    __builtin_memcpy(&theirs, &other, 4);
    value += theirs;
  }
  if (t->lane_id == 0)
    out[globalX(t) / AMP_EMU_WARP_SIZE] = value;
}

/// Per lane: up 1, down 1, idx 3 and xor 5 of (lane + 100), each as value
/// or -1 when the source lane does not exist.
void shuffleModes(void **params, amp_emu_thread *t) {
  int32_t *out = param<int32_t *>(params, 0);
  uint32_t lane = t->lane_id;
  const int32_t modes[4] = {AMP_EMU_SHUFFLE_UP, AMP_EMU_SHUFFLE_DOWN,
                            AMP_EMU_SHUFFLE_IDX, AMP_EMU_SHUFFLE_XOR};
  const int32_t offsets[4] = {1, 1, 3, 5};
  for (int i = 0; i < 4; ++i) {
    int32_t valid;
    uint32_t v = shuffle(t, lane + 100, offsets[i], modes[i], &valid);
    out[globalX(t) * 4 + i] = valid ? int32_t(v) : -1;
  }
}

/// Broken: writes one element past the end of out (n elements).
void overflow(void **params, amp_emu_thread *t) {
  float *out = param<float *>(params, 0);
  uint32_t n = param<uint32_t>(params, 1);
  uint32_t i = globalX(t);
  if (i <= n)
    out[i] = 1.0f;
}

/// Broken: odd threads return before the barrier the even ones wait at.
void skippedBarrier(void **, amp_emu_thread *t) {
  if (t->thread_id[0] % 2)
    return;
  barrier(t);
}

/// Broken: lanes 0-15 read lane 20, which waits at the barrier instead.
void strayShuffle(void **, amp_emu_thread *t) {
  if (t->lane_id < 16) {
    int32_t valid;
    shuffle(t, t->lane_id, 20, AMP_EMU_SHUFFLE_IDX, &valid);
  }
  barrier(t);
}

const uint32_t kPointerPointerCount[] = {8, 8, 4};
const uint32_t kPointerCountValue[] = {8, 4, 4};
const uint32_t kPointer[] = {8};
const uint32_t kPointerPointer[] = {8, 8};
const uint32_t kPointerCount[] = {8, 4};

const amp_emu_kernel kKernels[] = {
    {"amp_check_fill", fill, 3, 0, kPointerCountValue, 0},
    {"copy", copy, 3, 0, kPointerPointerCount, 0},
    {"ids", ids, 1, 0, kPointer, 0},
    {"reverse", reverse, 2, AMP_EMU_USES_SYNC, kPointerPointer, 1024 * 4},
    {"block_sum", blockSum, 2, AMP_EMU_USES_SYNC, kPointerPointer, 16},
    {"warp_sum", warpSum, 2, AMP_EMU_USES_SYNC, kPointerPointer, 0},
    {"shuffle_modes", shuffleModes, 1, AMP_EMU_USES_SYNC, kPointer, 0},
    {"overflow", overflow, 2, 0, kPointerCount, 0},
    {"skipped_barrier", skippedBarrier, 0, AMP_EMU_USES_SYNC, nullptr, 0},
    {"stray_shuffle", strayShuffle, 0, AMP_EMU_USES_SYNC, nullptr, 0},
};

} // namespace

extern "C" __attribute__((visibility("default")))
const amp_emu_module amp_emu_table = {
    AMP_EMU_VERSION, sizeof(kKernels) / sizeof(kKernels[0]), kKernels};
