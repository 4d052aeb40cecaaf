//===- DataParallel.cpp - gradients all-reduced across ranks --------------===//
//
// --amp-data-parallel (DataParallelPasses.td, docs/DataParallel.md) makes a
// training step one replica of data-parallel training:
//
//   backward: g0 -> start(b0) ... g1, g2 -> start(b1) ...
//   wait(b0), wait(b1) -> [unscale -> any(found_inf)] -> update scale, clip,
//   optimizer
//
// The gradients are reduced where they enter the optimizer end (the same
// operands gradient accumulation sums), in buckets in the order backward
// produces them; each bucket starts as soon as its last gradient exists.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/AMP/IR/AMPDialect.h"
#include "amp/Dialect/AMP/IR/AMPOps.h"
#include "amp/Dialect/AMP/IR/TrainingStep.h"
#include "amp/Dialect/AMP/Transforms/Passes.h"

#include "StepRewriting.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPDATAPARALLELPASS
#include "amp/Dialect/AMP/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

//===----------------------------------------------------------------------===//
// Order in the step
//===----------------------------------------------------------------------===//

/// Whether `value` is available before `op` in their block: block
/// arguments are available everywhere.
bool definedBefore(Value value, Operation *op) {
  Operation *def = value.getDefiningOp();
  return !def || def->isBeforeInBlock(op);
}

/// The later of two producers (null: the start of the block).
Operation *later(Operation *a, Operation *b) {
  if (!a)
    return b;
  if (!b)
    return a;
  return a->isBeforeInBlock(b) ? b : a;
}

/// Moves the pure sums and casts that feed `value` (gradient accumulation
/// adds its running sum right before the optimizer end) up to where their
/// operands exist, so that an all-reduce of `value` can start during the
/// backward pass instead of after it.
void hoistToOperands(Value value) {
  Operation *op = value.getDefiningOp();
  if (!op || !isa<AddOp, CastOp>(op) || !isPure(op))
    return;
  Operation *latest = nullptr;
  for (Value operand : op->getOperands()) {
    hoistToOperands(operand);
    latest = later(latest, operand.getDefiningOp());
  }
  if (latest && latest->getBlock() == op->getBlock())
    op->moveAfter(latest);
  else if (!latest)
    op->moveBefore(&op->getBlock()->front());
}

//===----------------------------------------------------------------------===//
// Buckets
//===----------------------------------------------------------------------===//

/// One all-reduce: gradients (distinct values) and the operands that read
/// each of them.
struct Bucket {
  llvm::MapVector<Value, SmallVector<OpOperand *>> gradients;
  int64_t bytes = 0;
  /// The last producer of a gradient (null: all are arguments), and the
  /// first op that reads one.
  Operation *lastProducer = nullptr;
  Operation *firstReader = nullptr;

  bool accepts(Value gradient, ArrayRef<OpOperand *> readers) const {
    if (!firstReader)
      return true;
    // The wait goes before the first reader and the start after the last
    // producer: the bucket closes rather than order them the wrong way.
    if (!definedBefore(gradient, firstReader))
      return false;
    return llvm::all_of(readers, [&](OpOperand *reader) {
      return !lastProducer || lastProducer->isBeforeInBlock(reader->getOwner());
    });
  }

  void add(Value gradient, ArrayRef<OpOperand *> readers, int64_t size) {
    gradients[gradient].append(readers.begin(), readers.end());
    bytes += size;
    lastProducer = later(lastProducer, gradient.getDefiningOp());
    for (OpOperand *reader : readers)
      if (!firstReader || reader->getOwner()->isBeforeInBlock(firstReader))
        firstReader = reader->getOwner();
  }
};

int64_t byteSize(Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  return type.getNumElements() *
         llvm::divideCeil(type.getElementTypeBitWidth(), 8);
}

//===----------------------------------------------------------------------===//
// The rewrite
//===----------------------------------------------------------------------===//

class DataParallelRewriter {
public:
  DataParallelRewriter(func::FuncOp step, int64_t capBytes,
                       ReductionKind kind)
      : step(step), view(step), capBytes(capBytes), kind(kind),
        b(step.getContext()),
        loc(NameLoc::get(StringAttr::get(step.getContext(), "data_parallel"),
                         step.getLoc())) {}

  LogicalResult run();

private:
  LogicalResult check();
  SmallVector<Bucket> makeBuckets(ArrayRef<OpOperand *> entries);
  void reduce(Bucket &bucket);
  void agreeOnOverflow();

  func::FuncOp step;
  TrainingStep view;
  int64_t capBytes;
  ReductionKind kind;
  OpBuilder b;
  Location loc;
  /// Whether this call completes an optimizer update (accumulation), or
  /// null: every call does.
  Value active;
};

