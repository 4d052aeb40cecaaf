//===- LinalgBuilders.h - helpers shared by the amp lowerings ---*- C++ -*-===//

#ifndef AMP_LIB_CONVERSION_AMPTOLINALG_LINALGBUILDERS_H
#define AMP_LIB_CONVERSION_AMPTOLINALG_LINALGBUILDERS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/Transforms/DialectConversion.h"

#include <limits>

namespace mlir::amp {

/// A lowering that replaces the op by the values `lower` builds at the op's
/// location: the frame the amp patterns share.
template <typename OpTy> struct Lowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;

  virtual SmallVector<Value> lower(OpTy op, OpAdaptor adaptor,
                                   OpBuilder &builder, Location loc) const = 0;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    rewriter.replaceOp(op, lower(op, adaptor, rewriter, op.getLoc()));
    return success();
  }
};

/// A lowering of a one-result op whose replacement `lower` builds at the
/// op's location, given the op's (tensor) result type.
template <typename OpTy> struct ResultLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpTy::Adaptor;

  virtual Value lower(OpTy op, OpAdaptor adaptor, OpBuilder &b, Location loc,
                      RankedTensorType resultType) const = 0;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    rewriter.replaceOp(op, lower(op, adaptor, rewriter, op.getLoc(),
                                 cast<RankedTensorType>(op.getType())));
    return success();
  }
};

/// Builds the scalar body of an elementwise op from its scalar arguments.
using ScalarBodyBuilder =
    function_ref<Value(OpBuilder &, Location, ValueRange)>;

inline Value emptyTensor(OpBuilder &b, Location loc, RankedTensorType type) {
  return tensor::EmptyOp::create(b, loc, type.getShape(),
                                 type.getElementType());
}

inline Value scalarConstant(OpBuilder &b, Location loc, Type type,
                            double value) {
  return arith::ConstantOp::create(b, loc, type, b.getFloatAttr(type, value));
}

/// An f32 scalar constant.
inline Value f32(OpBuilder &b, Location loc, double value) {
  return scalarConstant(b, loc, b.getF32Type(), value);
}

inline RankedTensorType tensorType(Value value) {
  return cast<RankedTensorType>(value.getType());
}

/// The map from `rank` loops to a 0-d operand, read by every iteration.
inline AffineMap scalarMap(OpBuilder &b, unsigned rank) {
  return AffineMap::get(rank, 0, {}, b.getContext());
}

/// Widens a float scalar to f32 (no-op on f32 and on non-floats).
inline Value widenToF32(OpBuilder &b, Location loc, Value value) {
  Type type = value.getType();
  if (!isa<FloatType>(type) || type.isF32())
    return value;
  return arith::ExtFOp::create(b, loc, b.getF32Type(), value);
}

/// Rounds an f32 scalar to `type` (no-op when it already is `type`).
inline Value roundTo(OpBuilder &b, Location loc, Value value, Type type) {
  if (value.getType() == type)
    return value;
  return arith::TruncFOp::create(b, loc, type, value);
}

/// A tensor of `type` filled with `value`.
inline Value filledTensor(OpBuilder &b, Location loc, RankedTensorType type,
                          double value) {
  Value init = emptyTensor(b, loc, type);
  Value scalar = scalarConstant(b, loc, type.getElementType(), value);
  return linalg::FillOp::create(b, loc, scalar, init).getResult(0);
}

/// A linalg.generic over `resultType`'s shape: `inputs` are read through
/// `inputMaps` (identity when empty) and `body` computes each element.
Value buildElementwise(OpBuilder &b, Location loc, RankedTensorType resultType,
                       ValueRange inputs, ScalarBodyBuilder body,
                       ArrayRef<AffineMap> inputMaps = {});

/// Builds the scalar results of a multi-result elementwise op.
using MultiBodyBuilder =
    function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)>;

/// buildElementwise with one result per type in `resultTypes` (all of one
/// shape), for updates that write a parameter and its optimizer state in one
/// pass.
SmallVector<Value> buildMultiElementwise(OpBuilder &b, Location loc,
                                         ArrayRef<RankedTensorType> resultTypes,
                                         ValueRange inputs,
                                         MultiBodyBuilder body,
                                         ArrayRef<AffineMap> inputMaps = {});

RankedTensorType withElementType(RankedTensorType type, Type element);
RankedTensorType f32TensorOf(OpBuilder &b, ArrayRef<int64_t> shape);

/// A possibly negative axis counted from the front.
int64_t normalized(int64_t axis, int64_t rank);

/// `shape` without the dimensions in `axes`.
SmallVector<int64_t> droppedShape(ArrayRef<int64_t> shape,
                                  ArrayRef<int64_t> axes);

/// The map from `rank` loops to the loops not in `axes`.
AffineMap droppingMap(OpBuilder &b, unsigned rank, ArrayRef<int64_t> axes);

/// Folds the f32 accumulator `acc` with the (f32-widened) inputs.
using ReductionCombiner =
    function_ref<Value(OpBuilder &, Location, Value, ValueRange)>;

/// A linalg.generic reducing over `axes` of a `rank`-loop nest into an f32
/// tensor of `outputShape` started at `init`; inputs are widened to f32
/// before `combine` sees them (non-float inputs are passed as they are).
Value buildReduction(OpBuilder &b, Location loc, unsigned rank,
                     ArrayRef<int64_t> axes, ArrayRef<int64_t> outputShape,
                     ValueRange inputs, ArrayRef<AffineMap> inputMaps,
                     double init, ReductionCombiner combine);

/// Combiners for buildReduction: acc + x[0] and max(acc, x[0]).
Value addF(OpBuilder &b, Location loc, Value acc, ValueRange x);
Value maxF(OpBuilder &b, Location loc, Value acc, ValueRange x);
/// `acc + x` where `hit`, else `acc`: the reductions that pick the elements
/// matching an index (gather, argmax, label) accumulate with it.
Value addWhere(OpBuilder &b, Location loc, Value hit, Value acc, Value x);

constexpr double kNegInfinity = -std::numeric_limits<double>::infinity();

/// Reshapes a static tensor (flatten, then expand).
Value reshapeTensor(OpBuilder &b, Location loc, Value value,
                    RankedTensorType target);

/// Rounds an f32 tensor to `resultType`, optionally transforming each value
/// first; returns the tensor itself when there is nothing to do.
Value finishElementwise(
    OpBuilder &b, Location loc, Value f32Tensor, RankedTensorType resultType,
    function_ref<Value(OpBuilder &, Location, Value)> transform = nullptr);

/// Row statistics of a softmax along `axis` (non-negative): the maximum and
/// the sum of exp(x - max), both f32 with the axis dropped.
std::pair<Value, Value> softmaxStatistics(OpBuilder &b, Location loc,
                                          Value input, int64_t axis);

/// The mean of all elements of `values`, as a 0-d f32 tensor.
Value meanToScalar(OpBuilder &b, Location loc, Value values);

} // namespace mlir::amp

#endif // AMP_LIB_CONVERSION_AMPTOLINALG_LINALGBUILDERS_H
