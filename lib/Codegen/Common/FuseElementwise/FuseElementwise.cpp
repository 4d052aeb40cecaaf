//===- FuseElementwise.cpp - elementwise fusion around contractions -------===//
//
// The amp-fuse-elementwise pass: linalg-fuse-elementwise-ops with one
// restriction: nothing is fused into or out of a contraction (nor a reshape
// propagated through one), so that matrix products keep the plain
// `out + ext(a) * ext(b)` form that amp-contractions-to-gemm-calls (GPU)
// and amp-cpu-contractions-to-blas (CPU) turn into library calls. A cast of
// a weight fused into its GEMM would otherwise make a loop nest of it. With
// fuse-into-reductions=false (the CPU pipeline), nothing is fused into an op
// with reduction loops either: a convolution becomes im2col and OpenBLAS
// calls only when its operands are tensors of their own. With
// propagate-reshapes=false (the CPU pipeline) reshapes stay put, so that an
// optimizer update keeps its parameter's shape and updates it in place.
//
// A value read by several ops and rounded (or widened) by one of them gets
// its rounding as a second output of the op computing it (an f32 gradient
// and the bf16 copy its GEMM reads): one kernel writes both, instead of a
// second kernel re-reading the f32 tensor. Upstream's fusion would instead
// recompute the value in the rounding kernel, reading the producer's inputs
// again.
//
// A cheap elementwise value read by several fusable ops is recomputed in
// each of them rather than written once and read back: a value whose
// inputs, apart from broadcast ones, take no more bytes per element than
// the value itself (a causal mask from two index vectors; masked, scaled
// attention scores read by each softmax reduction). Each reader then reads
// what the value would have cost it, and the value is never stored.
//
// Identical 0-d computations on the same operands are computed once
// (AdamW's bias corrections, one per parameter from the one step counter):
// each would be a one-thread launch. Upstream CSE cannot be used for this:
// it also merges tensor.empty and large generics, which breaks in-place
// bufferization and fusion.
//
//===----------------------------------------------------------------------===//

#include "amp/Codegen/Common/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::amp {
#define GEN_PASS_DEF_FUSEELEMENTWISEPASS
#include "amp/Codegen/Common/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;

namespace {
bool isContraction(Operation *op) {
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
  return linalgOp && linalg::isaContractionOpInterface(linalgOp);
}

/// Whether fusion may take a value into or out of `op`: not a contraction,
/// and, unless `intoReductions`, no reduction loops.
bool keepsApart(Operation *op, bool intoReductions) {
  if (isContraction(op))
    return true;
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
  return !intoReductions && linalgOp && linalgOp.getNumReductionLoops() != 0;
}

/// `generic` is elementwise, its one input is `operand` and its body only
/// casts it (`yield truncf(in)` or `extf`), with identity maps.
bool isCastOf(linalg::GenericOp generic, OpOperand *operand) {
  if (!generic || generic.getNumDpsInputs() != 1 ||
      generic.getNumDpsInits() != 1 ||
      generic.getNumParallelLoops() != generic.getNumLoops() ||
      generic.getDpsInputOperand(0) != operand ||
      !llvm::all_of(generic.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isIdentity(); }))
    return false;
  Block &body = generic.getRegion().front();
  Value yielded = body.getTerminator()->getOperand(0);
  Operation *cast = yielded.getDefiningOp();
  return body.getOperations().size() == 2 &&
         isa_and_nonnull<arith::TruncFOp, arith::ExtFOp>(cast) &&
         cast->getOperand(0) == body.getArgument(0);
}

