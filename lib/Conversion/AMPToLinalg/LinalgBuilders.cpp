//===- LinalgBuilders.cpp - helpers shared by the amp lowerings -----------===//

#include "LinalgBuilders.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"

using namespace mlir;
using namespace mlir::amp;

namespace mlir::amp {
using utils::IteratorType;

SmallVector<Value> buildMultiElementwise(OpBuilder &b, Location loc,
                                         ArrayRef<RankedTensorType> resultTypes,
                                         ValueRange inputs,
                                         MultiBodyBuilder body,
                                         ArrayRef<AffineMap> inputMaps) {
  unsigned rank = resultTypes.front().getRank();
  AffineMap identity = b.getMultiDimIdentityMap(rank);
  SmallVector<AffineMap> maps(inputMaps);
  if (maps.empty())
    maps.assign(inputs.size(), identity);
  SmallVector<Value> inits;
  SmallVector<Type> types;
  for (RankedTensorType type : resultTypes) {
    inits.push_back(emptyTensor(b, loc, type));
    types.push_back(type);
    maps.push_back(identity);
  }
  SmallVector<IteratorType> iterators(rank, IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, types, inputs, inits, maps, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        SmallVector<Value> results =
            body(nested, nestedLoc, args.take_front(inputs.size()));
        linalg::YieldOp::create(nested, nestedLoc, results);
      });
  return llvm::to_vector_of<Value>(generic.getResults());
}

Value buildElementwise(OpBuilder &b, Location loc, RankedTensorType resultType,
                       ValueRange inputs, ScalarBodyBuilder body,
                       ArrayRef<AffineMap> inputMaps) {
  return buildMultiElementwise(
      b, loc, resultType, inputs,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        return SmallVector<Value>{body(nested, nestedLoc, args)};
      },
      inputMaps)[0];
}

RankedTensorType withElementType(RankedTensorType type, Type element) {
  return RankedTensorType::get(type.getShape(), element);
}

RankedTensorType f32TensorOf(OpBuilder &b, ArrayRef<int64_t> shape) {
  return RankedTensorType::get(shape, b.getF32Type());
}

int64_t normalized(int64_t axis, int64_t rank) {
  return axis < 0 ? axis + rank : axis;
}

/// The map from `rank` loops to the loops not in `axes`.
AffineMap droppingMap(OpBuilder &b, unsigned rank, ArrayRef<int64_t> axes) {
  SmallVector<AffineExpr> exprs;
  for (unsigned d = 0; d < rank; ++d)
    if (!llvm::is_contained(axes, static_cast<int64_t>(d)))
      exprs.push_back(b.getAffineDimExpr(d));
  return AffineMap::get(rank, 0, exprs, b.getContext());
}

/// A linalg.generic reducing over `axes` of a `rank`-loop nest into an f32
/// tensor of `outputShape` started at `init`; `combine(acc, inputs...)`.
Value buildReduction(OpBuilder &b, Location loc, unsigned rank,
                     ArrayRef<int64_t> axes, ArrayRef<int64_t> outputShape,
                     ValueRange inputs, ArrayRef<AffineMap> inputMaps,
                     double init, ReductionCombiner combine) {
  Value output = filledTensor(b, loc, f32TensorOf(b, outputShape), init);
  SmallVector<AffineMap> maps(inputMaps);
  maps.push_back(droppingMap(b, rank, axes));
  SmallVector<IteratorType> iterators(rank, IteratorType::parallel);
  for (int64_t axis : axes)
    iterators[axis] = IteratorType::reduction;
  auto generic = linalg::GenericOp::create(
      b, loc, output.getType(), inputs, output, maps, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        SmallVector<Value> wide;
        for (Value arg : args.drop_back())
          wide.push_back(widenToF32(nested, nestedLoc, arg));
        linalg::YieldOp::create(nested, nestedLoc,
                                combine(nested, nestedLoc, args.back(), wide));
      });
  return generic.getResult(0);
}

Value addF(OpBuilder &b, Location loc, Value acc, ValueRange x) {
  return arith::AddFOp::create(b, loc, acc, x[0]);
}

Value maxF(OpBuilder &b, Location loc, Value acc, ValueRange x) {
  return arith::MaximumFOp::create(b, loc, acc, x[0]);
}

