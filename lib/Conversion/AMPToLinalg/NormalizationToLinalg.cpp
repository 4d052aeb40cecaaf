//===- NormalizationToLinalg.cpp - normalizations, softmax and loss grads -===//
//
// Normalizations are a nest of loops over the input (for group_norm over the
// input with its channels split into [groups, channels per group]) in which
// the statistics reduce some loops (`reduced`) and the affine parameters are
// indexed by others (`affine`):
//
//   layer_norm, rms_norm  reduced = affine = [axis, rank)
//   batch_norm            reduced = all but 1, affine = {1}
//   group_norm            [N, G, C/G, S...]: reduced = [2, rank + 1),
//                         affine = {1, 2}
//
// Statistics are f32 tensors over the loops that are not reduced, computed
// with f32 accumulation whatever the input type: the mean first, then the
// sum of squared deviations from it (two passes, no cancellation), and
// rstd = 1 / sqrt(var + epsilon). Outputs and gradients are computed in f32
// from f32-widened inputs and rounded once to their result type.
//
// The backward of every normalization is, with xhat = (x - mean) * rstd and
// gw = grad * weight, n the elements per statistic and sums over `reduced`:
//
//   input_grad  = rstd * (gw - sum(gw) / n - xhat * sum(gw * xhat) / n)
//   weight_grad = sum over the loops not in `affine` of grad * xhat
//   bias_grad   = sum over the loops not in `affine` of grad
//
// (rms_norm: mean = 0 and no sum(gw) term.) For batch_norm this is the
// training-mode backward: the batch statistics depend on the input.
//
//===----------------------------------------------------------------------===//

#include "LinalgBuilders.h"
#include "amp/Conversion/AMPToLinalg/AMPToLinalg.h"
#include "amp/Dialect/AMP/IR/AMPOps.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace mlir::amp;

namespace {

/// The loops in [0, rank) that are not in `dims`.
SmallVector<int64_t> complement(unsigned rank, ArrayRef<int64_t> dims) {
  SmallVector<int64_t> result;
  for (int64_t d = 0; d < rank; ++d)
    if (!llvm::is_contained(dims, d))
      result.push_back(d);
  return result;
}

/// The sizes of `shape` at `dims`.
SmallVector<int64_t> sizesAt(ArrayRef<int64_t> shape, ArrayRef<int64_t> dims) {
  SmallVector<int64_t> result;
  for (int64_t d : dims)
    result.push_back(shape[d]);
  return result;
}

/// The loops [from, to).
SmallVector<int64_t> loopRange(int64_t from, int64_t to) {
  SmallVector<int64_t> result;
  for (int64_t d = from; d < to; ++d)
    result.push_back(d);
  return result;
}

/// The inputs of a linalg.generic with their indexing maps; optional inputs
/// (null values) are skipped and get position -1.
struct GenericInputs {
  SmallVector<Value> values;
  SmallVector<AffineMap> maps;
  int add(Value value, AffineMap map) {
    if (!value)
      return -1;
    values.push_back(value);
    maps.push_back(map);
    return values.size() - 1;
  }
};

/// Argument `index` of a generic body widened to f32; null when absent.
Value argAt(OpBuilder &b, Location loc, ValueRange args, int index) {
  return index < 0 ? Value() : widenToF32(b, loc, args[index]);
}

//===----------------------------------------------------------------------===//
// The loop nest of a normalization and its statistics
//===----------------------------------------------------------------------===//

struct NormSpace {
  unsigned rank;
  SmallVector<int64_t> reduced; // loops the statistics reduce
  SmallVector<int64_t> affine;  // loops weight and bias are indexed by
  SmallVector<int64_t> statisticShape;
  SmallVector<int64_t> affineShape;
  double count; // elements per statistic

