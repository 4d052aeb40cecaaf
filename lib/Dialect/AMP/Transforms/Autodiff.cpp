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
// StepGenerator does it in steps: read the forward model's role groups,
// build the signature, clone the forward, the reverse sweep, the parameter
// gradients; the optimizer update is OptimizerStep.cpp's, shared with
// --amp-optimizer-step.
//
//===----------------------------------------------------------------------===//

#include "Optimizer.h"

#include "amp/Dialect/AMP/IR/AMPDialect.h"
#include "amp/Dialect/AMP/IR/AMPOps.h"
#include "amp/Dialect/AMP/IR/TrainingStep.h"
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
// Generating a step
//===----------------------------------------------------------------------===//

/// What to generate (the checked pass options).
struct AutodiffConfig {
  OptimizerConfig optimizer;
  LossKind loss = LossKind::None;
  double maxGradNorm = 0;

  bool gradientsOnly() const { return optimizer.kind == OptimizerKind::None; }
  bool clips() const { return maxGradNorm > 0; }
};

/// The arguments and results of a forward model by role (positions in the
/// forward model), and how the step treats them.
struct ForwardGroups {
  SmallVector<unsigned> params, buffers, inputs, labels, hypers;
  std::optional<unsigned> lossResult;
  SmallVector<unsigned> bufferResults, outputs;
  /// With loss=cross_entropy or mse: the result the loss applies to, and
  /// the type of the label argument it needs.
  std::optional<unsigned> logitsResult;
  Type labelType;
  /// bufferSource[k]: the forward result returning buffer argument k.
  SmallVector<std::optional<unsigned>> bufferSource;
};

/// Two slice gradients of one tensor over adjacent ranges of one axis (the
/// q, k and v slices of a fused projection, in any order) as one slice
/// gradient of their concatenation, or the concatenation itself when it
/// covers the tensor: one kernel writing the gradient once instead of a
/// zero-filled tensor per slice and their sums (the same values: adding
/// zeros is exact). Null when they are not such a pair.
Value mergeSliceGradients(OpBuilder &b, Location loc, Value first,
                          Value second) {
  auto lo = first.getDefiningOp<SliceGradOp>();
  auto hi = second.getDefiningOp<SliceGradOp>();
  if (!lo || !hi || first.getType() != second.getType())
    return Value();
  auto unitStrides = [](SliceGradOp op) {
    return llvm::all_of(op.getStrides(), [](int64_t s) { return s == 1; });
  };
  if (!unitStrides(lo) || !unitStrides(hi))
    return Value();
  // lo is the one that starts first where they differ.
  for (int64_t d = 0, e = lo.getStarts().size(); d < e; ++d)
    if (lo.getStarts()[d] != hi.getStarts()[d]) {
      if (hi.getStarts()[d] < lo.getStarts()[d])
        std::swap(lo, hi);
      break;
    }
  // One axis where lo ends as hi starts; equal ranges on the others.
  std::optional<int64_t> axis;
  for (int64_t d = 0, e = lo.getStarts().size(); d < e; ++d) {
    bool same = lo.getStarts()[d] == hi.getStarts()[d] &&
                lo.getLimits()[d] == hi.getLimits()[d];
    if (same)
      continue;
    if (axis || lo.getLimits()[d] != hi.getStarts()[d])
      return Value();
    axis = d;
  }
  if (!axis)
    return Value();
  auto grad = [](SliceGradOp op) {
    return cast<RankedTensorType>(op.getGrad().getType());
  };
  SmallVector<int64_t> shape(grad(lo).getShape());
  shape[*axis] += grad(hi).getDimSize(*axis);
  // A concatenation merged before along the same axis is spliced in: one
  // concatenation of all the pieces.
  SmallVector<Value> pieces;
  for (Value part : {lo.getGrad(), hi.getGrad()}) {
    auto inner = part.getDefiningOp<ConcatOp>();
    if (inner && inner.getAxis() == *axis && part.hasOneUse())
      llvm::append_range(pieces, inner.getInputs());
    else
      pieces.push_back(part);
  }
  Value joined = ConcatOp::create(b, loc, grad(lo).clone(shape), pieces, *axis);
  SmallVector<int64_t> limits(lo.getLimits());
  limits[*axis] = hi.getLimits()[*axis];
  auto result = cast<RankedTensorType>(first.getType());
  if (llvm::all_of(lo.getStarts(), [](int64_t s) { return s == 0; }) &&
      ArrayRef<int64_t>(limits) == result.getShape())
    return joined;
  return SliceGradOp::create(b, loc, result, joined, lo.getStartsAttr(),
                             b.getDenseI64ArrayAttr(limits),
                             lo.getStridesAttr());
}

