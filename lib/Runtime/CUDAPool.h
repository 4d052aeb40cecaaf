//===- CUDAPool.h - a caching pool of device memory -------------*- C++ -*-===//
//
// Internal to libamp_cuda_runtime. Compiled training steps allocate and free
// their temporaries on every step; cuMemAlloc/cuMemFree cost tens of
// microseconds each and cuMemFree synchronizes the device, so freed blocks
// are kept, per rounded size, and handed out again. Memory goes back to the
// driver only when an allocation fails (then the allocation is retried once)
// or at process exit, when the driver reclaims the whole context.
//
// Blocks are reused in stream order: a block freed while kernels that use it
// are still queued is handed to the next allocation, whose users are queued
// behind them on the same (only) stream.
//
// CUDA graphs: a captured step's allocations are host calls the graph does
// not replay, so the blocks it used must hold still. Blocks allocated or
// freed during a capture belong to the graphs: freed, they go to a cache of
// their own that only captures draw from, until the last graph is
// destroyed. Graphs replay in stream order on the one stream, so they may
// share these blocks as plain steps share the ordinary cache.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_RUNTIME_CUDAPOOL_H
#define AMP_LIB_RUNTIME_CUDAPOOL_H

#include <cstddef>

namespace amp {
namespace cuda {

/// The size a request of `bytes` is served with: a multiple of 512 bytes
/// below 1 MiB, above it one of four size classes per power of two (so at
/// most 25% is wasted and blocks of similar sizes are shared).
size_t poolRoundedSize(size_t bytes);

/// Device memory of at least `bytes` bytes (256-byte aligned, as cuMemAlloc
/// gives), or null with a sticky error. `bytes` == 0 gives a valid block.
void *poolAllocate(size_t bytes);
/// Returns a block to the pool. Null is ignored; a pointer the pool did not
/// hand out is an error.
void poolFree(void *pointer);

/// Managed memory (gpu.alloc host_shared) bypasses the cache: the host may
/// read it, so it is freed only after the stream drained.
void *poolAllocateManaged(size_t bytes);
/// Whether any managed block is live (the host could then observe device
/// writes, see mgpuStreamSynchronize).
bool poolHasManagedBlocks();

/// Waits for the stream and gives every cached (free) block back to the
/// driver (not those of the graphs).
void poolReleaseCached();

/// A capture of the stream starts: allocations come from the graphs'
/// blocks, then the ordinary cache, then the driver (in relaxed capture
/// mode: the block is the graph's for as long as it lives).
void poolBeginCapture();
/// The capture ended; `kept` when it made a graph.
void poolEndCapture(bool kept);
/// A graph was destroyed; with the last one the graphs' free blocks go
/// back to the ordinary cache.
void poolGraphDestroyed();

struct PoolStats {
  size_t driverAllocations = 0; // cuMemAlloc calls that succeeded
  size_t reuses = 0;            // allocations served from the cache
  size_t bytesInUse = 0;        // rounded sizes of live blocks
  size_t bytesCached = 0;       // rounded sizes of free blocks kept
  size_t bytesForGraphs = 0;    // free blocks kept for captured graphs
};
PoolStats poolStats();

} // namespace cuda
} // namespace amp

#endif // AMP_LIB_RUNTIME_CUDAPOOL_H
