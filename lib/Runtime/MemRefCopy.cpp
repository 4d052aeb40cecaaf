//===- MemRefCopy.cpp - the memrefCopy helper lowered code calls ----------===//
//
// finalize-memref-to-llvm lowers a memref.copy between buffers that are not
// both contiguous into a call to `memrefCopy`, which MLIR's runner utilities
// provide. Compiled models must not depend on an LLVM install, so the model
// runtime carries its own: a strided copy of any rank.
//
//===----------------------------------------------------------------------===//

#include <cstdint>
#include <cstring>
#include <vector>

namespace {
/// The layout of a ranked memref descriptor behind an unranked one.
struct StridedDescriptor {
  char *allocated;
  char *aligned;
  int64_t offset;
  int64_t sizesAndStrides[]; // sizes[rank], then strides[rank]
};

struct UnrankedMemRef {
  int64_t rank;
  StridedDescriptor *descriptor;
};
} // namespace

extern "C" void memrefCopy(int64_t elementSize, UnrankedMemRef *source,
                           UnrankedMemRef *target) {
  int64_t rank = source->rank;
  const int64_t *sizes = source->descriptor->sizesAndStrides;
  const int64_t *sourceStrides = sizes + rank;
  const int64_t *targetStrides = target->descriptor->sizesAndStrides + rank;
  const char *from =
      source->descriptor->aligned + source->descriptor->offset * elementSize;
  char *to =
      target->descriptor->aligned + target->descriptor->offset * elementSize;
  for (int64_t d = 0; d < rank; ++d)
    if (sizes[d] == 0)
      return;
  // Walk every index with an odometer, keeping both element offsets.
  std::vector<int64_t> index(rank, 0);
  int64_t sourceOffset = 0, targetOffset = 0;
  while (true) {
    std::memcpy(to + targetOffset * elementSize,
                from + sourceOffset * elementSize, elementSize);
    int64_t d = rank - 1;
    for (; d >= 0; --d) {
      sourceOffset += sourceStrides[d];
      targetOffset += targetStrides[d];
      if (++index[d] < sizes[d])
        break;
      sourceOffset -= sourceStrides[d] * sizes[d];
      targetOffset -= targetStrides[d] * sizes[d];
      index[d] = 0;
    }
    if (d < 0)
      return;
  }
}