/// The signature of the generated function, and where its groups are.
struct StepSignature {
  SmallVector<Slot> args, results;
  SmallVector<std::string> paramNames;
  /// Where each forward argument lands.
  DenseMap<unsigned, unsigned> argPosition;
  unsigned stateBegin = 0, numState = 0, newLabel = 0, lrArg = 0;
};

/// Generates the training step (or gradient function) of one forward
/// model: signature, forward clone, reverse sweep, optimizer, return.
class StepGenerator {
public:
  StepGenerator(func::FuncOp forward, const AutodiffConfig &config,
                SymbolTable &symbols)
      : forward(forward), forwardName(forward.getSymName()), config(config),
        symbols(symbols), context(forward.getContext()), loc(forward.getLoc()),
        b(context), f32Scalar(RankedTensorType::get({}, b.getF32Type())) {}

  LogicalResult generate();

private:
  // Reading the forward model.
  LogicalResult classifyArguments();
  LogicalResult classifyResults();
  LogicalResult findLoss();
  LogicalResult findLogits();
  LogicalResult matchBuffers();
  // Building the step.
  void buildArguments();
  void buildResults();
  LogicalResult createStep();
  void cloneForward();
  LogicalResult reverseSweep();
  LogicalResult propagate(Operation *op);
  LogicalResult accumulate(Operation *op, Value value, Value gradient);
  /// Erases the op of a gradient merged away, unless something still uses
  /// it or it is another value's gradient too.
  void eraseIfUnheld(Value gradient);
  void finishParameterGradients();
  void emitReturn();

  func::FuncOp forward;
  StringRef forwardName;
  const AutodiffConfig &config;
  SymbolTable &symbols;
  MLIRContext *context;
  Location loc;
  OpBuilder b;
  Type f32Scalar;

  ForwardGroups groups;
  StepSignature signature;

  func::FuncOp step;
  Block *body = nullptr;
  IRMapping mapping;
  func::ReturnOp forwardReturn;
  Value lossValue;
  SeedOp seed;
  SmallVector<BlockArgument> paramArgs;
  Activity activity;
  DenseMap<Value, Value> grads;
  SmallVector<Value> paramGrads;
  Value gradNorm;
  OptimizerUpdates updates;

  /// The forward result `result` as the step computes it.
  Value mapped(unsigned result) {
    return mapping.lookupOrDefault(forwardReturn.getOperand(result));
  }
};

LogicalResult StepGenerator::generate() {
  if (failed(classifyArguments()) || failed(classifyResults()) ||
      failed(findLoss()) || failed(matchBuffers()))
    return failure();
  buildArguments();
  buildResults();
  if (failed(createStep()))
    return failure();
  cloneForward();
  if (failed(reverseSweep())) {
    symbols.erase(step);
    return failure();
  }
  finishParameterGradients();
  if (!config.gradientsOnly()) {
    ArrayRef<BlockArgument> state =
        body->getArguments().slice(signature.stateBegin, signature.numState);
    updates = emitOptimizerUpdates(
        b, loc, config.optimizer, ArrayRef<BlockArgument>(paramArgs),
        paramGrads, state, body->getArgument(signature.lrArg));
  }
  emitReturn();
  // Erase backward ops nothing uses (e.g. the input gradient of the first
  // layer). The forward computation and the seed stay as they are.
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*body))) {
    if (&op == seed.getOperation())
      break;
    if (isOpTriviallyDead(&op))
      op.erase();
  }
  simplifyStep(step);
  return success();
}

