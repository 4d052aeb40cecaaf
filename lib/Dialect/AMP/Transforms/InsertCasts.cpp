//===- InsertCasts.cpp - retype ops to their assigned precision -----------===//
//
// `amp-insert-casts` makes the types of the IR agree with the precision
// `amp-assign-precision` recorded on each op:
//
//  * ops are visited in program order, so a value is retyped by its producer
//    before any of its users asks for it;
//  * a use that needs another type gets it from a cache keyed by (value,
//    type): the first request creates one `amp.cast` right after the value's
//    definition, every later request (forward or backward, any block it
//    dominates) reuses it, so each f32 parameter is cast once per step;
//  * a Widenable result (contractions, sums, means) is produced in f32 when
//    every user needs f32 (no cast at all) and in the op's precision
//    otherwise;
//  * constants are converted at compile time instead of being cast;
//  * a request for the type a value was widened from returns the original
//    (round trips fold), and the casts left behind are folded and removed.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/AMP/Transforms/Passes.h"
#include "amp/Dialect/AMP/Transforms/Precision.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPINSERTCASTSPASS
#include "amp/Dialect/AMP/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {
bool isExactWidening(Type from, Type to) {
  return to.isF32() && isa<Float16Type, BFloat16Type>(from);
}

/// Converts a dense float constant to `element` (round to nearest even), or
/// returns null for other kinds of constants.
ElementsAttr convertConstant(ElementsAttr value, FloatType element) {
  auto dense = dyn_cast<DenseElementsAttr>(value);
  if (!dense || !isa<FloatType>(dense.getElementType()))
    return {};
  const llvm::fltSemantics &semantics = element.getFloatSemantics();
  return cast<ElementsAttr>(
      dense.mapValues(element, [&](const APFloat &in) -> APInt {
        APFloat out = in;
        bool losesInfo = false;
        out.convert(semantics, APFloat::rmNearestTiesToEven, &losesInfo);
        return out.bitcastToAPInt();
      }));
}

/// What a use accepts: one type, two (precision or f32), or anything.
struct Acceptable {
  Type first, second;
  bool any = false;
  bool accepts(Type element) const {
    return any || element == first || element == second;
  }
};

class CastInserter {
public:
  explicit CastInserter(Operation *root) : root(root) {
    root->walk([&](Block *block) {
      for (BlockArgument argument : block->getArguments())
        original[argument] = argument.getType();
    });
    root->walk([&](Operation *op) {
      for (Value result : op->getResults())
        original[result] = result.getType();
    });
  }

  LogicalResult run() {
    WalkResult walk = root->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (op == root)
        return WalkResult::advance();
      if (failed(visit(op)))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();
    cleanUpCasts();
    return success();
  }

private:
  LogicalResult visit(Operation *op) {
    if (created.contains(op))
      return success();
    FloatType precision = getAssignedPrecision(op);
    if (!precision || !isa<PrecisionOpInterface>(op)) {
      castOperandsBack(op);
      return success();
    }
    retypeOperands(op, precision);
    retypeResults(op, precision);
    if (failed(verify(op, /*verifyRecursively=*/false)))
      return op->emitError()
             << "cannot run this op in " << precision << " (amp-insert-casts)";
    return success();
  }

  /// Ops without a precision see their operands in the types they had.
  void castOperandsBack(Operation *op) {
    for (OpOperand &operand : op->getOpOperands()) {
      OperandRole role = getOperandRole(op, operand.getOperandNumber(), {});
      if (role != OperandRole::Fixed)
        continue;
      Value value = operand.get();
      Type expected = original.lookup(value);
      if (!expected || expected == value.getType())
        continue;
      operand.set(castTo(value, getElementTypeOrNull(expected)));
    }
  }

