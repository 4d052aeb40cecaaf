//===- GradientAccumulation.cpp - micro-batches inside the step -----------===//
//
// --amp-accumulate-gradients (LossScalingPasses.td, docs/LossScaling.md
// section 8) turns a training step into one micro-batch of an update that
// averages `accumulate` micro-batches:
//
//   seed * (1/n) -> backward -> sum = acc + g -> [unscale | clip | update]
//   update skipped unless this micro-batch completes it; acc' = last ? 0 : sum
//
// The sums sit where the gradients enter the optimizer end, so loss
// scaling's overflow check, clipping's global norm and the update all see
// the accumulated gradients, as in PyTorch's accumulation loops.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/AMP/IR/AMPDialect.h"
#include "amp/Dialect/AMP/IR/AMPOps.h"
#include "amp/Dialect/AMP/IR/TrainingStep.h"
#include "amp/Dialect/AMP/Transforms/Passes.h"

#include "StepRewriting.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPACCUMULATEGRADIENTSPASS
#include "amp/Dialect/AMP/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

//===----------------------------------------------------------------------===//
// Where the gradients enter the optimizer end (findGradientEntries)
//===----------------------------------------------------------------------===//

/// Whether `entry` may be given the f32 sum instead of its own type.
bool entryAcceptsF32(OpOperand &entry) {
  if (auto unscale = dyn_cast<UnscaleGradsOp>(entry.getOwner())) {
    unsigned index = entry.getOperandNumber() - 1; // after the scale
    return elementTypeOf(unscale.getUnscaled()[index]).isF32();
  }
  if (isa<ClipGradNormOp>(entry.getOwner()))
    return false;
  return acceptsF32Gradient(entry);
}

/// The value that carries `entry`'s gradient out of its op.
Value entryOutput(OpOperand &entry) {
  if (auto unscale = dyn_cast<UnscaleGradsOp>(entry.getOwner()))
    return unscale.getUnscaled()[entry.getOperandNumber() - 1];
  if (auto clip = dyn_cast<ClipGradNormOp>(entry.getOwner()))
    return clip.getClipped()[entry.getOperandNumber()];
  return entry.get();
}

/// The parameter whose update reads the gradient of `entry` (through
/// casts, sums of per-loss gradients and clipping), or null.
Value updatedParameter(OpOperand &entry) {
  if (isOptimizerUpdate(entry.getOwner()))
    return paramOf(entry.getOwner());
  SmallVector<Value> work = {entryOutput(entry)};
  while (!work.empty()) {
    Value value = work.pop_back_val();
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (gradOperand(user) == &use)
        return paramOf(user);
      if (isa<CastOp, AddOp>(user))
        work.push_back(user->getResult(0));
      else if (auto clip = dyn_cast<ClipGradNormOp>(user))
        work.push_back(clip.getClipped()[use.getOperandNumber()]);
    }
  }
  return {};
}

//===----------------------------------------------------------------------===//
// The rewrite
//===----------------------------------------------------------------------===//

class AccumulationRewriter {
public:
  AccumulationRewriter(func::FuncOp step, int64_t microBatches)
      : step(step), view(step), microBatches(microBatches),
        b(step.getContext()),
        loc(NameLoc::get(StringAttr::get(step.getContext(), "grad_accum"),
                         step.getLoc())) {}

  LogicalResult run();

private:
  LogicalResult check();
  LogicalResult addArguments();
  void countMicroBatches();
  void averageSeeds();
  Value accumulate(OpOperand &entry, BlockArgument sumArg);
  void skipUnlessLast();
  void reportSkippedOnUpdate();

  func::FuncOp step;
  TrainingStep view;
  int64_t microBatches;
  OpBuilder b;
  Location loc;

  SmallVector<OpOperand *> entries;
  BlockArgument accumulateArg, microStepArg;
  SmallVector<BlockArgument> sumArgs;
  /// The micro-batches per update, this micro-batch's number (1-based),
  /// and whether it completes an update.
  Value count, next, last, notLast;
};