//===--- Reading the forward model ------------------------------------===//

/// Parameters, buffers, inputs (unmarked too), labels, hyper-parameters.
LogicalResult StepGenerator::classifyArguments() {
  for (unsigned i = 0, e = forward.getNumArguments(); i < e; ++i) {
    std::optional<Role> role = getRole(forward.getArgAttrDict(i));
    switch (role.value_or(Role::Input)) {
    case Role::Parameter:
      groups.params.push_back(i);
      break;
    case Role::Buffer:
      groups.buffers.push_back(i);
      break;
    case Role::Input:
      groups.inputs.push_back(i);
      break;
    case Role::Label:
      groups.labels.push_back(i);
      break;
    case Role::Hyperparameter:
      groups.hypers.push_back(i);
      break;
    default:
      return emitError(forward.getArgument(i).getLoc())
             << "forward model @" << forwardName << " argument #" << i
             << " has amp.role '" << stringifyRole(*role)
             << "'; a forward model takes parameters, buffers, inputs, "
                "labels and hyper-parameters";
    }
  }
  return success();
}

/// The loss, updated buffers, outputs (unmarked too).
LogicalResult StepGenerator::classifyResults() {
  for (unsigned i = 0, e = forward.getNumResults(); i < e; ++i) {
    std::optional<Role> role = getRole(forward.getResultAttrDict(i));
    switch (role.value_or(Role::Output)) {
    case Role::Loss:
      groups.lossResult = i;
      break;
    case Role::Buffer:
      groups.bufferResults.push_back(i);
      break;
    case Role::Output:
      groups.outputs.push_back(i);
      break;
    default:
      return emitError(loc)
             << "forward model @" << forwardName << " result #" << i
             << " has amp.role '" << stringifyRole(*role)
             << "'; a forward model returns its loss, updated buffers and "
                "outputs";
    }
  }
  return success();
}

/// The loss result, or (loss=cross_entropy, mse) the logits to append one
/// to.
LogicalResult StepGenerator::findLoss() {
  std::optional<unsigned> &lossResult = groups.lossResult;
  if (config.loss != LossKind::None) {
    if (failed(findLogits()))
      return failure();
  } else if (!lossResult) {
    // DESIGN.md section 3: a forward model's single f32 scalar result is
    // its loss. Accept it unmarked; anything else is an error.
    SmallVector<unsigned> unmarked;
    for (unsigned i : groups.outputs)
      if (!getRole(forward.getResultAttrDict(i)))
        unmarked.push_back(i);
    if (groups.outputs.size() != 1 || unmarked.size() != 1)
      return emitError(loc)
             << "forward model @" << forwardName
             << " has no loss: mark its scalar loss result with amp.role = "
                "#amp.role<loss>, or append a loss to its logits with "
                "loss=cross_entropy or loss=mse";
    Type type = forward.getResultTypes()[unmarked.front()];
    if (!isF32Scalar(type))
      return emitError(loc)
             << "the loss of forward model @" << forwardName
             << " must be a scalar (a 0-d f32 tensor), but its result is "
             << type
             << "; return a scalar loss, or append one with "
                "loss=cross_entropy or loss=mse";
    lossResult = unmarked.front();
    groups.outputs.clear();
  }
  if (lossResult && !isF32Scalar(forward.getResultTypes()[*lossResult]))
    return emitError(loc)
           << "the loss of forward model @" << forwardName
           << " must be a scalar (a 0-d f32 tensor), but result #"
           << *lossResult << " is " << forward.getResultTypes()[*lossResult];
  return success();
}