  NormSpace(ArrayRef<int64_t> shape, ArrayRef<int64_t> reduced,
            ArrayRef<int64_t> affine)
      : rank(shape.size()), reduced(reduced), affine(affine),
        statisticShape(sizesAt(shape, complement(shape.size(), reduced))),
        affineShape(sizesAt(shape, affine)), count(1) {
    for (int64_t d : reduced)
      count *= shape[d];
  }

  AffineMap identity(OpBuilder &b) const {
    return b.getMultiDimIdentityMap(rank);
  }
  AffineMap statisticMap(OpBuilder &b) const {
    return droppingMap(b, rank, reduced);
  }
  AffineMap affineMap(OpBuilder &b) const {
    return droppingMap(b, rank, complement(rank, affine));
  }
  RankedTensorType statisticType(OpBuilder &b) const {
    return f32TensorOf(b, statisticShape);
  }
};

/// sum(input) / n over the reduced loops.
Value buildMean(OpBuilder &b, Location loc, const NormSpace &space,
                Value input) {
  Value sum =
      buildReduction(b, loc, space.rank, space.reduced, space.statisticShape,
                     input, space.identity(b), 0.0, addF);
  double count = space.count;
  return finishElementwise(b, loc, sum, space.statisticType(b),
                           [&](OpBuilder &nb, Location l, Value v) -> Value {
                             return arith::DivFOp::create(nb, l, v,
                                                          f32(nb, l, count));
                           });
}

/// sum((input - mean)^2) over the reduced loops; sum(input^2) without mean.
Value buildSquareSum(OpBuilder &b, Location loc, const NormSpace &space,
                     Value input, Value mean) {
  GenericInputs in;
  in.add(input, space.identity(b));
  bool centered = in.add(mean, space.statisticMap(b)) >= 0;
  return buildReduction(
      b, loc, space.rank, space.reduced, space.statisticShape, in.values,
      in.maps, 0.0, [&](OpBuilder &nb, Location l, Value acc, ValueRange x) {
        Value d = centered ? arith::SubFOp::create(nb, l, x[0], x[1]) : x[0];
        Value square = arith::MulFOp::create(nb, l, d, d);
        return arith::AddFOp::create(nb, l, acc, square).getResult();
      });
}

/// 1 / sqrt(value + epsilon) with a correctly rounded square root and
/// division, as PyTorch computes it (math.rsqrt may become an approximation,
/// and libm has no rsqrtf).
Value reciprocalStd(OpBuilder &b, Location loc, Value value, double epsilon) {
  Value shifted = arith::AddFOp::create(b, loc, value, f32(b, loc, epsilon));
  Value deviation = math::SqrtOp::create(b, loc, shifted);
  return arith::DivFOp::create(b, loc, f32(b, loc, 1.0), deviation);
}

/// 1 / sqrt(squareSum / n + epsilon).
Value buildRstd(OpBuilder &b, Location loc, const NormSpace &space,
                Value squareSum, double epsilon) {
  double count = space.count;
  return finishElementwise(b, loc, squareSum, space.statisticType(b),
                           [&](OpBuilder &nb, Location l, Value v) -> Value {
                             Value var = arith::DivFOp::create(
                                 nb, l, v, f32(nb, l, count));
                             return reciprocalStd(nb, l, var, epsilon);
                           });
}

/// The batch statistics of `input` over `space`.
struct NormStats {
  Value mean, squareSum, rstd;
};

/// Mean, square sum and rstd, which every norm with a mean computes alike.
NormStats buildStats(OpBuilder &b, Location loc, const NormSpace &space,
                     Value input, double epsilon) {
  Value mean = buildMean(b, loc, space, input);
  Value squareSum = buildSquareSum(b, loc, space, input, mean);
  return {mean, squareSum, buildRstd(b, loc, space, squareSum, epsilon)};
}

/// (x - mean) * rstd, or x * rstd without mean, on f32 scalars.
Value normalizedValue(OpBuilder &b, Location loc, Value x, Value mean,
                      Value rstd) {
  Value centered = mean ? arith::SubFOp::create(b, loc, x, mean) : x;
  return arith::MulFOp::create(b, loc, centered, rstd);
}

/// xhat * weight + bias (bias optional), rounded once to `resultType`.
Value buildNormalized(OpBuilder &b, Location loc, const NormSpace &space,
                      RankedTensorType resultType, Value input, Value mean,
                      Value rstd, Value weight, Value bias) {
  GenericInputs in;
  AffineMap statisticMap = space.statisticMap(b);
  AffineMap affineMap = space.affineMap(b);
  int x = in.add(input, space.identity(b));
  int m = in.add(mean, statisticMap);
  int r = in.add(rstd, statisticMap);
  int w = in.add(weight, affineMap);
  int c = in.add(bias, affineMap);
  Type element = resultType.getElementType();
  return buildElementwise(
      b, loc, resultType, in.values,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value xhat =
            normalizedValue(nb, l, argAt(nb, l, args, x), argAt(nb, l, args, m),
                            argAt(nb, l, args, r));
        Value scale = argAt(nb, l, args, w);
        Value y = arith::MulFOp::create(nb, l, xhat, scale);
        if (c >= 0) {
          Value shift = argAt(nb, l, args, c);
          y = arith::AddFOp::create(nb, l, y, shift);
        }
        return roundTo(nb, l, y, element);
      },
      in.maps);
}

