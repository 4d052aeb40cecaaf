//===- PrecisionGraph.h - the ops amp-assign-precision decides --*- C++ -*-===//
//
// The graph amp-assign-precision builds (one node per op with the precision
// interface, edges along the values between them; PrecisionGraph.cpp) and
// its two deciding stages: TensorFlow's painting (PaintPrecision.cpp) and the
// minimum s-t cut over the cast bytes (PrecisionMinCut.cpp). The pass
// (AssignPrecision.cpp) fixes what policy and pins decide, runs the stages
// and records the result.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_DIALECT_AMP_TRANSFORMS_PRECISIONGRAPH_H
#define AMP_LIB_DIALECT_AMP_TRANSFORMS_PRECISIONGRAPH_H

#include "amp/Dialect/AMP/Transforms/PrecisionPolicy.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::amp {

enum class Decision { Free, Low, F32 };

struct Node {
  Operation *op = nullptr;
  std::optional<PrecisionCategory> category;
  Decision decision = Decision::Free;
  std::string rule;
  /// Painting (participating nodes only).
  bool participates = false;
  bool allowPaint = false;
  bool denyPaint = false;
  StringRef paintRule;
  /// Graph node of a Free op in the min-cut.
  unsigned graphNode = 0;
};

struct PrecisionGraph {
  /// The low precision (f16 or bf16) the pass assigns.
  FloatType low;
  std::vector<Node> nodes;
  llvm::DenseMap<Operation *, unsigned> nodeIndex;
  std::vector<SmallVector<unsigned, 4>> successors, predecessors;

  /// The low precision as the pass option spells it.
  const char *lowName() const { return low.isF16() ? "fp16" : "bf16"; }
};

/// `rule`, followed by the list or policy entry that put the op there.
inline std::string withSource(StringRef rule, StringRef source) {
  if (source.empty())
    return rule.str();
  return (rule + " (" + source + ")").str();
}

/// Adds a node for every op under `root` with the precision interface, in
/// walk order; remarks on the other ops that touch float tensors.
void collectPrecisionNodes(PrecisionGraph &graph, Operation *root);

/// Keeps f32 the participating constants the low type cannot represent, and
/// their INFER/CLEAR users.
void keepUnrepresentableConstantsF32(PrecisionGraph &graph);

/// The painting graph: the float data edges between participating nodes
/// (through widening casts, not through statistic operands).
void connectPrecisionGraph(PrecisionGraph &graph);

/// TensorFlow's painting passes 1-5 over the participating nodes: decides
/// ALLOW (low), DENY and deny-painted (f32) nodes and leaves the others Free
/// with their paint as the min-cut's tie-break.
void paintPrecisionGraph(PrecisionGraph &graph, const CategoryTable &table);

/// Decides every Free node by a minimum s-t cut of the cast bytes over the
/// values in `root`, keeping painting's choice among equal cuts.
void solvePrecisionMinCut(PrecisionGraph &graph, Operation *root);

} // namespace mlir::amp

#endif // AMP_LIB_DIALECT_AMP_TRANSFORMS_PRECISIONGRAPH_H