/// The only non-buffer result, to which the loss is appended, and the type
/// of the labels the loss needs.
LogicalResult StepGenerator::findLogits() {
  StringRef option =
      config.loss == LossKind::CrossEntropy ? "cross_entropy" : "mse";
  if (groups.lossResult)
    return emitError(loc)
           << "forward model @" << forwardName
           << " already returns a loss (result #" << *groups.lossResult
           << "); loss=" << option
           << " appends a loss to a forward model that returns logits";
  if (groups.outputs.size() != 1)
    return emitError(loc)
           << "loss=" << option
           << " needs exactly one result to apply the loss to (the "
              "logits), but forward model @"
           << forwardName << " returns " << groups.outputs.size()
           << " results that are not buffers";
  unsigned logitsResult = groups.outputs.front();
  groups.logitsResult = logitsResult;
  groups.outputs.clear();
  Type logitsType = forward.getResultTypes()[logitsResult];
  auto logits = dyn_cast<RankedTensorType>(logitsType);
  if (config.loss == LossKind::CrossEntropy) {
    if (!logits || logits.getRank() != 2 || !isFloatTensor(logits))
      return emitError(loc)
             << "loss=cross_entropy needs [N, C] float logits, but result #"
             << logitsResult << " of @" << forwardName << " is " << logitsType;
    groups.labelType = RankedTensorType::get({logits.getDimSize(0)},
                                             IntegerType::get(context, 64));
    return success();
  }
  if (!isFloatTensor(logitsType))
    return emitError(loc)
           << "loss=mse needs a float tensor prediction, but result #"
           << logitsResult << " of @" << forwardName << " is " << logitsType;
  groups.labelType = logitsType;
  return success();
}

/// Matches buffer results to buffer arguments, by amp.name, else (with as
/// many results as arguments) by order.
LogicalResult StepGenerator::matchBuffers() {
  ArrayRef<unsigned> buffers = groups.buffers;
  ArrayRef<unsigned> bufferResults = groups.bufferResults;
  auto &bufferSource = groups.bufferSource;
  bufferSource.assign(buffers.size(), std::nullopt);
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
  return success();
}

//===--- The signature --------------------------------------------------===//

/// Arguments: parameters, buffers, optimizer state, inputs, labels,
/// hyper-parameters (lr first). Remembers where each group starts.
void StepGenerator::buildArguments() {
  SmallVector<Slot> &args = signature.args;
  SmallVector<Type> paramTypes;
  for (auto [k, arg] : llvm::enumerate(groups.params)) {
    signature.paramNames.push_back(
        getParameterName(forward.getArgAttrDict(arg), k));
    paramTypes.push_back(forward.getArgumentTypes()[arg]);
  }
  auto addForwardArgs = [&](ArrayRef<unsigned> indices) {
    for (unsigned i : indices) {
      signature.argPosition[i] = args.size();
      args.push_back(
          {forward.getArgumentTypes()[i], forward.getArgAttrDict(i)});
    }
  };
  addForwardArgs(groups.params);
  addForwardArgs(groups.buffers);
  signature.stateBegin = args.size();
  if (!config.gradientsOnly()) {
    SmallVector<Slot> state = getOptimizerState(
        context, config.optimizer, signature.paramNames, paramTypes);
    signature.numState = state.size();
    llvm::append_range(args, state);
  }
  addForwardArgs(groups.inputs);
  addForwardArgs(groups.labels);
  signature.newLabel = args.size();
  if (groups.logitsResult)
    args.push_back(
        {groups.labelType,
         makeContractAttrs(context, Role::Label,
                           config.loss == LossKind::CrossEntropy ? "labels"
                                                                 : "target")});
  signature.lrArg = args.size();
  if (!config.gradientsOnly())
    args.push_back({f32Scalar, makeContractAttrs(context, Role::Hyperparameter,
                                                 kLearningRateName)});
  addForwardArgs(groups.hypers);
}