/// The gradients of a normalization: `input` has the input's type, `weight`
/// and `bias` are f32 sums with the affine loops' shape (bias only when
/// asked for).
struct NormGrads {
  Value input, weight, bias;
};

/// The f32 gradients of the affine parameters, weight (sum of grad * xhat)
/// and bias (sum of grad, when `withBias`), over the loops they do not index.
std::pair<Value, Value> buildAffineGrads(OpBuilder &b, Location loc,
                                         const NormSpace &space, Value grad,
                                         Value input, Value mean, Value rstd,
                                         bool withBias) {
  AffineMap identity = space.identity(b);
  AffineMap statisticMap = space.statisticMap(b);
  SmallVector<int64_t> across = complement(space.rank, space.affine);
  GenericInputs affineIn;
  int ag = affineIn.add(grad, identity);
  int ax = affineIn.add(input, identity);
  int am = affineIn.add(mean, statisticMap);
  int ar = affineIn.add(rstd, statisticMap);
  Value weightGrad = buildReduction(
      b, loc, space.rank, across, space.affineShape, affineIn.values,
      affineIn.maps, 0.0,
      [&](OpBuilder &nb, Location l, Value acc, ValueRange v) {
        Value xhat =
            normalizedValue(nb, l, v[ax], am < 0 ? Value() : v[am], v[ar]);
        Value term = arith::MulFOp::create(nb, l, v[ag], xhat);
        return arith::AddFOp::create(nb, l, acc, term).getResult();
      });
  Value biasGrad;
  if (withBias)
    biasGrad = buildReduction(b, loc, space.rank, across, space.affineShape,
                              grad, identity, 0.0, addF);
  return {weightGrad, biasGrad};
}

