//===- OptimizerStep.cpp - the optimizer update of a training step -------===//
//
// The optimizer half of a training step: the state it threads through and
// the amp.sgd_update / amp.adamw_update ops that read the gradients
// (Optimizer.h), used by amp-autodiff for the steps it generates and by
// --amp-optimizer-step, which turns a gradient function (amp-autodiff's
// optimizer=none output) into a training step. Keeping the two apart lets
// the gradients be combined first (data parallelism, accumulation).
//
//===----------------------------------------------------------------------===//

#include "Optimizer.h"

#include "amp/Dialect/AMP/IR/AMPOps.h"
#include "amp/Dialect/AMP/IR/TrainingStep.h"
#include "amp/Dialect/AMP/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/CSE.h"

#include <cmath>

namespace mlir::amp {
#define GEN_PASS_DEF_AMPOPTIMIZERSTEPPASS
#include "amp/Dialect/AMP/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

//===----------------------------------------------------------------------===//
// Options and state
//===----------------------------------------------------------------------===//

LogicalResult mlir::amp::checkOptimizerNumbers(
    OptimizerConfig &config, double momentum, double dampening, bool nesterov,
    double weightDecay, double beta1, double beta2, double epsilon,
    llvm::function_ref<LogicalResult(const Twine &)> fail) {
  auto finiteNonNegative = [](double v) { return v >= 0 && std::isfinite(v); };
  if (!finiteNonNegative(momentum))
    return fail("momentum must be non-negative and finite");
  if (!(dampening >= 0 && dampening <= 1))
    return fail("dampening must be in [0, 1]");
  if (nesterov && (momentum == 0 || dampening != 0))
    return fail("nesterov requires momentum > 0 and dampening = 0");
  if (weightDecay != -1.0 && !finiteNonNegative(weightDecay))
    return fail("weight-decay must be non-negative and finite");
  if (!(beta1 >= 0 && beta1 < 1 && beta2 >= 0 && beta2 < 1))
    return fail("beta1 and beta2 must be in [0, 1)");
  if (!(epsilon > 0) || !std::isfinite(epsilon))
    return fail("epsilon must be positive and finite");
  config.momentum = momentum;
  config.dampening = dampening;
  config.nesterov = nesterov;
  double defaultDecay = config.kind == OptimizerKind::AdamW ? 0.01 : 0.0;
  config.weightDecay = weightDecay == -1.0 ? defaultDecay : weightDecay;
  config.beta1 = beta1;
  config.beta2 = beta2;
  config.epsilon = epsilon;
  return success();
}

SmallVector<Slot> mlir::amp::getOptimizerState(MLIRContext *context,
                                               const OptimizerConfig &config,
                                               ArrayRef<std::string> names,
                                               ArrayRef<Type> types) {
  SmallVector<Slot> state;
  for (auto [name, type] : llvm::zip_equal(names, types)) {
    auto add = [&, &name = name, &type = type](StringRef suffix) {
      state.push_back({type, makeContractAttrs(context, Role::OptimizerState,
                                               name + "." + suffix.str())});
    };
    if (config.hasMomentumBuffer())
      add("momentum_buffer");
    if (config.kind == OptimizerKind::AdamW) {
      add("exp_avg");
      add("exp_avg_sq");
    }
  }
  if (config.countsSteps())
    state.push_back({RankedTensorType::get({}, IntegerType::get(context, 64)),
                     makeContractAttrs(context, Role::OptimizerState, "step")});
  return state;
}

//===----------------------------------------------------------------------===//
// Updates
//===----------------------------------------------------------------------===//

/// A constant of `type` with every element `value`.
static Value splat(OpBuilder &b, Location loc, RankedTensorType type,
                   double value) {
  return ConstantOp::create(
      b, loc, type,
      DenseElementsAttr::get(type,
                             b.getFloatAttr(type.getElementType(), value)));
}

/// PyTorch's first SGD update with dampening sets buf = d_p (the gradient
/// with L2 decay) without dampening. sgd_update computes
/// momentum * buf + (1 - dampening) * d_p, which is d_p for
/// buf = dampening / momentum * d_p: the buffer to use, that on step 0.
static Value firstMomentumBuffer(OpBuilder &b, Location loc,
                                 const OptimizerConfig &config, Value param,
                                 Value gradient, Value buffer, Value stepIn) {
  auto tensor = cast<RankedTensorType>(param.getType());
  Value decayed = gradient;
  if (config.weightDecay != 0)
    decayed = AddOp::create(
        b, loc, gradient,
        MulOp::create(b, loc, splat(b, loc, tensor, config.weightDecay),
                      param));
  Value initial =
      MulOp::create(b, loc, decayed,
                    splat(b, loc, tensor, config.dampening / config.momentum));
  auto i64Scalar = RankedTensorType::get({}, b.getI64Type());
  Value zero = ConstantOp::create(
      b, loc, i64Scalar,
      DenseElementsAttr::get(i64Scalar, b.getI64IntegerAttr(0)));
  Value first =
      CompareOp::create(b, loc, RankedTensorType::get({}, b.getI1Type()),
                        CompareDirection::EQ, stepIn, zero);
  if (tensor.getRank() != 0)
    first = BroadcastOp::create(b, loc, tensor.clone(b.getI1Type()), first);
  return WhereOp::create(b, loc, tensor, first, initial, buffer);
}

OptimizerUpdates mlir::amp::emitOptimizerUpdates(OpBuilder &b, Location loc,
                                                 const OptimizerConfig &config,
                                                 ValueRange params,
                                                 ValueRange grads,
                                                 ValueRange state, Value lr) {
  OptimizerUpdates updates;
  Value stepIn, stepNext;
  if (config.countsSteps()) {
    stepIn = state.back();
    // step + 1 (0-d i64): amp has no integer arithmetic.
    Value count = tensor::ExtractOp::create(b, loc, stepIn, ValueRange{});
    Value one = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(1));
    Value next = arith::AddIOp::create(b, loc, count, one);
    stepNext = tensor::FromElementsOp::create(b, loc, stepIn.getType(),
                                              ValueRange{next});
  }
  unsigned stateIndex = 0;
  for (auto [param, gradient] : llvm::zip_equal(params, grads)) {
    auto tensor = cast<RankedTensorType>(param.getType());
    if (config.kind == OptimizerKind::SGD) {
      Value buffer;
      if (config.hasMomentumBuffer()) {
        buffer = state[stateIndex++];
        if (config.dampening != 0)
          buffer = firstMomentumBuffer(b, loc, config, param, gradient, buffer,
                                       stepIn);
      }
      auto update = SgdUpdateOp::create(
          b, loc, tensor, buffer ? Type(tensor) : Type(), param, gradient,
          buffer, lr, /*found_inf=*/Value(), APFloat(config.momentum),
          APFloat(config.dampening), config.nesterov,
          APFloat(config.weightDecay));
      updates.params.push_back(update.getNewParam());
      if (buffer)
        updates.state.push_back(update.getNewMomentumBuffer());
      continue;
    }
    Value expAvg = state[stateIndex++];
    Value expAvgSq = state[stateIndex++];
    auto update = AdamWUpdateOp::create(
        b, loc, tensor, tensor, tensor, param, gradient, expAvg, expAvgSq,
        stepNext, lr, /*found_inf=*/Value(), APFloat(config.beta1),
        APFloat(config.beta2), APFloat(config.epsilon),
        APFloat(config.weightDecay));
    updates.params.push_back(update.getNewParam());
    updates.state.push_back(update.getNewExpAvg());
    updates.state.push_back(update.getNewExpAvgSq());
  }
  if (stepNext)
    updates.state.push_back(stepNext);
  return updates;
}

