//===- LossScaling.cpp - loss scaling and the mixed-precision optimizer ---===//
//
// --amp-loss-scaling rewrites training steps so that fp16 gradients neither
// underflow nor silently corrupt the weights (see LossScalingPasses.td and
// docs/LossScaling.md):
//
//   seed -> amp.scale_seed (scaled backward) -> amp.unscale_grads (+found_inf)
//        -> amp.update_scale -> [amp.clip_grad_norm] -> optimizer(found_inf)
//
// Which values are "the gradients of loss k" is decided by a dataflow
// analysis from the seeds: a value is tainted by every seed it depends on
// (through any op but the gradient sinks: clipping and the optimizer
// updates). The gradients the sinks read are unscaled; a sink operand that
// depends on several seeds must be a sum (amp.add) of per-loss gradients,
// which are then unscaled one scale per loss before they are added.
//
// --amp-master-weights makes the optimizer update produce the low-precision
// copies of f32 master weights for the next step.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/AMP/IR/AMPDialect.h"
#include "amp/Dialect/AMP/IR/AMPOps.h"
#include "amp/Dialect/AMP/IR/TrainingStep.h"
#include "amp/Dialect/AMP/Transforms/Passes.h"

#include "StepRewriting.h"

#include "mlir/Analysis/TopologicalSortUtils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallBitVector.h"

#include <cmath>
#include <cstdio>
#include <limits>