NormGrads buildNormBackward(OpBuilder &b, Location loc, const NormSpace &space,
                            RankedTensorType inputType, Value grad, Value input,
                            Value mean, Value rstd, Value weight,
                            bool withBias) {
  AffineMap identity = space.identity(b);
  AffineMap statisticMap = space.statisticMap(b);
  AffineMap affineMap = space.affineMap(b);
  double count = space.count;

  // sum(gw) (centered normalizations only) and sum(gw * xhat).
  Value sumGw;
  if (mean)
    sumGw = buildReduction(
        b, loc, space.rank, space.reduced, space.statisticShape, {grad, weight},
        {identity, affineMap}, 0.0,
        [](OpBuilder &nb, Location l, Value acc, ValueRange v) {
          Value gw = arith::MulFOp::create(nb, l, v[0], v[1]);
          return arith::AddFOp::create(nb, l, acc, gw).getResult();
        });
  GenericInputs dot;
  int g = dot.add(grad, identity);
  int x = dot.add(input, identity);
  int w = dot.add(weight, affineMap);
  int m = dot.add(mean, statisticMap);
  int r = dot.add(rstd, statisticMap);
  // Reduction combiners see all inputs widened; argAt widens body arguments.
  auto at = [](ValueRange v, int index) {
    return index < 0 ? Value() : v[index];
  };
  Value sumGwXhat = buildReduction(
      b, loc, space.rank, space.reduced, space.statisticShape, dot.values,
      dot.maps, 0.0, [&](OpBuilder &nb, Location l, Value acc, ValueRange v) {
        Value gw = arith::MulFOp::create(nb, l, v[g], v[w]);
        Value xhat = normalizedValue(nb, l, v[x], at(v, m), v[r]);
        Value term = arith::MulFOp::create(nb, l, gw, xhat);
        return arith::AddFOp::create(nb, l, acc, term).getResult();
      });

  GenericInputs in = dot;
  int s = in.add(sumGw, statisticMap);
  int sx = in.add(sumGwXhat, statisticMap);
  Type element = inputType.getElementType();
  Value inputGrad = buildElementwise(
      b, loc, inputType, in.values,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value n = f32(nb, l, count);
        Value gradValue = argAt(nb, l, args, g);
        Value xhat = normalizedValue(nb, l, argAt(nb, l, args, x),
                                     argAt(nb, l, args, m), args[r]);
        Value gw =
            arith::MulFOp::create(nb, l, gradValue, argAt(nb, l, args, w));
        Value meanGwXhat = arith::DivFOp::create(nb, l, args[sx], n);
        Value projection = arith::MulFOp::create(nb, l, xhat, meanGwXhat);
        Value t = arith::SubFOp::create(nb, l, gw, projection);
        if (s >= 0) {
          Value meanGw = arith::DivFOp::create(nb, l, args[s], n);
          t = arith::SubFOp::create(nb, l, t, meanGw);
        }
        Value result = arith::MulFOp::create(nb, l, args[r], t);
        return roundTo(nb, l, result, element);
      },
      in.maps);

  auto [weightGrad, biasGrad] =
      buildAffineGrads(b, loc, space, grad, input, mean, rstd, withBias);
  return {inputGrad, weightGrad, biasGrad};
}

/// Rounds an f32 affine-parameter gradient to `type` (the weight's type,
/// whose shape the gradient may have in a different factorization).
Value finishAffineGrad(OpBuilder &b, Location loc, Value f32Grad,
                       RankedTensorType type) {
  auto gradType = cast<RankedTensorType>(f32Grad.getType());
  Value rounded = finishElementwise(
      b, loc, f32Grad, withElementType(gradType, type.getElementType()));
  return reshapeTensor(b, loc, rounded, type);
}

/// The results of a grad op with weight and bias: `inputGrad`, then the
/// affine gradients of `grads` rounded to `weight`'s type.
SmallVector<Value> affineNormGrads(OpBuilder &b, Location loc, Value inputGrad,
                                   const NormGrads &grads, Value weight) {
  RankedTensorType weightType = tensorType(weight);
  return {inputGrad, finishAffineGrad(b, loc, grads.weight, weightType),
          finishAffineGrad(b, loc, grads.bias, weightType)};
}

/// layer_norm and rms_norm normalize [axis, rank).
NormSpace layerSpace(Value input, int64_t axis) {
  ArrayRef<int64_t> shape = tensorType(input).getShape();
  SmallVector<int64_t> dims =
      loopRange(normalized(axis, shape.size()), shape.size());
  return NormSpace(shape, dims, dims);
}

/// batch_norm: statistics per channel (dimension 1).
NormSpace batchSpace(Value input) {
  ArrayRef<int64_t> shape = tensorType(input).getShape();
  SmallVector<int64_t> channel = {1};
  return NormSpace(shape, complement(shape.size(), channel), channel);
}