  void retypeOperands(Operation *op, FloatType precision) {
    Type f32 = Float32Type::get(op->getContext());
    for (OpOperand &operand : op->getOpOperands()) {
      Value value = operand.get();
      Type element = getElementTypeOrNull(value.getType());
      switch (getOperandRole(op, operand.getOperandNumber(), precision)) {
      case OperandRole::Follows:
        operand.set(castTo(value, precision));
        break;
      case OperandRole::F32:
        operand.set(castTo(value, f32));
        break;
      case OperandRole::FollowsOrF32:
        if (element != precision && !element.isF32())
          operand.set(castTo(value, precision));
        break;
      case OperandRole::Fixed:
        if (Type expected = original.lookup(value))
          if (expected != value.getType())
            operand.set(castTo(value, getElementTypeOrNull(expected)));
        break;
      case OperandRole::Flexible:
      case OperandRole::NotFloat:
        break;
      }
    }
  }

  void retypeResults(Operation *op, FloatType precision) {
    if (auto constant = dyn_cast<ConstantOp>(op)) {
      Type element = getElementTypeOrNull(constant.getType());
      if (!isFloatTensor(constant.getType()) || element == precision)
        return;
      if (ElementsAttr converted =
              convertConstant(constant.getValue(), precision)) {
        constant.setValueAttr(converted);
        constant.getResult().setType(
            cast<RankedTensorType>(converted.getType()));
        retypedConstants.push_back(constant);
      } else {
        // Not a dense float constant: it keeps its type, users cast it.
        op->setAttr(kPrecisionAttrName, TypeAttr::get(element));
      }
      return;
    }
    for (OpResult result : op->getResults()) {
      unsigned operandIndex = 0;
      Type element;
      switch (getResultRole(op, result.getResultNumber(), precision,
                            &operandIndex)) {
      case ResultRole::Follows:
        element = precision;
        break;
      case ResultRole::Widenable:
        element = chooseWidenable(result, precision);
        break;
      case ResultRole::SameAsOperand:
        element = getElementTypeOrNull(op->getOperand(operandIndex).getType());
        break;
      case ResultRole::F32:
      case ResultRole::Fixed:
      case ResultRole::NotFloat:
        continue;
      }
      result.setType(withElementType(result.getType(), element));
    }
  }

  /// What `use` will need, given its owner's assigned precision.
  Acceptable acceptableFor(OpOperand &use) {
    Operation *owner = use.getOwner();
    FloatType precision = getAssignedPrecision(owner);
    if (!isa<PrecisionOpInterface>(owner))
      precision = {};
    Type f32 = Float32Type::get(owner->getContext());
    switch (getOperandRole(owner, use.getOperandNumber(), precision)) {
    case OperandRole::Follows:
      return {precision, precision};
    case OperandRole::FollowsOrF32:
      return {precision, f32};
    case OperandRole::F32:
      return {f32, f32};
    case OperandRole::Fixed: {
      Type expected = getElementTypeOrNull(original.lookup(use.get()));
      return {expected, expected};
    }
    case OperandRole::Flexible:
    case OperandRole::NotFloat:
      break;
    }
    return {{}, {}, /*any=*/true};
  }

  /// f32 when every user accepts f32 and one needs it; the op's precision
  /// when every user accepts it; otherwise f32 (users of the low type get
  /// one rounding cast, which is exactly what a low result would have been).
  Type chooseWidenable(OpResult result, FloatType precision) {
    Type f32 = Float32Type::get(result.getContext());
    if (precision.isF32())
      return f32;
    bool allAcceptLow = true, anyNeedsF32 = false;
    forEachUseThroughWideningCasts(result, [&](OpOperand &use) {
      Acceptable acceptable = acceptableFor(use);
      if (!acceptable.accepts(precision)) {
        allAcceptLow = false;
        if (acceptable.accepts(f32))
          anyNeedsF32 = true;
      }
    });
    if (allAcceptLow)
      return precision;
    return anyNeedsF32 ? f32 : Type(precision);
  }

