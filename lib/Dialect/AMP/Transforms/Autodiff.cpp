//===- Autodiff.cpp - reverse-mode autodiff and the optimizer step --------===//
//
// --amp-autodiff turns each forward model into a training step (see the
// pass description in AutodiffPasses.td for the generated signature):
//
//   clone forward -> [append loss] -> amp.seed -> reverse sweep through
//   GradientOpInterface -> [amp.clip_grad_norm] -> optimizer updates
//
// Activity analysis decides which values get gradients: a value is active
// when it depends on a parameter (varied) and the loss depends on it
// (useful), both through differentiable operands only. An op needs a
// gradient rule exactly when one of its differentiable operands is active;
// such an op without GradientOpInterface is an error. Gradient ops whose
// results end up unused (the input gradient of the first layer) are erased
// at the end.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/AMP/IR/AMPDialect.h"
#include "amp/Dialect/AMP/IR/AMPOps.h"
#include "amp/Dialect/AMP/IR/TrainingGraph.h"
#include "amp/Dialect/AMP/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPAUTODIFFPASS
#include "amp/Dialect/AMP/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

//===----------------------------------------------------------------------===//
// Signature helpers
//===----------------------------------------------------------------------===//

bool isFloatTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && isa<FloatType>(tensor.getElementType());
}

bool isF32Scalar(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getRank() == 0 && tensor.getElementType().isF32();
}

/// One argument or result of the generated function.
struct Slot {
  Type type;
  DictionaryAttr attrs;
};

//===----------------------------------------------------------------------===//
// Activity analysis
//===----------------------------------------------------------------------===//

/// Whether operand `index` of `op` carries a gradient: the op's own answer
/// when it has a rule, otherwise any float tensor operand.
bool isDifferentiableOperand(Operation *op, unsigned index) {
  if (auto gradient = dyn_cast<GradientOpInterface>(op))
    return gradient.isDifferentiableOperand(index);
  return isFloatTensor(op->getOperand(index).getType());
}

/// The values an op reads: its differentiable operands, plus (for an op
/// with regions, which has no rule) the float values its regions capture.
SmallVector<Value> differentiableInputs(Operation *op) {
  SmallVector<Value> inputs;
  for (OpOperand &operand : op->getOpOperands())
    if (isDifferentiableOperand(op, operand.getOperandNumber()))
      inputs.push_back(operand.get());
  if (op->getNumRegions() != 0) {
    llvm::SetVector<Value> captured;
    for (Region &region : op->getRegions())
      getUsedValuesDefinedAbove(region, captured);
    for (Value value : captured)
      if (isFloatTensor(value.getType()))
        inputs.push_back(value);
  }
  return inputs;
}

struct Activity {
  /// Depends on a parameter; maps to the (first) parameter it depends on,
  /// for diagnostics.
  DenseMap<Value, unsigned> varied;
  /// The loss depends on it.
  DenseSet<Value> useful;

  bool isActive(Value value) const {
    return varied.count(value) && useful.count(value);
  }
};

