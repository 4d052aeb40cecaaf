//===- PrecisionMinCut.cpp - the fewest cast bytes by a minimum cut -------===//
//
// The min-cut stage of amp-assign-precision (PrecisionGraph.h): ALLOW ops
// are tied to the low side, DENY and deny-painted ops to the f32 side, and
// every value pays the bytes of one cast if its producer and a user
// disagree; a weight of one per painting choice breaks ties.
//
//===----------------------------------------------------------------------===//

#include "PrecisionGraph.h"

#include "MinCut.h"

#include "amp/Dialect/AMP/IR/AMPOps.h"
#include "amp/Dialect/AMP/Transforms/Precision.h"

#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::amp;

namespace {

/// Where a value's producer or user lies in the cut: on a fixed side, at a
/// graph node, or nowhere (it takes any type).
enum class TermKind { None, Source, Sink, Graph };
struct Term {
  TermKind kind = TermKind::None;
  unsigned node = 0;
};

/// Builds the cut's graph over the Free nodes and solves it.
class MinCutBuilder {
public:
  explicit MinCutBuilder(PrecisionGraph &precision)
      : nodes(precision.nodes), nodeIndex(precision.nodeIndex),
        low(precision.low) {}

  void solve(Operation *root);

private:
  Term fixedTerm(Type type) const;
  Term nodeTerm(unsigned index) const;
  Term producerTerm(Value value);
  Term consumerTerm(OpOperand &use, Term producer);
  FloatType tentativePrecision(unsigned index) const;

  std::vector<Node> &nodes;
  const llvm::DenseMap<Operation *, unsigned> &nodeIndex;
  FloatType low;
  MinCutGraph graph;
  /// The graph node of each widenable result of a low-precision op.
  llvm::DenseMap<std::pair<Operation *, unsigned>, unsigned> resultNodes;
};

} // namespace

Term MinCutBuilder::fixedTerm(Type type) const {
  Type element = getElementTypeOrNull(type);
  if (element == low)
    return {TermKind::Source};
  if (element && element.isF32())
    return {TermKind::Sink};
  return {};
}

Term MinCutBuilder::nodeTerm(unsigned index) const {
  switch (nodes[index].decision) {
  case Decision::Low:
    return {TermKind::Source};
  case Decision::F32:
    return {TermKind::Sink};
  case Decision::Free:
    return {TermKind::Graph, nodes[index].graphNode};
  }
  llvm_unreachable("unknown decision");
}

FloatType MinCutBuilder::tentativePrecision(unsigned index) const {
  if (nodes[index].decision == Decision::F32)
    return Float32Type::get(low.getContext());
  return low;
}

Term MinCutBuilder::producerTerm(Value value) {
  auto result = dyn_cast<OpResult>(value);
  auto it = result ? nodeIndex.find(result.getOwner()) : nodeIndex.end();
  if (it == nodeIndex.end())
    return fixedTerm(value.getType());
  unsigned index = it->second;
  Operation *op = result.getOwner();
  unsigned operandIndex = 0;
  switch (getResultRole(op, result.getResultNumber(), tentativePrecision(index),
                        &operandIndex)) {
  case ResultRole::Follows:
    return nodeTerm(index);
  case ResultRole::Widenable: {
    if (nodes[index].decision == Decision::F32)
      return {TermKind::Sink};
    // Free to be f32 when the op is low; f32 when the op is f32.
    auto key = std::make_pair(op, result.getResultNumber());
    auto [entry, inserted] = resultNodes.try_emplace(key, 0);
    if (inserted) {
      entry->second = graph.addNode();
      if (nodes[index].decision == Decision::Free)
        graph.addEdge(entry->second, nodes[index].graphNode,
                      MinCutGraph::kInfinity);
    }
    return {TermKind::Graph, entry->second};
  }
  case ResultRole::SameAsOperand: {
    Value operand = op->getOperand(operandIndex);
    auto producer = dyn_cast<OpResult>(operand);
    bool fixedProducer = !producer || !nodeIndex.contains(producer.getOwner());
    if (fixedProducer && getElementTypeOrNull(operand.getType()).isF32())
      return {TermKind::Sink};
    return nodeTerm(index);
  }
  case ResultRole::F32:
    return {TermKind::Sink};
  case ResultRole::NotFloat:
  case ResultRole::Fixed:
    return fixedTerm(value.getType());
  }
  llvm_unreachable("unknown result role");
}

Term MinCutBuilder::consumerTerm(OpOperand &use, Term producer) {
  Operation *owner = use.getOwner();
  auto it = nodeIndex.find(owner);
  if (it == nodeIndex.end()) {
    if (getOperandRole(owner, use.getOperandNumber(), {}) == OperandRole::Fixed)
      return fixedTerm(use.get().getType());
    return {};
  }
  unsigned index = it->second;
  switch (getOperandRole(owner, use.getOperandNumber(),
                         tentativePrecision(index))) {
  case OperandRole::Follows:
    return nodeTerm(index);
  case OperandRole::F32:
    return {TermKind::Sink};
  case OperandRole::FollowsOrF32:
    // An f32 value is accepted as it is.
    if (producer.kind == TermKind::Sink)
      return {};
    return nodeTerm(index);
  case OperandRole::Flexible:
  case OperandRole::NotFloat:
  case OperandRole::Fixed:
    return {};
  }
  llvm_unreachable("unknown operand role");
}