namespace mlir::amp {
#define GEN_PASS_DEF_AMPLOSSSCALINGPASS
#define GEN_PASS_DEF_AMPMASTERWEIGHTSPASS
#include "amp/Dialect/AMP/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// Ops that consume gradients as gradients: the dataflow analysis stops at
/// them, and the gradients they read are the ones to unscale.
bool isGradientSink(Operation *op) {
  return isa<ClipGradNormOp, SgdUpdateOp, AdamWUpdateOp>(op);
}

/// Whether the step computes in f16 anywhere (loss scaling mode=auto).
bool computesInF16(func::FuncOp function) {
  auto isF16 = [](Type type) {
    auto shaped = dyn_cast<ShapedType>(type);
    return shaped && shaped.getElementType().isF16();
  };
  if (llvm::any_of(function.getArgumentTypes(), isF16))
    return true;
  WalkResult result = function.walk([&](Operation *op) {
    if (llvm::any_of(op->getResultTypes(), isF16))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return result.wasInterrupted();
}

/// A number as a user wrote it (65536, 0.5, 1e+39) for diagnostics.
std::string formatNumber(double value) {
  char text[32];
  snprintf(text, sizeof(text), "%.9g", value);
  return text;
}

//===----------------------------------------------------------------------===//
// --amp-loss-scaling: what to scale
//===----------------------------------------------------------------------===//

/// The ops of a training step that loss scaling works with.
struct GradientOps {
  SmallVector<SeedOp> seeds;
  SmallVector<Operation *> updates;
  SmallVector<ClipGradNormOp> clips;
};

/// The seeds, optimizer updates and clips of `step`, or an error when the
/// step has nothing to scale or already takes a found_inf flag.
FailureOr<GradientOps> findGradientOps(func::FuncOp step) {
  StringRef stepName = step.getSymName();
  GradientOps ops;
  for (Operation &op : step.front()) {
    if (auto seed = dyn_cast<SeedOp>(op))
      ops.seeds.push_back(seed);
    else if (isOptimizerUpdate(&op))
      ops.updates.push_back(&op);
    else if (auto clip = dyn_cast<ClipGradNormOp>(op))
      ops.clips.push_back(clip);
  }
  if (ops.seeds.empty())
    return step.emitError()
           << "amp-loss-scaling: training step @" << stepName
           << " has no amp.seed; loss scaling scales the backward pass at its "
              "seed";
  if (ops.updates.empty())
    return step.emitError()
           << "amp-loss-scaling: training step @" << stepName
           << " has no amp.sgd_update or amp.adamw_update; the optimizer "
              "update is where a step with an overflow is skipped";
  for (Operation *update : ops.updates)
    if (foundInfOf(update))
      return update->emitOpError()
             << "already takes a found_inf flag, but training step @"
             << stepName
             << " has no loss scaling (amp.unscale_grads) to compute it";
  return ops;
}

/// For every value, the seeds (losses) it depends on, through any op but
/// the gradient sinks.
DenseMap<Value, llvm::SmallBitVector> taintFromSeeds(Block &body,
                                                     ArrayRef<SeedOp> seeds) {
  DenseMap<Value, llvm::SmallBitVector> taint;
  for (Operation &op : body.without_terminator()) {
    if (auto seed = dyn_cast<SeedOp>(op)) {
      llvm::SmallBitVector bits(seeds.size());
      bits.set(llvm::find(seeds, seed) - seeds.begin());
      taint[seed.getResult()] = bits;
      continue;
    }
    if (isGradientSink(&op))
      continue;
    llvm::SmallBitVector bits(seeds.size());
    for (Value operand : op.getOperands()) {
      auto it = taint.find(operand);
      if (it != taint.end())
        bits |= it->second;
    }
    if (bits.any())
      for (Value result : op.getResults())
        taint[result] = bits;
  }
  return taint;
}

/// Per loss, the gradients the sinks read.
using PerLossGradients = SmallVector<llvm::SetVector<Value>>;

/// The per-loss gradients the sinks read: a sink operand depending on one
/// seed is a gradient of that loss; one depending on several must be a sum
/// of such gradients.
FailureOr<PerLossGradients> collectPerLossGradients(const GradientOps &ops) {
  DenseMap<Value, llvm::SmallBitVector> taint =
      taintFromSeeds(*ops.seeds.front()->getBlock(), ops.seeds);
  PerLossGradients boundary(ops.seeds.size());
  DenseSet<Value> visited;
  std::function<LogicalResult(Value, Operation *)> collect =
      [&](Value value, Operation *user) -> LogicalResult {
    auto it = taint.find(value);
    if (it == taint.end() || it->second.none())
      return success();
    if (it->second.count() == 1) {
      boundary[it->second.find_first()].insert(value);
      return success();
    }
    if (!visited.insert(value).second)
      return success();
    auto add = value.getDefiningOp<AddOp>();
    if (!add) {
      int first = it->second.find_first();
      int second = it->second.find_next(first);
      Operation *where = value.getDefiningOp() ? value.getDefiningOp() : user;
      return where->emitError()
             << "amp-loss-scaling: gradients of loss #" << first
             << " and loss #" << second << " (amp.seed ops) are combined by '"
             << (value.getDefiningOp()
                     ? value.getDefiningOp()->getName().getStringRef()
                     : StringRef("a block argument"))
             << "'; one scale per loss needs the per-loss gradients to be "
                "summed with amp.add before the optimizer";
    }
    if (failed(collect(add.getLhs(), add)) ||
        failed(collect(add.getRhs(), add)))
      return failure();
    return success();
  };
  for (ClipGradNormOp clip : ops.clips)
    for (Value gradient : clip.getGradients())
      if (failed(collect(gradient, clip)))
        return failure();
  for (Operation *update : ops.updates)
    if (failed(collect(gradOperand(update)->get(), update)))
      return failure();
  return boundary;
}

/// A gradient computed from another one would be unscaled twice (once
/// through the other): refuse rather than guess. Steps from --amp-autodiff
/// never do this.
LogicalResult checkNoDerivedGradients(Block &body,
                                      const PerLossGradients &boundary) {
  DenseMap<Value, Value> derivedFrom;
  for (auto &gradients : boundary)
    for (Value gradient : gradients)
      derivedFrom[gradient] = gradient;
  for (Operation &op : body.without_terminator()) {
    if (isGradientSink(&op))
      continue;
    Value source;
    for (Value operand : op.getOperands())
      if (Value from = derivedFrom.lookup(operand))
        source = from;
    if (!source)
      continue;
    for (Value result : op.getResults()) {
      bool isGradient = llvm::any_of(boundary, [&](auto &gradients) {
        return gradients.contains(result);
      });
      if (isGradient)
        return op.emitError()
               << "amp-loss-scaling: this gradient is computed from "
                  "another gradient the optimizer reads; both would be "
                  "unscaled";
      derivedFrom[result] = source;
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// --amp-loss-scaling: the rewrite
//===----------------------------------------------------------------------===//

/// The options of the scaler the rewrite builds.
struct ScalerConfig {
  bool dynamic;
  double initScale, growthFactor, backoffFactor, minScale, maxScale;
  int64_t growthInterval, hysteresis;
  bool errorAtMin;
};

/// Rewrites one training step whose seeds, updates and per-loss gradients
/// are known, in the order of the pipeline in the file comment.
class ScalingRewriter {
public:
  ScalingRewriter(func::FuncOp step, const ScalerConfig &config,
                  GradientOps ops, PerLossGradients gradients)
      : step(step), view(step), config(config), ops(std::move(ops)),
        gradients(std::move(gradients)), numLosses(this->ops.seeds.size()),
        b(step.getContext()),
        // New ops are named for reports and diagnostics.
        loc(NameLoc::get(StringAttr::get(step.getContext(), "loss_scaling"),
                         step.getLoc())),
        f32(b.getF32Type()), i64(b.getI64Type()), i1(b.getI1Type()) {}

  LogicalResult run();

private:
  LogicalResult addScalerState();
  void loadScales();
  void scaleSeeds();
  void unscaleGradients(unsigned k);
  void retypeClips();
  void combineFoundInf();
  void updateScale(unsigned k);
  void skipUpdates();

  func::FuncOp step;
  TrainingStep view;
  const ScalerConfig &config;
  GradientOps ops;
  PerLossGradients gradients;
  unsigned numLosses;
  OpBuilder b;
  Location loc;
  Type f32, i64, i1;

  /// Per loss (dynamic): the scale argument, growth, hysteresis, [stuck].
  unsigned perLoss() const { return config.errorAtMin ? 4 : 3; }
  SmallVector<BlockArgument> stateArgs;
  /// Per loss: the scale in use, its trackers (dynamic), whether its
  /// gradients overflowed, and its unscale op (null without gradients).
  SmallVector<Value> scales, growths, hysteresises, founds;
  SmallVector<Operation *> unscales;
  /// Whether any loss overflowed: the step is skipped.
  Value found;
};

LogicalResult ScalingRewriter::run() {
  if (config.dynamic && failed(addScalerState()))
    return step.emitError() << "amp-loss-scaling: cannot add the scaler "
                               "state arguments";
  loadScales();
  scaleSeeds();
  unscales.assign(numLosses, nullptr);
  for (unsigned k = 0; k < numLosses; ++k)
    unscaleGradients(k);
  retypeClips();
  combineFoundInf();
  if (config.dynamic)
    for (unsigned k = 0; k < numLosses; ++k)
      updateScale(k);
  skipUpdates();
  std::optional<unsigned> loss = view.getLossResult();
  view.addResults(
      {{loss ? *loss + 1 : step.getNumResults(), found,
        makeContractAttrs(step.getContext(), Role::Skipped, "skipped")}});
  // Gradient users before their (new) unscale op move after it.
  if (!sortTopologically(&step.front()))
    return step.emitError()
           << "amp-loss-scaling: internal error: the rewritten step @"
           << step.getSymName() << " has a cycle";
  return success();
}

/// Per loss: `loss_scale` (the first loss) or `loss<k>.loss_scale`, its
/// growth and hysteresis trackers and (error-at-min) `stuck_at_min`, all
/// returned updated by the step.
LogicalResult ScalingRewriter::addScalerState() {
  SmallVector<Type> types;
  SmallVector<DictionaryAttr> attrs;
  for (unsigned k = 0; k < numLosses; ++k) {
    std::string name =
        k == 0 ? kLossScaleName.str()
               : "loss" + std::to_string(k) + "." + kLossScaleName.str();
    auto add = [&](Type element, StringRef suffix) {
      types.push_back(scalarOf(element));
      attrs.push_back(makeContractAttrs(step.getContext(), Role::ScalerState,
                                        name + suffix.str()));
    };
    add(f32, "");
    add(i64, ".growth_tracker");
    add(i64, ".hysteresis_tracker");
    if (config.errorAtMin)
      add(i1, ".stuck_at_min");
  }
  FailureOr<SmallVector<BlockArgument>> added =
      view.addState(Role::ScalerState, types, attrs);
  if (failed(added))
    return failure();
  stateArgs = std::move(*added);
  return success();
}

/// The scale of each loss, and (dynamic) the trackers as a fresh scaler
/// when the stored scale is not positive (all-zero state).
void ScalingRewriter::loadScales() {
  b.setInsertionPointToStart(&step.front());
  for (unsigned k = 0; k < numLosses; ++k) {
    if (!config.dynamic) {
      scales.push_back(f32Constant(b, loc, config.initScale));
      continue;
    }
    Value scale = stateArgs[k * perLoss()],
          growth = stateArgs[k * perLoss() + 1],
          hyst = stateArgs[k * perLoss() + 2];
    Value valid =
        compare(b, loc, CompareDirection::GT, scale, f32Constant(b, loc, 0.0));
    scales.push_back(WhereOp::create(b, loc, scale.getType(), valid, scale,
                                     f32Constant(b, loc, config.initScale)));
    growths.push_back(WhereOp::create(b, loc, growth.getType(), valid, growth,
                                      i64Constant(b, loc, 0)));
    hysteresises.push_back(
        WhereOp::create(b, loc, hyst.getType(), valid, hyst,
                        i64Constant(b, loc, config.hysteresis)));
  }
}

/// The backward of each loss starts from its seed times its scale.
void ScalingRewriter::scaleSeeds() {
  for (auto [k, seed] : llvm::enumerate(ops.seeds)) {
    b.setInsertionPointAfter(seed);
    auto scaled = ScaleSeedOp::create(b, seed.getLoc(), seed.getType(),
                                      seed.getResult(), scales[k]);
    seed.getResult().replaceAllUsesExcept(scaled.getResult(),
                                          scaled.getOperation());
  }
}

/// Replaces the uses of `gradient` (but those by `except`) with `widened`,
/// its unscaled or clipped version, where the user accepts that type, else
/// with a cast of it back to the type of `gradient`, placed after `after`.
void replaceGradientUses(OpBuilder &b, Location loc, Value gradient,
                         Value widened, Operation *except, Operation *after) {
  Value castBack;
  for (OpOperand &use : llvm::make_early_inc_range(gradient.getUses())) {
    if (use.getOwner() == except)
      continue;
    if (widened.getType() == gradient.getType() || acceptsF32Gradient(use)) {
      use.set(widened);
      continue;
    }
    if (!castBack) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointAfter(after);
      castBack = CastOp::create(b, loc, gradient.getType(), widened);
    }
    use.set(castBack);
  }
}

/// Unscales (and checks) the gradients of loss `k` with one
/// amp.unscale_grads after the last of them.
void ScalingRewriter::unscaleGradients(unsigned k) {
  ArrayRef<Value> lossGradients = gradients[k].getArrayRef();
  if (lossGradients.empty()) {
    // A loss that reaches no parameter: nothing to unscale or check.
    b.setInsertionPointAfterValue(scales[k]);
    founds.push_back(i1Constant(b, loc, false));
    return;
  }
  // After the last gradient (ops are pure; users are reordered later).
  Operation *last = nullptr;
  for (Value gradient : lossGradients)
    if (Operation *def = gradient.getDefiningOp())
      if (!last || last->isBeforeInBlock(def))
        last = def;
  if (last)
    b.setInsertionPointAfter(last);
  else
    b.setInsertionPointAfterValue(scales[k]);
  // Widen low-precision gradients that some user takes in f32.
  SmallVector<Type> types;
  for (Value gradient : lossGradients) {
    auto type = cast<RankedTensorType>(gradient.getType());
    bool widen = isLowPrecision(type.getElementType()) &&
                 llvm::any_of(gradient.getUses(), acceptsF32Gradient);
    types.push_back(widen ? type.clone(f32) : type);
  }
  types.push_back(scalarOf(i1));
  SmallVector<Value> operands = {scales[k]};
  llvm::append_range(operands, lossGradients);
  auto unscale = UnscaleGradsOp::create(b, loc, types, operands);
  unscales[k] = unscale;
  for (auto [gradient, unscaled] :
       llvm::zip_equal(lossGradients, unscale.getUnscaled()))
    replaceGradientUses(b, loc, gradient, unscaled, unscale, unscale);
  founds.push_back(unscale.getFoundInf());
}

/// Clipping now reads unscaled (possibly widened) gradients: retype it.
void ScalingRewriter::retypeClips() {
  for (ClipGradNormOp clip : ops.clips) {
    if (llvm::equal(clip.getGradients().getTypes(),
                    clip.getClipped().getTypes()))
      continue;
    b.setInsertionPoint(clip);
    auto widened = ClipGradNormOp::create(b, clip.getLoc(), clip.getGradients(),
                                          clip.getMaxNorm().convertToDouble());
    for (auto [old, clipped] :
         llvm::zip_equal(clip.getClipped(), widened.getClipped()))
      replaceGradientUses(b, clip.getLoc(), old, clipped, /*except=*/nullptr,
                          widened);
    clip.getTotalNorm().replaceAllUsesWith(widened.getTotalNorm());
    clip.erase();
  }
}

/// found_inf of the step: any loss overflowed.
void ScalingRewriter::combineFoundInf() {
  Operation *lastUnscale = nullptr;
  for (Operation *unscale : unscales)
    if (unscale && (!lastUnscale || lastUnscale->isBeforeInBlock(unscale)))
      lastUnscale = unscale;
  if (lastUnscale)
    b.setInsertionPointAfter(lastUnscale);
  found = founds.front();
  for (Value other : ArrayRef<Value>(founds).drop_front())
    found = logicalOr(b, loc, found, other);
}

/// The next scale and trackers of loss `k` (dynamic), returned as the
/// updates of its scaler state.
void ScalingRewriter::updateScale(unsigned k) {
  if (unscales[k])
    b.setInsertionPointAfter(unscales[k]);
  Type types[] = {scalarOf(f32), scalarOf(i64), scalarOf(i64)};
  Value operands[] = {scales[k], growths[k], hysteresises[k], founds[k]};
  auto update = UpdateScaleOp::create(b, loc, types, operands);
  update.setGrowthFactor(APFloat(config.growthFactor));
  update.setBackoffFactor(APFloat(config.backoffFactor));
  update.setGrowthInterval(config.growthInterval);
  update.setHysteresis(config.hysteresis);
  update.setMinScale(APFloat(config.minScale));
  update.setMaxScale(APFloat(config.maxScale));
  SmallVector<Value> next(update->getResults());
  if (config.errorAtMin) {
    // An overflow that backs off (the hysteresis is used up) a scale
    // already at its minimum; sticky.
    Value exhausted = compare(b, loc, CompareDirection::LE, hysteresises[k],
                              i64Constant(b, loc, 1));
    Value atMin = compare(b, loc, CompareDirection::LE, scales[k],
                          f32Constant(b, loc, config.minScale));
    Value stuck =
        logicalAnd(b, loc, logicalAnd(b, loc, founds[k], exhausted), atMin);
    next.push_back(logicalOr(b, loc, stateArgs[k * perLoss() + 3], stuck));
  }
  for (auto [j, value] : llvm::enumerate(next))
    view.setUpdatedValue(stateArgs[k * perLoss() + j], value);
}

/// The updates skip on found_inf. Any other parameter or optimizer-state
/// result (AdamW's step counter, hand-written updates), and an update's
/// result whose skipped value is not the state argument (SGD with
/// dampening starts its momentum buffer from the gradient on the first
/// step), keeps its argument's value on a skipped step.
void ScalingRewriter::skipUpdates() {
  for (Operation *update : ops.updates)
    setFoundInf(update, found);
  keepStateWhen(b, loc, view, found, {Role::Parameter, Role::OptimizerState});
}

//===----------------------------------------------------------------------===//
// --amp-loss-scaling: the pass
//===----------------------------------------------------------------------===//

struct AMPLossScalingPass
    : mlir::amp::impl::AMPLossScalingPassBase<AMPLossScalingPass> {
  using AMPLossScalingPassBase::AMPLossScalingPassBase;

  void runOnOperation() override;

private:
  LogicalResult checkOptions();
  LogicalResult rewriteStep(func::FuncOp step);
};

LogicalResult AMPLossScalingPass::checkOptions() {
  ModuleOp module = getOperation();
  auto fail = [&]() {
    return emitError(module.getLoc()) << "amp-loss-scaling: ";
  };
  double init = initScale, growth = growthFactor, backoff = backoffFactor,
         lowest = minScale, highest = maxScale;
  // The scale is an f32: it must be a positive, finite f32.
  constexpr double kMaxF32 = std::numeric_limits<float>::max();
  if (!(init > 0) || !(init <= kMaxF32) || static_cast<float>(init) == 0.0f)
    return fail() << "init-scale must be a positive, finite f32 value, got "
                  << formatNumber(init);
  if (!(growth > 1) || std::isinf(growth))
    return fail() << "growth-factor must be finite and greater than 1, got "
                  << formatNumber(growth);
  if (!(backoff > 0 && backoff < 1))
    return fail() << "backoff-factor must be in (0, 1), got "
                  << formatNumber(backoff);
  if (growthInterval < 1)
    return fail() << "growth-interval must be positive, got "
                  << int64_t(growthInterval);
  if (hysteresis < 1)
    return fail() << "hysteresis must be positive (1 backs off on every "
                     "overflow), got "
                  << int64_t(hysteresis);
  if (!(lowest > 0) || static_cast<float>(lowest) == 0.0f ||
      !(lowest <= highest) || std::isinf(highest))
    return fail() << "scale bounds must satisfy 0 < min-scale <= max-scale "
                     "< inf, with min-scale not rounding to 0 in f32; got ["
                  << formatNumber(lowest) << ", " << formatNumber(highest)
                  << "]";
  if (mode != LossScalingMode::Static && mode != LossScalingMode::None &&
      !(lowest <= init && init <= highest))
    return fail() << "init-scale " << formatNumber(init)
                  << " is outside [min-scale, max-scale] = ["
                  << formatNumber(lowest) << ", " << formatNumber(highest)
                  << "]";
  return success();
}

void AMPLossScalingPass::runOnOperation() {
  if (failed(checkOptions()))
    return signalPassFailure();
  if (mode == LossScalingMode::None)
    return;
  bool failedAny = false;
  for (func::FuncOp step : getGraphDefinitions<func::FuncOp>(
           getOperation(), GraphKind::TrainingStep))
    failedAny |= failed(rewriteStep(step));
  if (failedAny)
    signalPassFailure();
}

LogicalResult AMPLossScalingPass::rewriteStep(func::FuncOp step) {
  if (!step.getBody().hasOneBlock())
    return step.emitError() << "amp-loss-scaling: training step @"
                            << step.getSymName() << " must have a single block";
  // A step that already scales its loss is left as it is.
  for (Operation &op : step.front())
    if (isa<ScaleSeedOp, UnscaleGradsOp, UpdateScaleOp>(op))
      return success();

  LossScalingMode effective = mode;
  if (effective == LossScalingMode::Auto)
    effective =
        computesInF16(step) ? LossScalingMode::Dynamic : LossScalingMode::None;
  if (effective == LossScalingMode::None)
    return success();

  FailureOr<GradientOps> ops = findGradientOps(step);
  if (failed(ops))
    return failure();
  FailureOr<PerLossGradients> gradients = collectPerLossGradients(*ops);
  if (failed(gradients) ||
      failed(checkNoDerivedGradients(step.front(), *gradients)))
    return failure();
  ScalerConfig config{effective == LossScalingMode::Dynamic,
                      initScale,
                      growthFactor,
                      backoffFactor,
                      minScale,
                      maxScale,
                      growthInterval,
                      hysteresis,
                      errorAtMin};
  return ScalingRewriter(step, config, std::move(*ops), std::move(*gradients))
      .run();
}

//===----------------------------------------------------------------------===//
// --amp-master-weights
//===----------------------------------------------------------------------===//

/// A low-precision copy of an f32 master weight that the step casts.
struct Copy {
  BlockArgument master;
  RankedTensorType type;
  SmallVector<CastOp> casts;
  Operation *update;
  std::string name;
  /// The amp.name of the master.
  std::string masterName;
};

/// The copy that `update` (an optimizer update) can produce: its f32
/// parameter argument, returned as this parameter's update, cast to one
/// low-precision type. Names an unnamed master, which the copy refers to.
std::optional<Copy> findCopy(TrainingStep view, Operation *update) {
  FunctionOpInterface step = view.getFunction();
  Block &body = step.getFunctionBody().front();
  auto master = dyn_cast<BlockArgument>(paramOf(update));
  if (!master || master.getOwner() != &body ||
      view.getArgumentRole(master.getArgNumber()) != Role::Parameter ||
      !elementTypeOf(master).isF32())
    return std::nullopt;
  // The new master must be returned as this parameter's update.
  Operation *ret = view.getReturn();
  Value newMaster = update->getResult(0);
  if (!llvm::any_of(newMaster.getUses(),
                    [&](OpOperand &use) { return use.getOwner() == ret; }))
    return std::nullopt;
  Copy copy{master, {}, {}, update, {}, {}};
  bool mixed = false;
  for (Operation *user : master.getUsers()) {
    auto castOp = dyn_cast<CastOp>(user);
    if (!castOp || !isLowPrecision(elementTypeOf(castOp.getResult())))
      continue;
    auto type = cast<RankedTensorType>(castOp.getType());
    if (copy.type && copy.type != type)
      mixed = true;
    copy.type = type;
    copy.casts.push_back(castOp);
  }
  if (copy.casts.empty() || mixed)
    return std::nullopt;
  StringRef name = getAMPName(view.getArgumentAttrs(master.getArgNumber()));
  std::string base =
      name.empty() ? "arg" + std::to_string(master.getArgNumber()) : name.str();
  // The copy names its master (amp.copy_of) so drivers can initialise it;
  // an unnamed master gets the name the copy refers to.
  if (name.empty())
    step.setArgAttr(master.getArgNumber(), AMPDialect::kNameAttrName,
                    StringAttr::get(step->getContext(), base));
  copy.masterName = base;
  copy.name = base + (copy.type.getElementType().isF16() ? ".f16" : ".bf16");
  return copy;
}

struct AMPMasterWeightsPass
    : mlir::amp::impl::AMPMasterWeightsPassBase<AMPMasterWeightsPass> {
  using AMPMasterWeightsPassBase::AMPMasterWeightsPassBase;

  void runOnOperation() override {
    for (auto function : getGraphDefinitions<func::FuncOp>(
             getOperation(), GraphKind::TrainingStep))
      if (function.getBody().hasOneBlock())
        if (failed(rewriteStep(function)))
          return signalPassFailure();
  }

  LogicalResult rewriteStep(func::FuncOp step);
};

LogicalResult AMPMasterWeightsPass::rewriteStep(func::FuncOp step) {
  MLIRContext *context = &getContext();
  TrainingStep view(step);
  SmallVector<Copy> copies;
  for (Operation &op : step.front())
    if (isOptimizerUpdate(&op))
      if (std::optional<Copy> copy = findCopy(view, &op))
        copies.push_back(std::move(*copy));
  if (copies.empty())
    return success();

  // The copies are buffers: state after the step's buffers (else its
  // parameters).
  SmallVector<Type> types;
  SmallVector<DictionaryAttr> attrs;
  for (const Copy &copy : copies) {
    types.push_back(copy.type);
    NamedAttrList copyAttrs(
        makeContractAttrs(context, Role::Buffer, copy.name));
    copyAttrs.set(AMPDialect::kCopyOfAttrName,
                  StringAttr::get(context, copy.masterName));
    attrs.push_back(copyAttrs.getDictionary(context));
  }
  FailureOr<SmallVector<BlockArgument>> args =
      view.addState(Role::Buffer, types, attrs);
  if (failed(args))
    return step.emitError()
           << "amp-master-weights: cannot add the low-precision copies";

  OpBuilder b(context);
  for (auto [copy, arg] : llvm::zip_equal(copies, *args)) {
    for (CastOp castOp : copy.casts) {
      castOp.getResult().replaceAllUsesWith(arg);
      castOp.erase();
    }
    // The copy for the next step: the cast of the updated master, which
    // the lowering computes in the update's own pass.
    b.setInsertionPointAfter(copy.update);
    Value next = CastOp::create(b, copy.update->getLoc(), copy.type,
                                copy.update->getResult(0));
    view.setUpdatedValue(arg, next);
  }
  return success();
}

} // namespace