std::string mlir::amp::getParameterName(DictionaryAttr attrs, unsigned k) {
  StringRef name = getAMPName(attrs);
  return name.empty() ? "param" + std::to_string(k) : name.str();
}

void mlir::amp::simplifyStep(FunctionOpInterface step) {
  IRRewriter rewriter(step->getContext());
  DominanceInfo dominance(step);
  eliminateCommonSubExpressions(rewriter, dominance, step);
}

//===----------------------------------------------------------------------===//
// --amp-optimizer-step
//===----------------------------------------------------------------------===//

namespace {

/// The gradients a gradient function returns: for the k-th parameter
/// argument, the output result named `<parameter>.grad`.
struct Gradients {
  SmallVector<std::string> paramNames;
  SmallVector<unsigned> results;
};

/// The gradients `function` returns; none when it returns no parameter
/// gradient, an error when it returns only some.
FailureOr<std::optional<Gradients>> findGradients(func::FuncOp function) {
  TrainingStep view(function);
  Gradients gradients;
  std::optional<std::string> missing;
  for (auto [k, param] : llvm::enumerate(view.getArguments(Role::Parameter))) {
    std::string name = getParameterName(view.getArgumentAttrs(param), k);
    std::string gradName = name + ".grad";
    for (unsigned i : view.getResults(Role::Output))
      if (getAMPName(view.getResultAttrs(i)) == gradName) {
        gradients.results.push_back(i);
        break;
      }
    if (gradients.results.size() != k + 1 && !missing)
      missing = name;
    gradients.paramNames.push_back(name);
  }
  if (gradients.results.empty())
    return std::optional<Gradients>();
  if (missing)
    return function.emitError()
           << "amp-optimizer-step: @" << function.getSymName()
           << " returns parameter gradients but none for parameter '"
           << *missing << "' (an output named '" << *missing << ".grad')";
  return std::optional<Gradients>(std::move(gradients));
}

struct AMPOptimizerStepPass
    : mlir::amp::impl::AMPOptimizerStepPassBase<AMPOptimizerStepPass> {
  using AMPOptimizerStepPassBase::AMPOptimizerStepPassBase;

  void runOnOperation() override;

private:
  LogicalResult checkOptions();
  LogicalResult rewrite(func::FuncOp function, const Gradients &gradients,
                        SymbolTable &symbols);

  OptimizerConfig config;
};

LogicalResult AMPOptimizerStepPass::checkOptions() {
  auto fail = [&](const Twine &message) {
    return emitError(getOperation().getLoc())
           << "amp-optimizer-step: " << message;
  };
  config.kind = optimizer;
  return checkOptimizerNumbers(config, momentum, dampening, nesterov,
                               weightDecay, beta1, beta2, epsilon, fail);
}

void AMPOptimizerStepPass::runOnOperation() {
  if (failed(checkOptions()))
    return signalPassFailure();
  if (config.kind == OptimizerKind::None)
    return;
  ModuleOp module = getOperation();
  SymbolTable symbols(module);
  SmallVector<func::FuncOp> functions(module.getOps<func::FuncOp>());
  bool failedAny = false;
  for (func::FuncOp function : functions) {
    if (function.isExternal() || getGraphKind(function))
      continue;
    FailureOr<std::optional<Gradients>> gradients = findGradients(function);
    if (failed(gradients)) {
      failedAny = true;
      continue;
    }
    if (*gradients)
      failedAny |= failed(rewrite(function, **gradients, symbols));
  }
  if (failedAny)
    signalPassFailure();
}

/// Removes the gradient results of `view`'s function; returns the values
/// they returned.
FailureOr<SmallVector<Value>> takeGradients(TrainingStep view,
                                            const Gradients &gradients) {
  Operation *ret = view.getReturn();
  SmallVector<Value> grads;
  llvm::BitVector gradResults(view.getFunction().getNumResults());
  for (unsigned i : gradients.results) {
    grads.push_back(ret->getOperand(i));
    gradResults.set(i);
  }
  ret->eraseOperands(gradResults);
  if (failed(view.getFunction().eraseResults(gradResults)))
    return failure();
  return grads;
}

/// What the optimizer reads besides parameters and gradients.
struct OptimizerInputs {
  SmallVector<BlockArgument> state;
  BlockArgument lr;
};

/// Adds the optimizer state of amp-autodiff (paired arguments and results,
/// after the buffers) and the `lr` argument (before the other
/// hyper-parameters).
FailureOr<OptimizerInputs> addOptimizerInputs(TrainingStep view,
                                              const OptimizerConfig &config,
                                              ArrayRef<std::string> names) {
  FunctionOpInterface function = view.getFunction();
  MLIRContext *context = function->getContext();
  SmallVector<Type> paramTypes;
  for (unsigned i : view.getArguments(Role::Parameter))
    paramTypes.push_back(function.getArgumentTypes()[i]);
  SmallVector<Type> stateTypes;
  SmallVector<DictionaryAttr> stateAttrs;
  for (const Slot &slot :
       getOptimizerState(context, config, names, paramTypes)) {
    stateTypes.push_back(slot.type);
    stateAttrs.push_back(slot.attrs);
  }
  FailureOr<SmallVector<BlockArgument>> state =
      view.addState(Role::OptimizerState, stateTypes, stateAttrs);
  SmallVector<unsigned> hypers = view.getArguments(Role::Hyperparameter);
  unsigned lrIndex = hypers.empty() ? function.getNumArguments() : hypers[0];
  auto f32Scalar = RankedTensorType::get({}, Float32Type::get(context));
  if (failed(state) ||
      failed(function.insertArgument(
          lrIndex, f32Scalar,
          makeContractAttrs(context, Role::Hyperparameter, kLearningRateName),
          function.getLoc())))
    return failure();
  return OptimizerInputs{std::move(*state), function.getArgument(lrIndex)};
}

/// The function returns the new optimizer state as the update of the old,
/// and the new parameters as its first results.
void returnUpdates(TrainingStep view, ArrayRef<BlockArgument> params,
                   ArrayRef<BlockArgument> state,
                   const OptimizerUpdates &updates) {
  for (auto [arg, value] : llvm::zip_equal(state, updates.state))
    view.setUpdatedValue(arg, value);
  SmallVector<TrainingStep::NewResult> paramResults;
  for (auto [param, value] : llvm::zip_equal(params, updates.params))
    paramResults.push_back(
        {0, value,
         makeContractAttrs(
             param.getContext(), Role::Parameter,
             getAMPName(view.getArgumentAttrs(param.getArgNumber())))});
  view.addResults(paramResults);
}

/// The signature of amp-autodiff's training step from that of its gradient
/// function: the gradient results go, optimizer state (arguments and
/// results) comes after the buffers, `lr` before the other
/// hyper-parameters, the updated parameters first among the results.
LogicalResult AMPOptimizerStepPass::rewrite(func::FuncOp function,
                                            const Gradients &gradients,
                                            SymbolTable &symbols) {
  StringRef oldName = function.getSymName();
  std::string name = oldName.ends_with("_grad")
                         ? (oldName.drop_back(5) + "_train_step").str()
                         : oldName.str();
  auto fail = [&]() { return function.emitError() << "amp-optimizer-step: "; };
  if (!function.getBody().hasOneBlock())
    return fail() << "@" << oldName << " must have a single block";
  if (name != oldName && symbols.lookup(name))
    return fail() << "cannot rename @" << oldName << " to @" << name
                  << ": the symbol already exists";
  TrainingStep view(function);
  FailureOr<SmallVector<Value>> grads = takeGradients(view, gradients);
  if (failed(grads))
    return fail() << "cannot remove the gradient results";
  FailureOr<OptimizerInputs> inputs =
      addOptimizerInputs(view, config, gradients.paramNames);
  if (failed(inputs))
    return fail() << "cannot add the optimizer state and learning rate";
  SmallVector<BlockArgument> params;
  for (unsigned i : view.getArguments(Role::Parameter))
    params.push_back(function.getArgument(i));
  OpBuilder b(view.getReturn());
  OptimizerUpdates updates = emitOptimizerUpdates(
      b, function.getLoc(), config, ArrayRef<BlockArgument>(params), *grads,
      ArrayRef<BlockArgument>(inputs->state), inputs->lr);
  returnUpdates(view, params, inputs->state, updates);
  setGraphKind(function, GraphKind::TrainingStep);
  if (name != oldName && failed(symbols.rename(function, name)))
    return fail() << "cannot rename @" << oldName << " to @" << name;
  simplifyStep(function);
  return success();
}

} // namespace