/// [N, C, S...] viewed as [N, G, C/G, S...].
RankedTensorType groupedType(RankedTensorType type, int64_t groups) {
  SmallVector<int64_t> shape = {type.getDimSize(0), groups,
                                type.getDimSize(1) / groups};
  llvm::append_range(shape, type.getShape().drop_front(2));
  return RankedTensorType::get(shape, type.getElementType());
}

/// group_norm's view of its [N, C, S...] input: the input type, the
/// grouped type and the statistics space (per sample and group).
struct GroupedNorm {
  RankedTensorType type, grouped;
  NormSpace space;
};

template <typename OpTy> GroupedNorm groupedNorm(OpTy op, Value input) {
  RankedTensorType type = tensorType(input);
  RankedTensorType grouped = groupedType(type, op.getNumGroups());
  return {
      type, grouped,
      NormSpace(grouped.getShape(), loopRange(2, grouped.getRank()), {1, 2})};
}

/// A [C] weight or bias viewed as [G, C/G].
Value groupedAffine(OpBuilder &b, Location loc, Value value, int64_t groups) {
  if (!value)
    return value;
  RankedTensorType type = tensorType(value);
  int64_t channels = type.getDimSize(0);
  return reshapeTensor(b, loc, value,
                       RankedTensorType::get({groups, channels / groups},
                                             type.getElementType()));
}

//===----------------------------------------------------------------------===//
// Forward normalizations
//===----------------------------------------------------------------------===//

struct LayerNormLowering : Lowering<LayerNormOp> {
  using Lowering::Lowering;
  SmallVector<Value> lower(LayerNormOp op, OpAdaptor adaptor,
                           OpBuilder &builder, Location loc) const override {
    NormSpace space = layerSpace(adaptor.getInput(), op.getAxis());
    NormStats stats = buildStats(builder, loc, space, adaptor.getInput(),
                                 op.getEpsilon().convertToDouble());
    Value output = buildNormalized(
        builder, loc, space, tensorType(op.getOutput()), adaptor.getInput(),
        stats.mean, stats.rstd, adaptor.getWeight(), adaptor.getBias());
    return {output, stats.mean, stats.rstd};
  }
};

struct RmsNormLowering : Lowering<RmsNormOp> {
  using Lowering::Lowering;
  SmallVector<Value> lower(RmsNormOp op, OpAdaptor adaptor, OpBuilder &builder,
                           Location loc) const override {
    NormSpace space = layerSpace(adaptor.getInput(), op.getAxis());
    Value rstd = buildRstd(
        builder, loc, space,
        buildSquareSum(builder, loc, space, adaptor.getInput(), Value()),
        op.getEpsilon().convertToDouble());
    Value output = buildNormalized(
        builder, loc, space, tensorType(op.getOutput()), adaptor.getInput(),
        Value(), rstd, adaptor.getWeight(), Value());
    return {output, rstd};
  }
};

struct GroupNormLowering : Lowering<GroupNormOp> {
  using Lowering::Lowering;
  SmallVector<Value> lower(GroupNormOp op, OpAdaptor adaptor,
                           OpBuilder &builder, Location loc) const override {
    int64_t groups = op.getNumGroups();
    auto [type, grouped, space] = groupedNorm(op, adaptor.getInput());
    Value input = reshapeTensor(builder, loc, adaptor.getInput(), grouped);
    NormStats stats = buildStats(builder, loc, space, input,
                                 op.getEpsilon().convertToDouble());
    Value weight = groupedAffine(builder, loc, adaptor.getWeight(), groups);
    Value bias = groupedAffine(builder, loc, adaptor.getBias(), groups);
    Value output = buildNormalized(builder, loc, space, grouped, input,
                                   stats.mean, stats.rstd, weight, bias);
    return {reshapeTensor(builder, loc, output, type), stats.mean, stats.rstd};
  }
};