Value addWhere(OpBuilder &b, Location loc, Value hit, Value acc, Value x) {
  Value sum = arith::AddFOp::create(b, loc, acc, x);
  return arith::SelectOp::create(b, loc, hit, sum, acc);
}

/// Reshapes a static tensor by flattening it and expanding the result.
Value reshapeTensor(OpBuilder &b, Location loc, Value value,
                    RankedTensorType target) {
  auto source = cast<RankedTensorType>(value.getType());
  if (source == target)
    return value;
  Type element = source.getElementType();
  auto flatType = RankedTensorType::get({source.getNumElements()}, element);
  auto allDims = [](int64_t rank) {
    ReassociationIndices dims;
    for (int64_t d = 0; d < rank; ++d)
      dims.push_back(d);
    return SmallVector<ReassociationIndices>{dims};
  };
  Value flat = value;
  if (source.getRank() == 0)
    flat = tensor::ExpandShapeOp::create(b, loc, flatType, value,
                                         ArrayRef<ReassociationIndices>{});
  else if (source.getRank() > 1)
    flat = tensor::CollapseShapeOp::create(b, loc, value,
                                           allDims(source.getRank()));
  if (target.getRank() == 1)
    return flat;
  if (target.getRank() == 0)
    return tensor::CollapseShapeOp::create(b, loc, target, flat,
                                           ArrayRef<ReassociationIndices>{});
  return tensor::ExpandShapeOp::create(b, loc, target, flat,
                                       allDims(target.getRank()));
}

/// Rounds an f32 tensor to `resultType`, optionally transforming each value.
Value finishElementwise(
    OpBuilder &b, Location loc, Value f32Tensor, RankedTensorType resultType,
    function_ref<Value(OpBuilder &, Location, Value)> transform) {
  if (!transform && resultType.getElementType().isF32())
    return f32Tensor;
  return buildElementwise(
      b, loc, resultType, f32Tensor,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value value = transform ? transform(nb, nloc, args[0]) : args[0];
        return roundTo(nb, nloc, value, resultType.getElementType());
      });
}

/// The mean over all elements of a 0-d result: sum(values) / count.
Value meanToScalar(OpBuilder &b, Location loc, Value values) {
  auto type = cast<RankedTensorType>(values.getType());
  unsigned rank = type.getRank();
  SmallVector<int64_t> all;
  for (unsigned d = 0; d < rank; ++d)
    all.push_back(d);
  Value sum = buildReduction(b, loc, rank, all, {}, values,
                             b.getMultiDimIdentityMap(rank), 0.0, addF);
  double count = type.getNumElements();
  return finishElementwise(
      b, loc, sum, f32TensorOf(b, {}), [&](OpBuilder &nb, Location l, Value v) {
        return arith::DivFOp::create(nb, l, v, f32(nb, l, count));
      });
}

SmallVector<int64_t> droppedShape(ArrayRef<int64_t> shape,
                                  ArrayRef<int64_t> axes) {
  SmallVector<int64_t> result;
  for (auto [d, size] : llvm::enumerate(shape))
    if (!llvm::is_contained(axes, static_cast<int64_t>(d)))
      result.push_back(size);
  return result;
}

/// Row statistics of a softmax along `axis`: the maximum and the sum of
/// exp(x - max), both f32 with the axis dropped.
std::pair<Value, Value> softmaxStatistics(OpBuilder &b, Location loc,
                                          Value input, int64_t axis) {
  auto type = cast<RankedTensorType>(input.getType());
  unsigned rank = type.getRank();
  SmallVector<int64_t> shape = droppedShape(type.getShape(), {axis});
  AffineMap identity = b.getMultiDimIdentityMap(rank);
  AffineMap rowMap = droppingMap(b, rank, {axis});
  Value max = buildReduction(b, loc, rank, {axis}, shape, input, identity,
                             kNegInfinity, maxF);
  Value sum = buildReduction(
      b, loc, rank, {axis}, shape, {input, max}, {identity, rowMap}, 0.0,
      [](OpBuilder &nb, Location nloc, Value acc, ValueRange x) {
        Value e = math::ExpOp::create(
            nb, nloc, arith::SubFOp::create(nb, nloc, x[0], x[1]));
        return arith::AddFOp::create(nb, nloc, acc, e);
      });
  return {max, sum};
}

} // namespace mlir::amp