/// Results: parameters, buffers, optimizer state, loss, outputs (or, for
/// gradients only: buffers, loss, gradients, outputs).
void StepGenerator::buildResults() {
  SmallVector<Slot> &results = signature.results;
  bool gradientsOnly = config.gradientsOnly();
  auto stateResult = [&](unsigned i, Role role) {
    return Slot{forward.getArgumentTypes()[i],
                makeContractAttrs(context, role,
                                  getAMPName(forward.getArgAttrDict(i)))};
  };
  if (!gradientsOnly)
    for (unsigned i : groups.params)
      results.push_back(stateResult(i, Role::Parameter));
  for (unsigned i : groups.buffers)
    results.push_back(stateResult(i, Role::Buffer));
  if (!gradientsOnly)
    llvm::append_range(results,
                       ArrayRef<Slot>(signature.args)
                           .slice(signature.stateBegin, signature.numState));
  StringRef lossName = "loss";
  if (groups.lossResult) {
    StringRef name = getAMPName(forward.getResultAttrDict(*groups.lossResult));
    if (!name.empty())
      lossName = name;
  }
  results.push_back(
      {f32Scalar, makeContractAttrs(context, Role::Loss, lossName)});
  if (gradientsOnly)
    for (auto [k, i] : llvm::enumerate(groups.params))
      results.push_back({forward.getArgumentTypes()[i],
                         makeContractAttrs(context, Role::Output,
                                           signature.paramNames[k] + ".grad")});
  if (config.clips())
    results.push_back(
        {f32Scalar, makeContractAttrs(context, Role::Output, "grad_norm")});
  for (unsigned i : groups.outputs)
    results.push_back(
        {forward.getResultTypes()[i], forward.getResultAttrDict(i)});
}

/// Creates the function (or defines its declaration) with the signature.
LogicalResult StepGenerator::createStep() {
  SmallVector<Type> argTypes, resultTypes;
  for (const Slot &slot : signature.args)
    argTypes.push_back(slot.type);
  for (const Slot &slot : signature.results)
    resultTypes.push_back(slot.type);
  FunctionType type = b.getFunctionType(argTypes, resultTypes);

  std::string name =
      (forwardName + (config.gradientsOnly() ? "_grad" : "_train_step")).str();
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
  step = func::FuncOp::create(b, loc, name, type);
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
  for (auto [i, slot] : llvm::enumerate(signature.args))
    if (slot.attrs)
      step.setArgAttrs(i, slot.attrs);
  for (auto [i, slot] : llvm::enumerate(signature.results))
    if (slot.attrs)
      step.setResultAttrs(i, slot.attrs);
  if (!config.gradientsOnly())
    setGraphKind(step, GraphKind::TrainingStep);
  // Keep the forward's other function attributes (not its signature,
  // name or graph kind).
  for (NamedAttribute attr : forward->getDiscardableAttrs())
    if (attr.getName() != AMPDialect::kGraphAttrName)
      step->setAttr(attr.getName(), attr.getValue());
  body = step.addEntryBlock();
  return success();
}

//===--- The body -------------------------------------------------------===//

/// Clones the forward computation (activations are reused, never
/// recomputed) and appends the loss when asked to.
void StepGenerator::cloneForward() {
  for (auto [i, position] : signature.argPosition)
    mapping.map(forward.getArgument(i), body->getArgument(position));
  b.setInsertionPointToEnd(body);
  forwardReturn =
      cast<func::ReturnOp>(forward.getBody().front().getTerminator());
  for (Operation &op : forward.getBody().front().without_terminator())
    b.clone(op, mapping);
  if (!groups.logitsResult) {
    lossValue = mapped(*groups.lossResult);
    return;
  }
  Value logits = mapped(*groups.logitsResult);
  Value label = body->getArgument(signature.newLabel);
  Location returnLoc = forwardReturn.getLoc();
  if (config.loss == LossKind::CrossEntropy)
    lossValue = CrossEntropyOp::create(b, returnLoc, f32Scalar, logits, label);
  else
    lossValue = MseLossOp::create(b, returnLoc, f32Scalar, logits, label);
}