struct BatchNormLowering : Lowering<BatchNormOp> {
  using Lowering::Lowering;
  SmallVector<Value> lower(BatchNormOp op, OpAdaptor adaptor,
                           OpBuilder &builder, Location loc) const override {
    NormSpace space = batchSpace(adaptor.getInput());
    double epsilon = op.getEpsilon().convertToDouble();
    RankedTensorType statisticType = space.statisticType(builder);
    Value runningMean = adaptor.getRunningMean(),
          runningVar = adaptor.getRunningVar();

    if (!op.getTraining()) {
      // Normalize with the running statistics, returned unchanged.
      Value rstd = buildElementwise(
          builder, loc, statisticType, runningVar,
          [&](OpBuilder &b, Location l, ValueRange args) -> Value {
            return reciprocalStd(b, l, args[0], epsilon);
          });
      Value output = buildNormalized(
          builder, loc, space, tensorType(op.getOutput()), adaptor.getInput(),
          runningMean, rstd, adaptor.getWeight(), adaptor.getBias());
      return {output, runningMean, rstd, runningMean, runningVar};
    }

    NormStats stats =
        buildStats(builder, loc, space, adaptor.getInput(), epsilon);
    Value output = buildNormalized(
        builder, loc, space, tensorType(op.getOutput()), adaptor.getInput(),
        stats.mean, stats.rstd, adaptor.getWeight(), adaptor.getBias());
    // running = (1 - momentum) * running + momentum * batch statistic, with
    // the unbiased variance sum / (n - 1) (NaN for n = 1, as in PyTorch).
    double momentum = op.getMomentum().convertToDouble();
    auto update = [&](Value running, Value batch, double divisor) {
      return buildElementwise(
          builder, loc, statisticType, {running, batch},
          [&](OpBuilder &b, Location l, ValueRange args) -> Value {
            Value statistic = args[1];
            if (divisor != 1.0)
              statistic =
                  arith::DivFOp::create(b, l, statistic, f32(b, l, divisor));
            Value kept =
                arith::MulFOp::create(b, l, args[0], f32(b, l, 1.0 - momentum));
            Value added =
                arith::MulFOp::create(b, l, statistic, f32(b, l, momentum));
            return arith::AddFOp::create(b, l, kept, added);
          });
    };
    Value newMean = update(runningMean, stats.mean, 1.0);
    Value newVar = update(runningVar, stats.squareSum, space.count - 1);
    return {output, stats.mean, stats.rstd, newMean, newVar};
  }
};

//===----------------------------------------------------------------------===//
// Normalization gradients
//===----------------------------------------------------------------------===//

/// The input, weight and bias gradients of a norm with an affine transform
/// over `space`, from its saved `mean` and `rstd`.
template <typename OpTy>
SmallVector<Value>
affineNormBackward(OpBuilder &b, Location loc, const NormSpace &space, OpTy op,
                   typename OpTy::Adaptor adaptor, Value mean, Value rstd) {
  NormGrads grads = buildNormBackward(
      b, loc, space, tensorType(op.getInputGrad()), adaptor.getGrad(),
      adaptor.getInput(), mean, rstd, adaptor.getWeight(), /*withBias=*/true);
  return affineNormGrads(b, loc, grads.input, grads, adaptor.getWeight());
}

struct LayerNormGradLowering : Lowering<LayerNormGradOp> {
  using Lowering::Lowering;
  SmallVector<Value> lower(LayerNormGradOp op, OpAdaptor adaptor,
                           OpBuilder &builder, Location loc) const override {
    return affineNormBackward(builder, loc,
                              layerSpace(adaptor.getInput(), op.getAxis()), op,
                              adaptor, adaptor.getMean(), adaptor.getRstd());
  }
};

