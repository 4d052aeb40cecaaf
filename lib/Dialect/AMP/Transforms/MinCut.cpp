//===- MinCut.cpp - s-t minimum cut (Dinic) -------------------------------===//

#include "MinCut.h"

#include <algorithm>
#include <deque>

using namespace mlir::amp;

void MinCutGraph::addEdge(unsigned from, unsigned to, Capacity capacity) {
  if (from == to || capacity <= 0)
    return;
  adjacency[from].push_back(edges.size());
  edges.push_back({to, capacity});
  adjacency[to].push_back(edges.size());
  edges.push_back({from, 0});
}

bool MinCutGraph::buildLevels() {
  level.assign(adjacency.size(), -1);
  std::deque<unsigned> queue = {kSource};
  level[kSource] = 0;
  while (!queue.empty()) {
    unsigned node = queue.front();
    queue.pop_front();
    for (unsigned e : adjacency[node]) {
      const Edge &edge = edges[e];
      if (edge.capacity > 0 && level[edge.to] < 0) {
        level[edge.to] = level[node] + 1;
        queue.push_back(edge.to);
      }
    }
  }
  return level[kSink] >= 0;
}

MinCutGraph::Capacity MinCutGraph::blockingFlow() {
  Capacity total = 0;
  nextEdge.assign(adjacency.size(), 0);
  std::vector<unsigned> path; // edge indices from the source
  unsigned node = kSource;
  while (true) {
    if (node == kSink) {
      Capacity bottleneck = kInfinity;
      for (unsigned e : path)
        bottleneck = std::min(bottleneck, edges[e].capacity);
      size_t firstSaturated = path.size();
      for (size_t i = 0; i < path.size(); ++i) {
        edges[path[i]].capacity -= bottleneck;
        edges[path[i] ^ 1].capacity += bottleneck;
        if (edges[path[i]].capacity == 0 && firstSaturated == path.size())
          firstSaturated = i;
      }
      total += bottleneck;
      // Resume from the tail of the first saturated edge.
      path.resize(firstSaturated);
      node = path.empty() ? kSource : edges[path.back()].to;
      continue;
    }
    bool advanced = false;
    for (unsigned &i = nextEdge[node]; i < adjacency[node].size(); ++i) {
      unsigned e = adjacency[node][i];
      const Edge &edge = edges[e];
      if (edge.capacity > 0 && level[edge.to] == level[node] + 1) {
        path.push_back(e);
        node = edge.to;
        advanced = true;
        break;
      }
    }
    if (advanced)
      continue;
    // Dead end: retreat.
    if (node == kSource)
      break;
    level[node] = -1;
    unsigned e = path.back();
    path.pop_back();
    node = edges[e ^ 1].to;
    ++nextEdge[node];
  }
  return total;
}

MinCutGraph::Capacity MinCutGraph::solve() {
  Capacity flow = 0;
  while (buildLevels())
    flow += blockingFlow();
  sourceSide.assign(adjacency.size(), false);
  std::deque<unsigned> queue = {kSource};
  sourceSide[kSource] = true;
  while (!queue.empty()) {
    unsigned node = queue.front();
    queue.pop_front();
    for (unsigned e : adjacency[node]) {
      const Edge &edge = edges[e];
      if (edge.capacity > 0 && !sourceSide[edge.to]) {
        sourceSide[edge.to] = true;
        queue.push_back(edge.to);
      }
    }
  }
  return flow;
}
