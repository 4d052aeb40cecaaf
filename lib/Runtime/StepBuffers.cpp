//===- StepBuffers.cpp - step buffers kept from one step to the next ------===//
//
// With `amp-cpu-pipeline{model-abi=true}` finalize-memref-to-llvm lowers
// memref.alloc / memref.dealloc to calls of `_mlir_memref_to_llvm_alloc` /
// `_mlir_memref_to_llvm_free` (its generic allocation functions), defined
// here. A training step allocates the same sizes in the same order every
// step. Through malloc, every large temporary was mapped and unmapped again
// each step (glibc serves them with mmap), and its pages faulted in afresh:
// about 15% of a ResNet-18 step. Here a freed buffer goes to a free list of
// its size and the next allocation of that size takes it, so from the
// second step on a step maps nothing. The buffers stay allocated for the
// process's lifetime: at most the largest set of buffers one entry point
// holds at once, per size.
//
//===----------------------------------------------------------------------===//

#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace {
/// Freed buffers by size, and the size of each buffer handed out.
struct BufferPool {
  std::mutex mutex;
  std::unordered_map<size_t, std::vector<void *>> freeBySize;
  std::unordered_map<void *, size_t> sizeOf;
};

/// Never destroyed: a model library may still free buffers while the
/// process's static destructors run.
BufferPool &pool() {
  static BufferPool *instance = new BufferPool;
  return *instance;
}
} // namespace

extern "C" void *_mlir_memref_to_llvm_alloc(size_t size) {
  BufferPool &buffers = pool();
  std::lock_guard<std::mutex> lock(buffers.mutex);
  auto reusable = buffers.freeBySize.find(size);
  if (reusable != buffers.freeBySize.end() && !reusable->second.empty()) {
    void *buffer = reusable->second.back();
    reusable->second.pop_back();
    return buffer;
  }
  void *buffer = std::malloc(size);
  if (buffer)
    buffers.sizeOf[buffer] = size;
  return buffer;
}

extern "C" void _mlir_memref_to_llvm_free(void *buffer) {
  if (!buffer)
    return;
  BufferPool &buffers = pool();
  std::lock_guard<std::mutex> lock(buffers.mutex);
  auto size = buffers.sizeOf.find(buffer);
  // Not ours (cannot happen in lowered code): leave it to free.
  if (size == buffers.sizeOf.end()) {
    std::free(buffer);
    return;
  }
  buffers.freeBySize[size->second].push_back(buffer);
}