struct RmsNormGradLowering : Lowering<RmsNormGradOp> {
  using Lowering::Lowering;
  SmallVector<Value> lower(RmsNormGradOp op, OpAdaptor adaptor,
                           OpBuilder &builder, Location loc) const override {
    NormSpace space = layerSpace(adaptor.getInput(), op.getAxis());
    NormGrads grads = buildNormBackward(
        builder, loc, space, tensorType(op.getInputGrad()), adaptor.getGrad(),
        adaptor.getInput(), Value(), adaptor.getRstd(), adaptor.getWeight(),
        /*withBias=*/false);
    return {grads.input, finishAffineGrad(builder, loc, grads.weight,
                                          tensorType(adaptor.getWeight()))};
  }
};

struct GroupNormGradLowering : Lowering<GroupNormGradOp> {
  using Lowering::Lowering;
  SmallVector<Value> lower(GroupNormGradOp op, OpAdaptor adaptor,
                           OpBuilder &builder, Location loc) const override {
    auto [type, grouped, space] = groupedNorm(op, adaptor.getInput());
    Value grad = reshapeTensor(builder, loc, adaptor.getGrad(), grouped);
    Value input = reshapeTensor(builder, loc, adaptor.getInput(), grouped);
    Value weight =
        groupedAffine(builder, loc, adaptor.getWeight(), op.getNumGroups());
    NormGrads grads = buildNormBackward(
        builder, loc, space, grouped, grad, input, adaptor.getMean(),
        adaptor.getRstd(), weight, /*withBias=*/true);
    Value inputGrad =
        reshapeTensor(builder, loc, grads.input, tensorType(op.getInputGrad()));
    return affineNormGrads(builder, loc, inputGrad, grads, adaptor.getWeight());
  }
};

struct BatchNormGradLowering : Lowering<BatchNormGradOp> {
  using Lowering::Lowering;
  SmallVector<Value> lower(BatchNormGradOp op, OpAdaptor adaptor,
                           OpBuilder &builder, Location loc) const override {
    return affineNormBackward(builder, loc, batchSpace(adaptor.getInput()), op,
                              adaptor, adaptor.getSavedMean(),
                              adaptor.getSavedRstd());
  }
};

//===----------------------------------------------------------------------===//
// Softmax and loss gradients
//===----------------------------------------------------------------------===//

/// softmax_grad:     output * (grad - sum(grad * output, axis))
/// log_softmax_grad: grad - exp(output) * sum(grad, axis)
template <typename OpTy> struct SoftmaxGradLowering : ResultLowering<OpTy> {
  using ResultLowering<OpTy>::ResultLowering;
  Value lower(OpTy op, typename OpTy::Adaptor adaptor, OpBuilder &builder,
              Location loc, RankedTensorType type) const override {
    constexpr bool isLog = std::is_same_v<OpTy, LogSoftmaxGradOp>;
    unsigned rank = type.getRank();
    int64_t axis = normalized(op.getAxis(), rank);
    SmallVector<int64_t> rowShape =
        sizesAt(type.getShape(), complement(rank, {axis}));
    AffineMap identity = builder.getMultiDimIdentityMap(rank);
    AffineMap rowMap = droppingMap(builder, rank, {axis});
    Value sum;
    if (isLog)
      sum = buildReduction(builder, loc, rank, {axis}, rowShape,
                           adaptor.getGrad(), identity, 0.0, addF);
    else
      sum = buildReduction(
          builder, loc, rank, {axis}, rowShape,
          {adaptor.getGrad(), adaptor.getOutput()}, {identity, identity}, 0.0,
          [](OpBuilder &b, Location l, Value acc, ValueRange x) {
            Value product = arith::MulFOp::create(b, l, x[0], x[1]);
            return arith::AddFOp::create(b, l, acc, product).getResult();
          });
    Type element = type.getElementType();
    return buildElementwise(
        builder, loc, type, {adaptor.getGrad(), adaptor.getOutput(), sum},
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value g = widenToF32(b, l, args[0]);
          Value y = widenToF32(b, l, args[1]);
          Value result;
          if (isLog) {
            Value p = math::ExpOp::create(b, l, y);
            Value term = arith::MulFOp::create(b, l, p, args[2]);
            result = arith::SubFOp::create(b, l, g, term);
          } else {
            Value centered = arith::SubFOp::create(b, l, g, args[2]);
            result = arith::MulFOp::create(b, l, y, centered);
          }
          return roundTo(b, l, result, element);
        },
        {identity, identity, rowMap});
  }
};

