//===- InstrumentNonfinite.cpp - check every op for inf/NaN ---------------===//
//
// amp-instrument-nonfinite: the training step records, per op, whether its
// results and operands hold inf or NaN, the range of its operands and
// whether the op in f32 would have been finite, into a buffer state tensor
// (include/amp/Runtime/NonfiniteABI.h). amp-run --find-nonfinite re-runs a
// step that went non-finite in a library built with it and names the first
// op whose results went non-finite from finite operands (docs/Debugging.md).
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/AMP/IR/AMPDialect.h"
#include "amp/Dialect/AMP/IR/AMPOps.h"
#include "amp/Dialect/AMP/IR/TrainingStep.h"
#include "amp/Dialect/AMP/Transforms/Nonfinite.h"
#include "amp/Dialect/AMP/Transforms/Passes.h"
#include "amp/Runtime/NonfiniteABI.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Verifier.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPINSTRUMENTNONFINITEPASS
#include "amp/Dialect/AMP/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {
bool isFloatTensor(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && isa<FloatType>(type.getElementType());
}

SmallVector<Value> floatValues(ValueRange values) {
  return llvm::filter_to_vector(values, isFloatTensor);
}

/// The name the importer gave the op (an ONNX node's NameLoc), or "".
StringRef nameOf(Location loc) {
  StringRef name;
  loc->walk([&](Location inner) {
    if (auto named = dyn_cast<NameLoc>(inner)) {
      name = named.getName().getValue();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return name;
}

/// file:line:col of the op's source (the model file), else the location
/// as MLIR prints it.
std::string locationOf(Location loc) {
  std::string text;
  loc->walk([&](Location inner) {
    if (auto file = dyn_cast<FileLineColLoc>(inner)) {
      text = (file.getFilename().getValue() + ":" + Twine(file.getLine()) +
              ":" + Twine(file.getColumn()))
                 .str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (text.empty())
    llvm::raw_string_ostream(text) << loc;
  return text;
}

/// "(f16, f16) -> f16": the element types of the tensor operands and
/// results.
std::string precisionOf(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  auto printTypes = [&](TypeRange types) {
    SmallVector<Type> elements;
    for (Type type : types)
      if (auto tensor = dyn_cast<RankedTensorType>(type))
        elements.push_back(tensor.getElementType());
    if (elements.size() != 1)
      os << "(";
    llvm::interleaveComma(elements, os);
    if (elements.size() != 1)
      os << ")";
  };
  printTypes(op->getOperandTypes());
  os << " -> ";
  printTypes(op->getResultTypes());
  return text;
}

/// Builds the f32 checks of one site after the op.
class SiteChecker {
public:
  SiteChecker(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  /// The row of AMP_NONFINITE_COLUMNS values of `op` (tensor<5xf32>).
  Value buildRow(Operation *op) {
    SmallVector<Value> operands = floatValues(op->getOperands());
    SmallVector<Value> results = floatValues(op->getResults());
    Value resultFlag = flagOf(results);
    SmallVector<Value> columns(AMP_NONFINITE_COLUMNS);
    columns[AMP_NONFINITE_RESULT_FLAG] = resultFlag;
    columns[AMP_NONFINITE_OPERAND_FLAG] = flagOf(operands);
    columns[AMP_NONFINITE_OPERAND_MIN] = rangeOf(operands, /*isMax=*/false);
    columns[AMP_NONFINITE_OPERAND_MAX] = rangeOf(operands, /*isMax=*/true);
    bool allF32 = llvm::all_of(llvm::concat<Value>(operands, results),
                               [](Value v) { return elementType(v).isF32(); });
    columns[AMP_NONFINITE_F32_FLAG] = allF32 ? resultFlag : f32FlagOf(op);
    return ConcatOp::create(b, loc, vectorType(AMP_NONFINITE_COLUMNS), columns,
                            b.getI64IntegerAttr(0));
  }

private:
  static Type elementType(Value value) {
    return cast<RankedTensorType>(value.getType()).getElementType();
  }

  RankedTensorType vectorType(int64_t size) {
    return RankedTensorType::get({size}, b.getF32Type());
  }

  /// `value` widened to f32, once per site.
  Value toF32(Value value) {
    if (elementType(value).isF32())
      return value;
    Value &wide = widened[value];
    if (!wide) {
      auto type = cast<RankedTensorType>(value.getType());
      wide = CastOp::create(b, loc, type.clone(b.getF32Type()), value);
    }
    return wide;
  }

  /// The max (or sum) of every element of the f32 `value`, as tensor<1xf32>.
  Value reduceAll(Value value, bool isMax) {
    auto type = cast<RankedTensorType>(value.getType());
    if (type.getRank() > 0) {
      auto axes = llvm::to_vector(llvm::seq<int64_t>(type.getRank()));
      auto scalar = RankedTensorType::get({}, b.getF32Type());
      value =
          isMax ? ReduceMaxOp::create(b, loc, scalar, value, axes).getResult()
                : ReduceSumOp::create(b, loc, scalar, value, axes).getResult();
    }
    return ReshapeOp::create(b, loc, vectorType(1), value);
  }

  Value constant(float value) {
    return ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(vectorType(1), b.getF32FloatAttr(value)));
  }

  /// 0 when every element of `values` is finite, NaN otherwise: the sum of
  /// x - x, which is NaN exactly for inf and NaN.
  Value flagOf(ArrayRef<Value> values) {
    Value flag;
    for (Value value : values) {
      Value wide = toF32(value);
      Value zeros = SubOp::create(b, loc, wide, wide);
      Value sum = reduceAll(zeros, /*isMax=*/false);
      flag = flag ? AddOp::create(b, loc, flag, sum).getResult() : sum;
    }
    return flag ? flag : constant(0);
  }

  /// The greatest (least) element over `values`.
  Value rangeOf(ArrayRef<Value> values, bool isMax) {
    Value range;
    for (Value value : values) {
      Value wide = toF32(value);
      if (!isMax)
        wide = NegOp::create(b, loc, wide);
      Value extreme = reduceAll(wide, /*isMax=*/true);
      if (!isMax)
        extreme = NegOp::create(b, loc, extreme);
      if (range)
        extreme = isMax ? MaximumOp::create(b, loc, range, extreme).getResult()
                        : MinimumOp::create(b, loc, range, extreme).getResult();
      range = extreme;
    }
    return range ? range : constant(0);
  }

  /// The flag of a copy of `op` computed in f32 on its widened operands;
  /// AMP_NONFINITE_NOT_EVALUATED when the op has no valid f32 form.
  Value f32FlagOf(Operation *op) {
    IRMapping mapping;
    for (Value operand : floatValues(op->getOperands()))
      if (!elementType(operand).isF32())
        mapping.map(operand, toF32(operand));
    Operation *wide = b.clone(*op, mapping);
    // Precision annotations describe the low-precision op, not this copy.
    for (NamedAttribute attr : llvm::to_vector(wide->getDiscardableAttrs()))
      if (attr.getName().getValue().starts_with("amp."))
        wide->removeAttr(attr.getName());
    for (OpResult result : wide->getResults())
      if (isFloatTensor(result))
        result.setType(
            cast<RankedTensorType>(result.getType()).clone(b.getF32Type()));
    ScopedDiagnosticHandler quiet(op->getContext(),
                                  [](Diagnostic &) { return success(); });
    if (failed(verify(wide, /*verifyRecursively=*/false))) {
      wide->erase();
      return constant(AMP_NONFINITE_NOT_EVALUATED);
    }
    return flagOf(floatValues(wide->getResults()));
  }

  OpBuilder &b;
  Location loc;
  DenseMap<Value, Value> widened;
};

/// Whether `op` is a site: an amp op with a float operand and a float
/// result (constants have no operands; comparisons no float result).
bool isSite(Operation *op) {
  return isa<AMPDialect>(op->getDialect()) &&
         !floatValues(op->getOperands()).empty() &&
         !floatValues(op->getResults()).empty();
}

DictionaryAttr describeSite(Operation *op) {
  Builder b(op->getContext());
  return b.getDictionaryAttr({
      b.getNamedAttr("kind", b.getStringAttr(op->getName().getStringRef())),
      b.getNamedAttr("name", b.getStringAttr(nameOf(op->getLoc()))),
      b.getNamedAttr("location", b.getStringAttr(locationOf(op->getLoc()))),
      b.getNamedAttr("precision", b.getStringAttr(precisionOf(op))),
  });
}

struct AMPInstrumentNonfinitePass
    : public amp::impl::AMPInstrumentNonfinitePassBase<
          AMPInstrumentNonfinitePass> {
  void runOnOperation() override {
    func::FuncOp step = findTrainingStep<func::FuncOp>(getOperation());
    if (!step) {
      getOperation().emitError()
          << "amp-instrument-nonfinite: the module has no training step";
      return signalPassFailure();
    }
    if (failed(instrument(step)))
      signalPassFailure();
  }

  LogicalResult instrument(func::FuncOp step) {
    if (step->hasAttr(kNonfiniteSitesAttrName))
      return step.emitError()
             << "amp-instrument-nonfinite: the training step is instrumented "
                "already";
    if (!step.getBody().hasOneBlock())
      return step.emitError() << "amp-instrument-nonfinite: the training step "
                                 "must have one block";
    SmallVector<Operation *> sites = llvm::filter_to_vector(
        llvm::make_pointer_range(step.getBody().front()), isSite);
    if (sites.empty())
      return step.emitError()
             << "amp-instrument-nonfinite: the training step has no op "
                "with float operands and results to check";

    OpBuilder b(step.getContext());
    SmallVector<Value> rows;
    SmallVector<Attribute> table;
    for (Operation *op : sites) {
      b.setInsertionPointAfter(op);
      rows.push_back(SiteChecker(b, op->getLoc()).buildRow(op));
      table.push_back(describeSite(op));
    }
    step->setAttr(kNonfiniteSitesAttrName, b.getArrayAttr(table));
    return recordRows(step, rows);
  }

  /// The rows become the new value of the records' buffer state.
  LogicalResult recordRows(func::FuncOp step, ArrayRef<Value> rows) {
    auto type =
        RankedTensorType::get({int64_t(rows.size()), AMP_NONFINITE_COLUMNS},
                              Float32Type::get(step.getContext()));
    TrainingStep view(step);
    FailureOr<SmallVector<BlockArgument>> args =
        view.addState(Role::Buffer, {type},
                      {makeContractAttrs(step.getContext(), Role::Buffer,
                                         AMP_NONFINITE_STATS_NAME)});
    if (failed(args))
      return step.emitError()
             << "amp-instrument-nonfinite: cannot add the records' state";
    OpBuilder b(view.getReturn());
    Location loc = step.getLoc();
    auto flat = RankedTensorType::get(
        {int64_t(rows.size()) * AMP_NONFINITE_COLUMNS}, b.getF32Type());
    Value all = ConcatOp::create(b, loc, flat, rows, b.getI64IntegerAttr(0));
    view.setUpdatedValue(args->front(), ReshapeOp::create(b, loc, type, all));
    return success();
  }
};
} // namespace