Activity analyze(Block &body, ArrayRef<BlockArgument> parameters, Value loss) {
  Activity activity;
  for (auto [index, parameter] : llvm::enumerate(parameters))
    activity.varied.try_emplace(parameter, index);
  for (Operation &op : body) {
    std::optional<unsigned> origin;
    for (Value input : differentiableInputs(&op)) {
      auto it = activity.varied.find(input);
      if (it != activity.varied.end()) {
        origin = it->second;
        break;
      }
    }
    if (!origin)
      continue;
    for (Value result : op.getResults())
      if (isFloatTensor(result.getType()))
        activity.varied.try_emplace(result, *origin);
  }
  activity.useful.insert(loss);
  for (Operation &op : llvm::reverse(body)) {
    if (llvm::none_of(op.getResults(),
                      [&](Value r) { return activity.useful.count(r); }))
      continue;
    for (Value input : differentiableInputs(&op))
      activity.useful.insert(input);
  }
  return activity;
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct AMPAutodiffPass : mlir::amp::impl::AMPAutodiffPassBase<AMPAutodiffPass> {
  using AMPAutodiffPassBase::AMPAutodiffPassBase;

  void runOnOperation() override;

private:
  enum class Optimizer { SGD, AdamW, None };
  enum class LossKind { None, CrossEntropy, MSE };

  LogicalResult checkOptions();
  LogicalResult generate(func::FuncOp forward, SymbolTable &symbols);

  Optimizer optimizerKind = Optimizer::SGD;
  LossKind lossKind = LossKind::None;
  double sgdWeightDecay = 0.0, adamWeightDecay = 0.01;
};

LogicalResult AMPAutodiffPass::checkOptions() {
  ModuleOp module = getOperation();
  auto fail = [&](const Twine &message) {
    return emitError(module.getLoc()) << "amp-autodiff: " << message;
  };
  if (optimizer == "sgd")
    optimizerKind = Optimizer::SGD;
  else if (optimizer == "adamw")
    optimizerKind = Optimizer::AdamW;
  else if (optimizer == "none")
    optimizerKind = Optimizer::None;
  else
    return fail("unknown optimizer '" + optimizer +
                "' (expected sgd, adamw or none)");
  if (loss == "none")
    lossKind = LossKind::None;
  else if (loss == "cross_entropy")
    lossKind = LossKind::CrossEntropy;
  else if (loss == "mse")
    lossKind = LossKind::MSE;
  else
    return fail("unknown loss '" + loss +
                "' (expected none, cross_entropy or mse)");
  auto finiteNonNegative = [](double v) { return v >= 0 && std::isfinite(v); };
  if (!finiteNonNegative(momentum))
    return fail("momentum must be non-negative and finite");
  if (!(dampening >= 0 && dampening <= 1))
    return fail("dampening must be in [0, 1]");
  if (nesterov && (momentum == 0 || dampening != 0))
    return fail("nesterov requires momentum > 0 and dampening = 0");
  if (weightDecay != -1.0 && !finiteNonNegative(weightDecay))
    return fail("weight-decay must be non-negative and finite");
  sgdWeightDecay = weightDecay == -1.0 ? 0.0 : double(weightDecay);
  adamWeightDecay = weightDecay == -1.0 ? 0.01 : double(weightDecay);
  if (!(beta1 >= 0 && beta1 < 1 && beta2 >= 0 && beta2 < 1))
    return fail("beta1 and beta2 must be in [0, 1)");
  if (!(epsilon > 0) || !std::isfinite(epsilon))
    return fail("epsilon must be positive and finite");
  if (!finiteNonNegative(maxGradNorm))
    return fail("max-grad-norm must be non-negative and finite (0 disables "
                "clipping)");
  return success();
}

void AMPAutodiffPass::runOnOperation() {
  if (failed(checkOptions()))
    return signalPassFailure();
  ModuleOp module = getOperation();
  SmallVector<func::FuncOp> forwards;
  for (auto function : module.getOps<func::FuncOp>()) {
    auto graph =
        function->getAttrOfType<GraphKindAttr>(AMPDialect::kGraphAttrName);
    if (graph && graph.getValue() == GraphKind::Forward &&
        !function.isExternal())
      forwards.push_back(function);
  }
  SymbolTable symbols(module);
  bool failedAny = false;
  for (func::FuncOp forward : forwards)
    failedAny |= failed(generate(forward, symbols));
  if (failedAny)
    signalPassFailure();
}

LogicalResult AMPAutodiffPass::generate(func::FuncOp forward,
                                        SymbolTable &symbols) {
  MLIRContext *context = &getContext();
  Location loc = forward.getLoc();
  OpBuilder b(context);
  StringRef forwardName = forward.getSymName();

  //===--- Classify the forward model's arguments and results. -----------===//
  SmallVector<unsigned> params, buffers, inputs, labels, hypers;
  for (unsigned i = 0, e = forward.getNumArguments(); i < e; ++i) {
    std::optional<Role> role = getRole(forward.getArgAttrDict(i));
    switch (role.value_or(Role::Input)) {
    case Role::Parameter:
      params.push_back(i);
      break;
    case Role::Buffer:
      buffers.push_back(i);
      break;
    case Role::Input:
      inputs.push_back(i);
      break;
    case Role::Label:
      labels.push_back(i);
      break;
    case Role::Hyperparameter:
      hypers.push_back(i);
      break;
    default:
      return emitError(forward.getArgument(i).getLoc())
             << "forward model @" << forwardName << " argument #" << i
             << " has amp.role '" << stringifyRole(*role)
             << "'; a forward model takes parameters, buffers, inputs, "
                "labels and hyper-parameters";
    }
  }
  std::optional<unsigned> lossResult;
  SmallVector<unsigned> bufferResults, outputs;
  for (unsigned i = 0, e = forward.getNumResults(); i < e; ++i) {
    std::optional<Role> role = getRole(forward.getResultAttrDict(i));
    switch (role.value_or(Role::Output)) {
    case Role::Loss:
      lossResult = i;
      break;
    case Role::Buffer:
      bufferResults.push_back(i);
      break;
    case Role::Output:
      outputs.push_back(i);
      break;
    default:
      return emitError(loc)
             << "forward model @" << forwardName << " result #" << i
             << " has amp.role '" << stringifyRole(*role)
             << "'; a forward model returns its loss, updated buffers and "
                "outputs";
    }
  }

  //===--- Find the loss, or the logits to append one to. ----------------===//
  std::optional<unsigned> logitsResult;
  Type labelType;
  if (lossKind != LossKind::None) {
    StringRef option =
        lossKind == LossKind::CrossEntropy ? "cross_entropy" : "mse";
    if (lossResult)
      return emitError(loc)
             << "forward model @" << forwardName
             << " already returns a loss (result #" << *lossResult
             << "); loss=" << option
             << " appends a loss to a forward model that returns logits";
    if (outputs.size() != 1)
      return emitError(loc)
             << "loss=" << option
             << " needs exactly one result to apply the loss to (the "
                "logits), but forward model @"
             << forwardName << " returns " << outputs.size()
             << " results that are not buffers";
    logitsResult = outputs.front();
    outputs.clear();
    Type logitsType = forward.getResultTypes()[*logitsResult];
    auto logits = dyn_cast<RankedTensorType>(logitsType);
    if (lossKind == LossKind::CrossEntropy) {
      if (!logits || logits.getRank() != 2 || !isFloatTensor(logits))
        return emitError(loc)
               << "loss=cross_entropy needs [N, C] float logits, but result #"
               << *logitsResult << " of @" << forwardName << " is "
               << logitsType;
      labelType = RankedTensorType::get({logits.getDimSize(0)},
                                        IntegerType::get(context, 64));
    } else {
      if (!isFloatTensor(logitsType))
        return emitError(loc)
               << "loss=mse needs a float tensor prediction, but result #"
               << *logitsResult << " of @" << forwardName << " is "
               << logitsType;
      labelType = logitsType;
    }
  } else if (!lossResult) {
    // DESIGN.md section 3: a forward model's single f32 scalar result is
    // its loss. Accept it unmarked; anything else is an error.
    SmallVector<unsigned> unmarked;
    for (unsigned i : outputs)
      if (!getRole(forward.getResultAttrDict(i)))
        unmarked.push_back(i);
    if (outputs.size() == 1 && unmarked.size() == 1) {
      Type type = forward.getResultTypes()[unmarked.front()];
      if (!isF32Scalar(type))
        return emitError(loc)
               << "the loss of forward model @" << forwardName
               << " must be a scalar (a 0-d f32 tensor), but its result is "
               << type
               << "; return a scalar loss, or append one with "
                  "loss=cross_entropy or loss=mse";
      lossResult = unmarked.front();
      outputs.clear();
    } else {
      return emitError(loc)
             << "forward model @" << forwardName
             << " has no loss: mark its scalar loss result with amp.role = "
                "#amp.role<loss>, or append a loss to its logits with "
                "loss=cross_entropy or loss=mse";
    }
  }
  if (lossResult && !isF32Scalar(forward.getResultTypes()[*lossResult]))
    return emitError(loc)
           << "the loss of forward model @" << forwardName
           << " must be a scalar (a 0-d f32 tensor), but result #"
           << *lossResult << " is " << forward.getResultTypes()[*lossResult];

  //===--- Match buffer results to buffer arguments. ---------------------===//
  // bufferSource[k]: the forward result returning buffer argument k, if any.
  SmallVector<std::optional<unsigned>> bufferSource(buffers.size());
  {
    SmallVector<bool> used(bufferResults.size(), false);
    for (auto [k, arg] : llvm::enumerate(buffers)) {
      StringRef name = getAMPName(forward.getArgAttrDict(arg));
      for (auto [j, result] : llvm::enumerate(bufferResults))
        if (!used[j] && !name.empty() &&
            getAMPName(forward.getResultAttrDict(result)) == name) {
          bufferSource[k] = result;
          used[j] = true;
          break;
        }
    }
    if (bufferResults.size() == buffers.size())
      for (auto [k, arg] : llvm::enumerate(buffers))
        if (!bufferSource[k] && !used[k]) {
          bufferSource[k] = bufferResults[k];
          used[k] = true;
        }
    for (auto [j, result] : llvm::enumerate(bufferResults))
      if (!used[j])
        return emitError(loc)
               << "forward model @" << forwardName << " result #" << result
               << " is an updated buffer that matches no buffer argument "
                  "(by amp.name or by order)";
    for (auto [k, arg] : llvm::enumerate(buffers)) {
      if (!bufferSource[k])
        continue;
      Type in = forward.getArgumentTypes()[arg];
      Type out = forward.getResultTypes()[*bufferSource[k]];
      if (in != out)
        return emitError(loc) << "forward model @" << forwardName
                              << " takes buffer #" << k << " (argument #" << arg
                              << ") as " << in << " but returns it (result #"
                              << *bufferSource[k] << ") as " << out;
    }
  }

  //===--- The generated signature. --------------------------------------===//
  bool gradientsOnly = optimizerKind == Optimizer::None;
  bool clip = maxGradNorm > 0;
  bool sgdMomentum = optimizerKind == Optimizer::SGD && momentum != 0;
  bool needsStep =
      optimizerKind == Optimizer::AdamW || (sgdMomentum && dampening != 0);
  Type f32Scalar = RankedTensorType::get({}, b.getF32Type());
  Type i64Scalar = RankedTensorType::get({}, b.getI64Type());

  SmallVector<std::string> paramNames;
  for (auto [k, arg] : llvm::enumerate(params)) {
    StringRef name = getAMPName(forward.getArgAttrDict(arg));
    paramNames.push_back(name.empty() ? "param" + std::to_string(k)
                                      : name.str());
  }
  auto forwardArg = [&](unsigned i) {
    return Slot{forward.getArgumentTypes()[i], forward.getArgAttrDict(i)};
  };

  // Arguments: parameters, buffers, optimizer state, inputs, labels,
  // hyper-parameters. Remember where each group starts.
  SmallVector<Slot> args;
  for (unsigned i : params)
    args.push_back(forwardArg(i));
  for (unsigned i : buffers)
    args.push_back(forwardArg(i));
  unsigned stateBegin = args.size();
  SmallVector<Slot> state;
  for (auto [k, arg] : llvm::enumerate(params)) {
    Type type = forward.getArgumentTypes()[arg];
    auto add = [&](StringRef suffix) {
      state.push_back(
          {type, makeContractAttrs(context, Role::OptimizerState,
                                   paramNames[k] + "." + suffix.str())});
    };
    if (sgdMomentum)
      add("momentum_buffer");
    if (optimizerKind == Optimizer::AdamW) {
      add("exp_avg");
      add("exp_avg_sq");
    }
  }
  if (needsStep)
    state.push_back(
        {i64Scalar, makeContractAttrs(context, Role::OptimizerState, "step")});
  llvm::append_range(args, state);
  for (unsigned i : inputs)
    args.push_back(forwardArg(i));
  for (unsigned i : labels)
    args.push_back(forwardArg(i));
  unsigned newLabel = args.size();
  if (logitsResult)
    args.push_back(
        {labelType,
         makeContractAttrs(context, Role::Label,
                           lossKind == LossKind::CrossEntropy ? "labels"
                                                              : "target")});
  unsigned lrArg = args.size();
  if (!gradientsOnly)
    args.push_back(
        {f32Scalar, makeContractAttrs(context, Role::Hyperparameter, "lr")});
  for (unsigned i : hypers)
    args.push_back(forwardArg(i));

  // Where each forward argument lands.
  DenseMap<unsigned, unsigned> argPosition;
  {
    unsigned position = 0;
    for (unsigned i : params)
      argPosition[i] = position++;
    for (unsigned i : buffers)
      argPosition[i] = position++;
    position += state.size();
    for (unsigned i : inputs)
      argPosition[i] = position++;
    for (unsigned i : labels)
      argPosition[i] = position++;
    if (logitsResult)
      ++position;
    if (!gradientsOnly)
      ++position;
    for (unsigned i : hypers)
      argPosition[i] = position++;
  }

  StringRef lossName = "loss";
  if (lossResult) {
    StringRef name = getAMPName(forward.getResultAttrDict(*lossResult));
    if (!name.empty())
      lossName = name;
  }
  // Results: parameters, buffers, optimizer state, loss, outputs (or, for
  // gradients only: buffers, loss, gradients, outputs).
  SmallVector<Slot> results;
  if (!gradientsOnly)
    for (unsigned i : params)
      results.push_back(
          {forward.getArgumentTypes()[i],
           makeContractAttrs(context, Role::Parameter,
                             getAMPName(forward.getArgAttrDict(i)))});
  for (unsigned i : buffers)
    results.push_back(
        {forward.getArgumentTypes()[i],
         makeContractAttrs(context, Role::Buffer,
                           getAMPName(forward.getArgAttrDict(i)))});
  if (!gradientsOnly)
    llvm::append_range(results, state);
  results.push_back(
      {f32Scalar, makeContractAttrs(context, Role::Loss, lossName)});
  if (gradientsOnly)
    for (auto [k, i] : llvm::enumerate(params))
      results.push_back(
          {forward.getArgumentTypes()[i],
           makeContractAttrs(context, Role::Output, paramNames[k] + ".grad")});
  if (clip)
    results.push_back(
        {f32Scalar, makeContractAttrs(context, Role::Output, "grad_norm")});
  for (unsigned i : outputs) {
    DictionaryAttr attrs = forward.getResultAttrDict(i);
    results.push_back({forward.getResultTypes()[i], attrs});
  }

  SmallVector<Type> argTypes, resultTypes;
  for (const Slot &slot : args)
    argTypes.push_back(slot.type);
  for (const Slot &slot : results)
    resultTypes.push_back(slot.type);
  FunctionType type = b.getFunctionType(argTypes, resultTypes);

  //===--- Create the function (or define its declaration). --------------===//
  std::string name =
      (forwardName + (gradientsOnly ? "_grad" : "_train_step")).str();
  Operation *existing = symbols.lookup(name);
  if (existing) {
    auto declaration = dyn_cast<func::FuncOp>(existing);
    if (!declaration || !declaration.isExternal())
      return emitError(loc)
             << "cannot generate @" << name << " for forward model @"
             << forwardName << ": the symbol already exists";
    if (declaration.getFunctionType() != type)
      return emitError(declaration.getLoc())
             << "declaration of @" << name << " has type "
             << declaration.getFunctionType()
             << " but the step generated from @" << forwardName << " has type "
             << type;
    b.setInsertionPoint(declaration);
  } else {
    b.setInsertionPointAfter(forward);
  }
  auto step = func::FuncOp::create(b, loc, name, type);
  if (existing) {
    step.setVisibility(cast<func::FuncOp>(existing).getVisibility());
    symbols.erase(existing);
    symbols.insert(step);
  } else {
    symbols.insert(step, Block::iterator(step));
    if (step.getSymName() != name) // insert never renames a free name
      return step.emitError() << "internal error: symbol renamed";
    step.setVisibility(forward.getVisibility());
  }
  for (auto [i, slot] : llvm::enumerate(args))
    if (slot.attrs)
      step.setArgAttrs(i, slot.attrs);
  for (auto [i, slot] : llvm::enumerate(results))
    if (slot.attrs)
      step.setResultAttrs(i, slot.attrs);
  if (!gradientsOnly)
    step->setAttr(AMPDialect::kGraphAttrName,
                  GraphKindAttr::get(context, GraphKind::TrainingStep));
  // Keep the forward's other function attributes (not its signature,
  // name or graph kind).
  for (NamedAttribute attr : forward->getDiscardableAttrs())
    if (attr.getName() != AMPDialect::kGraphAttrName)
      step->setAttr(attr.getName(), attr.getValue());

  Block *body = step.addEntryBlock();
  auto fail = [&]() {
    symbols.erase(step);
    return failure();
  };

  //===--- Clone the forward computation. --------------------------------===//
  IRMapping mapping;
  for (auto [i, position] : argPosition)
    mapping.map(forward.getArgument(i), body->getArgument(position));
  b.setInsertionPointToEnd(body);
  auto forwardReturn =
      cast<func::ReturnOp>(forward.getBody().front().getTerminator());
  for (Operation &op : forward.getBody().front().without_terminator())
    b.clone(op, mapping);
  auto mapped = [&](unsigned result) {
    return mapping.lookupOrDefault(forwardReturn.getOperand(result));
  };
  Location returnLoc = forwardReturn.getLoc();

  Value lossValue;
  if (logitsResult) {
    Value logits = mapped(*logitsResult);
    Value label = body->getArgument(newLabel);
    if (lossKind == LossKind::CrossEntropy)
      lossValue =
          CrossEntropyOp::create(b, returnLoc, f32Scalar, logits, label);
    else
      lossValue = MseLossOp::create(b, returnLoc, f32Scalar, logits, label);
  } else {
    lossValue = mapped(*lossResult);
  }

  //===--- Backward. ------------------------------------------------------===//
  SmallVector<BlockArgument> paramArgs;
  for (unsigned k = 0; k < params.size(); ++k)
    paramArgs.push_back(body->getArgument(k));
  Activity activity = analyze(*body, paramArgs, lossValue);

  auto seed = SeedOp::create(b, returnLoc, f32Scalar, lossValue);
  DenseMap<Value, Value> grads;
  grads[lossValue] = seed;

  auto accumulate = [&](Operation *op, Value value,
                        Value gradient) -> LogicalResult {
    if (gradient.getType() != value.getType()) {
      auto from = dyn_cast<RankedTensorType>(gradient.getType());
      auto to = dyn_cast<RankedTensorType>(value.getType());
      if (!from || !to || from.getShape() != to.getShape())
        return op->emitOpError()
               << "gradient rule produced " << gradient.getType()
               << " for an operand of type " << value.getType();
      gradient = CastOp::create(b, op->getLoc(), to, gradient);
    }
    Value &slot = grads[value];
    slot = slot ? AddOp::create(b, op->getLoc(), slot, gradient).getResult()
                : gradient;
    return success();
  };

  SmallVector<Operation *> forwardOps;
  for (Operation &op : *body)
    if (&op != seed.getOperation())
      forwardOps.push_back(&op);
  for (Operation *op : llvm::reverse(forwardOps)) {
    SmallVector<Value> resultGrads;
    bool any = false;
    for (Value result : op->getResults()) {
      resultGrads.push_back(grads.lookup(result));
      any |= static_cast<bool>(resultGrads.back());
    }
    if (!any)
      continue;
    SmallVector<unsigned> needed;
    for (OpOperand &operand : op->getOpOperands())
      if (activity.isActive(operand.get()) &&
          isDifferentiableOperand(op, operand.getOperandNumber()))
        needed.push_back(operand.getOperandNumber());
    auto gradient = dyn_cast<GradientOpInterface>(op);
    if (!gradient || op->getNumRegions() != 0) {
      unsigned origin = 0;
      for (Value input : differentiableInputs(op))
        if (activity.varied.count(input)) {
          origin = activity.varied.lookup(input);
          break;
        }
      emitError(op->getLoc())
          << "'" << op->getName()
          << "' has no gradient rule, but it is on a path from "
             "parameter '"
          << paramNames[origin] << "' to the loss of @" << forwardName;
      return fail();
    }
    if (needed.empty())
      continue;
    SmallVector<Value> operandGrads;
    b.setInsertionPointToEnd(body);
    if (failed(gradient.buildGradients(b, resultGrads, operandGrads)))
      return fail();
    if (operandGrads.size() != op->getNumOperands()) {
      op->emitOpError() << "gradient rule returned " << operandGrads.size()
                        << " gradients for " << op->getNumOperands()
                        << " operands";
      return fail();
    }
    for (unsigned i : needed)
      if (operandGrads[i] &&
          failed(accumulate(op, op->getOperand(i), operandGrads[i])))
        return fail();
  }

  //===--- Parameter gradients, clipping. --------------------------------===//
  b.setInsertionPointToEnd(body);
  SmallVector<Value> paramGrads;
  for (auto [k, param] : llvm::enumerate(paramArgs)) {
    Value gradient = grads.lookup(param);
    if (!gradient) {
      emitWarning(forward.getArgument(params[k]).getLoc())
          << "parameter '" << paramNames[k] << "' (argument #" << params[k]
          << " of @" << forwardName
          << ") does not reach the loss; its gradient is zero";
      auto tensor = cast<RankedTensorType>(param.getType());
      gradient = ConstantOp::create(
          b, loc, tensor,
          DenseElementsAttr::get(tensor,
                                 b.getFloatAttr(tensor.getElementType(), 0.0)));
    }
    paramGrads.push_back(gradient);
  }
  Value gradNorm;
  if (clip && !paramGrads.empty()) {
    auto clipOp = ClipGradNormOp::create(b, loc, paramGrads,
                                         static_cast<double>(maxGradNorm));
    paramGrads.assign(clipOp.getClipped().begin(), clipOp.getClipped().end());
    gradNorm = clipOp.getTotalNorm();
  } else if (clip) {
    gradNorm =
        ConstantOp::create(b, loc, f32Scalar,
                           DenseElementsAttr::get(cast<ShapedType>(f32Scalar),
                                                  b.getF32FloatAttr(0.0f)));
  }

  //===--- Optimizer. -----------------------------------------------------===//
  SmallVector<Value> newParams, newState;
  if (!gradientsOnly) {
    Value lr = body->getArgument(lrArg);
    Value stepIn, stepNext;
    if (needsStep) {
      stepIn = body->getArgument(stateBegin + state.size() - 1);
      // step + 1 (0-d i64): amp has no integer arithmetic.
      Value count = tensor::ExtractOp::create(b, loc, stepIn, ValueRange{});
      Value one = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(1));
      Value next = arith::AddIOp::create(b, loc, count, one);
      stepNext =
          tensor::FromElementsOp::create(b, loc, i64Scalar, ValueRange{next});
    }
    unsigned stateArg = stateBegin;
    for (auto [k, param] : llvm::enumerate(paramArgs)) {
      Value gradient = paramGrads[k];
      auto tensor = cast<RankedTensorType>(param.getType());
      auto splat = [&](double value) -> Value {
        return ConstantOp::create(
            b, loc, tensor,
            DenseElementsAttr::get(
                tensor, b.getFloatAttr(tensor.getElementType(), value)));
      };
      if (optimizerKind == Optimizer::SGD) {
        Value buffer;
        if (sgdMomentum) {
          buffer = body->getArgument(stateArg++);
          if (dampening != 0) {
            // PyTorch's first update sets buf = d_p (the gradient with L2
            // decay) without dampening. sgd_update computes
            // momentum * buf + (1 - dampening) * d_p, which is d_p for
            // buf = dampening / momentum * d_p: use that on step 0.
            Value decayed = gradient;
            if (sgdWeightDecay != 0)
              decayed = AddOp::create(
                  b, loc, gradient,
                  MulOp::create(b, loc, splat(sgdWeightDecay), param));
            Value initial =
                MulOp::create(b, loc, decayed, splat(dampening / momentum));
            Value zero = ConstantOp::create(
                b, loc, i64Scalar,
                DenseElementsAttr::get(cast<ShapedType>(i64Scalar),
                                       b.getI64IntegerAttr(0)));
            Value first = CompareOp::create(
                b, loc, RankedTensorType::get({}, b.getI1Type()),
                CompareDirection::EQ, stepIn, zero);
            if (tensor.getRank() != 0)
              first = BroadcastOp::create(b, loc, tensor.clone(b.getI1Type()),
                                          first);
            buffer = WhereOp::create(b, loc, tensor, first, initial, buffer);
          }
        }
        auto update = SgdUpdateOp::create(
            b, loc, tensor, buffer ? Type(tensor) : Type(), param, gradient,
            buffer, lr, /*found_inf=*/Value(), APFloat(double(momentum)),
            APFloat(double(dampening)), bool(nesterov),
            APFloat(sgdWeightDecay));
        newParams.push_back(update.getNewParam());
        if (buffer)
          newState.push_back(update.getNewMomentumBuffer());
      } else {
        Value expAvg = body->getArgument(stateArg++);
        Value expAvgSq = body->getArgument(stateArg++);
        auto update = AdamWUpdateOp::create(
            b, loc, tensor, tensor, tensor, param, gradient, expAvg, expAvgSq,
            stepNext, lr, /*found_inf=*/Value(), APFloat(double(beta1)),
            APFloat(double(beta2)), APFloat(double(epsilon)),
            APFloat(adamWeightDecay));
        newParams.push_back(update.getNewParam());
        newState.push_back(update.getNewExpAvg());
        newState.push_back(update.getNewExpAvgSq());
      }
    }
    if (needsStep)
      newState.push_back(stepNext);
  }

  //===--- Return. --------------------------------------------------------===//
  SmallVector<Value> returned;
  llvm::append_range(returned, newParams);
  for (auto [k, arg] : llvm::enumerate(buffers))
    returned.push_back(bufferSource[k] ? mapped(*bufferSource[k])
                                       : body->getArgument(params.size() + k));
  llvm::append_range(returned, newState);
  returned.push_back(lossValue);
  if (gradientsOnly)
    llvm::append_range(returned, paramGrads);
  if (clip)
    returned.push_back(gradNorm);
  for (unsigned i : outputs)
    returned.push_back(mapped(i));
  func::ReturnOp::create(b, returnLoc, returned);

  // Erase backward ops nothing uses (e.g. the input gradient of the first
  // layer). The forward computation and the seed stay as they are.
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*body))) {
    if (&op == seed.getOperation())
      break;
    if (isOpTriviallyDead(&op))
      op.erase();
  }
  // Rules are local, so several build the same value (the flattened
  // activation that both a weight gradient and a bias gradient read, equal
  // splat constants): merge them.
  IRRewriter rewriter(context);
  DominanceInfo dominance(step);
  eliminateCommonSubExpressions(rewriter, dominance, step);
  return success();
}

} // namespace
