//===- CheckIndices.cpp - report indices out of range ---------------------===//
//
// amp-check-indices: PyTorch raises an IndexError for an embedding id, a
// gather index or a class label out of range, while the lowered ops clamp
// it (no access may leave a tensor). Each distinct index tensor an op reads
// through gets an amp.check_indices; the step returns the ranges it saw
// (include/amp/Runtime/NonfiniteABI.h), which the runtime reads with the
// loss and turns into a failed step, and a training step skips its updates
// on the device when any index is out of range, as on an overflow, so that
// a failed step leaves the state as it was without a host synchronisation.
//
//===----------------------------------------------------------------------===//

#include "StepRewriting.h"
#include "amp/Dialect/AMP/IR/AMPDialect.h"
#include "amp/Dialect/AMP/IR/AMPOps.h"
#include "amp/Dialect/AMP/IR/TrainingStep.h"
#include "amp/Dialect/AMP/Transforms/Nonfinite.h"
#include "amp/Dialect/AMP/Transforms/Passes.h"
#include "amp/Dialect/AMP/Transforms/PrecisionPolicy.h"
#include "amp/Runtime/NonfiniteABI.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPCHECKINDICESPASS
#include "amp/Dialect/AMP/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {
/// An index tensor an op reads through, and the range the op allows.
struct Site {
  Operation *op;
  Value indices;
  int64_t lower, upper;
};

int64_t dimOf(Value tensor, int64_t axis) {
  auto type = cast<RankedTensorType>(tensor.getType());
  if (axis < 0)
    axis += type.getRank();
  return type.getDimSize(axis);
}

/// The index tensors of `body`'s ops in program order, each once: a gather
/// and its gradient read the same indices.
SmallVector<Site> findSites(Block &body) {
  SmallVector<Site> sites;
  // An index tensor checked against a range within [lower, upper) already
  // (a gather's with non_negative, then its gradient's) needs no other.
  auto add = [&](Operation *op, Value indices, int64_t lower, int64_t upper) {
    for (const Site &site : sites)
      if (site.indices == indices && site.lower >= lower && site.upper <= upper)
        return;
    sites.push_back({op, indices, lower, upper});
  };
  // Class labels that are arguments are checked by the runtime before the
  // step (amp_tensor_info::label_range), naming the label and its element.
  auto addLabels = [&](Operation *op, Value labels, Value logits) {
    if (!isa<BlockArgument>(labels))
      add(op, labels, 0, dimOf(logits, 1));
  };
  body.walk([&](Operation *op) {
    // Negative indices count from the end (ONNX's Gather) unless the op
    // says otherwise (PyTorch's ops).
    if (auto gather = dyn_cast<GatherOp>(op)) {
      int64_t n = dimOf(gather.getInput(), gather.getAxis());
      add(op, gather.getIndices(), gather.getNonNegative() ? 0 : -n, n);
    } else if (auto grad = dyn_cast<GatherGradOp>(op)) {
      int64_t n = dimOf(grad.getResult(), grad.getAxis());
      add(op, grad.getIndices(), -n, n);
    } else if (auto gather = dyn_cast<GatherElementsOp>(op)) {
      int64_t n = dimOf(gather.getInput(), gather.getAxis());
      add(op, gather.getIndices(), gather.getNonNegative() ? 0 : -n, n);
    } else if (auto scatter = dyn_cast<ScatterAddElementsOp>(op)) {
      int64_t n = dimOf(scatter.getResult(), scatter.getAxis());
      add(op, scatter.getIndices(), -n, n);
    } else if (auto loss = dyn_cast<CrossEntropyOp>(op)) {
      addLabels(op, loss.getLabels(), loss.getLogits());
    } else if (auto loss = dyn_cast<CrossEntropyGradOp>(op)) {
      addLabels(op, loss.getLabels(), loss.getLogits());
    }
  });
  return sites;
}

