//===- StructuredToLinalg.cpp - contractions, reductions, losses ----------===//
//
// Contractions and reductions are linalg.generic ops that accumulate in an
// f32 tensor whatever the input type; a final elementwise generic rounds to
// the result type (and adds a bias or divides a mean on the way).
//
//===----------------------------------------------------------------------===//

#include "LinalgBuilders.h"
#include "amp/Conversion/AMPToLinalg/AMPToLinalg.h"
#include "amp/Dialect/AMP/IR/AMPOps.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Transforms/DialectConversion.h"

#include <limits>

using namespace mlir;
using namespace mlir::amp;

namespace {
using utils::IteratorType;

//===----------------------------------------------------------------------===//
// Constants, seed, data movement
//===----------------------------------------------------------------------===//

struct ConstantLowering : OpConversionPattern<ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConstantOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, op.getValue());
    return success();
  }
};

struct SeedLowering : OpConversionPattern<SeedOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SeedOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        op, DenseElementsAttr::get(type, rewriter.getF32FloatAttr(1.0f)));
    return success();
  }
};

struct ReshapeLowering : OpConversionPattern<ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto target = cast<RankedTensorType>(op.getType());
    rewriter.replaceOp(
        op, reshapeTensor(rewriter, op.getLoc(), adaptor.getInput(), target));
    return success();
  }
};

struct TransposeLowering : OpConversionPattern<TransposeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    Value init = emptyTensor(rewriter, op.getLoc(), type);
    rewriter.replaceOp(op, linalg::TransposeOp::create(rewriter, op.getLoc(),
                                                       adaptor.getInput(), init,
                                                       op.getPermutation())
                               .getResults());
    return success();
  }
};

/// The map reading an input broadcast (NumPy rules) to `resultShape`.
AffineMap broadcastMap(OpBuilder &b, ArrayRef<int64_t> inputShape,
                       ArrayRef<int64_t> resultShape) {
  size_t offset = resultShape.size() - inputShape.size();
  SmallVector<AffineExpr> exprs;
  for (auto [index, dim] : llvm::enumerate(inputShape))
    exprs.push_back(dim == 1 && resultShape[offset + index] != 1
                        ? b.getAffineConstantExpr(0)
                        : b.getAffineDimExpr(offset + index));
  return AffineMap::get(resultShape.size(), 0, exprs, b.getContext());
}

struct BroadcastLowering : OpConversionPattern<BroadcastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BroadcastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    auto inputType = cast<RankedTensorType>(adaptor.getInput().getType());
    AffineMap map =
        broadcastMap(rewriter, inputType.getShape(), type.getShape());
    rewriter.replaceOp(
        op, buildElementwise(
                rewriter, op.getLoc(), type, adaptor.getInput(),
                [](OpBuilder &, Location, ValueRange args) { return args[0]; },
                map));
    return success();
  }
};

struct SliceLowering : OpConversionPattern<SliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        op, type, adaptor.getInput(), ValueRange{}, ValueRange{}, ValueRange{},
        op.getStarts(), type.getShape(), op.getStrides());
    return success();
  }
};

