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

struct ConstantLowering : ResultLowering<ConstantOp> {
  using ResultLowering::ResultLowering;
  Value lower(ConstantOp op, OpAdaptor adaptor, OpBuilder &builder,
              Location loc, RankedTensorType) const override {
    return arith::ConstantOp::create(builder, loc, op.getValue());
  }
};

struct SeedLowering : ResultLowering<SeedOp> {
  using ResultLowering::ResultLowering;
  Value lower(SeedOp op, OpAdaptor adaptor, OpBuilder &builder, Location loc,
              RankedTensorType type) const override {
    return arith::ConstantOp::create(
        builder, loc,
        DenseElementsAttr::get(type, builder.getF32FloatAttr(1.0f)));
  }
};

struct ReshapeLowering : ResultLowering<ReshapeOp> {
  using ResultLowering::ResultLowering;
  Value lower(ReshapeOp op, OpAdaptor adaptor, OpBuilder &builder, Location loc,
              RankedTensorType target) const override {
    return reshapeTensor(builder, loc, adaptor.getInput(), target);
  }
};

struct TransposeLowering : ResultLowering<TransposeOp> {
  using ResultLowering::ResultLowering;
  Value lower(TransposeOp op, OpAdaptor adaptor, OpBuilder &builder,
              Location loc, RankedTensorType type) const override {
    Value init = emptyTensor(builder, loc, type);
    return linalg::TransposeOp::create(builder, loc, adaptor.getInput(), init,
                                       op.getPermutation())
        ->getResult(0);
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

struct BroadcastLowering : ResultLowering<BroadcastOp> {
  using ResultLowering::ResultLowering;
  Value lower(BroadcastOp op, OpAdaptor adaptor, OpBuilder &builder,
              Location loc, RankedTensorType type) const override {
    auto inputType = cast<RankedTensorType>(adaptor.getInput().getType());
    AffineMap map =
        broadcastMap(builder, inputType.getShape(), type.getShape());
    return buildElementwise(
        builder, loc, type, adaptor.getInput(),
        [](OpBuilder &, Location, ValueRange args) { return args[0]; }, map);
  }
};

struct SliceLowering : ResultLowering<SliceOp> {
  using ResultLowering::ResultLowering;
  Value lower(SliceOp op, OpAdaptor adaptor, OpBuilder &builder, Location loc,
              RankedTensorType type) const override {
    return tensor::ExtractSliceOp::create(
        builder, loc, type, adaptor.getInput(), ValueRange{}, ValueRange{},
        ValueRange{}, op.getStarts(), type.getShape(), op.getStrides());
  }
};

struct ConcatLowering : ResultLowering<ConcatOp> {
  using ResultLowering::ResultLowering;
  Value lower(ConcatOp op, OpAdaptor adaptor, OpBuilder &builder, Location loc,
              RankedTensorType type) const override {
    int64_t axis = normalized(op.getAxis(), type.getRank());
    Value result = emptyTensor(builder, loc, type);
    SmallVector<int64_t> offsets(type.getRank(), 0);
    SmallVector<int64_t> strides(type.getRank(), 1);
    for (Value input : adaptor.getInputs()) {
      auto inputType = cast<RankedTensorType>(input.getType());
      result = tensor::InsertSliceOp::create(
          builder, loc, input, result, ValueRange{}, ValueRange{}, ValueRange{},
          offsets, inputType.getShape(), strides);
      offsets[axis] += inputType.getDimSize(axis);
    }
    return result;
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

struct MatmulLowering : ResultLowering<MatmulOp> {
  using ResultLowering::ResultLowering;
  Value lower(MatmulOp op, OpAdaptor adaptor, OpBuilder &builder, Location loc,
              RankedTensorType resultType) const override {
    auto lhsType = cast<RankedTensorType>(adaptor.getLhs().getType());
    auto rhsType = cast<RankedTensorType>(adaptor.getRhs().getType());
    // Loops: batch..., m, n, k.
    unsigned batchRank = resultType.getRank() - 2;
    unsigned m = batchRank, n = batchRank + 1, k = batchRank + 2;
    unsigned rank = batchRank + 3;
    AffineMap lhsMap =
        op.getTransposeLhs()
            ? matrixMap(builder, rank, batchRank, lhsType.getRank() > 2, k, m)
            : matrixMap(builder, rank, batchRank, lhsType.getRank() > 2, m, k);
    AffineMap rhsMap =
        op.getTransposeRhs()
            ? matrixMap(builder, rank, batchRank, rhsType.getRank() > 2, n, k)
            : matrixMap(builder, rank, batchRank, rhsType.getRank() > 2, k, n);
    Value acc = buildContraction(builder, loc, rank, resultType.getShape(),
                                 adaptor.getLhs(), adaptor.getRhs(), lhsMap,
                                 rhsMap, {k});
    return finishElementwise(builder, loc, acc, resultType);
  }
};

/// The f32 sum, scaled by the product of the scale inverses, plus the bias,
/// rounded once (amp.fp8_matmul's definition). The operands widen to f32 in
/// the contraction's body (arith.extf from f8, exact).
struct Fp8MatmulLowering : ResultLowering<Fp8MatmulOp> {
  using ResultLowering::ResultLowering;
  Value lower(Fp8MatmulOp op, OpAdaptor adaptor, OpBuilder &builder,
              Location loc, RankedTensorType resultType) const override {
    // Loops: m, n, k.
    AffineMap lhsMap = op.getTransposeLhs()
                           ? matrixMap(builder, 3, 0, false, 2, 0)
                           : matrixMap(builder, 3, 0, false, 0, 2);
    AffineMap rhsMap = op.getTransposeRhs()
                           ? matrixMap(builder, 3, 0, false, 1, 2)
                           : matrixMap(builder, 3, 0, false, 2, 1);
    Value acc = buildContraction(builder, loc, 3, resultType.getShape(),
                                 adaptor.getLhs(), adaptor.getRhs(), lhsMap,
                                 rhsMap, {2});
    SmallVector<Value> inputs = {acc, adaptor.getLhsScaleInv(),
                                 adaptor.getRhsScaleInv()};
    AffineMap identity = builder.getMultiDimIdentityMap(2);
    SmallVector<AffineMap> maps = {identity, scalarMap(builder, 2),
                                   scalarMap(builder, 2)};
    if (Value bias = adaptor.getBias()) {
      inputs.push_back(bias);
      maps.push_back(AffineMap::get(2, 0, builder.getAffineDimExpr(1),
                                    builder.getContext()));
    }
    Type element = resultType.getElementType();
    return buildElementwise(
        builder, loc, resultType, inputs,
        [&](OpBuilder &b, Location l, ValueRange x) {
          Value scale = arith::MulFOp::create(b, l, x[1], x[2]);
          Value value = arith::MulFOp::create(b, l, x[0], scale);
          if (x.size() > 3)
            value = arith::AddFOp::create(b, l, value, widenToF32(b, l, x[3]));
          return roundTo(b, l, value, element);
        },
        maps);
  }
};

struct LinearLowering : ResultLowering<LinearOp> {
  using ResultLowering::ResultLowering;
  Value lower(LinearOp op, OpAdaptor adaptor, OpBuilder &builder, Location loc,
              RankedTensorType resultType) const override {
    // Loops: leading..., out, in.
    unsigned lead = resultType.getRank() - 1;
    unsigned out = lead, in = lead + 1, rank = lead + 2;
    SmallVector<AffineExpr> inputExprs;
    for (unsigned d = 0; d < lead; ++d)
      inputExprs.push_back(builder.getAffineDimExpr(d));
    inputExprs.push_back(builder.getAffineDimExpr(in));
    AffineMap inputMap =
        AffineMap::get(rank, 0, inputExprs, builder.getContext());
    AffineMap weightMap = AffineMap::get(
        rank, 0, {builder.getAffineDimExpr(out), builder.getAffineDimExpr(in)},
        builder.getContext());
    Value acc = buildContraction(
        builder, loc, rank, resultType.getShape(), adaptor.getInput(),
        adaptor.getWeight(), inputMap, weightMap, {static_cast<int64_t>(in)});
    Value bias = adaptor.getBias();
    if (!bias) {
      return finishElementwise(builder, loc, acc, resultType);
    }
    AffineMap identity = builder.getMultiDimIdentityMap(lead + 1);
    AffineMap biasMap = AffineMap::get(
        lead + 1, 0, builder.getAffineDimExpr(lead), builder.getContext());
    Type element = resultType.getElementType();
    return buildElementwise(builder, loc, resultType, {acc, bias},
                            [&](OpBuilder &b, Location l, ValueRange args) {
                              Value sum = arith::AddFOp::create(
                                  b, l, args[0], widenToF32(b, l, args[1]));
                              return roundTo(b, l, sum, element);
                            },
                            {identity, biasMap});
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

template <typename OpTy> struct ReductionLowering : ResultLowering<OpTy> {
  using ResultLowering<OpTy>::ResultLowering;
  Value lower(OpTy op, typename OpTy::Adaptor adaptor, OpBuilder &builder,
              Location loc, RankedTensorType resultType) const override {
    auto inputType = cast<RankedTensorType>(adaptor.getInput().getType());
    unsigned rank = inputType.getRank();
    SmallVector<int64_t> axes = normalizedAxes(op.getAxes(), rank);
    SmallVector<int64_t> shape = droppedShape(inputType.getShape(), axes);
    constexpr bool isMax = std::is_same_v<OpTy, ReduceMaxOp>;
    Value acc =
        buildReduction(builder, loc, rank, axes, shape, adaptor.getInput(),
                       builder.getMultiDimIdentityMap(rank),
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
        builder, loc, acc,
        RankedTensorType::get(shape, resultType.getElementType()), finish);
    return reshapeTensor(builder, loc, reduced, resultType);
  }
};

template <typename OpTy> struct SoftmaxLowering : ResultLowering<OpTy> {
  using ResultLowering<OpTy>::ResultLowering;
  Value lower(OpTy op, typename OpTy::Adaptor adaptor, OpBuilder &builder,
              Location loc, RankedTensorType type) const override {
    unsigned rank = type.getRank();
    int64_t axis = normalized(op.getAxis(), rank);
    auto [max, sum] = softmaxStatistics(builder, loc, adaptor.getInput(), axis);
    AffineMap identity = builder.getMultiDimIdentityMap(rank);
    AffineMap rowMap = droppingMap(builder, rank, {axis});
    Type element = type.getElementType();
    return buildElementwise(
        builder, loc, type, {adaptor.getInput(), max, sum},
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value shifted =
              arith::SubFOp::create(b, l, widenToF32(b, l, args[0]), args[1]);
          Value result;
          if constexpr (std::is_same_v<OpTy, LogSoftmaxOp>)
            result = arith::SubFOp::create(b, l, shifted,
                                           math::LogOp::create(b, l, args[2]));
          else
            result = arith::DivFOp::create(
                b, l, math::ExpOp::create(b, l, shifted), args[2]);
          return roundTo(b, l, result, element);
        },
        {identity, rowMap, rowMap});
  }
};

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

struct CrossEntropyLowering : ResultLowering<CrossEntropyOp> {
  using ResultLowering::ResultLowering;
  Value lower(CrossEntropyOp op, OpAdaptor adaptor, OpBuilder &builder,
              Location loc, RankedTensorType resultType) const override {
    Value logits = adaptor.getLogits();
    auto type = cast<RankedTensorType>(logits.getType());
    auto [max, sum] = softmaxStatistics(builder, loc, logits, 1);
    // The logit of each row's label: sum over classes of (c == label) * x.
    AffineMap identity = builder.getMultiDimIdentityMap(2);
    AffineMap rowMap = droppingMap(builder, 2, {1});
    int64_t rows = type.getDimSize(0);
    Value picked = buildReduction(
        builder, loc, 2, {1}, {rows}, {logits, adaptor.getLabels()},
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
        builder, loc, f32TensorOf(builder, {rows}), {max, sum, picked},
        [](OpBuilder &b, Location l, ValueRange x) {
          Value lse = arith::AddFOp::create(
              b, l, math::LogOp::create(b, l, x[1]), x[0]);
          return arith::SubFOp::create(b, l, lse, x[2]).getResult();
        });
    return meanToScalar(builder, loc, perRow);
  }
};

struct MseLossLowering : ResultLowering<MseLossOp> {
  using ResultLowering::ResultLowering;
  Value lower(MseLossOp op, OpAdaptor adaptor, OpBuilder &builder, Location loc,
              RankedTensorType resultType) const override {
    auto type = cast<RankedTensorType>(adaptor.getPrediction().getType());
    Value squares = buildElementwise(
        builder, loc, withElementType(type, builder.getF32Type()),
        {adaptor.getPrediction(), adaptor.getTarget()},
        [](OpBuilder &b, Location l, ValueRange x) {
          Value d = arith::SubFOp::create(b, l, widenToF32(b, l, x[0]),
                                          widenToF32(b, l, x[1]));
          return arith::MulFOp::create(b, l, d, d).getResult();
        });
    return meanToScalar(builder, loc, squares);
  }
};
} // namespace

void mlir::amp::populateAMPStructuredToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns
      .add<ConstantLowering, SeedLowering, ReshapeLowering, TransposeLowering,
           BroadcastLowering, SliceLowering, ConcatLowering, MatmulLowering,
           Fp8MatmulLowering, LinearLowering, ReductionLowering<ReduceSumOp>,
           ReductionLowering<ReduceMeanOp>, ReductionLowering<ReduceMaxOp>,
           SoftmaxLowering<SoftmaxOp>, SoftmaxLowering<LogSoftmaxOp>,
           CrossEntropyLowering, MseLossLowering>(patterns.getContext());
}
