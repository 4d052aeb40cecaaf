//===- StepRewriting.h - rewriting the optimizer end of a step --*- C++ -*-===//
//
// What the passes that rewrite the end of a training step share (loss
// scaling, gradient accumulation): 0-d constants and logic on i1 flags (amp
// has no scalar or integer arithmetic, so flags are selects), the operands
// of the optimizer updates, and holding state unchanged on a step whose
// update does not happen. (Private to the amp transforms.)
//
//===----------------------------------------------------------------------===//

#ifndef LIB_DIALECT_AMP_TRANSFORMS_STEPREWRITING_H
#define LIB_DIALECT_AMP_TRANSFORMS_STEPREWRITING_H

#include "amp/Dialect/AMP/IR/AMPEnums.h"
#include "amp/Dialect/AMP/IR/AMPOps.h"
#include "amp/Dialect/AMP/IR/TrainingStep.h"

#include "mlir/IR/Builders.h"

namespace mlir::amp {

//===----------------------------------------------------------------------===//
// 0-d values
//===----------------------------------------------------------------------===//

Type elementTypeOf(Value value);
bool isLowPrecision(Type element);
RankedTensorType scalarOf(Type element);

/// A 0-d amp.constant.
Value scalarConstant(OpBuilder &b, Location loc, Type element,
                     Attribute value);
Value f32Constant(OpBuilder &b, Location loc, double value);
Value i64Constant(OpBuilder &b, Location loc, int64_t value);
Value i1Constant(OpBuilder &b, Location loc, bool value);

/// `a && b`, `a || b` and `!a` on 0-d i1 tensors, as selects.
Value logicalAnd(OpBuilder &b, Location loc, Value lhs, Value rhs);
Value logicalOr(OpBuilder &b, Location loc, Value lhs, Value rhs);
Value logicalNot(OpBuilder &b, Location loc, Value value);

/// An elementwise amp.compare with an i1 result of `lhs`'s shape.
Value compare(OpBuilder &b, Location loc, CompareDirection direction, Value lhs,
              Value rhs);

//===----------------------------------------------------------------------===//
// Optimizer updates
//===----------------------------------------------------------------------===//

bool isOptimizerUpdate(Operation *op);
/// The gradient operand of an optimizer update, or null.
OpOperand *gradOperand(Operation *op);
/// The parameter an optimizer update reads, or null.
Value paramOf(Operation *op);
/// The found_inf flag an optimizer update takes, or null.
Value foundInfOf(Operation *op);
/// Makes the update skip when `flag` is set (replacing any flag it took).
void setFoundInf(Operation *update, Value flag);
/// The operand an optimizer update returns as `result` when it skips
/// (found_inf set), or null when `result` is not an update's.
Value skippedValueOf(Value result);

/// Whether `use` takes a gradient in any float type (the update computes
/// in f32), so an f16/bf16 gradient may be given to it in f32: the gradient
/// of an update of an f32 parameter, or a gradient being clipped (the
/// clipped results are retyped to match).
bool acceptsF32Gradient(OpOperand &use);

/// Returns every state result of `roles` as its state argument when
/// `condition` (0-d i1) holds, through selects before the return. Results
/// that already return their argument, and results of optimizer updates
/// whose found_inf is set whenever `condition` is (the caller made them
/// skip), are left alone.
void keepStateWhen(OpBuilder &b, Location loc, TrainingStep view,
                   Value condition, ArrayRef<Role> roles);

//===----------------------------------------------------------------------===//
// The gradients of the optimizer end
//===----------------------------------------------------------------------===//

/// The op that computes `value`, looking through casts.
Operation *producerThroughCasts(Value value);

/// The operands where gradients enter the optimizer end: those of
/// amp.unscale_grads in a loss-scaled step (every gradient an update or a
/// clip reads went through one), else the clips' and then the updates'
/// gradients that no clip produced. Gradient accumulation sums here, data
/// parallelism reduces here.
SmallVector<OpOperand *> findGradientEntries(Block &body);

// amp-accumulate-gradients' micro-batch counter (kGradAccumMicroStepName,
// TrainingStep.h) is returned updated as `amp.where %last, 0, %next`, where
// `%last` (0-d i1, computed at the start of the step) says whether this
// micro-batch completes an optimizer update.

/// `%last` of a step that accumulates gradients, or null for a step that
/// does not (every call completes an update).
Value findAccumulationBoundary(TrainingStep view);

} // namespace mlir::amp

#endif // LIB_DIALECT_AMP_TRANSFORMS_STEPREWRITING_H