struct ConcatLowering : OpConversionPattern<ConcatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConcatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    int64_t axis = normalized(op.getAxis(), type.getRank());
    Value result = emptyTensor(rewriter, op.getLoc(), type);
    SmallVector<int64_t> offsets(type.getRank(), 0);
    SmallVector<int64_t> strides(type.getRank(), 1);
    for (Value input : adaptor.getInputs()) {
      auto inputType = cast<RankedTensorType>(input.getType());
      result = tensor::InsertSliceOp::create(
          rewriter, op.getLoc(), input, result, ValueRange{}, ValueRange{},
          ValueRange{}, offsets, inputType.getShape(), strides);
      offsets[axis] += inputType.getDimSize(axis);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

/// sum over the reduction loops of lhs * rhs, in f32.
Value buildContraction(OpBuilder &b, Location loc, unsigned rank,
                       ArrayRef<int64_t> outputShape, Value lhs, Value rhs,
                       AffineMap lhsMap, AffineMap rhsMap,
                       ArrayRef<int64_t> reductionLoops) {
  return buildReduction(
      b, loc, rank, reductionLoops, outputShape, {lhs, rhs}, {lhsMap, rhsMap},
      0.0, [](OpBuilder &nb, Location nloc, Value acc, ValueRange x) {
        return arith::AddFOp::create(
            nb, nloc, acc, arith::MulFOp::create(nb, nloc, x[0], x[1]));
      });
}

/// Map of a matrix operand: batch loops (when it has them) then two loops.
AffineMap matrixMap(OpBuilder &b, unsigned rank, unsigned batchRank,
                    bool hasBatch, unsigned rowLoop, unsigned colLoop) {
  SmallVector<AffineExpr> exprs;
  if (hasBatch)
    for (unsigned d = 0; d < batchRank; ++d)
      exprs.push_back(b.getAffineDimExpr(d));
  exprs.push_back(b.getAffineDimExpr(rowLoop));
  exprs.push_back(b.getAffineDimExpr(colLoop));
  return AffineMap::get(rank, 0, exprs, b.getContext());
}

struct MatmulLowering : OpConversionPattern<MatmulOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MatmulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op.getType());
    auto lhsType = cast<RankedTensorType>(adaptor.getLhs().getType());
    auto rhsType = cast<RankedTensorType>(adaptor.getRhs().getType());
    // Loops: batch..., m, n, k.
    unsigned batchRank = resultType.getRank() - 2;
    unsigned m = batchRank, n = batchRank + 1, k = batchRank + 2;
    unsigned rank = batchRank + 3;
    AffineMap lhsMap =
        op.getTransposeLhs()
            ? matrixMap(rewriter, rank, batchRank, lhsType.getRank() > 2, k, m)
            : matrixMap(rewriter, rank, batchRank, lhsType.getRank() > 2, m, k);
    AffineMap rhsMap =
        op.getTransposeRhs()
            ? matrixMap(rewriter, rank, batchRank, rhsType.getRank() > 2, n, k)
            : matrixMap(rewriter, rank, batchRank, rhsType.getRank() > 2, k, n);
    Value acc = buildContraction(rewriter, op.getLoc(), rank,
                                 resultType.getShape(), adaptor.getLhs(),
                                 adaptor.getRhs(), lhsMap, rhsMap, {k});
    rewriter.replaceOp(
        op, finishElementwise(rewriter, op.getLoc(), acc, resultType));
    return success();
  }
};

struct LinearLowering : OpConversionPattern<LinearOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LinearOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    // Loops: leading..., out, in.
    unsigned lead = resultType.getRank() - 1;
    unsigned out = lead, in = lead + 1, rank = lead + 2;
    SmallVector<AffineExpr> inputExprs;
    for (unsigned d = 0; d < lead; ++d)
      inputExprs.push_back(rewriter.getAffineDimExpr(d));
    inputExprs.push_back(rewriter.getAffineDimExpr(in));
    AffineMap inputMap =
        AffineMap::get(rank, 0, inputExprs, rewriter.getContext());
    AffineMap weightMap = AffineMap::get(
        rank, 0,
        {rewriter.getAffineDimExpr(out), rewriter.getAffineDimExpr(in)},
        rewriter.getContext());
    Value acc = buildContraction(
        rewriter, loc, rank, resultType.getShape(), adaptor.getInput(),
        adaptor.getWeight(), inputMap, weightMap, {static_cast<int64_t>(in)});
    Value bias = adaptor.getBias();
    if (!bias) {
      rewriter.replaceOp(op, finishElementwise(rewriter, loc, acc, resultType));
      return success();
    }
    AffineMap identity = rewriter.getMultiDimIdentityMap(lead + 1);
    AffineMap biasMap = AffineMap::get(
        lead + 1, 0, rewriter.getAffineDimExpr(lead), rewriter.getContext());
    Type element = resultType.getElementType();
    rewriter.replaceOp(
        op, buildElementwise(rewriter, loc, resultType, {acc, bias},
                             [&](OpBuilder &b, Location l, ValueRange args) {
                               Value sum = arith::AddFOp::create(
                                   b, l, args[0], widenToF32(b, l, args[1]));
                               return roundTo(b, l, sum, element);
                             },
                             {identity, biasMap}));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Reductions and softmax
//===----------------------------------------------------------------------===//

SmallVector<int64_t> normalizedAxes(ArrayRef<int64_t> axes, int64_t rank) {
  SmallVector<int64_t> result;
  for (int64_t axis : axes)
    result.push_back(normalized(axis, rank));
  llvm::sort(result);
  return result;
}

template <typename OpTy> struct ReductionLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto inputType = cast<RankedTensorType>(adaptor.getInput().getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    unsigned rank = inputType.getRank();
    SmallVector<int64_t> axes = normalizedAxes(op.getAxes(), rank);
    SmallVector<int64_t> shape = droppedShape(inputType.getShape(), axes);
    constexpr bool isMax = std::is_same_v<OpTy, ReduceMaxOp>;
    Value acc =
        buildReduction(rewriter, loc, rank, axes, shape, adaptor.getInput(),
                       rewriter.getMultiDimIdentityMap(rank),
                       isMax ? kNegInfinity : 0.0, isMax ? maxF : addF);
    double count = 1;
    for (int64_t axis : axes)
      count *= inputType.getDimSize(axis);
    auto divide = [&](OpBuilder &b, Location l, Value v) -> Value {
      return arith::DivFOp::create(b, l, v, f32(b, l, count));
    };
    function_ref<Value(OpBuilder &, Location, Value)> finish = nullptr;
    if constexpr (std::is_same_v<OpTy, ReduceMeanOp>)
      finish = divide;
    Value reduced = finishElementwise(
        rewriter, loc, acc,
        RankedTensorType::get(shape, resultType.getElementType()), finish);
    rewriter.replaceOp(op, reshapeTensor(rewriter, loc, reduced, resultType));
    return success();
  }
};

