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
#include "amp/Dialect/AMP/Transforms/PrecisionPolicy.h"
#include "amp/Runtime/NonfiniteABI.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/IR/Verifier.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPINSTRUMENTNONFINITEPASS
#include "amp/Dialect/AMP/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {
/// The tensors the finder checks: f32, f16 and bf16 ones. An FP8 tensor
/// (amp.fp8_quantize's) is left out: it is NaN exactly where its checked
/// input is, and saturated where the input is infinite; its amax (f32) is
/// checked.
bool isFloatTensor(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type &&
         isa<Float32Type, Float16Type, BFloat16Type>(type.getElementType());
}

SmallVector<Value> floatValues(ValueRange values) {
  return llvm::filter_to_vector(values, isFloatTensor);
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

/// Records the range of checked values in f32 beside the step: per value
/// its maximum and the maximum of its negation (two reductions; maxima
/// propagate NaN), each value once, as rows of the records. The reductions
/// are in a private function per value type, called by the step: written
/// into the step, the hundreds of records of a transformer block made its
/// one LLVM function several times larger and its build minutes long.
class Recorder {
public:
  explicit Recorder(func::FuncOp step) : b(step.getContext()), step(step) {}

  /// The record row of `value`, recording it right after its definition
  /// the first time.
  int64_t record(Value value) {
    auto [it, inserted] = rows.try_emplace(value, rows.size());
    if (!inserted)
      return it->second;
    OpBuilder::InsertionGuard guard(b);
    if (Operation *def = value.getDefiningOp())
      b.setInsertionPointAfter(def);
    else
      b.setInsertionPointToStart(&step.getBody().front());
    func::FuncOp helper =
        recordFunction(cast<RankedTensorType>(value.getType()));
    columns.push_back(
        func::CallOp::create(b, value.getLoc(), helper, value).getResult(0));
    return it->second;
  }

  /// The rows of an f32 copy of `op` (after it) on its widened operands,
  /// or nothing when the op has no valid f32 form.
  std::optional<SmallVector<int64_t>> recordF32Copy(Operation *op) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointAfter(op);
    IRMapping mapping;
    for (Value operand : floatValues(op->getOperands()))
      mapping.map(operand, toF32(operand, op->getLoc()));
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
      return std::nullopt;
    }
    return recordAll(wide->getResults());
  }

  SmallVector<int64_t> recordAll(ValueRange values) {
    return llvm::map_to_vector(floatValues(values),
                               [&](Value value) { return record(value); });
  }

  /// All records as one tensor<Rx2xf32>, built before `before`.
  Value buildRecords(Operation *before) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(before);
    Location loc = step.getLoc();
    Value all = concatInGroups(columns, loc);
    return ReshapeOp::create(b, loc, getRecordsType(), all);
  }

  RankedTensorType getRecordsType() {
    return RankedTensorType::get({int64_t(rows.size()), AMP_NONFINITE_COLUMNS},
                                 b.getF32Type());
  }

