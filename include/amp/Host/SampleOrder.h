//===- SampleOrder.h - the per-epoch order of --data samples ----*- C++ -*-===//
//
// The order in which amp-run --data reads a data set of N samples in one
// epoch: a seeded permutation of [0, N) computed per position, so that it
// needs no table of N indices (a data set of 2^31 samples would need 16 GiB
// for one). docs/Driver.md describes it; test/amp-run/Inputs/data_order.py
// reproduces it.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_HOST_SAMPLEORDER_H
#define AMP_HOST_SAMPLEORDER_H

#include "amp/Runtime/Numerics.h"

#include <cstdint>

namespace amp {

/// A bijection of [0, N): a balanced Feistel network of kRounds rounds on
/// 2h-bit numbers, 2^2h the least power of four >= N (so below 4N), walked
/// until it lands in [0, N) (cycle walking: the network permutes [0, 2^2h),
/// so the walk from a position below N meets a value below N again, at the
/// latest the position itself, and distinct positions meet distinct
/// values). Round i maps (L, R) to (R, L ^ (mix(keys[i] ^ R) & mask)), mix
/// being SplitMix64's finalizer, mask 2^h - 1. O(1) memory; the walks of an
/// epoch take 2^2h / N < 4 network evaluations per position on average.
class SampleOrder {
public:
  static constexpr int kRounds = 6;

  explicit SampleOrder(int64_t samples) : samples(uint64_t(samples)) {
    while (halfBits < 32 && (uint64_t(1) << (2 * halfBits)) < this->samples)
      ++halfBits;
    mask = (uint64_t(1) << halfBits) - 1;
  }

  /// A new permutation: the next kRounds outputs of `random` are its keys.
  void reshuffle(Random &random) {
    for (uint64_t &key : keys)
      key = random.next();
  }

  uint64_t size() const { return samples; }

  /// The sample at `position` (< size()) of the current permutation.
  int64_t operator()(int64_t position) const {
    uint64_t x = permute(uint64_t(position));
    while (x >= samples)
      x = permute(x);
    return int64_t(x);
  }

private:
  static uint64_t mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

  uint64_t permute(uint64_t x) const {
    uint64_t left = x >> halfBits, right = x & mask;
    for (uint64_t key : keys) {
      uint64_t mixed = left ^ (mix(key ^ right) & mask);
      left = right;
      right = mixed;
    }
    return (left << halfBits) | right;
  }

  uint64_t samples;
  int halfBits = 0;
  uint64_t mask = 0;
  uint64_t keys[kRounds] = {};
};

} // namespace amp

#endif // AMP_HOST_SAMPLEORDER_H
