//===- PrecisionModel.cpp - operand/result roles, types, FLOPs ------------===//
//
// The per-op knowledge the mixed-precision passes share. Every op-specific
// case here mirrors a verifier in AMPOps.cpp: an operand is FollowsOrF32 or a
// result Widenable exactly where the verifier accepts f32 next to a low
// precision, so a retyped op always verifies.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/AMP/Transforms/Precision.h"

#include "llvm/ADT/TypeSwitch.h"

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
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && isAMPFloat(tensor.getElementType());
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
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return 0;
  int64_t count = 1;
  for (int64_t dim : tensor.getShape())
    if (!ShapedType::isDynamic(dim))
      count *= dim;
  return count;
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

namespace {
/// Operands that may stay f32 next to a low-precision input: linear/conv
/// biases, norm affine parameters (forward and backward).
bool isFollowsOrF32Operand(Operation *op, unsigned index) {
  return TypeSwitch<Operation *, bool>(op)
      .Case<LinearOp, Conv2DOp>([&](auto) { return index == 2; })
      .Case<LayerNormOp, GroupNormOp, BatchNormOp>(
          [&](auto) { return index == 1 || index == 2; })
      .Case<RmsNormOp>([&](auto) { return index == 1; })
      .Case<LayerNormGradOp, GroupNormGradOp, BatchNormGradOp>(
          [&](auto) { return index == 4; })
      .Case<RmsNormGradOp>([&](auto) { return index == 3; })
      .Default([](Operation *) { return false; });
}

/// Operands typed AMP_F32Scalar in ODS that are not statistics.
bool isF32ScalarOperand(Operation *op, unsigned index) {
  return isa<CrossEntropyGradOp, MseLossGradOp>(op) && index == 0;
}

/// Ops that compute in f32 from an exactly widened input when assigned f32,
/// so a low-precision input needs no cast of its own (the lowering widens
/// each element before any arithmetic).
bool widensInputItself(Operation *op, unsigned index) {
  return isa<ReduceSumOp, ReduceMeanOp, CrossEntropyOp>(op) && index == 0;
}

/// Operands of ops without a precision that take any float type.
bool isFlexibleOperandOfFixedOp(Operation *op, unsigned index) {
  return TypeSwitch<Operation *, bool>(op)
      .Case<CastOp>([](auto) { return true; })
      .Case<SgdUpdateOp, AdamWUpdateOp>([&](auto) { return index == 1; })
      .Case<UnscaleGradsOp>([&](UnscaleGradsOp unscale) {
        // gradients are operands 1..n; the unscaled result may be f32
        // whatever the gradient's type, so only an f32 result stays valid.
        if (index == 0)
          return false;
        Type result = unscale.getUnscaled()[index - 1].getType();
        return getElementTypeOrNull(result).isF32();
      })
      .Default([](Operation *) { return false; });
}
} // namespace

OperandRole mlir::amp::getOperandRole(Operation *op, unsigned index,
                                      FloatType precision) {
  Type type = op->getOperand(index).getType();
  if (!isFloatTensor(type))
    return OperandRole::NotFloat;
  auto interface = dyn_cast<PrecisionOpInterface>(op);
  if (!interface || !precision)
    return isFlexibleOperandOfFixedOp(op, index) ? OperandRole::Flexible
                                                 : OperandRole::Fixed;
  if (interface.isStatisticOperand(index) || isF32ScalarOperand(op, index))
    return OperandRole::F32;
  if (isFollowsOrF32Operand(op, index))
    return OperandRole::FollowsOrF32;
  if (precision.isF32() && widensInputItself(op, index))
    return OperandRole::Flexible;
  return OperandRole::Follows;
}

ResultRole mlir::amp::getResultRole(Operation *op, unsigned index,
                                    FloatType precision,
                                    unsigned *operandIndex) {
  Type type = op->getResult(index).getType();
  if (!isFloatTensor(type))
    return ResultRole::NotFloat;
  auto interface = dyn_cast<PrecisionOpInterface>(op);
  if (!interface || !precision)
    return ResultRole::Fixed;
  if (interface.isStatisticResult(index) || isa<CrossEntropyOp, MseLossOp>(op))
    return ResultRole::F32;
  if (isa<MatmulOp, LinearOp, Conv2DOp, Conv2DInputGradOp, Conv2DWeightGradOp,
          ReduceSumOp, ReduceMeanOp, GatherGradOp>(op))
    return ResultRole::Widenable;
  std::optional<unsigned> affine =
      TypeSwitch<Operation *, std::optional<unsigned>>(op)
          .Case<LayerNormGradOp, GroupNormGradOp, BatchNormGradOp>(
              [&](auto) -> std::optional<unsigned> {
                if (index == 1 || index == 2)
                  return 4;
                return std::nullopt;
              })
          .Case<RmsNormGradOp>([&](auto) -> std::optional<unsigned> {
            if (index == 1)
              return 3;
            return std::nullopt;
          })
          .Default([](Operation *) { return std::nullopt; });
  if (affine) {
    if (operandIndex)
      *operandIndex = *affine;
    return ResultRole::SameAsOperand;
  }
  return ResultRole::Follows;
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

namespace {
double elements(Value value) {
  return static_cast<double>(getNumElements(value.getType()));
}

double convFlops(ShapedType output, ShapedType weight) {
  // 2 * N * O * OH * OW * (C / groups) * KH * KW = 2 * |output| * |w| / O.
  int64_t filters = weight.getDimSize(0);
  if (filters <= 0)
    return 0;
  return 2.0 * getNumElements(output) * getNumElements(weight) / filters;
}
} // namespace

double mlir::amp::estimateFlops(Operation *op) {
  return TypeSwitch<Operation *, double>(op)
      .Case<MatmulOp>([](MatmulOp matmul) {
        auto lhs = cast<ShapedType>(matmul.getLhs().getType());
        int64_t k = matmul.getTransposeLhs()
                        ? lhs.getDimSize(lhs.getRank() - 2)
                        : lhs.getDimSize(lhs.getRank() - 1);
        return 2.0 * elements(matmul.getResult()) * std::max<int64_t>(k, 1);
      })
      .Case<LinearOp>([](LinearOp linear) {
        auto weight = cast<ShapedType>(linear.getWeight().getType());
        return 2.0 * elements(linear.getResult()) *
                   std::max<int64_t>(weight.getDimSize(1), 1) +
               (linear.getBias() ? elements(linear.getResult()) : 0.0);
      })
      .Case<Conv2DOp>([](Conv2DOp conv) {
        return convFlops(cast<ShapedType>(conv.getResult().getType()),
                         cast<ShapedType>(conv.getWeight().getType()));
      })
      .Case<Conv2DInputGradOp>([](Conv2DInputGradOp conv) {
        return convFlops(cast<ShapedType>(conv.getGrad().getType()),
                         cast<ShapedType>(conv.getWeight().getType()));
      })
      .Case<Conv2DWeightGradOp>([](Conv2DWeightGradOp conv) {
        return convFlops(cast<ShapedType>(conv.getGrad().getType()),
                         cast<ShapedType>(conv.getResult().getType()));
      })
      .Case<CastOp>([](auto) { return 0.0; })
      .Default([](Operation *other) {
        double largest = 0;
        for (Value value : other->getOperands())
          if (isFloatTensor(value.getType()))
            largest = std::max(largest, elements(value));
        for (Value value : other->getResults())
          if (isFloatTensor(value.getType()))
            largest = std::max(largest, elements(value));
        return largest;
      });
}
