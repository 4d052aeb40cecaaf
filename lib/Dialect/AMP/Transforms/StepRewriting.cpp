//===- StepRewriting.cpp - rewriting the optimizer end of a step ----------===//

#include "StepRewriting.h"

#include "llvm/ADT/DenseMap.h"

using namespace mlir;
using namespace mlir::amp;

//===----------------------------------------------------------------------===//
// 0-d values
//===----------------------------------------------------------------------===//

Type mlir::amp::elementTypeOf(Value value) {
  return cast<ShapedType>(value.getType()).getElementType();
}

bool mlir::amp::isLowPrecision(Type element) {
  return isa<Float16Type, BFloat16Type>(element);
}

RankedTensorType mlir::amp::scalarOf(Type element) {
  return RankedTensorType::get({}, element);
}

Value mlir::amp::scalarConstant(OpBuilder &b, Location loc, Type element,
                                Attribute value) {
  auto type = scalarOf(element);
  return ConstantOp::create(b, loc, type, DenseElementsAttr::get(type, value));
}

Value mlir::amp::f32Constant(OpBuilder &b, Location loc, double value) {
  return scalarConstant(b, loc, b.getF32Type(), b.getF32FloatAttr(value));
}

Value mlir::amp::i64Constant(OpBuilder &b, Location loc, int64_t value) {
  return scalarConstant(b, loc, b.getI64Type(), b.getI64IntegerAttr(value));
}

Value mlir::amp::i1Constant(OpBuilder &b, Location loc, bool value) {
  return scalarConstant(b, loc, b.getI1Type(), b.getBoolAttr(value));
}

Value mlir::amp::logicalAnd(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  return WhereOp::create(b, loc, lhs.getType(), lhs, rhs, lhs);
}

Value mlir::amp::logicalOr(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  return WhereOp::create(b, loc, lhs.getType(), lhs, lhs, rhs);
}

Value mlir::amp::logicalNot(OpBuilder &b, Location loc, Value value) {
  return WhereOp::create(b, loc, value.getType(), value,
                         i1Constant(b, loc, false), i1Constant(b, loc, true));
}

Value mlir::amp::compare(OpBuilder &b, Location loc,
                         CompareDirection direction, Value lhs, Value rhs) {
  auto type = cast<RankedTensorType>(lhs.getType()).clone(b.getI1Type());
  return CompareOp::create(b, loc, type, direction, lhs, rhs);
}

//===----------------------------------------------------------------------===//
// Optimizer updates
//===----------------------------------------------------------------------===//

bool mlir::amp::isOptimizerUpdate(Operation *op) {
  return isa<SgdUpdateOp, AdamWUpdateOp>(op);
}

OpOperand *mlir::amp::gradOperand(Operation *op) {
  if (auto sgd = dyn_cast<SgdUpdateOp>(op))
    return &sgd.getGradMutable();
  if (auto adam = dyn_cast<AdamWUpdateOp>(op))
    return &adam.getGradMutable();
  return nullptr;
}

Value mlir::amp::paramOf(Operation *op) {
  if (auto sgd = dyn_cast<SgdUpdateOp>(op))
    return sgd.getParam();
  if (auto adam = dyn_cast<AdamWUpdateOp>(op))
    return adam.getParam();
  return {};
}

Value mlir::amp::foundInfOf(Operation *op) {
  if (auto sgd = dyn_cast<SgdUpdateOp>(op))
    return sgd.getFoundInf();
  if (auto adam = dyn_cast<AdamWUpdateOp>(op))
    return adam.getFoundInf();
  return {};
}

void mlir::amp::setFoundInf(Operation *update, Value flag) {
  if (auto sgd = dyn_cast<SgdUpdateOp>(update))
    sgd.getFoundInfMutable().assign(flag);
  else
    cast<AdamWUpdateOp>(update).getFoundInfMutable().assign(flag);
}

Value mlir::amp::skippedValueOf(Value result) {
  auto opResult = dyn_cast<OpResult>(result);
  if (!opResult)
    return {};
  unsigned index = opResult.getResultNumber();
  if (auto sgd = dyn_cast<SgdUpdateOp>(opResult.getOwner()))
    return index == 0 ? sgd.getParam() : sgd.getMomentumBuffer();
  if (auto adam = dyn_cast<AdamWUpdateOp>(opResult.getOwner())) {
    Value skipped[] = {adam.getParam(), adam.getExpAvg(), adam.getExpAvgSq()};
    return skipped[index];
  }
  return {};
}

bool mlir::amp::acceptsF32Gradient(OpOperand &use) {
  Operation *user = use.getOwner();
  if (isa<ClipGradNormOp>(user))
    return true;
  if (gradOperand(user) == &use)
    return elementTypeOf(paramOf(user)).isF32();
  return false;
}

void mlir::amp::keepStateWhen(OpBuilder &b, Location loc, TrainingStep view,
                              Value condition, ArrayRef<Role> roles) {
  Operation *ret = view.getReturn();
  auto step = cast<FunctionOpInterface>(view.getFunction());
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(ret);
  DenseMap<Type, Value> broadcastCondition;
  for (Role role : roles) {
    for (TrainingStep::StatePair pair : view.getStatePairs(role)) {
      Value in = step.getArgument(pair.argument);
      Value out = ret->getOperand(pair.result);
      if (out == in || in.getType() != out.getType())
        continue;
      if (skippedValueOf(out) == in)
        continue;
      auto type = cast<RankedTensorType>(out.getType());
      Value mask = condition;
      if (type.getRank() != 0) {
        Type maskType = type.clone(b.getI1Type());
        Value &broadcast = broadcastCondition[maskType];
        if (!broadcast)
          broadcast = BroadcastOp::create(b, loc, maskType, condition);
        mask = broadcast;
      }
      ret->setOperand(pair.result,
                      WhereOp::create(b, loc, type, mask, in, out));
    }
  }
}

//===----------------------------------------------------------------------===//
// The gradients of the optimizer end
//===----------------------------------------------------------------------===//

Operation *mlir::amp::producerThroughCasts(Value value) {
  while (auto cast = value.getDefiningOp<CastOp>())
    value = cast.getInput();
  return value.getDefiningOp();
}

SmallVector<OpOperand *> mlir::amp::findGradientEntries(Block &body) {
  SmallVector<OpOperand *> entries;
  for (Operation &op : body)
    if (auto unscale = dyn_cast<UnscaleGradsOp>(op))
      for (OpOperand &operand : unscale.getGradientsMutable())
        entries.push_back(&operand);
  if (!entries.empty())
    return entries;
  for (Operation &op : body) {
    if (auto clip = dyn_cast<ClipGradNormOp>(op)) {
      for (OpOperand &operand : clip.getGradientsMutable())
        entries.push_back(&operand);
    } else if (OpOperand *grad = gradOperand(&op)) {
      if (!isa_and_nonnull<ClipGradNormOp>(producerThroughCasts(grad->get())))
        entries.push_back(grad);
    }
  }
  return entries;
}

Value mlir::amp::findAccumulationBoundary(TrainingStep view) {
  for (unsigned i : view.getArguments(Role::OptimizerState)) {
    if (getAMPName(view.getArgumentAttrs(i)) != kGradAccumMicroStepName)
      continue;
    std::optional<unsigned> result = view.getUpdateResult(i);
    if (!result)
      return {};
    auto update =
        view.getReturn()->getOperand(*result).getDefiningOp<WhereOp>();
    return update ? update.getCondition() : Value();
  }
  return {};
}