/// The cast generic reading a result of a multi-reader elementwise generic
/// becomes an extra output of that generic, which yields the cast value too.
struct CastAsSecondOutput : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp rounding,
                                PatternRewriter &rewriter) const override {
    OpOperand *input = rounding.getNumDpsInputs() == 1
                           ? rounding.getDpsInputOperand(0)
                           : nullptr;
    auto value = input ? dyn_cast<OpResult>(input->get()) : OpResult();
    auto producer =
        value ? dyn_cast<linalg::GenericOp>(value.getOwner()) : nullptr;
    // On buffers a generic has no results (the pass works on tensors).
    auto castType =
        rounding.getNumResults() == 1
            ? dyn_cast<RankedTensorType>(rounding.getResultTypes()[0])
            : RankedTensorType();
    if (!producer || producer->hasOneUse() || !isCastOf(rounding, input) ||
        isContraction(producer) || !castType || !castType.hasStaticShape() ||
        producer.getNumParallelLoops() != producer.getNumLoops() ||
        !producer.getIndexingMapMatchingResult(value).isIdentity())
      return rewriter.notifyMatchFailure(rounding,
                                         "not a cast of a shared value");
    rewriter.setInsertionPoint(producer);
    Location loc = rounding.getLoc();
    Value init = tensor::EmptyOp::create(rewriter, loc, castType.getShape(),
                                         castType.getElementType());
    SmallVector<Value> inits = producer.getDpsInits();
    inits.push_back(init);
    SmallVector<AffineMap> maps = producer.getIndexingMapsArray();
    maps.push_back(producer.getIndexingMapMatchingResult(value));
    SmallVector<Type> types(producer.getResultTypes());
    types.push_back(castType);
    auto fused = linalg::GenericOp::create(rewriter, loc, types,
                                           producer.getDpsInputs(), inits, maps,
                                           producer.getIteratorTypesArray());
    cloneBodyWithCast(rewriter, producer, rounding, value.getResultNumber(),
                      fused);
    rewriter.replaceOp(rounding, fused.getResults().back());
    rewriter.replaceOp(producer, fused.getResults().drop_back());
    return success();
  }

  /// The producer's body with the rounding's one op applied to yielded value
  /// `index`, yielded last.
  static void cloneBodyWithCast(PatternRewriter &rewriter,
                                linalg::GenericOp producer,
                                linalg::GenericOp rounding, unsigned index,
                                linalg::GenericOp fused) {
    Block &from = producer.getRegion().front();
    SmallVector<Type> argTypes(from.getArgumentTypes());
    Type castElement = rounding.getRegion().front().getArgument(1).getType();
    argTypes.push_back(castElement);
    SmallVector<Location> locs(argTypes.size(), fused.getLoc());
    Block *to = rewriter.createBlock(&fused.getRegion(), {}, argTypes, locs);
    IRMapping mapping;
    mapping.map(from.getArguments(), to->getArguments().drop_back());
    for (Operation &op : from.without_terminator())
      rewriter.clone(op, mapping);
    auto yield = cast<linalg::YieldOp>(from.getTerminator());
    SmallVector<Value> yielded =
        llvm::map_to_vector(yield.getOperands(), [&](Value v) {
          return mapping.lookupOrDefault(v);
        });
    Operation &castOp = rounding.getRegion().front().front();
    IRMapping castMapping;
    castMapping.map(rounding.getRegion().front().getArgument(0),
                    yielded[index]);
    yielded.push_back(rewriter.clone(castOp, castMapping)->getResult(0));
    linalg::YieldOp::create(rewriter, fused.getLoc(), yielded);
  }
};

/// Bytes of one element of shaped `type` in device memory (i1 takes a
/// byte); 0 for elements of no fixed width (index).
unsigned elementBytes(Type type) {
  Type element = getElementTypeOrSelf(type);
  return element.isIntOrFloat()
             ? std::max(1u, element.getIntOrFloatBitWidth() / 8)
             : 0;
}