/// Seeds the loss and walks the forward ops in reverse through their
/// GradientOpInterface, summing gradients with amp.add where a value fans
/// out.
LogicalResult StepGenerator::reverseSweep() {
  for (unsigned k = 0; k < groups.params.size(); ++k)
    paramArgs.push_back(body->getArgument(k));
  activity = analyze(*body, paramArgs, lossValue);
  seed = SeedOp::create(b, forwardReturn.getLoc(), f32Scalar, lossValue);
  grads[lossValue] = seed;
  SmallVector<Operation *> forwardOps;
  for (Operation &op : *body)
    if (&op != seed.getOperation())
      forwardOps.push_back(&op);
  for (Operation *op : llvm::reverse(forwardOps))
    if (failed(propagate(op)))
      return failure();
  return success();
}

/// Adds the gradients of the active operands of `op` from those of its
/// results, if any.
LogicalResult StepGenerator::propagate(Operation *op) {
  SmallVector<Value> resultGrads;
  bool any = false;
  for (Value result : op->getResults()) {
    resultGrads.push_back(grads.lookup(result));
    any |= static_cast<bool>(resultGrads.back());
  }
  if (!any)
    return success();
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
    return emitError(op->getLoc())
           << "'" << op->getName()
           << "' has no gradient rule, but it is on a path from "
              "parameter '"
           << signature.paramNames[origin] << "' to the loss of @"
           << forwardName;
  }
  // A float operand the rule gives no gradient must not depend on a
  // parameter: that parameter would silently stop training through it.
  for (OpOperand &operand : op->getOpOperands())
    if (isFloatTensor(operand.get().getType()) &&
        activity.varied.count(operand.get()) &&
        !isDifferentiableOperand(op, operand.getOperandNumber()))
      return emitError(op->getLoc())
             << "operand #" << operand.getOperandNumber() << " of '"
             << op->getName() << "' depends on parameter '"
             << signature.paramNames[activity.varied.lookup(operand.get())]
             << "', but '" << op->getName() << "' has no gradient for it";
  if (needed.empty())
    return success();
  SmallVector<Value> operandGrads;
  b.setInsertionPointToEnd(body);
  if (failed(gradient.buildGradients(b, resultGrads, operandGrads)))
    return failure();
  if (operandGrads.size() != op->getNumOperands())
    return op->emitOpError()
           << "gradient rule returned " << operandGrads.size()
           << " gradients for " << op->getNumOperands() << " operands";
  for (unsigned i : needed)
    if (operandGrads[i] &&
        failed(accumulate(op, op->getOperand(i), operandGrads[i])))
      return failure();
  return success();
}

/// Adds `gradient` (cast to the type of `value` if needed) to the
/// gradient of `value`.
LogicalResult StepGenerator::accumulate(Operation *op, Value value,
                                        Value gradient) {
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
  if (!slot) {
    slot = gradient;
    return success();
  }
  if (Value merged = mergeSliceGradients(b, op->getLoc(), slot, gradient)) {
    Value previous = slot;
    slot = merged;
    eraseIfUnheld(previous);
    eraseIfUnheld(gradient);
    return success();
  }
  slot = AddOp::create(b, op->getLoc(), slot, gradient);
  return success();
}

void StepGenerator::eraseIfUnheld(Value gradient) {
  Operation *def = gradient.getDefiningOp();
  if (!def || !gradient.use_empty() || llvm::any_of(grads, [&](auto &entry) {
        return entry.second == gradient;
      }))
    return;
  SmallVector<Value> operands(def->getOperands());
  def->erase();
  // A concatenation spliced into a larger one (mergeSliceGradients).
  for (Value operand : operands)
    if (operand.getDefiningOp<ConcatOp>())
      eraseIfUnheld(operand);
}