  /// `value` with element type `element`: itself, a converted constant, the
  /// source of a widening cast, or a cached cast placed after its definition.
  Value castTo(Value value, Type element) {
    if (!element || getElementTypeOrNull(value.getType()) == element)
      return value;
    // Through widening casts: their source has the same values, so a
    // request for its type folds the round trip, and casts of the same data
    // are shared whichever cast they were requested through.
    Value source = lookThroughWideningCasts(value);
    Type sourceElement = getElementTypeOrNull(source.getType());
    if (sourceElement == element)
      return source;
    if (sourceElement.isF32())
      value = source;
    auto key = std::make_pair(value, element);
    if (Value cached = cache.lookup(key))
      return cached;
    Value result;
    OpBuilder builder(value.getContext());
    builder.setInsertionPointAfterValue(value);
    Type type = withElementType(value.getType(), element);
    if (auto constant = value.getDefiningOp<ConstantOp>()) {
      if (ElementsAttr converted =
              convertConstant(constant.getValue(), cast<FloatType>(element))) {
        auto folded = ConstantOp::create(builder, constant.getLoc(), converted);
        folded->setAttr(kPrecisionAttrName, TypeAttr::get(element));
        folded->setAttr(kPrecisionRuleAttrName,
                        builder.getStringAttr(rule::kFoldedCast));
        created.insert(folded);
        result = folded.getResult();
      }
    }
    if (!result) {
      auto cast = CastOp::create(builder, value.getLoc(), type, value);
      created.insert(cast);
      result = cast.getResult();
    }
    cache[key] = result;
    return result;
  }

  /// Folds identity casts and casts of exact (widening) casts, and removes
  /// the casts nothing uses any more.
  void cleanUpCasts() {
    SmallVector<CastOp> casts;
    root->walk([&](CastOp cast) { casts.push_back(cast); });
    for (CastOp cast : casts) {
      Value input = cast.getInput();
      if (auto producer = input.getDefiningOp<CastOp>()) {
        Type from = getElementTypeOrNull(producer.getInput().getType());
        Type via = getElementTypeOrNull(producer.getType());
        if (isExactWidening(from, via))
          cast.getInputMutable().assign(producer.getInput());
      }
      if (cast.getInput().getType() == cast.getType()) {
        cast.getResult().replaceAllUsesWith(cast.getInput());
      }
    }
    // Erase dead casts users-first, so chains disappear in one sweep.
    for (CastOp cast : llvm::reverse(casts))
      if (cast->use_empty())
        cast->erase();
    // A constant converted for its users may have lost its own uses.
    for (ConstantOp constant : retypedConstants)
      if (constant->use_empty())
        constant->erase();
  }

  Operation *root;
  llvm::DenseMap<Value, Type> original;
  llvm::DenseMap<std::pair<Value, Type>, Value> cache;
  llvm::DenseSet<Operation *> created;
  SmallVector<ConstantOp> retypedConstants;
};
} // namespace

LogicalResult mlir::amp::insertPrecisionCasts(Operation *root) {
  return CastInserter(root).run();
}

bool mlir::amp::isPrecisionMaterialized(Operation *root) {
  WalkResult walk = root->walk([&](Operation *op) {
    FloatType precision = getAssignedPrecision(op);
    if (!precision || !isa<PrecisionOpInterface>(op))
      return WalkResult::advance();
    for (unsigned i = 0, e = op->getNumOperands(); i < e; ++i)
      if (getOperandRole(op, i, precision) == OperandRole::Follows &&
          getElementTypeOrNull(op->getOperand(i).getType()) != precision)
        return WalkResult::interrupt();
    for (unsigned i = 0, e = op->getNumResults(); i < e; ++i)
      if (getResultRole(op, i, precision) == ResultRole::Follows &&
          getElementTypeOrNull(op->getResult(i).getType()) != precision)
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return !walk.wasInterrupted();
}

namespace {
struct AMPInsertCastsPass
    : mlir::amp::impl::AMPInsertCastsPassBase<AMPInsertCastsPass> {
  using AMPInsertCastsPassBase::AMPInsertCastsPassBase;
  void runOnOperation() override {
    if (failed(insertPrecisionCasts(getOperation())))
      signalPassFailure();
  }
};
} // namespace