/// `producer` is elementwise, arithmetic only (no transcendental), no sum
/// with a product, and reads per element no more bytes from its full-size
/// inputs than it writes: recomputing it in a reader costs that reader no
/// more than reading it.
bool isCheapToRecompute(linalg::GenericOp producer) {
  constexpr unsigned kMaxOps = 8;
  if (producer.getNumResults() != 1 || !producer.hasPureTensorSemantics() ||
      producer.getNumParallelLoops() != producer.getNumLoops() ||
      !producer.getIndexingMapsArray().back().isPermutation() ||
      producer.payloadUsesValueFromOperand(producer.getDpsInitOperand(0)))
    return false;
  Block &body = producer.getRegion().front();
  if (body.getOperations().size() > kMaxOps + 1 ||
      llvm::any_of(body.without_terminator(), [](Operation &op) {
        return !isa<arith::ArithDialect>(op.getDialect()) ||
               op.getNumRegions() != 0;
      }))
    return false;
  bool adds = llvm::any_of(body.without_terminator(), [](Operation &op) {
    return isa<arith::AddFOp>(op);
  });
  unsigned readBytes = 0;
  for (OpOperand *input : producer.getDpsInputOperands()) {
    // A sum with a product (a bias or residual add) stays for
    // amp-contractions-to-gemm-calls to fold into the GEMM's epilogue.
    if (isContraction(input->get().getDefiningOp()) && adds)
      return false;
    // Results are loop dimensions or constants (a unit dimension read at
    // 0); an input indexed by every loop is read in full, others are
    // broadcast and stay in cache.
    AffineMap map = producer.getMatchingIndexingMap(input);
    if (!elementBytes(input->get().getType()) ||
        !llvm::all_of(map.getResults(), [](AffineExpr e) {
          return isa<AffineDimExpr, AffineConstantExpr>(e);
        }))
      return false;
    if (llvm::all_of(llvm::seq(producer.getNumLoops()),
                     [&](unsigned d) { return map.isFunctionOfDim(d); }))
      readBytes += elementBytes(input->get().getType());
  }
  unsigned writeBytes = elementBytes(producer.getResultTypes()[0]);
  return writeBytes && readBytes <= writeBytes;
}

/// A cheap value (isCheapToRecompute) read by several ops, each of which
/// elementwise fusion can take it into, gets a copy of its producer per
/// reader; fusion then folds each copy into its reader.
struct RecomputeCheapProducer : OpRewritePattern<linalg::GenericOp> {
  RecomputeCheapProducer(MLIRContext *ctx, bool intoReductions)
      : OpRewritePattern(ctx), intoReductions(intoReductions) {}

  LogicalResult matchAndRewrite(linalg::GenericOp producer,
                                PatternRewriter &rewriter) const override {
    Value value =
        producer->getNumResults() == 1 ? producer->getResult(0) : Value();
    if (!value || value.hasOneUse() || value.use_empty() ||
        !isCheapToRecompute(producer))
      return rewriter.notifyMatchFailure(producer, "not a cheap shared value");
    SmallVector<OpOperand *> uses = llvm::map_to_vector(
        value.getUses(), [](OpOperand &use) { return &use; });
    for (OpOperand *use : uses) {
      auto reader = dyn_cast<linalg::GenericOp>(use->getOwner());
      if (!reader || keepsApart(reader, intoReductions) ||
          !reader.isDpsInput(use) || !linalg::areElementwiseOpsFusable(use))
        return rewriter.notifyMatchFailure(producer, "a reader cannot fuse it");
    }
    rewriter.setInsertionPoint(producer);
    for (OpOperand *use : llvm::drop_begin(uses)) {
      Operation *copy = rewriter.clone(*producer);
      rewriter.modifyOpInPlace(use->getOwner(),
                               [&] { use->set(copy->getResult(0)); });
    }
    return success();
  }

private:
  bool intoReductions;
};

/// A generic without loops on tensors whose body does not read its
/// outputs: its results depend on its inputs only.
bool isScalarComputation(linalg::GenericOp generic) {
  return generic.getNumLoops() == 0 && generic.hasPureTensorSemantics() &&
         llvm::none_of(generic.getDpsInitsMutable(), [&](OpOperand &init) {
           return generic.payloadUsesValueFromOperand(&init);
         });
}

