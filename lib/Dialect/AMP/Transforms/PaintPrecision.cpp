//===- PaintPrecision.cpp - TensorFlow's painting of precisions -----------===//
//
// The painting stage of amp-assign-precision (PrecisionGraph.h).
//
//===----------------------------------------------------------------------===//

#include "PrecisionGraph.h"

#include "amp/Dialect/AMP/Transforms/Precision.h"

#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace mlir::amp;

namespace {

template <typename Enter, typename Visit>
void traverse(const PrecisionGraph &graph, unsigned root, bool forward,
              bool backward, Enter enter, Visit visit) {
  llvm::DenseSet<unsigned> visited;
  SmallVector<unsigned> stack = {root};
  visited.insert(root);
  while (!stack.empty()) {
    unsigned node = stack.pop_back_val();
    visit(node);
    auto push = [&](ArrayRef<unsigned> neighbours) {
      for (unsigned next : neighbours)
        if (!visited.contains(next) && enter(next)) {
          visited.insert(next);
          stack.push_back(next);
        }
    };
    if (forward)
      push(graph.successors[node]);
    if (backward)
      push(graph.predecessors[node]);
  }
}

} // namespace

/// TensorFlow's passes 1-5 (auto_mixed_precision.cc), on participating
/// ops only.
void mlir::amp::paintPrecisionGraph(PrecisionGraph &graph,
                                    const CategoryTable &table) {
  using PC = PrecisionCategory;
  std::vector<Node> &nodes = graph.nodes;
  auto isCategory = [&](unsigned n, PrecisionCategory category) {
    return nodes[n].category == category;
  };
  unsigned count = nodes.size();
  auto participates = [&](unsigned n) { return nodes[n].participates; };
  // Traverses from each participating root that `isRoot` accepts, asked
  // when the sweep reaches it (after the earlier roots' paint); `visit`
  // sees the root and the node.
  auto sweep = [&](auto isRoot, bool forward, bool backward, auto enter,
                   auto visit) {
    for (unsigned root = 0; root < count; ++root)
      if (participates(root) && isRoot(root))
        traverse(graph, root, forward, backward, enter,
                 [&](unsigned n) { visit(root, n); });
  };
  std::vector<bool> allow(count, false), deny(count, false);

  // Pass 1: ALLOW ops.
  for (unsigned n = 0; n < count; ++n)
    if (participates(n) && isCategory(n, PC::Allow))
      allow[n] = true;

  // Pass 2: deny paint. First the CLEAR ops upstream (through CLEAR ops)
  // of a DENY or INFER op, then DENY spreads forward through them.
  std::vector<bool> upstreamOfDenyOrInfer(count, false);
  sweep(
      [&](unsigned root) {
        return isCategory(root, PC::Deny) || isCategory(root, PC::Infer);
      },
      /*forward=*/false, /*backward=*/true,
      [&](unsigned n) {
        return participates(n) && !upstreamOfDenyOrInfer[n] &&
               isCategory(n, PC::Clear);
      },
      [&](unsigned, unsigned n) { upstreamOfDenyOrInfer[n] = true; });
  sweep(
      [&](unsigned root) { return !deny[root] && isCategory(root, PC::Deny); },
      /*forward=*/true, /*backward=*/false,
      [&](unsigned n) {
        return participates(n) && !deny[n] && upstreamOfDenyOrInfer[n];
      },
      [&](unsigned, unsigned n) { deny[n] = true; });

  // Pass 3: INFER/CLEAR ops both downstream and upstream of ALLOW ops.
  auto isAllowRoot = [&](unsigned root) { return allow[root] && !deny[root]; };
  std::vector<bool> downstreamOfAllow(count, false),
      upstreamOfAllow(count, false);
  sweep(
      isAllowRoot,
      /*forward=*/true, /*backward=*/false,
      [&](unsigned n) {
        return participates(n) && !downstreamOfAllow[n] && !allow[n] &&
               !deny[n] &&
               (isCategory(n, PC::Infer) || isCategory(n, PC::Clear));
      },
      [&](unsigned, unsigned n) { downstreamOfAllow[n] = true; });
  auto paintAllow = [&](unsigned n, StringRef why) {
    if (allow[n])
      return;
    allow[n] = true;
    nodes[n].paintRule = why;
  };
  sweep(
      [&](unsigned root) { return isCategory(root, PC::Allow) && !deny[root]; },
      /*forward=*/false, /*backward=*/true,
      [&](unsigned n) { return !upstreamOfAllow[n] && downstreamOfAllow[n]; },
      [&](unsigned root, unsigned n) {
        upstreamOfAllow[n] = true;
        if (downstreamOfAllow[n])
          paintAllow(n, rule::kBetweenAllow);
      });

  // Pass 4 (bf16 only): INFER ops fed by allow ops.
  if (graph.low.isBF16()) {
    sweep(
        isAllowRoot,
        /*forward=*/true, /*backward=*/false,
        [&](unsigned n) {
          return participates(n) && !allow[n] && !deny[n] &&
                 isCategory(n, PC::Infer);
        },
        [&](unsigned root, unsigned n) {
          if (n != root)
            paintAllow(n, rule::kAfterAllowBf16);
        });
  }

  // Pass 5: allow spreads through CLEAR ops in both directions.
  std::vector<bool> clearNextToAllow(count, false);
  sweep(
      isAllowRoot,
      /*forward=*/true, /*backward=*/true,
      [&](unsigned n) {
        return participates(n) && !allow[n] && !deny[n] &&
               !clearNextToAllow[n] && isCategory(n, PC::Clear);
      },
      [&](unsigned root, unsigned n) {
        if (n != root)
          clearNextToAllow[n] = true;
      });
  for (unsigned n = 0; n < count; ++n)
    if (clearNextToAllow[n])
      paintAllow(n, rule::kClearNextToAllow);

  for (unsigned n = 0; n < count; ++n) {
    Node &node = nodes[n];
    if (!node.participates)
      continue;
    node.allowPaint = allow[n];
    node.denyPaint = deny[n];
    StringRef source = table.getSource(node.op);
    if (isCategory(n, PC::Allow)) {
      node.decision = Decision::Low;
      node.rule = withSource(rule::kAllow, source);
    } else if (isCategory(n, PC::Deny)) {
      node.decision = Decision::F32;
      node.rule = withSource(rule::kDeny, source);
    } else if (deny[n]) {
      node.decision = Decision::F32;
      node.rule = rule::kDenyPaint;
    } else {
      node.decision = Decision::Free;
    }
  }
}
