//===- WideSums.cpp - f64 accumulators for f32 sums on the CPU -----------===//
//
// The amp-cpu-wide-sums pass: a linalg.generic on tensors that sums f32
// terms into its outputs (`out + term` over reduction loops) accumulates in
// f64 instead and rounds once to f32 after the loops.
//
// The CPU lowering adds a sum's terms one after another, so an f32 sum of
// n terms may be off by about n ulps of the terms. The normalizations'
// backward sums cancel by construction (the gradient reaching a batch norm
// through another one is nearly orthogonal to its mean: |sum g| / sum |g|
// is about 1e-3 in a ResNet stem), so those errors show: in timm's
// ResNet-18-D the batch norms' bias gradients were 3 to 10 times further
// from float64 than PyTorch's, whose CPU batch norm accumulates in double
// for this reason; with f64 sums they are as close. Products of two
// reduced inputs (matrix products, convolutions) keep f32: they become BLAS
// calls. The GPU pipeline sums in blocks (two stages) instead.
//
//===----------------------------------------------------------------------===//

#include "amp/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::amp {
#define GEN_PASS_DEF_CPUWIDESUMSPASS
#include "amp/Codegen/CPU/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;

namespace {
/// The `arith.addf` that output `init` of `generic` yields when it is an f32
/// sum `out + term` whose `out` is used by that add alone; else null.
arith::AddFOp sumOf(linalg::GenericOp generic, OpOperand &init) {
  BlockArgument out = generic.getMatchingBlockArgument(&init);
  auto yield = cast<linalg::YieldOp>(generic.getBody()->getTerminator());
  auto add =
      yield.getValues()[init.getOperandNumber() - generic.getNumDpsInputs()]
          .getDefiningOp<arith::AddFOp>();
  if (!add || !out.getType().isF32() || !out.hasOneUse() ||
      (add.getLhs() != out && add.getRhs() != out))
    return nullptr;
  return add;
}

/// Whether `value` is an element of an input of `generic` (or its
/// extension) that the reduction loops index.
bool isReducedInputElement(linalg::GenericOp generic, Value value) {
  if (auto ext = value.getDefiningOp<arith::ExtFOp>())
    value = ext.getIn();
  auto arg = dyn_cast<BlockArgument>(value);
  if (!arg || arg.getOwner() != generic.getBody() ||
      arg.getArgNumber() >= generic.getNumDpsInputs())
    return false;
  AffineMap map = generic.getMatchingIndexingMap(
      generic.getDpsInputOperand(arg.getArgNumber()));
  SmallVector<unsigned> reductions;
  generic.getReductionDims(reductions);
  return llvm::any_of(reductions,
                      [&](unsigned dim) { return map.isFunctionOfDim(dim); });
}

/// Whether the sum `add` of `generic` adds products of two input elements
/// that both vary along the reduction: a matrix product or a convolution,
/// which become BLAS calls (GemmMatch matches f32 sums). A product with a
/// per-channel weight (a normalization's sum of grad * weight) is not one.
bool isContraction(linalg::GenericOp generic, OpOperand &init,
                   arith::AddFOp add) {
  Value out = generic.getMatchingBlockArgument(&init);
  Value term = add.getLhs() == out ? add.getRhs() : add.getLhs();
  auto mul = term.getDefiningOp<arith::MulFOp>();
  return mul && isReducedInputElement(generic, mul.getLhs()) &&
         isReducedInputElement(generic, mul.getRhs());
}

/// An elementwise linalg.generic from `input` to a new tensor of
/// `element`, each element converted by `convert`.
Value convertTensor(OpBuilder &b, Location loc, Value input, Type element,
                    function_ref<Value(OpBuilder &, Location, Value)> convert) {
  auto type = cast<RankedTensorType>(input.getType());
  Value empty = tensor::EmptyOp::create(b, loc, type.getShape(), element);
  AffineMap identity = b.getMultiDimIdentityMap(type.getRank());
  SmallVector<utils::IteratorType> iterators(type.getRank(),
                                             utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, empty.getType(), input, empty, {identity, identity},
             iterators,
             [&](OpBuilder &nb, Location l, ValueRange args) {
               linalg::YieldOp::create(nb, l, convert(nb, l, args[0]));
             })
      .getResult(0);
}

/// The f64 copy of an f32 accumulator's initial value: a fill of the same
/// constant (the usual zero), else the widened tensor.
Value widenInit(OpBuilder &b, Location loc, Value init) {
  auto type = cast<RankedTensorType>(init.getType());
  auto wide = RankedTensorType::get(type.getShape(), b.getF64Type());
  if (auto fill = init.getDefiningOp<linalg::FillOp>()) {
    FloatAttr value;
    if (matchPattern(fill.value(), m_Constant(&value))) {
      Value empty = tensor::EmptyOp::create(b, loc, wide.getShape(),
                                            wide.getElementType());
      Value constant = arith::ConstantOp::create(
          b, loc, b.getF64FloatAttr(value.getValueAsDouble()));
      return linalg::FillOp::create(b, loc, constant, empty).getResult(0);
    }
  }
  return convertTensor(b, loc, init, b.getF64Type(),
                       [](OpBuilder &nb, Location l, Value v) -> Value {
                         return arith::ExtFOp::create(nb, l, nb.getF64Type(),
                                                      v);
                       });
}

/// Rewrites a generic whose every output is an f32 sum into the same
/// generic on f64 accumulators, followed by the rounding of each to f32.
struct WidenSums : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp generic,
                                PatternRewriter &rewriter) const override {
    if (!generic.hasPureTensorSemantics() ||
        generic.getNumReductionLoops() == 0 || generic.getNumDpsInits() == 0)
      return failure();
    SmallVector<arith::AddFOp> sums;
    for (OpOperand &init : generic.getDpsInitsMutable()) {
      arith::AddFOp add = sumOf(generic, init);
      if (!add || isContraction(generic, init, add))
        return failure();
      sums.push_back(add);
    }
    Location loc = generic.getLoc();
    SmallVector<Value> inits;
    for (Value init : generic.getDpsInits())
      inits.push_back(widenInit(rewriter, loc, init));
    unsigned numInputs = generic.getNumDpsInputs();
    auto wide = linalg::GenericOp::create(
        rewriter, loc, ValueRange(inits).getTypes(), generic.getDpsInputs(),
        inits, generic.getIndexingMapsArray(), generic.getIteratorTypesArray(),
        [&](OpBuilder &b, Location l, ValueRange args) {
          IRMapping mapping;
          Block *body = generic.getBody();
          for (unsigned i = 0; i < numInputs; ++i)
            mapping.map(body->getArgument(i), args[i]);
          for (Operation &op : body->without_terminator())
            if (!llvm::is_contained(sums, &op))
              b.clone(op, mapping);
          SmallVector<Value> results;
          for (auto [i, add] : llvm::enumerate(sums)) {
            BlockArgument out = body->getArgument(numInputs + i);
            Value term = add.getLhs() == out ? add.getRhs() : add.getLhs();
            Value wideTerm = arith::ExtFOp::create(b, l, b.getF64Type(),
                                                   mapping.lookup(term));
            results.push_back(
                arith::AddFOp::create(b, l, args[numInputs + i], wideTerm));
          }
          linalg::YieldOp::create(b, l, results);
        });
    SmallVector<Value> rounded;
    for (Value result : wide.getResults())
      rounded.push_back(convertTensor(
          rewriter, loc, result, rewriter.getF32Type(),
          [](OpBuilder &nb, Location l, Value v) -> Value {
            return arith::TruncFOp::create(nb, l, nb.getF32Type(), v);
          }));
    rewriter.replaceOp(generic, rounded);
    return success();
  }
};

struct CPUWideSumsPass : mlir::amp::impl::CPUWideSumsPassBase<CPUWideSumsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<WidenSums>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