/// The gradient of each parameter (zero, with a warning, for one that does
/// not reach the loss), clipped together when asked to.
void StepGenerator::finishParameterGradients() {
  b.setInsertionPointToEnd(body);
  for (auto [k, param] : llvm::enumerate(paramArgs)) {
    Value gradient = grads.lookup(param);
    if (!gradient) {
      emitWarning(forward.getArgument(groups.params[k]).getLoc())
          << "parameter '" << signature.paramNames[k] << "' (argument #"
          << groups.params[k] << " of @" << forwardName
          << ") does not reach the loss; its gradient is zero";
      auto tensor = cast<RankedTensorType>(param.getType());
      gradient = ConstantOp::create(
          b, loc, tensor,
          DenseElementsAttr::get(tensor,
                                 b.getFloatAttr(tensor.getElementType(), 0.0)));
    }
    paramGrads.push_back(gradient);
  }
  if (!config.clips())
    return;
  if (paramGrads.empty()) {
    gradNorm =
        ConstantOp::create(b, loc, f32Scalar,
                           DenseElementsAttr::get(cast<ShapedType>(f32Scalar),
                                                  b.getF32FloatAttr(0.0f)));
    return;
  }
  auto clipOp = ClipGradNormOp::create(b, loc, paramGrads, config.maxGradNorm);
  paramGrads.assign(clipOp.getClipped().begin(), clipOp.getClipped().end());
  gradNorm = clipOp.getTotalNorm();
}

/// Returns the results in signature order.
void StepGenerator::emitReturn() {
  SmallVector<Value> returned;
  llvm::append_range(returned, updates.params);
  for (auto [k, arg] : llvm::enumerate(groups.buffers))
    returned.push_back(groups.bufferSource[k]
                           ? mapped(*groups.bufferSource[k])
                           : body->getArgument(groups.params.size() + k));
  llvm::append_range(returned, updates.state);
  returned.push_back(lossValue);
  if (config.gradientsOnly())
    llvm::append_range(returned, paramGrads);
  if (config.clips())
    returned.push_back(gradNorm);
  for (unsigned i : groups.outputs)
    returned.push_back(mapped(i));
  func::ReturnOp::create(b, forwardReturn.getLoc(), returned);
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct AMPAutodiffPass : mlir::amp::impl::AMPAutodiffPassBase<AMPAutodiffPass> {
  using AMPAutodiffPassBase::AMPAutodiffPassBase;

  void runOnOperation() override;

private:
  LogicalResult checkOptions();

  AutodiffConfig config;
};

LogicalResult AMPAutodiffPass::checkOptions() {
  auto fail = [&](const Twine &message) {
    return emitError(getOperation().getLoc()) << "amp-autodiff: " << message;
  };
  config.optimizer.kind = optimizer;
  config.loss = loss;
  if (failed(checkOptimizerNumbers(config.optimizer, momentum, dampening,
                                   nesterov, weightDecay, beta1, beta2, epsilon,
                                   fail)))
    return failure();
  if (!(maxGradNorm >= 0 && std::isfinite(maxGradNorm)))
    return fail("max-grad-norm must be non-negative and finite (0 disables "
                "clipping)");
  config.maxGradNorm = maxGradNorm;
  return success();
}

void AMPAutodiffPass::runOnOperation() {
  if (failed(checkOptions()))
    return signalPassFailure();
  ModuleOp module = getOperation();
  SymbolTable symbols(module);
  bool failedAny = false;
  for (func::FuncOp forward :
       getGraphDefinitions<func::FuncOp>(module, GraphKind::Forward))
    failedAny |= failed(StepGenerator(forward, config, symbols).generate());
  if (failedAny)
    signalPassFailure();
}

} // namespace