LogicalResult AccumulationRewriter::check() {
  for (unsigned i : view.getArguments(Role::Hyperparameter))
    if (getAMPName(view.getArgumentAttrs(i)) == kAccumulateName)
      return step.emitError()
             << "amp-accumulate-gradients: training step @"
             << step.getSymName()
             << " already accumulates gradients (it has the '"
             << kAccumulateName << "' hyper-parameter)";
  if (step.getBody().getBlocks().size() != 1)
    return step.emitError() << "amp-accumulate-gradients: training step @"
                            << step.getSymName() << " must be one block";
  entries = findGradientEntries(step.front());
  if (entries.empty())
    return step.emitError()
           << "amp-accumulate-gradients: training step @" << step.getSymName()
           << " has no amp.sgd_update or amp.adamw_update; gradients are "
              "accumulated for the optimizer update";
  if (step.front().getOps<SeedOp>().empty())
    return step.emitError()
           << "amp-accumulate-gradients: training step @" << step.getSymName()
           << " has no amp.seed; the micro-batches are averaged at the "
              "backward seed";
  return success();
}

/// `accumulate` after the other hyper-parameters; the micro-batch counter
/// and one f32 sum per gradient after the optimizer state.
LogicalResult AccumulationRewriter::addArguments() {
  MLIRContext *context = step.getContext();
  Type f32 = b.getF32Type();
  SmallVector<Type> types = {scalarOf(f32)};
  SmallVector<DictionaryAttr> attrs = {
      makeContractAttrs(context, Role::OptimizerState, kGradAccumMicroStepName)};
  llvm::StringSet<> names;
  for (auto [k, entry] : llvm::enumerate(entries)) {
    std::string name = "grad" + std::to_string(k);
    if (auto param = dyn_cast_or_null<BlockArgument>(updatedParameter(*entry)))
      if (StringRef given = getAMPName(view.getArgumentAttrs(
              param.getArgNumber()));
          !given.empty())
        name = given.str();
    // Several losses give one parameter several gradients.
    std::string unique = name + ".grad_accum";
    for (unsigned n = 1; !names.insert(unique).second; ++n)
      unique = name + ".grad_accum" + std::to_string(n);
    types.push_back(cast<RankedTensorType>(entry->get().getType()).clone(f32));
    attrs.push_back(makeContractAttrs(context, Role::OptimizerState, unique));
  }
  FailureOr<SmallVector<BlockArgument>> state =
      view.addState(Role::OptimizerState, types, attrs);
  if (failed(state))
    return failure();
  microStepArg = state->front();
  sumArgs.assign(state->begin() + 1, state->end());
  SmallVector<unsigned> hypers = view.getArguments(Role::Hyperparameter);
  unsigned index = hypers.empty() ? step.getNumArguments() : hypers.back() + 1;
  if (failed(step.insertArgument(
          index, scalarOf(f32),
          makeContractAttrs(context, Role::Hyperparameter, kAccumulateName),
          loc)))
    return failure();
  accumulateArg = step.getArgument(index);
  return success();
}

/// count = accumulate >= 1 ? accumulate : micro-batches; next = micro_step
/// + 1; last = next >= count; micro_step' = last ? 0 : next.
void AccumulationRewriter::countMicroBatches() {
  b.setInsertionPointToStart(&step.front());
  Value one = f32Constant(b, loc, 1.0);
  Value given =
      compare(b, loc, CompareDirection::GE, accumulateArg, one);
  count = WhereOp::create(b, loc, accumulateArg.getType(), given,
                          accumulateArg,
                          f32Constant(b, loc, double(microBatches)));
  next = AddOp::create(b, loc, microStepArg, one);
  last = compare(b, loc, CompareDirection::GE, next, count);
  notLast = logicalNot(b, loc, last);
}

/// Each loss's backward starts from 1 / count: the sums are means.
void AccumulationRewriter::averageSeeds() {
  b.setInsertionPointAfterValue(count);
  Value inverse = DivOp::create(b, loc, f32Constant(b, loc, 1.0), count);
  for (SeedOp seed : llvm::to_vector(step.front().getOps<SeedOp>())) {
    b.setInsertionPointAfter(seed);
    auto averaged = MulOp::create(b, loc, seed.getResult(), inverse);
    seed.getResult().replaceAllUsesExcept(averaged.getResult(),
                                          averaged.getOperation());
  }
}