/// (softmax(logits) - onehot(labels)) * grad / N for [N, C] logits.
struct CrossEntropyGradLowering : ResultLowering<CrossEntropyGradOp> {
  using ResultLowering::ResultLowering;
  Value lower(CrossEntropyGradOp op, OpAdaptor adaptor, OpBuilder &builder,
              Location loc, RankedTensorType /*resultType*/) const override {
    Value logits = adaptor.getLogits();
    RankedTensorType type = tensorType(logits);
    int64_t rows = type.getDimSize(0);
    AffineMap identity = builder.getMultiDimIdentityMap(2);
    AffineMap rowMap = droppingMap(builder, 2, {1});
    AffineMap toScalar = scalarMap(builder, 2);
    auto [max, sum] = softmaxStatistics(builder, loc, logits, 1);
    Type element = type.getElementType();
    return buildElementwise(
        builder, loc, type,
        {logits, adaptor.getLabels(), max, sum, adaptor.getGrad()},
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value shifted =
              arith::SubFOp::create(b, l, widenToF32(b, l, args[0]), args[2]);
          Value p = arith::DivFOp::create(
              b, l, math::ExpOp::create(b, l, shifted), args[3]);
          Value c = linalg::IndexOp::create(b, l, 1);
          Value label =
              arith::IndexCastOp::create(b, l, b.getIndexType(), args[1]);
          Value hit =
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, c, label);
          Value one = f32(b, l, 1.0);
          Value zero = f32(b, l, 0.0);
          Value target = arith::SelectOp::create(b, l, hit, one, zero);
          Value scale = arith::DivFOp::create(
              b, l, args[4], f32(b, l, static_cast<double>(rows)));
          Value diff = arith::SubFOp::create(b, l, p, target);
          Value result = arith::MulFOp::create(b, l, diff, scale);
          return roundTo(b, l, result, element);
        },
        {identity, rowMap, rowMap, rowMap, toScalar});
  }
};

/// 2 * (prediction - target) * grad / numel.
struct MseLossGradLowering : ResultLowering<MseLossGradOp> {
  using ResultLowering::ResultLowering;
  Value lower(MseLossGradOp op, OpAdaptor adaptor, OpBuilder &builder,
              Location loc, RankedTensorType type) const override {
    unsigned rank = type.getRank();
    AffineMap identity = builder.getMultiDimIdentityMap(rank);
    AffineMap toScalar = scalarMap(builder, rank);
    double factor = 2.0 / static_cast<double>(type.getNumElements());
    Type element = type.getElementType();
    return buildElementwise(
        builder, loc, type,
        {adaptor.getPrediction(), adaptor.getTarget(), adaptor.getGrad()},
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value prediction = widenToF32(b, l, args[0]);
          Value target = widenToF32(b, l, args[1]);
          Value d = arith::SubFOp::create(b, l, prediction, target);
          Value scale = arith::MulFOp::create(b, l, args[2], f32(b, l, factor));
          Value result = arith::MulFOp::create(b, l, d, scale);
          return roundTo(b, l, result, element);
        },
        {identity, identity, toScalar});
  }
};
} // namespace

void mlir::amp::populateAMPNormalizationToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<LayerNormLowering, RmsNormLowering, GroupNormLowering,
               BatchNormLowering, LayerNormGradLowering, RmsNormGradLowering,
               GroupNormGradLowering, BatchNormGradLowering,
               SoftmaxGradLowering<SoftmaxGradOp>,
               SoftmaxGradLowering<LogSoftmaxGradOp>, CrossEntropyGradLowering,
               MseLossGradLowering>(patterns.getContext());
}
