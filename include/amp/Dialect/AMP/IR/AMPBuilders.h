//===- AMPBuilders.h - building amp ops from C++ ----------------*- C++ -*-===//
//
// Small builders of amp ops with the types the verifiers require (explicit
// casts, broadcasts and reductions; the dialect has no implicit
// broadcasting), shared by the backward rules (AMPGradients.cpp) and the
// attention decomposition (lib/Conversion/AMPAttentionToRuntime).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_IR_AMPBUILDERS_H
#define AMP_DIALECT_AMP_IR_AMPBUILDERS_H

#include "amp/Dialect/AMP/IR/AMPOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

#include <numeric>

namespace mlir::amp::build {
using Shape = SmallVector<int64_t>;

inline RankedTensorType tensorType(Value value) {
  return cast<RankedTensorType>(value.getType());
}

inline Type elementType(Value value) {
  return tensorType(value).getElementType();
}

inline bool isFloatTensor(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && isa<FloatType>(type.getElementType());
}

/// `value` converted to element type `element` (amp.cast), unless it has it.
inline Value castElement(OpBuilder &b, Location loc, Value value,
                         Type element) {
  RankedTensorType type = tensorType(value);
  if (type.getElementType() == element)
    return value;
  return CastOp::create(b, loc, type.clone(element), value);
}

/// `value` with `like`'s element type.
inline Value castLike(OpBuilder &b, Location loc, Value value, Value like) {
  return castElement(b, loc, value, elementType(like));
}

/// A splat constant of `type` (a float tensor).
inline Value splat(OpBuilder &b, Location loc, RankedTensorType type,
                   double value) {
  auto attr = DenseElementsAttr::get(
      type, b.getFloatAttr(type.getElementType(), value));
  return ConstantOp::create(b, loc, type, attr);
}

inline Value splatLike(OpBuilder &b, Location loc, Value like, double value) {
  return splat(b, loc, tensorType(like), value);
}

inline Value add(OpBuilder &b, Location loc, Value x, Value y) {
  return AddOp::create(b, loc, x, y);
}
inline Value sub(OpBuilder &b, Location loc, Value x, Value y) {
  return SubOp::create(b, loc, x, y);
}
inline Value mul(OpBuilder &b, Location loc, Value x, Value y) {
  return MulOp::create(b, loc, x, y);
}
inline Value div(OpBuilder &b, Location loc, Value x, Value y) {
  return DivOp::create(b, loc, x, y);
}
inline Value neg(OpBuilder &b, Location loc, Value x) {
  return NegOp::create(b, loc, x);
}
inline Value scale(OpBuilder &b, Location loc, Value x, double factor) {
  return mul(b, loc, x, splatLike(b, loc, x, factor));
}

inline Value compare(OpBuilder &b, Location loc, CompareDirection direction,
                     Value lhs, Value rhs) {
  RankedTensorType type = tensorType(lhs);
  return CompareOp::create(b, loc, type.clone(b.getI1Type()), direction, lhs,
                           rhs);
}

inline Value select(OpBuilder &b, Location loc, Value condition, Value onTrue,
                    Value onFalse) {
  return WhereOp::create(b, loc, onTrue.getType(), condition, onTrue, onFalse);
}

/// `value` reshaped to `shape` (same element type), unless it has it. A
/// reshape of a reshape folds into one (rules compose: the gradient of a
/// reshape is often flattened again by the next rule).
inline Value reshape(OpBuilder &b, Location loc, Value value,
                     ArrayRef<int64_t> shape) {
  RankedTensorType type = tensorType(value);
  if (type.getShape() == shape)
    return value;
  return b.createOrFold<ReshapeOp>(loc, type.clone(shape), value);
}

/// `value` broadcast to `shape` (NumPy rules), unless it has it.
inline Value broadcast(OpBuilder &b, Location loc, Value value,
                       ArrayRef<int64_t> shape) {
  RankedTensorType type = tensorType(value);
  if (type.getShape() == shape)
    return value;
  return BroadcastOp::create(b, loc, type.clone(shape), value);
}

/// Sum of `value` over `axes` (normalized, ascending), result element type
/// `element` (the input's or f32).
inline Value reduceSum(OpBuilder &b, Location loc, Value value,
                       ArrayRef<int64_t> axes, bool keepDims, Type element) {
  RankedTensorType type = tensorType(value);
  Shape shape;
  for (auto [dim, size] : llvm::enumerate(type.getShape())) {
    if (!llvm::is_contained(axes, int64_t(dim)))
      shape.push_back(size);
    else if (keepDims)
      shape.push_back(1);
  }
  return ReduceSumOp::create(b, loc, RankedTensorType::get(shape, element),
                             value, axes, keepDims);
}

/// Normalizes possibly negative axes (the verifier checked their range) and
/// sorts them.
inline Shape normalizedAxes(ArrayRef<int64_t> axes, int64_t rank) {
  Shape result;
  for (int64_t axis : axes)
    result.push_back(axis < 0 ? axis + rank : axis);
  llvm::sort(result);
  return result;
}

/// `shape` with the dimensions in `axes` set to 1.
inline Shape keptShape(ArrayRef<int64_t> shape, ArrayRef<int64_t> axes) {
  Shape result(shape);
  for (int64_t axis : axes)
    result[axis] = 1;
  return result;
}

inline int64_t product(ArrayRef<int64_t> shape) {
  return std::accumulate(shape.begin(), shape.end(), int64_t(1),
                         std::multiplies<int64_t>());
}

/// The gradient of a reduction's input: the result gradient `grad`, cast
/// to the input's element type, with the reduced axes restored as size 1
/// (when the forward dropped them) and broadcast to the input's shape.
inline Value expandReduced(OpBuilder &b, Location loc, Value grad, Value input,
                           ArrayRef<int64_t> axes) {
  ArrayRef<int64_t> shape = tensorType(input).getShape();
  Value g = castLike(b, loc, grad, input);
  g = reshape(b, loc, g, keptShape(shape, axes));
  return broadcast(b, loc, g, shape);
}

/// amp.matmul with the result type it must have: the batch dimensions of
/// whichever operand has them, [rows, cols] after the transposes, and the
/// operands' element type (or `element`, f32, when given).
inline Value matmul(OpBuilder &b, Location loc, Value lhs, Value rhs,
                    bool transposeLhs, bool transposeRhs,
                    Type element = Type()) {
  ArrayRef<int64_t> l = tensorType(lhs).getShape();
  ArrayRef<int64_t> r = tensorType(rhs).getShape();
  int64_t rows = transposeLhs ? l.back() : l[l.size() - 2];
  int64_t cols = transposeRhs ? r[r.size() - 2] : r.back();
  Shape shape(l.size() > 2 ? l.drop_back(2) : r.drop_back(2));
  shape.append({rows, cols});
  auto op = MatmulOp::create(
      b, loc,
      RankedTensorType::get(shape, element ? element : elementType(lhs)), lhs,
      rhs);
  if (transposeLhs)
    op.setTransposeLhs(true);
  if (transposeRhs)
    op.setTransposeRhs(true);
  return op;
}

} // namespace mlir::amp::build

#endif // AMP_DIALECT_AMP_IR_AMPBUILDERS_H
