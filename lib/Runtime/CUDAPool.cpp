//===- CUDAPool.cpp - a caching pool of device memory ---------------------===//

#include "CUDAPool.h"
#include "CUDADriver.h"

#include <mutex>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

using namespace amp::cuda;

namespace {

constexpr size_t kGranularity = 512;
constexpr size_t kSmallLimit = size_t(1) << 20;
/// Larger than any GPU's memory: rejects sizes whose rounding would overflow.
constexpr size_t kLargestRequest = size_t(1) << 48;

struct Pool {
  std::mutex mutex;
  /// Rounded size of every block handed out and not yet freed.
  std::unordered_map<CUdeviceptr, size_t> live;
  /// Free blocks by rounded size.
  std::unordered_map<size_t, std::vector<CUdeviceptr>> cached;
  std::unordered_set<CUdeviceptr> managed;
  /// Blocks allocated or freed during a capture, and those of them free.
  std::unordered_set<CUdeviceptr> forGraphs;
  std::unordered_map<size_t, std::vector<CUdeviceptr>> cachedForGraphs;
  /// Whether a thread captures, and which: only its allocations and frees
  /// are the graphs'.
  bool capturing = false;
  std::thread::id captureThread;
  size_t graphs = 0;
  PoolStats stats;
};

/// Never destroyed, like the driver state (CUDADriver.cpp): blocks may be
/// freed from global destructors.
Pool &pool() {
  static Pool *instance = new Pool();
  return *instance;
}

size_t alignUp(size_t value, size_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

size_t highestPowerOfTwoBelow(size_t value) {
  size_t power = 1;
  while (power <= value / 2)
    power *= 2;
  return power;
}

CUdeviceptr
takeFrom(std::unordered_map<size_t, std::vector<CUdeviceptr>> &cache,
         size_t &bytes, Pool &p, size_t size) {
  auto it = cache.find(size);
  if (it == cache.end() || it->second.empty())
    return 0;
  CUdeviceptr block = it->second.back();
  it->second.pop_back();
  bytes -= size;
  ++p.stats.reuses;
  return block;
}

CUdeviceptr takeCached(Pool &p, size_t size) {
  return takeFrom(p.cached, p.stats.bytesCached, p, size);
}

/// Whether this thread captures; the caller holds the mutex.
bool capturingHere(const Pool &p) {
  return p.capturing && p.captureThread == std::this_thread::get_id();
}

/// With no graph left, their blocks are ordinary ones.
void releaseGraphBlocksLocked(Pool &p) {
  if (p.graphs != 0 || p.capturing)
    return;
  for (auto &[size, blocks] : p.cachedForGraphs)
    for (CUdeviceptr block : blocks)
      p.cached[size].push_back(block);
  p.stats.bytesCached += p.stats.bytesForGraphs;
  p.stats.bytesForGraphs = 0;
  p.cachedForGraphs.clear();
  p.forGraphs.clear();
}

/// Frees the cached blocks; the caller holds the pool's mutex and has
/// drained the stream.
void releaseCachedLocked(Pool &p) {
  for (auto &entry : p.cached)
    for (CUdeviceptr block : entry.second)
      // A failure here leaves the block to the driver's context teardown;
      // the allocation that follows reports whatever is still wrong.
      (void)api().cuMemFree_v2(block);
  p.cached.clear();
  p.stats.bytesCached = 0;
}

std::string outOfMemory(const Pool &p, size_t requested) {
  size_t freeBytes = 0, totalBytes = 0;
  std::string where;
  if (api().cuMemGetInfo_v2(&freeBytes, &totalBytes) == CUDA_SUCCESS)
    where = " (" + formatBytes(double(freeBytes)) + " free of " +
            formatBytes(double(totalBytes)) + ")";
  return "out of GPU memory: allocating " + formatBytes(double(requested)) +
         " on " + device().name + " failed" + where +
         "; the model's tensors and temporaries hold " +
         formatBytes(double(p.stats.bytesInUse)) +
         " and the pool has already returned its cached blocks (reduce the "
         "batch size or the model)";
}

/// cuMemAlloc, and once more after releasing the cache when the device is
/// full.
CUdeviceptr allocateFromDriver(Pool &p, size_t size, size_t requested) {
  CUdeviceptr block = 0;
  CUresult result = api().cuMemAlloc_v2(&block, size);
  if (result == CUDA_ERROR_OUT_OF_MEMORY && p.stats.bytesCached != 0) {
    // Cached blocks may still be in use by queued work.
    if (!synchronizeStream("waiting for the GPU before releasing cached "
                           "memory"))
      return 0;
    releaseCachedLocked(p);
    result = api().cuMemAlloc_v2(&block, size);
  }
  if (result == CUDA_ERROR_OUT_OF_MEMORY) {
    fail(outOfMemory(p, requested));
    return 0;
  }
  if (!check(result, "allocating " + formatBytes(double(requested)) +
                         " of GPU memory (cuMemAlloc)"))
    return 0;
  ++p.stats.driverAllocations;
  return block;
}

bool checkRequest(size_t bytes) {
  if (bytes <= kLargestRequest)
    return true;
  return fail("out of GPU memory: a request for " + formatBytes(double(bytes)) +
              " exceeds any device");
}

} // namespace

size_t amp::cuda::poolRoundedSize(size_t bytes) {
  if (bytes < kSmallLimit)
    return alignUp(bytes == 0 ? 1 : bytes, kGranularity);
  return alignUp(bytes, highestPowerOfTwoBelow(bytes) / 4);
}

void *amp::cuda::poolAllocate(size_t bytes) {
  if (!ready() || !checkRequest(bytes))
    return nullptr;
  Pool &p = pool();
  size_t size = poolRoundedSize(bytes);
  std::lock_guard<std::mutex> lock(p.mutex);
  CUdeviceptr block = 0;
  if (capturingHere(p))
    block = takeFrom(p.cachedForGraphs, p.stats.bytesForGraphs, p, size);
  if (!block)
    block = takeCached(p, size);
  if (!block && capturingHere(p)) {
    // cuMemAlloc is refused in a global-mode capture (it is not stream
    // ordered); the block stays the graph's, so the graph is valid.
    CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;
    api().cuThreadExchangeStreamCaptureMode(&mode);
    block = allocateFromDriver(p, size, bytes);
    api().cuThreadExchangeStreamCaptureMode(&mode);
  } else if (!block) {
    block = allocateFromDriver(p, size, bytes);
  }
  if (!block)
    return nullptr;
  if (capturingHere(p))
    p.forGraphs.insert(block);
  p.live.emplace(block, size);
  p.stats.bytesInUse += size;
  if (api().ampEmuPoolBlock)
    api().ampEmuPoolBlock(reinterpret_cast<void *>(block), bytes, 0);
  return reinterpret_cast<void *>(block);
}

void amp::cuda::poolFree(void *pointer) {
  if (!pointer || failed())
    return;
  Pool &p = pool();
  CUdeviceptr block = reinterpret_cast<CUdeviceptr>(pointer);
  std::unique_lock<std::mutex> lock(p.mutex);
  if (p.managed.erase(block)) {
    lock.unlock();
    // Not stream ordered: the host may be reading it, and kernels may still
    // be writing it.
    if (synchronizeStream("waiting for the GPU before freeing managed memory"))
      check(api().cuMemFree_v2(block), "freeing managed memory (cuMemFree)");
    return;
  }
  auto it = p.live.find(block);
  if (it == p.live.end()) {
    fail("freeing GPU memory at " + std::to_string(block) +
         " that the runtime's pool did not allocate (or freed twice)");
    return;
  }
  size_t size = it->second;
  p.live.erase(it);
  p.stats.bytesInUse -= size;
  // A block a graph uses (or, freed in a capture, may use) must not be
  // handed to work outside the graphs.
  if (capturingHere(p))
    p.forGraphs.insert(block);
  if (p.forGraphs.count(block)) {
    p.stats.bytesForGraphs += size;
    p.cachedForGraphs[size].push_back(block);
  } else {
    p.stats.bytesCached += size;
    p.cached[size].push_back(block);
  }
  if (api().ampEmuPoolBlock)
    api().ampEmuPoolBlock(pointer, 0, 1);
}

void *amp::cuda::poolAllocateManaged(size_t bytes) {
  if (!ready() || !checkRequest(bytes))
    return nullptr;
  CUdeviceptr block = 0;
  if (!check(api().cuMemAllocManaged(&block, poolRoundedSize(bytes),
                                     CU_MEM_ATTACH_GLOBAL),
             "allocating " + formatBytes(double(bytes)) +
                 " of managed memory (cuMemAllocManaged)"))
    return nullptr;
  Pool &p = pool();
  std::lock_guard<std::mutex> lock(p.mutex);
  p.managed.insert(block);
  return reinterpret_cast<void *>(block);
}

bool amp::cuda::poolHasManagedBlocks() {
  Pool &p = pool();
  std::lock_guard<std::mutex> lock(p.mutex);
  return !p.managed.empty();
}

void amp::cuda::poolReleaseCached() {
  if (!synchronizeStream("waiting for the GPU before releasing cached memory"))
    return;
  Pool &p = pool();
  std::lock_guard<std::mutex> lock(p.mutex);
  releaseCachedLocked(p);
}

void amp::cuda::poolBeginCapture() {
  Pool &p = pool();
  std::lock_guard<std::mutex> lock(p.mutex);
  p.capturing = true;
  p.captureThread = std::this_thread::get_id();
}

void amp::cuda::poolEndCapture(bool kept) {
  Pool &p = pool();
  std::lock_guard<std::mutex> lock(p.mutex);
  p.capturing = false;
  p.graphs += kept;
  releaseGraphBlocksLocked(p);
}

void amp::cuda::poolGraphDestroyed() {
  Pool &p = pool();
  std::lock_guard<std::mutex> lock(p.mutex);
  if (p.graphs > 0)
    --p.graphs;
  releaseGraphBlocksLocked(p);
}

PoolStats amp::cuda::poolStats() {
  Pool &p = pool();
  std::lock_guard<std::mutex> lock(p.mutex);
  return p.stats;
}
