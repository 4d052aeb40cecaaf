//===- Precision.h - shared model of the mixed-precision passes -*- C++ -*-===//
//
// What `amp-assign-precision`, `amp-insert-casts` and `amp-report` agree on:
// the op attributes they read and write, how each operand and result of an
// op relates to the precision assigned to the op, and the cast insertion
// itself (which the report reuses to count the casts a pending assignment
// will need). See docs/Precision.md, sections 4 to 8.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_TRANSFORMS_PRECISION_H
#define AMP_DIALECT_AMP_TRANSFORMS_PRECISION_H

#include "amp/Dialect/AMP/IR/AMPOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

namespace mlir::amp {

//===----------------------------------------------------------------------===//
// Op attributes (verified by AMPDialect::verifyOperationAttribute)
//===----------------------------------------------------------------------===//

/// The element type an op computes in, chosen by `amp-assign-precision`:
/// `f32`, `f16` or `bf16` (a TypeAttr). Only on ops with the precision
/// interface.
inline constexpr llvm::StringLiteral kPrecisionAttrName = "amp.precision";
/// Why the op got its precision (a short rule name, see docs/Precision.md).
inline constexpr llvm::StringLiteral kPrecisionRuleAttrName =
    "amp.precision_rule";
/// A user pin (`f32`, `f16` or `bf16`) that every pass respects.
inline constexpr llvm::StringLiteral kPinAttrName = "amp.pin";
/// A unit attribute on an op with regions (everything nested stays f32) or
/// on a call (the callee runs with autocast disabled).
inline constexpr llvm::StringLiteral kAutocastDisabledAttrName =
    "amp.autocast_disabled";
/// amp-fp8's choice for a contraction it considered, with the modeled
/// times (a string on amp.fp8_matmul, or on a product kept in bf16).
inline constexpr llvm::StringLiteral kFp8AttrName = "amp.fp8";

//===----------------------------------------------------------------------===//
// Rule names recorded in amp.precision_rule
//===----------------------------------------------------------------------===//

namespace rule {
// The op's category decides (TF pass 1, DENY list, levels, lp-norm).
inline constexpr llvm::StringLiteral kAllow = "allow";
inline constexpr llvm::StringLiteral kDeny = "deny";
// TensorFlow's painting.
inline constexpr llvm::StringLiteral kDenyPaint = "deny-paint";
inline constexpr llvm::StringLiteral kBetweenAllow = "between-allow";
inline constexpr llvm::StringLiteral kAfterAllowBf16 = "after-allow-bf16";
inline constexpr llvm::StringLiteral kClearNextToAllow = "clear-next-to-allow";
inline constexpr llvm::StringLiteral kUnpainted = "unpainted";
// The min-cut changed painting's choice to move fewer cast bytes.
inline constexpr llvm::StringLiteral kMinCut = "min-cut";
// User control and safety.
inline constexpr llvm::StringLiteral kPin = "pin";
inline constexpr llvm::StringLiteral kAutocastDisabled = "autocast-disabled";
inline constexpr llvm::StringLiteral kUnlisted = "unlisted";
inline constexpr llvm::StringLiteral kF32Constant = "f32-constant";
// A constant converted at compile time by amp-insert-casts.
inline constexpr llvm::StringLiteral kFoldedCast = "folded-cast";
} // namespace rule

/// The first word of a rule string ("deny (option deny-add)" -> "deny").
llvm::StringRef getRuleName(llvm::StringRef rule);

/// True for rules under which the op's type does not depend on its
/// neighbours (category, pin, excluded region, unlisted): naive per-op
/// casting (PyTorch autocast) gives such an op the same type.
bool isCategoryRule(llvm::StringRef rule);

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

/// A ranked tensor of f32, f16 or bf16.
bool isFloatTensor(Type type);
/// `f32`, `f16` or `bf16`.
bool isAMPFloat(Type type);
/// Returns the element type of a shaped type, or null.
Type getElementTypeOrNull(Type type);
/// `tensor` with its element type replaced.
Type withElementType(Type tensor, Type element);
/// The number of elements of a ranked tensor (dynamic dimensions count 1).
int64_t getNumElements(Type type);
/// Bytes per element of f32 (4), f16 and bf16 (2); 0 for anything else.
unsigned getByteWidth(Type element);
/// Bytes a cast of `type` to `to` moves: it reads every element and writes
/// every element.
int64_t getCastBytes(Type type, Type to);
/// Parses fp16/f16/half, bf16 and (when `allowF32`) fp32/f32/float.
FloatType parsePrecisionName(MLIRContext *context, llvm::StringRef name,
                             bool allowF32);

//===----------------------------------------------------------------------===//
// Operand and result roles
//===----------------------------------------------------------------------===//

// OperandRole and ResultRole are declared with the precision interfaces
// (AMPInterfaces.h), through which each op answers them.

/// The precision recorded on `op` (amp.precision), or null.
FloatType getAssignedPrecision(Operation *op);

/// The role of operand `index` of `op` when `op` computes in `precision`
/// (null: the op has no assigned precision, its operands are Fixed unless
/// the op handles any float type): the op's answer through its precision
/// interface, Fixed for ops without one.
OperandRole getOperandRole(Operation *op, unsigned index, FloatType precision);

/// The role of result `index`; for SameAsOperand, `operandIndex` is set.
ResultRole getResultRole(Operation *op, unsigned index, FloatType precision,
                         unsigned *operandIndex = nullptr);

/// True for an `amp.cast` from f16/bf16 to f32: it keeps every value, so the
/// passes see through it (its users are users of its input, and a request
/// for the input's type folds the round trip).
bool isExactWideningCast(Operation *op);

/// The value `value` widens exactly, through any chain of widening casts.
Value lookThroughWideningCasts(Value value);

/// Calls `fn` on every use of `value` and, instead of the uses by exact
/// widening casts, on the uses of their results (recursively).
void forEachUseThroughWideningCasts(Value value,
                                    llvm::function_ref<void(OpOperand &)> fn);

/// True when `op` or one of its ancestors carries amp.autocast_disabled.
bool isInAutocastDisabledRegion(Operation *op);

//===----------------------------------------------------------------------===//
// Cast insertion (InsertCasts.cpp), shared with the report
//===----------------------------------------------------------------------===//

/// Retypes every op under `root` that has an amp.precision to it, inserts
/// amp.cast only where a value's type differs from what a use needs (one cast
/// per value and type, placed right after the value's definition, so an f32
/// parameter is cast once and reused by forward and backward), converts
/// constants at compile time, and folds cast chains and round trips. Ops
/// without amp.precision keep their types; their operands are cast back.
LogicalResult insertPrecisionCasts(Operation *root);

/// True when every op under `root` with an amp.precision already has its
/// operand and result types (amp-insert-casts has run).
bool isPrecisionMaterialized(Operation *root);

/// The floating-point operations of `op` (2 per multiply-add for
/// contractions; one per element of the largest float tensor otherwise), as
/// its precision interface answers.
double estimateFlops(Operation *op);

} // namespace mlir::amp

#endif // AMP_DIALECT_AMP_TRANSFORMS_PRECISION_H
