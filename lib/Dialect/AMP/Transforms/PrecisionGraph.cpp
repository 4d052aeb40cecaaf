//===- PrecisionGraph.cpp - the graph amp-assign-precision decides --------===//
//
// Building the PrecisionGraph: a node per op with the precision interface,
// the constants the low type cannot represent (kept f32 with their
// INFER/CLEAR users) and the float data edges between the ops that take
// part in painting and the min-cut.
//
//===----------------------------------------------------------------------===//

#include "PrecisionGraph.h"

#include "amp/Dialect/AMP/Transforms/Precision.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/CallInterfaces.h"

using namespace mlir;
using namespace mlir::amp;

void mlir::amp::collectPrecisionNodes(PrecisionGraph &graph, Operation *root) {
  root->walk([&](Operation *op) {
    if (isa<PrecisionOpInterface>(op)) {
      graph.nodeIndex[op] = graph.nodes.size();
      graph.nodes.push_back({});
      graph.nodes.back().op = op;
      return;
    }
    // Ops of other dialects keep their types: say so when they touch float
    // tensors (terminators, calls and functions are structure, not compute;
    // amp ops without a category have types fixed by their role).
    if (isa<FixedPrecisionOpInterface>(op) ||
        op->hasTrait<mlir::OpTrait::IsTerminator>() ||
        isa<CallOpInterface>(op) || op->getNumRegions() != 0)
      return;
    bool touchesFloat = llvm::any_of(op->getOperandTypes(), isFloatTensor) ||
                        llvm::any_of(op->getResultTypes(), isFloatTensor);
    if (touchesFloat)
      op->emitRemark() << "'" << op->getName()
                       << "' has no precision category; it keeps its types";
  });
}

namespace {
/// Whether the dense float constant `op` keeps every value when converted
/// to `low`: no finite value overflows, no non-zero value flushes to zero.
bool isRepresentable(ConstantOp op, FloatType low) {
  auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
  if (!dense || !isa<FloatType>(dense.getElementType()))
    return true;
  const llvm::fltSemantics &semantics = low.getFloatSemantics();
  auto check = [&](const APFloat &value) {
    if (!value.isFinite() || value.isZero())
      return true;
    APFloat converted = value;
    bool losesInfo = false;
    converted.convert(semantics, APFloat::rmNearestTiesToEven, &losesInfo);
    return converted.isFinite() && !converted.isZero();
  };
  if (dense.isSplat())
    return check(dense.getSplatValue<APFloat>());
  for (const APFloat &value : dense.getValues<APFloat>())
    if (!check(value))
      return false;
  return true;
}

/// Takes the users of a constant kept f32 out: an INFER/CLEAR user stays
/// f32 too; an ALLOW user runs low anyway, with a warning.
void keepUsersF32(PrecisionGraph &graph, ConstantOp constant,
                  const std::string &why) {
  for (Operation *user : constant->getUsers()) {
    auto it = graph.nodeIndex.find(user);
    if (it == graph.nodeIndex.end())
      continue;
    Node &userNode = graph.nodes[it->second];
    if (!userNode.participates)
      continue;
    if (userNode.category == PrecisionCategory::Infer ||
        userNode.category == PrecisionCategory::Clear) {
      userNode.participates = false;
      userNode.decision = Decision::F32;
      userNode.rule =
          (Twine(rule::kF32Constant) + " (an operand is " + why).str();
    } else if (userNode.category == PrecisionCategory::Allow) {
      user->emitWarning() << "runs in " << graph.low
                          << " but a constant operand is not "
                             "representable in "
                          << graph.low;
    }
  }
}
} // namespace

/// Converting such a constant would turn a -1e9 mask into -inf or an
/// epsilon into 0 (transformers#382).
void mlir::amp::keepUnrepresentableConstantsF32(PrecisionGraph &graph) {
  for (Node &node : graph.nodes) {
    auto constant = dyn_cast<ConstantOp>(node.op);
    if (!constant || !node.participates ||
        node.category == PrecisionCategory::Deny ||
        isRepresentable(constant, graph.low))
      continue;
    std::string why =
        ("not representable in " + Twine(graph.lowName()) + ")").str();
    node.participates = false;
    node.decision = Decision::F32;
    node.rule = (Twine(rule::kF32Constant) + " (" + why).str();
    keepUsersF32(graph, constant, why);
  }
}

void mlir::amp::connectPrecisionGraph(PrecisionGraph &graph) {
  graph.successors.assign(graph.nodes.size(), {});
  graph.predecessors.assign(graph.nodes.size(), {});
  for (auto [index, node] : llvm::enumerate(graph.nodes)) {
    if (!node.participates)
      continue;
    auto interface = cast<PrecisionOpInterface>(node.op);
    for (OpOperand &operand : node.op->getOpOperands()) {
      if (!isFloatTensor(operand.get().getType()) ||
          interface.isStatisticOperand(operand.getOperandNumber()))
        continue;
      Operation *producer =
          lookThroughWideningCasts(operand.get()).getDefiningOp();
      auto it =
          producer ? graph.nodeIndex.find(producer) : graph.nodeIndex.end();
      if (it == graph.nodeIndex.end() || !graph.nodes[it->second].participates)
        continue;
      graph.successors[it->second].push_back(index);
      graph.predecessors[index].push_back(it->second);
    }
  }
}