/// Gives `entry` the running sum (in f32, or rounded back to the type its
/// op takes) and returns the sum the next micro-batch starts from.
Value AccumulationRewriter::accumulate(OpOperand &entry,
                                       BlockArgument sumArg) {
  Value gradient = entry.get();
  auto sumType = cast<RankedTensorType>(sumArg.getType());
  b.setInsertionPoint(entry.getOwner());
  Value widened = gradient.getType() == sumType
                      ? gradient
                      : CastOp::create(b, loc, sumType, gradient).getResult();
  Value sum = AddOp::create(b, loc, sumArg, widened);
  entry.set(entryAcceptsF32(entry)
                ? sum
                : CastOp::create(b, loc, gradient.getType(), sum).getResult());
  Value zeros = ConstantOp::create(
      b, loc, sumType,
      DenseElementsAttr::get(sumType, b.getFloatAttr(b.getF32Type(), 0.0)));
  Value lastMask = last;
  if (sumType.getRank() != 0)
    lastMask = BroadcastOp::create(b, loc, sumType.clone(b.getI1Type()), last);
  return WhereOp::create(b, loc, sumType, lastMask, zeros, sum);
}

/// Updates skip on every micro-batch but the last of an update; the rest
/// of the parameters, optimizer and scaler state is held the same way.
void AccumulationRewriter::skipUnlessLast() {
  // One flag per found_inf, made before the first update that takes it.
  DenseMap<Value, Value> skipFlags;
  for (Operation &op : step.front()) {
    if (!isOptimizerUpdate(&op))
      continue;
    Value found = foundInfOf(&op);
    if (!found) {
      setFoundInf(&op, notLast);
      continue;
    }
    Value &skip = skipFlags[found];
    if (!skip) {
      b.setInsertionPoint(&op);
      skip = logicalOr(b, loc, found, notLast);
    }
    setFoundInf(&op, skip);
  }
  keepStateWhen(b, loc, view, notLast,
                {Role::Parameter, Role::OptimizerState, Role::ScalerState});
}

/// `skipped` says whether an update was skipped: only a micro-batch that
/// completes an update can say so.
void AccumulationRewriter::reportSkippedOnUpdate() {
  Operation *ret = view.getReturn();
  b.setInsertionPoint(ret);
  for (unsigned i : view.getResults(Role::Skipped))
    ret->setOperand(i, logicalAnd(b, loc, last, ret->getOperand(i)));
}

LogicalResult AccumulationRewriter::run() {
  if (failed(check()))
    return failure();
  if (failed(addArguments()))
    return step.emitError() << "amp-accumulate-gradients: cannot add the "
                               "accumulation arguments";
  countMicroBatches();
  averageSeeds();
  // The entries first: giving an update a found_inf operand moves its
  // operands.
  SmallVector<Value> nextSums;
  for (auto [entry, sumArg] : llvm::zip_equal(entries, sumArgs))
    nextSums.push_back(accumulate(*entry, sumArg));
  entries.clear();
  // Hold the state before the new sums and counter get their updates.
  skipUnlessLast();
  for (auto [sumArg, nextSum] : llvm::zip_equal(sumArgs, nextSums))
    view.setUpdatedValue(sumArg, nextSum);
  b.setInsertionPoint(view.getReturn());
  view.setUpdatedValue(microStepArg,
                       WhereOp::create(b, loc, next.getType(), last,
                                       f32Constant(b, loc, 0.0), next));
  reportSkippedOnUpdate();
  return success();
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct AMPAccumulateGradientsPass
    : mlir::amp::impl::AMPAccumulateGradientsPassBase<
          AMPAccumulateGradientsPass> {
  using AMPAccumulateGradientsPassBase::AMPAccumulateGradientsPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The micro-batch counter is an f32: it counts exactly up to 2^24.
    if (microBatches < 1 || microBatches > (int64_t(1) << 24)) {
      emitError(module.getLoc())
          << "amp-accumulate-gradients: micro-batches must be in [1, "
             "16777216], got "
          << int64_t(microBatches);
      return signalPassFailure();
    }
    for (auto step : getGraphDefinitions<func::FuncOp>(
             module, GraphKind::TrainingStep))
      if (failed(AccumulationRewriter(step, microBatches).run()))
        return signalPassFailure();
  }
};

} // namespace