private:
  RankedTensorType vectorType(int64_t size) {
    return RankedTensorType::get({size}, b.getF32Type());
  }

  /// The 1-D `values` concatenated: in groups of at most kConcatGroup, then
  /// the groups' results, and so on. A concat lowers to a chain of
  /// tensor.insert_slice, and one-shot bufferization walks such a chain
  /// for each of its ops: one concat of every record (hundreds in a
  /// transformer block) took minutes, a tree of small ones takes
  /// milliseconds.
  Value concatInGroups(ArrayRef<Value> values, Location loc) {
    static constexpr size_t kConcatGroup = 16;
    SmallVector<Value> level(values);
    do {
      SmallVector<Value> next;
      for (size_t start = 0; start < level.size(); start += kConcatGroup) {
        ArrayRef<Value> group = ArrayRef(level).slice(
            start, std::min(kConcatGroup, level.size() - start));
        int64_t size = 0;
        for (Value value : group)
          size += cast<RankedTensorType>(value.getType()).getDimSize(0);
        next.push_back(group.size() == 1
                           ? group.front()
                           : ConcatOp::create(b, loc, vectorType(size), group,
                                              b.getI64IntegerAttr(0))
                                 .getResult());
      }
      level = std::move(next);
    } while (level.size() > 1);
    return level.front();
  }

  /// The function that computes the record (tensor<2xf32>) of a value of
  /// `type`, made once per type, not inlined by LLVM (which would undo
  /// the point).
  func::FuncOp recordFunction(RankedTensorType type) {
    func::FuncOp &helper = helpers[type];
    if (helper)
      return helper;
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(step);
    Location loc = step.getLoc();
    helper = func::FuncOp::create(
        b, loc, ("amp_nonfinite_record_" + Twine(helpers.size() - 1)).str(),
        b.getFunctionType({type}, {vectorType(AMP_NONFINITE_COLUMNS)}));
    helper.setPrivate();
    // Kept by the lowering to llvm.func (a `no_inline` unit attribute is
    // not) and given to LLVM as the function attribute.
    helper->setAttr("passthrough",
                    b.getArrayAttr({b.getStringAttr("noinline")}));
    b.setInsertionPointToStart(helper.addEntryBlock());
    Value wide = helper.getArgument(0);
    if (!type.getElementType().isF32())
      wide = CastOp::create(b, loc, type.clone(b.getF32Type()), wide);
    Value columns[] = {maxOf(wide, loc),
                       maxOf(NegOp::create(b, loc, wide), loc)};
    func::ReturnOp::create(b, loc,
                           ConcatOp::create(b, loc,
                                            vectorType(AMP_NONFINITE_COLUMNS),
                                            columns, b.getI64IntegerAttr(0))
                               .getResult());
    return helper;
  }

  /// `value` widened to f32, once.
  Value toF32(Value value, Location loc) {
    if (getElementTypeOrSelf(value).isF32())
      return value;
    Value &wide = widened[value];
    if (!wide) {
      auto type = cast<RankedTensorType>(value.getType());
      wide = CastOp::create(b, loc, type.clone(b.getF32Type()), value);
    }
    return wide;
  }

  /// The greatest element of the f32 `value`, as tensor<1xf32>.
  Value maxOf(Value value, Location loc) {
    auto type = cast<RankedTensorType>(value.getType());
    if (type.getRank() > 0) {
      auto axes = llvm::to_vector(llvm::seq<int64_t>(type.getRank()));
      value = ReduceMaxOp::create(
          b, loc, RankedTensorType::get({}, b.getF32Type()), value, axes);
    }
    return ReshapeOp::create(b, loc, vectorType(1), value);
  }

  OpBuilder b;
  func::FuncOp step;
  DenseMap<Value, int64_t> rows;
  DenseMap<Value, Value> widened;
  /// The record functions by value type.
  DenseMap<Type, func::FuncOp> helpers;
  SmallVector<Value> columns;
};

/// Whether `op` is a site: an amp op with a float operand and a float
/// result (constants have no operands; comparisons no float result).
bool isSite(Operation *op) {
  return isa<AMPDialect>(op->getDialect()) &&
         !floatValues(op->getOperands()).empty() &&
         !floatValues(op->getResults()).empty();
}

/// The site's entry in the table: what it is, where, and its rows.
DictionaryAttr describeSite(Operation *op, Recorder &recorder) {
  Builder b(op->getContext());
  SmallVector<int64_t> results = recorder.recordAll(op->getResults());
  SmallVector<int64_t> operands = recorder.recordAll(op->getOperands());
  bool allF32 =
      llvm::all_of(llvm::concat<Value>(floatValues(op->getOperands()),
                                       floatValues(op->getResults())),
                   [](Value v) { return getElementTypeOrSelf(v).isF32(); });
  std::optional<SmallVector<int64_t>> wide =
      allF32 ? std::optional(results) : recorder.recordF32Copy(op);
  SmallVector<NamedAttribute> fields = {
      b.getNamedAttr("kind", b.getStringAttr(op->getName().getStringRef())),
      b.getNamedAttr("name", b.getStringAttr(getLocationName(op->getLoc()))),
      b.getNamedAttr("location", b.getStringAttr(locationOf(op->getLoc()))),
      b.getNamedAttr("precision", b.getStringAttr(precisionOf(op))),
      b.getNamedAttr("results", b.getDenseI64ArrayAttr(results)),
      b.getNamedAttr("operands", b.getDenseI64ArrayAttr(operands))};
  if (wide)
    fields.push_back(b.getNamedAttr("f32", b.getDenseI64ArrayAttr(*wide)));
  return b.getDictionaryAttr(fields);
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

    Recorder recorder(step);
    SmallVector<Attribute> table =
        llvm::map_to_vector(sites, [&](Operation *op) -> Attribute {
          return describeSite(op, recorder);
        });
    step->setAttr(kNonfiniteSitesAttrName,
                  ArrayAttr::get(step.getContext(), table));
    return addRecords(step, recorder);
  }

  /// The records become the new value of a buffer state tensor.
  LogicalResult addRecords(func::FuncOp step, Recorder &recorder) {
    TrainingStep view(step);
    FailureOr<SmallVector<BlockArgument>> args =
        view.addState(Role::Buffer, {recorder.getRecordsType()},
                      {makeContractAttrs(step.getContext(), Role::Buffer,
                                         AMP_NONFINITE_STATS_NAME)});
    if (failed(args))
      return step.emitError()
             << "amp-instrument-nonfinite: cannot add the records' state";
    view.setUpdatedValue(args->front(),
                         recorder.buildRecords(view.getReturn()));
    return success();
  }
};
} // namespace