template <typename OpTy> struct SoftmaxLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    unsigned rank = type.getRank();
    int64_t axis = normalized(op.getAxis(), rank);
    auto [max, sum] =
        softmaxStatistics(rewriter, loc, adaptor.getInput(), axis);
    AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
    AffineMap rowMap = droppingMap(rewriter, rank, {axis});
    Type element = type.getElementType();
    rewriter.replaceOp(
        op, buildElementwise(
                rewriter, loc, type, {adaptor.getInput(), max, sum},
                [&](OpBuilder &b, Location l, ValueRange args) {
                  Value shifted = arith::SubFOp::create(
                      b, l, widenToF32(b, l, args[0]), args[1]);
                  Value result;
                  if constexpr (std::is_same_v<OpTy, LogSoftmaxOp>)
                    result = arith::SubFOp::create(
                        b, l, shifted, math::LogOp::create(b, l, args[2]));
                  else
                    result = arith::DivFOp::create(
                        b, l, math::ExpOp::create(b, l, shifted), args[2]);
                  return roundTo(b, l, result, element);
                },
                {identity, rowMap, rowMap}));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

struct CrossEntropyLowering : OpConversionPattern<CrossEntropyOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CrossEntropyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value logits = adaptor.getLogits();
    auto type = cast<RankedTensorType>(logits.getType());
    auto [max, sum] = softmaxStatistics(rewriter, loc, logits, 1);
    // The logit of each row's label: sum over classes of (c == label) * x.
    AffineMap identity = rewriter.getMultiDimIdentityMap(2);
    AffineMap rowMap = droppingMap(rewriter, 2, {1});
    int64_t rows = type.getDimSize(0);
    Value picked = buildReduction(
        rewriter, loc, 2, {1}, {rows}, {logits, adaptor.getLabels()},
        {identity, rowMap}, 0.0,
        [](OpBuilder &b, Location l, Value acc, ValueRange x) {
          Value c = linalg::IndexOp::create(b, l, 1);
          Value label =
              arith::IndexCastOp::create(b, l, b.getIndexType(), x[1]);
          Value hit =
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, c, label);
          return addWhere(b, l, hit, acc, x[0]);
        });
    // loss_n = log(sum_n) + max_n - picked_n
    Value perRow = buildElementwise(
        rewriter, loc, f32TensorOf(rewriter, {rows}), {max, sum, picked},
        [](OpBuilder &b, Location l, ValueRange x) {
          Value lse = arith::AddFOp::create(
              b, l, math::LogOp::create(b, l, x[1]), x[0]);
          return arith::SubFOp::create(b, l, lse, x[2]).getResult();
        });
    rewriter.replaceOp(op, meanToScalar(rewriter, loc, perRow));
    return success();
  }
};

struct MseLossLowering : OpConversionPattern<MseLossOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MseLossOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(adaptor.getPrediction().getType());
    Value squares = buildElementwise(
        rewriter, loc, withElementType(type, rewriter.getF32Type()),
        {adaptor.getPrediction(), adaptor.getTarget()},
        [](OpBuilder &b, Location l, ValueRange x) {
          Value d = arith::SubFOp::create(b, l, widenToF32(b, l, x[0]),
                                          widenToF32(b, l, x[1]));
          return arith::MulFOp::create(b, l, d, d).getResult();
        });
    rewriter.replaceOp(op, meanToScalar(rewriter, loc, squares));
    return success();
  }
};
} // namespace

void mlir::amp::populateAMPStructuredToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns
      .add<ConstantLowering, SeedLowering, ReshapeLowering, TransposeLowering,
           BroadcastLowering, SliceLowering, ConcatLowering, MatmulLowering,
           LinearLowering, ReductionLowering<ReduceSumOp>,
           ReductionLowering<ReduceMeanOp>, ReductionLowering<ReduceMaxOp>,
           SoftmaxLowering<SoftmaxOp>, SoftmaxLowering<LogSoftmaxOp>,
           CrossEntropyLowering, MseLossLowering>(patterns.getContext());
}
