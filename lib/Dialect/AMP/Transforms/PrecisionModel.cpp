//===- PrecisionModel.cpp - operand/result roles, types, FLOPs ------------===//
//
// What the mixed-precision passes share: rules, type helpers, and the roles
// and FLOPs of an op. The op-specific knowledge is the ops' own: each op
// answers through PrecisionOpInterface or FixedPrecisionOpInterface (from
// its traits, or in AMPOps.cpp next to the verifiers it mirrors); this file
// only handles what holds for every op (non-float values, ops outside the
// dialect, ops without an assigned precision).
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/AMP/Transforms/Precision.h"

using namespace mlir;
using namespace mlir::amp;

//===----------------------------------------------------------------------===//
// Rules
//===----------------------------------------------------------------------===//

StringRef mlir::amp::getRuleName(StringRef rule) {
  return rule.take_until([](char c) { return c == ' '; });
}

bool mlir::amp::isCategoryRule(StringRef rule) {
  StringRef name = getRuleName(rule);
  return name == rule::kAllow || name == rule::kDeny || name == rule::kPin ||
         name == rule::kAutocastDisabled || name == rule::kUnlisted ||
         name == rule::kF32Constant;
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

bool mlir::amp::isAMPFloat(Type type) {
  return isa_and_nonnull<Float32Type, Float16Type, BFloat16Type>(type);
}

bool mlir::amp::isFloatTensor(Type type) {
  return amp::detail::isFloatTensor(type);
}

Type mlir::amp::getElementTypeOrNull(Type type) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    return shaped.getElementType();
  return {};
}

Type mlir::amp::withElementType(Type tensor, Type element) {
  return cast<RankedTensorType>(tensor).clone(element);
}

int64_t mlir::amp::getNumElements(Type type) {
  return amp::detail::getNumElements(type);
}

unsigned mlir::amp::getByteWidth(Type element) {
  if (isa_and_nonnull<Float32Type>(element))
    return 4;
  if (isa_and_nonnull<Float16Type, BFloat16Type>(element))
    return 2;
  return 0;
}

int64_t mlir::amp::getCastBytes(Type type, Type to) {
  return getNumElements(type) *
         (getByteWidth(getElementTypeOrNull(type)) + getByteWidth(to));
}

FloatType mlir::amp::parsePrecisionName(MLIRContext *context, StringRef name,
                                        bool allowF32) {
  std::string lower = name.lower();
  if (lower == "fp16" || lower == "f16" || lower == "half" ||
      lower == "float16")
    return Float16Type::get(context);
  if (lower == "bf16" || lower == "bfloat16")
    return BFloat16Type::get(context);
  if (allowF32 && (lower == "fp32" || lower == "f32" || lower == "float" ||
                   lower == "float32"))
    return Float32Type::get(context);
  return {};
}

//===----------------------------------------------------------------------===//
// Roles
//===----------------------------------------------------------------------===//

FloatType mlir::amp::getAssignedPrecision(Operation *op) {
  auto attr = op->getAttrOfType<TypeAttr>(kPrecisionAttrName);
  if (!attr)
    return {};
  return dyn_cast<FloatType>(attr.getValue());
}

OperandRole mlir::amp::getOperandRole(Operation *op, unsigned index,
                                      FloatType precision) {
  if (!isFloatTensor(op->getOperand(index).getType()))
    return OperandRole::NotFloat;
  auto interface = dyn_cast<PrecisionOpInterface>(op);
  if (interface && precision)
    return interface.getOperandPrecisionRole(index, precision);
  auto fixed = dyn_cast<FixedPrecisionOpInterface>(op);
  return fixed && fixed.isFlexibleOperand(index) ? OperandRole::Flexible
                                                 : OperandRole::Fixed;
}

ResultRole mlir::amp::getResultRole(Operation *op, unsigned index,
                                    FloatType precision,
                                    unsigned *operandIndex) {
  if (!isFloatTensor(op->getResult(index).getType()))
    return ResultRole::NotFloat;
  auto interface = dyn_cast<PrecisionOpInterface>(op);
  if (!interface || !precision)
    return ResultRole::Fixed;
  unsigned tied = 0;
  ResultRole role = interface.getResultPrecisionRole(index, tied);
  if (role == ResultRole::SameAsOperand && operandIndex)
    *operandIndex = tied;
  return role;
}

bool mlir::amp::isExactWideningCast(Operation *op) {
  auto cast = dyn_cast_or_null<CastOp>(op);
  if (!cast)
    return false;
  Type from = getElementTypeOrNull(cast.getInput().getType());
  Type to = getElementTypeOrNull(cast.getType());
  return to.isF32() && isa<Float16Type, BFloat16Type>(from);
}

Value mlir::amp::lookThroughWideningCasts(Value value) {
  while (isExactWideningCast(value.getDefiningOp()))
    value = value.getDefiningOp<CastOp>().getInput();
  return value;
}

void mlir::amp::forEachUseThroughWideningCasts(
    Value value, llvm::function_ref<void(OpOperand &)> fn) {
  for (OpOperand &use : value.getUses()) {
    if (isExactWideningCast(use.getOwner()))
      forEachUseThroughWideningCasts(use.getOwner()->getResult(0), fn);
    else
      fn(use);
  }
}

bool mlir::amp::isInAutocastDisabledRegion(Operation *op) {
  for (Operation *current = op; current; current = current->getParentOp())
    if (current->hasAttr(kAutocastDisabledAttrName))
      return true;
  return false;
}

//===----------------------------------------------------------------------===//
// FLOPs
//===----------------------------------------------------------------------===//

double mlir::amp::estimateFlops(Operation *op) {
  if (auto interface = dyn_cast<PrecisionOpInterface>(op))
    return interface.estimateFlops();
  if (auto fixed = dyn_cast<FixedPrecisionOpInterface>(op))
    return fixed.estimateFlops();
  return amp::detail::estimateElementwiseFlops(op);
}