void MinCutBuilder::solve(Operation *root) {
  unsigned freeCount = 0;
  for (Node &node : nodes)
    if (node.decision == Decision::Free) {
      node.graphNode = graph.addNode();
      ++freeCount;
    }
  if (freeCount == 0)
    return;
  // Cast bytes dominate; one unit per painting choice broken breaks ties.
  const MinCutGraph::Capacity scale = freeCount + 1;
  auto addNet = [&](ArrayRef<Term> terms, int64_t bytes) {
    bool hasSource = false, hasSink = false;
    llvm::SetVector<unsigned> members;
    for (const Term &term : terms) {
      switch (term.kind) {
      case TermKind::None:
        break;
      case TermKind::Source:
        hasSource = true;
        break;
      case TermKind::Sink:
        hasSink = true;
        break;
      case TermKind::Graph:
        members.insert(term.node);
        break;
      }
    }
    // Both fixed sides present: the cast is unavoidable whatever we choose.
    if (hasSource && hasSink)
      return;
    if (hasSource)
      members.insert(MinCutGraph::kSource);
    if (hasSink)
      members.insert(MinCutGraph::kSink);
    if (members.size() < 2)
      return;
    MinCutGraph::Capacity weight = scale * bytes;
    if (members.size() == 2) {
      graph.addEdge(members[0], members[1], weight);
      graph.addEdge(members[1], members[0], weight);
      return;
    }
    // Lawler's net: cut exactly once iff members end up on both sides.
    unsigned in = graph.addNode(), out = graph.addNode();
    graph.addEdge(in, out, weight);
    for (unsigned member : members) {
      graph.addEdge(member, in, MinCutGraph::kInfinity);
      graph.addEdge(out, member, MinCutGraph::kInfinity);
    }
  };
  auto addValue = [&](Value value) {
    if (!isFloatTensor(value.getType()) || value.use_empty())
      return;
    // Converting a constant is free: it happens at compile time. The users
    // of a widening cast are accounted with the value it widens.
    if (value.getDefiningOp<ConstantOp>() ||
        isExactWideningCast(value.getDefiningOp()))
      return;
    int64_t bytes = getCastBytes(value.getType(), low);
    SmallVector<Term> terms;
    Term producer = producerTerm(value);
    terms.push_back(producer);
    forEachUseThroughWideningCasts(value, [&](OpOperand &use) {
      terms.push_back(consumerTerm(use, producer));
    });
    addNet(terms, bytes);
  };
  root->walk([&](Block *block) {
    for (BlockArgument argument : block->getArguments())
      addValue(argument);
    for (Operation &op : *block)
      for (Value result : op.getResults())
        addValue(result);
  });
  // Tie-break: prefer painting's choice.
  for (Node &node : nodes) {
    if (node.decision != Decision::Free)
      continue;
    if (node.allowPaint)
      graph.addEdge(MinCutGraph::kSource, node.graphNode, 1);
    else
      graph.addEdge(node.graphNode, MinCutGraph::kSink, 1);
  }
  graph.solve();
  for (Node &node : nodes) {
    if (node.decision != Decision::Free)
      continue;
    bool isLow = graph.isOnSourceSide(node.graphNode);
    // Converting a constant costs nothing, so the cut leaves it to the
    // tie-break; give it the type its users agree on instead, which saves
    // amp-insert-casts a converted copy.
    if (auto constant = dyn_cast<ConstantOp>(node.op)) {
      std::optional<bool> usersLow;
      bool agree = true;
      for (OpOperand &use : constant->getUses()) {
        auto it = nodeIndex.find(use.getOwner());
        if (it == nodeIndex.end()) {
          agree = false;
          break;
        }
        const Node &user = nodes[it->second];
        bool userLow = user.decision == Decision::Free
                           ? graph.isOnSourceSide(user.graphNode)
                           : user.decision == Decision::Low;
        if (getOperandRole(user.op, use.getOperandNumber(),
                           tentativePrecision(it->second)) !=
                OperandRole::Follows ||
            (usersLow && *usersLow != userLow)) {
          agree = false;
          break;
        }
        usersLow = userLow;
      }
      if (agree && usersLow)
        isLow = *usersLow;
    }
    node.decision = isLow ? Decision::Low : Decision::F32;
    if (isLow == node.allowPaint)
      node.rule = isLow ? node.paintRule.str() : rule::kUnpainted.str();
    else
      node.rule = rule::kMinCut;
  }
}

void mlir::amp::solvePrecisionMinCut(PrecisionGraph &graph, Operation *root) {
  MinCutBuilder(graph).solve(root);
}
