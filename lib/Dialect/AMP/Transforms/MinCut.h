//===- MinCut.h - s-t minimum cut (Dinic) -----------------------*- C++ -*-===//
//
// A directed graph with a source (node 0, the low-precision side) and a sink
// (node 1, the f32 side), solved by Dinic's maximum flow with iterative
// searches (no recursion: graphs from 100k-op training steps have long
// chains). Capacities are 128-bit so that cast bytes scaled by the tie-break
// factor cannot overflow.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_DIALECT_AMP_TRANSFORMS_MINCUT_H
#define AMP_LIB_DIALECT_AMP_TRANSFORMS_MINCUT_H

#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <vector>

namespace mlir::amp {

class MinCutGraph {
public:
  using Capacity = __int128;
  static constexpr Capacity kInfinity = static_cast<Capacity>(1) << 100;
  static constexpr unsigned kSource = 0;
  static constexpr unsigned kSink = 1;

  MinCutGraph() : adjacency(2) {}

  unsigned addNode() {
    adjacency.emplace_back();
    return adjacency.size() - 1;
  }
  unsigned getNumNodes() const { return adjacency.size(); }

  /// Adds `from -> to` with `capacity` (and its zero-capacity reverse).
  void addEdge(unsigned from, unsigned to, Capacity capacity);

  /// Computes a maximum flow; returns the value of the minimum cut.
  Capacity solve();

  /// After solve(): whether `node` is reachable from the source in the
  /// residual graph (the source side of the minimum cut with the fewest
  /// nodes on the source side).
  bool isOnSourceSide(unsigned node) const { return sourceSide[node]; }

private:
  struct Edge {
    unsigned to;
    Capacity capacity;
  };
  bool buildLevels();
  Capacity blockingFlow();

  std::vector<Edge> edges;
  std::vector<llvm::SmallVector<unsigned, 4>> adjacency;
  std::vector<int> level;
  std::vector<unsigned> nextEdge;
  std::vector<bool> sourceSide;
};

} // namespace mlir::amp

#endif // AMP_LIB_DIALECT_AMP_TRANSFORMS_MINCUT_H
