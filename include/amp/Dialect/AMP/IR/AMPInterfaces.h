//===- AMPInterfaces.h - precision and gradient interfaces ------*- C++ -*-===//

#ifndef AMP_DIALECT_AMP_IR_AMPINTERFACES_H
#define AMP_DIALECT_AMP_IR_AMPINTERFACES_H

#include "amp/Dialect/AMP/IR/AMPEnums.h"
#include "amp/Dialect/AMP/IR/AMPTraits.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"

#include <optional>

namespace mlir::amp {

/// How an operand's type relates to the precision assigned to its op.
enum class OperandRole {
  /// Not a float tensor (indices, masks, seeds): never changed.
  NotFloat,
  /// Must have the op's precision.
  Follows,
  /// The op's precision or f32 (biases and norm affine parameters: an f32
  /// bias is added to the f32 accumulator).
  FollowsOrF32,
  /// Always f32 (statistics, 0-d f32 output gradients of losses).
  F32,
  /// Any float type with identical numerics: the op widens it to f32 itself
  /// (reductions and cross_entropy computed in f32, optimizer gradients,
  /// the input of a cast).
  Flexible,
  /// Keeps the type it had before the passes (ops without a precision).
  Fixed,
};

/// How a result's type relates to the precision assigned to its op.
enum class ResultRole {
  NotFloat,
  /// Has the op's precision.
  Follows,
  /// The op's precision or f32 for free: the op accumulates in f32 and may
  /// return the accumulator unrounded (contractions, sums, means).
  Widenable,
  /// Always f32 (statistics, losses).
  F32,
  /// Has the type of one operand (norm-gradient affine gradients have the
  /// affine parameter's type).
  SameAsOperand,
  Fixed,
};

namespace detail {
/// A ranked tensor of f32, f16 or bf16.
bool isFloatTensor(Type type);
/// The number of elements of a ranked tensor (dynamic dimensions count 1).
int64_t getNumElements(Type type);
/// One FLOP per element of the largest float tensor `op` reads or writes:
/// the default estimate of both precision interfaces.
double estimateElementwiseFlops(Operation *op);
} // namespace detail

} // namespace mlir::amp

#include "amp/Dialect/AMP/IR/AMPInterfaces.h.inc"

#endif // AMP_DIALECT_AMP_IR_AMPINTERFACES_H