/// "file:line:col ('name')" of the op's source: the model file and the
/// name the importer gave the op, where the location has them (the
/// torch.export importer's names say the module and the source line).
std::string describeLocation(Location loc) {
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
  StringRef name = getLocationName(loc);
  if (!name.empty())
    text = text.empty() ? name.str() : text + " ('" + name.str() + "')";
  if (text.empty())
    llvm::raw_string_ostream(text) << loc;
  return text;
}

LogicalResult checkFunction(func::FuncOp function, bool isStep) {
  Block &body = function.getBody().front();
  SmallVector<Site> sites = findSites(body);
  if (sites.empty())
    return success();
  MLIRContext *context = function.getContext();
  OpBuilder b(context);
  Location loc = function.getLoc();
  Type i64 = b.getI64Type();
  auto pairType = RankedTensorType::get({2}, i64);

  // Each check right after its indices are defined: the flag is then ready
  // before any update of the step.
  Operation *lastCheck = nullptr;
  SmallVector<Value> flags, records;
  SmallVector<Attribute> table;
  for (const Site &site : sites) {
    if (Operation *producer = site.indices.getDefiningOp())
      b.setInsertionPointAfter(producer);
    else
      b.setInsertionPointToStart(&body);
    auto check = CheckIndicesOp::create(b, site.op->getLoc(), site.indices,
                                        site.lower, site.upper);
    auto bounds = ConstantOp::create(
        b, site.op->getLoc(), pairType,
        DenseElementsAttr::get(pairType,
                               ArrayRef<int64_t>{site.lower, site.upper}));
    if (!lastCheck || lastCheck->isBeforeInBlock(bounds))
      lastCheck = bounds;
    flags.push_back(check.getOutOfRange());
    records.push_back(check.getRange());
    records.push_back(bounds);
    table.push_back(b.getStringAttr(site.op->getName().getStringRef() + "\t" +
                                    describeLocation(site.op->getLoc())));
  }
  b.setInsertionPointAfter(lastCheck);
  Value outOfRange = flags.front();
  for (Value flag : ArrayRef<Value>(flags).drop_front())
    outOfRange = logicalOr(b, loc, outOfRange, flag);
  auto recordType = RankedTensorType::get({int64_t(records.size()) * 2}, i64);
  Value record = ConcatOp::create(b, loc, recordType, records, /*axis=*/0);

  TrainingStep view(function);
  if (isStep) {
    // The updates skip on the flag (with any overflow flag they took), and
    // every other state result returns its argument.
    DenseMap<Value, Value> combined;
    for (Operation &op : body) {
      if (!isOptimizerUpdate(&op))
        continue;
      if (op.isBeforeInBlock(outOfRange.getDefiningOp()) ||
          &op == outOfRange.getDefiningOp())
        return op.emitOpError()
               << "updates state before the indices of the step are known; "
                  "amp-check-indices cannot make it skip";
      Value found = foundInfOf(&op);
      if (!found) {
        setFoundInf(&op, outOfRange);
        continue;
      }
      Value &skip = combined[found];
      if (!skip) {
        b.setInsertionPoint(&op);
        skip = logicalOr(b, loc, found, outOfRange);
      }
      setFoundInf(&op, skip);
    }
    keepStateWhen(b, loc, view, outOfRange, getStateRoles());
  }
  view.addResults(
      {{function.getNumResults(), record,
        makeContractAttrs(context, Role::Output, AMP_INDEX_RANGES_NAME)}});
  function->setAttr(kIndexSitesAttrName, b.getArrayAttr(table));
  return success();
}

struct AMPCheckIndicesPass
    : mlir::amp::impl::AMPCheckIndicesPassBase<AMPCheckIndicesPass> {
  void runOnOperation() override {
    for (auto function : getOperation().getOps<func::FuncOp>()) {
      std::optional<GraphKind> kind = getGraphKind(function);
      if (!kind || function.isExternal() || !function.getBody().hasOneBlock() ||
          function->hasAttr(kIndexSitesAttrName))
        continue;
      if (failed(checkFunction(function, *kind == GraphKind::TrainingStep)))
        return signalPassFailure();
    }
  }
};
} // namespace