LogicalResult DataParallelRewriter::check() {
  if (step.getBody().getBlocks().size() != 1)
    return step.emitError() << "amp-data-parallel: training step @"
                            << step.getSymName() << " must be one block";
  WalkResult reduced = step.walk([](Operation *op) {
    return isa<AllReduceStartOp, AllReduceAnyOp>(op) ? WalkResult::interrupt()
                                                     : WalkResult::advance();
  });
  if (reduced.wasInterrupted())
    return step.emitError()
           << "amp-data-parallel: training step @" << step.getSymName()
           << " already all-reduces across ranks";
  return success();
}

/// Buckets in production order: each takes the next gradients until the
/// cap (a gradient larger than the cap is a bucket of its own).
SmallVector<Bucket>
DataParallelRewriter::makeBuckets(ArrayRef<OpOperand *> entries) {
  llvm::MapVector<Value, SmallVector<OpOperand *>> readers;
  for (OpOperand *entry : entries)
    readers[entry->get()].push_back(entry);
  SmallVector<Value> gradients;
  for (auto &[gradient, uses] : readers) {
    hoistToOperands(gradient);
    gradients.push_back(gradient);
  }
  llvm::stable_sort(gradients, [](Value lhs, Value rhs) {
    Operation *l = lhs.getDefiningOp(), *r = rhs.getDefiningOp();
    return r && (!l || l->isBeforeInBlock(r));
  });
  SmallVector<Bucket> buckets(1);
  for (Value gradient : gradients) {
    int64_t size = byteSize(gradient);
    Bucket &current = buckets.back();
    bool full = current.bytes > 0 && current.bytes + size > capBytes;
    if (full || !current.accepts(gradient, readers[gradient]))
      buckets.emplace_back();
    buckets.back().add(gradient, readers[gradient], size);
  }
  return buckets;
}

/// Start right after the last gradient exists, wait right before the first
/// reader.
void DataParallelRewriter::reduce(Bucket &bucket) {
  SmallVector<Value> gradients;
  for (auto &[gradient, uses] : bucket.gradients)
    gradients.push_back(gradient);
  Operation *after = later(bucket.lastProducer,
                           active ? active.getDefiningOp() : nullptr);
  if (after)
    b.setInsertionPointAfter(after);
  else
    b.setInsertionPointToStart(&step.front());
  auto start = AllReduceStartOp::create(
      b, loc, CollectiveType::get(b.getContext()),
      ReductionKindAttr::get(b.getContext(), kind), gradients, active);
  b.setInsertionPoint(bucket.firstReader);
  auto wait = AllReduceWaitOp::create(b, loc, ValueRange(gradients).getTypes(),
                                      start.getHandle());
  for (auto [gradient, reduced] :
       llvm::zip_equal(gradients, wait.getResults()))
    for (OpOperand *reader : bucket.gradients[gradient])
      reader->set(reduced);
}

/// found_inf, or-ed over the ranks before anything reads it.
void DataParallelRewriter::agreeOnOverflow() {
  for (auto unscale : llvm::to_vector(step.front().getOps<UnscaleGradsOp>())) {
    Value found = unscale.getFoundInf();
    b.setInsertionPointAfter(unscale);
    auto any = AllReduceAnyOp::create(b, loc, found.getType(), found, active);
    found.replaceAllUsesExcept(any.getResult(), any.getOperation());
  }
}

LogicalResult DataParallelRewriter::run() {
  if (failed(check()))
    return failure();
  SmallVector<OpOperand *> entries = findGradientEntries(step.front());
  if (entries.empty())
    return step.emitError()
           << "amp-data-parallel: training step @" << step.getSymName()
           << " has no amp.sgd_update or amp.adamw_update; the gradients "
              "of the optimizer update are what ranks reduce";
  active = findAccumulationBoundary(view);
  for (Bucket &bucket : makeBuckets(entries))
    reduce(bucket);
  agreeOnOverflow();
  return success();
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct AMPDataParallelPass
    : mlir::amp::impl::AMPDataParallelPassBase<AMPDataParallelPass> {
  using AMPDataParallelPassBase::AMPDataParallelPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    double cap = bucketCapMB;
    if (!(cap > 0) || cap > 1e6) {
      emitError(module.getLoc())
          << "amp-data-parallel: bucket-cap-mb must be in (0, 1e6] MiB, got "
          << cap;
      return signalPassFailure();
    }
    auto capBytes = int64_t(cap * 1024 * 1024);
    for (auto step : getGraphDefinitions<func::FuncOp>(
             module, GraphKind::TrainingStep))
      if (failed(DataParallelRewriter(step, std::max<int64_t>(capBytes, 1),
                                      reduction)
                     .run()))
        return signalPassFailure();
  }
};

} // namespace
