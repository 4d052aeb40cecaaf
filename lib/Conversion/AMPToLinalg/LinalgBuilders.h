//===- LinalgBuilders.h - helpers shared by the amp lowerings ---*- C++ -*-===//

#ifndef AMP_LIB_CONVERSION_AMPTOLINALG_LINALGBUILDERS_H
#define AMP_LIB_CONVERSION_AMPTOLINALG_LINALGBUILDERS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

namespace mlir::amp {

/// Builds the scalar body of an elementwise op from its scalar arguments.
using ScalarBodyBuilder =
    function_ref<Value(OpBuilder &, Location, ValueRange)>;

inline Value emptyTensor(OpBuilder &b, Location loc, RankedTensorType type) {
  return tensor::EmptyOp::create(b, loc, type.getShape(),
                                 type.getElementType());
}

inline Value scalarConstant(OpBuilder &b, Location loc, Type type,
                            double value) {
  return arith::ConstantOp::create(b, loc, type,
                                   b.getFloatAttr(type, value));
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

} // namespace mlir::amp

#endif // AMP_LIB_CONVERSION_AMPTOLINALG_LINALGBUILDERS_H
