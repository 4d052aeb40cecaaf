//===- CollapseLoops.cpp - long innermost loops for the vectorizer --------===//
//
// The amp-cpu-collapse-loops pass: an elementwise linalg op on buffers whose
// trailing dimensions are contiguous in every operand becomes an op over one
// merged dimension. The SGD update of a 512x512x3x3 convolution weight is
// then one loop of 2.4M iterations, which LLVM's loop vectorizer takes,
// instead of 786432 loops of 3, which it cannot.
//
//===----------------------------------------------------------------------===//

#include "amp/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::amp {
#define GEN_PASS_DEF_CPUCOLLAPSELOOPSPASS
#include "amp/Codegen/CPU/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;

namespace {
/// Whether `op` is elementwise on dense buffers: all loops parallel, every
/// operand read at loop indices (projected permutations: no windows or
/// strides), static identity-layout memrefs (so merged dimensions are
/// contiguous in memory) and no linalg.index (merging would have to split
/// the index again).
bool isCollapsible(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumReductionLoops() != 0 ||
      op.hasIndexSemantics() ||
      !llvm::all_of(op.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isProjectedPermutation(); }))
    return false;
  return llvm::all_of(op->getOperands(), [](Value operand) {
    auto memref = dyn_cast<MemRefType>(operand.getType());
    return !memref ||
           (memref.hasStaticShape() && memref.getLayout().isIdentity());
  });
}

/// The loops of `op` grouped for merging: the longest run of trailing loops
/// that stays contiguous in every operand's indexing map becomes one group,
/// the loops before it stay alone. Empty when there is nothing to merge.
SmallVector<ReassociationIndices> trailingGroup(linalg::LinalgOp op) {
  if (!isCollapsible(op))
    return {};
  int64_t loops = op.getNumLoops();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  int64_t first = loops - 1;
  auto run = [&](int64_t from) {
    return ReassociationIndices(llvm::to_vector(llvm::seq(from, loops)));
  };
  while (first > 0 && linalg::areDimSequencesPreserved(maps, {run(first - 1)}))
    --first;
  if (loops - first < 2)
    return {};
  SmallVector<ReassociationIndices> groups;
  for (int64_t loop = 0; loop < first; ++loop)
    groups.push_back({loop});
  groups.push_back(run(first));
  return groups;
}

/// One view per buffer: collapsing makes a memref.collapse_shape per
/// operand, so an op reading and writing one buffer (state updated in place)
/// would get two views of it, and the outlined kernel two pointers that
/// alias, on which LLVM's vectorizer falls back to its scalar loop. Later
/// identical collapses of a value in the same block reuse the first.
void mergeIdenticalCollapses(Operation *root) {
  DenseMap<std::tuple<Value, Attribute, Type, Block *>, memref::CollapseShapeOp>
      first;
  root->walk([&](memref::CollapseShapeOp collapse) {
    auto key =
        std::make_tuple(collapse.getSrc(), collapse.getReassociationAttr(),
                        collapse.getType(), collapse->getBlock());
    auto [it, inserted] = first.try_emplace(key, collapse);
    if (inserted)
      return;
    collapse.replaceAllUsesWith(it->second.getResult());
    collapse.erase();
  });
}

struct CPUCollapseLoopsPass
    : amp::impl::CPUCollapseLoopsPassBase<CPUCollapseLoopsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    linalg::populateCollapseDimensions(patterns, trailingGroup);
    memref::CollapseShapeOp::getCanonicalizationPatterns(patterns,
                                                         &getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    mergeIdenticalCollapses(getOperation());
  }
};
} // namespace