/// Whether `a` and `b` are inits of the same value: the same tensor, or
/// fills of equal constants into empty tensors of one type.
bool sameInit(Value a, Value b) {
  if (a == b)
    return true;
  auto fillA = a.getDefiningOp<linalg::FillOp>();
  auto fillB = b.getDefiningOp<linalg::FillOp>();
  if (!fillA || !fillB || a.getType() != b.getType())
    return false;
  auto emptyA = fillA.getOutputs()[0].getDefiningOp<tensor::EmptyOp>();
  auto emptyB = fillB.getOutputs()[0].getDefiningOp<tensor::EmptyOp>();
  Attribute valueA, valueB;
  return emptyA && emptyB &&
         llvm::equal(emptyA.getDynamicSizes(), emptyB.getDynamicSizes()) &&
         matchPattern(fillA.getInputs()[0], m_Constant(&valueA)) &&
         matchPattern(fillB.getInputs()[0], m_Constant(&valueB)) &&
         valueA == valueB;
}

/// Whether `later` computes what `earlier` does: one block, the same
/// inputs, maps, iterators, result types and body, and the inits the body
/// reads of the same value.
bool repeats(linalg::GenericOp earlier, linalg::GenericOp later) {
  if (earlier->getBlock() != later->getBlock() ||
      !llvm::equal(earlier.getInputs(), later.getInputs()) ||
      earlier.getIndexingMaps() != later.getIndexingMaps() ||
      earlier.getIteratorTypes() != later.getIteratorTypes() ||
      earlier->getResultTypes() != later->getResultTypes() ||
      !OperationEquivalence::isRegionEquivalentTo(
          &earlier.getRegion(), &later.getRegion(),
          OperationEquivalence::IgnoreLocations))
    return false;
  for (auto [a, b] : llvm::zip_equal(earlier.getDpsInitsMutable(),
                                     later.getDpsInitsMutable()))
    if (earlier.payloadUsesValueFromOperand(&a) && !sameInit(a.get(), b.get()))
      return false;
  return true;
}

/// Replaces each generic `candidate` accepts by an earlier one of its block
/// that it repeats.
void shareRepeated(func::FuncOp func,
                   function_ref<bool(linalg::GenericOp)> candidate) {
  SmallVector<linalg::GenericOp> candidates;
  func.walk([&](linalg::GenericOp generic) {
    if (candidate(generic))
      candidates.push_back(generic);
  });
  SmallVector<linalg::GenericOp> kept;
  for (linalg::GenericOp generic : candidates) {
    auto same = llvm::find_if(kept, [&](linalg::GenericOp earlier) {
      return repeats(earlier, generic);
    });
    if (same == kept.end()) {
      kept.push_back(generic);
      continue;
    }
    generic->replaceAllUsesWith(*same);
    generic->erase();
  }
}

/// A reduction on tensors: repeated ones are shared before fusion (why:
/// the pass description in Passes.td).
bool isReduction(linalg::GenericOp generic) {
  return generic.getNumReductionLoops() > 0 && generic.hasPureTensorSemantics();
}

struct FuseElementwisePass
    : amp::impl::FuseElementwisePassBase<FuseElementwisePass> {
  using FuseElementwisePassBase::FuseElementwisePassBase;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    bool intoReductions = fuseIntoReductions;
    linalg::ControlFusionFn control = [intoReductions](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      return producer && producer->hasOneUse() &&
             !keepsApart(producer, intoReductions) &&
             !keepsApart(fused->getOwner(), intoReductions);
    };
    shareRepeated(getOperation(), isReduction);
    RewritePatternSet patterns(ctx);
    patterns.add<CastAsSecondOutput>(ctx);
    patterns.add<RecomputeCheapProducer>(ctx, intoReductions);
    linalg::populateElementwiseOpsFusionPatterns(patterns, control);
    if (propagateReshapes) {
      linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, control);
      tensor::populateBubbleUpExpandShapePatterns(patterns);
    }
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, ctx);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, ctx);
    ctx->getLoadedDialect<linalg::LinalgDialect>()->getCanonicalizationPatterns(
        patterns);
    linalg::populateConstantFoldLinalgOperations(patterns, control);
    GreedyRewriteConfig config;
    config.setUseTopDownTraversal(true);
    if (failed(
            applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      return signalPassFailure();
    shareRepeated(getOperation(), isScalarComputation);
  }
};
} // namespace
