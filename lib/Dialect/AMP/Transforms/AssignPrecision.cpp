//===- AssignPrecision.cpp - choose f16/bf16/f32 for every op -------------===//
//
// `amp-assign-precision` records on every op with the precision interface
// the type it computes in (amp.precision) and why (amp.precision_rule). It
// changes no type; `amp-insert-casts` does.
//
//  1. Fixed decisions: pins (amp.pin, policy pins), ops in regions with
//     autocast disabled, op kinds in no list, constants the low type cannot
//     represent (and their INFER/CLEAR users).
//  2. TensorFlow's painting over the remaining ops by effective category:
//     (1) ALLOW ops are allow; (2) deny paint spreads from DENY ops forward
//     through INFER/CLEAR ops that lead to DENY/INFER ops; (3) INFER/CLEAR
//     ops between ALLOW ops are allow; (4) bf16 only: INFER ops fed by allow
//     ops are allow; (5) allow spreads through CLEAR ops.
//  3. A minimum s-t cut chooses the precision of every INFER/CLEAR op that
//     painting did not deny: ALLOW ops are tied to the low side, DENY and
//     deny-painted ops to the f32 side, and every value pays the bytes of
//     one cast if its producer and a user disagree. Among the optimal cuts
//     it keeps the most of painting's choices (a tie-break weight), so the
//     min-cut changes painting only where that moves fewer bytes.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/AMP/Transforms/Passes.h"
#include "amp/Dialect/AMP/Transforms/Precision.h"
#include "amp/Dialect/AMP/Transforms/PrecisionPolicy.h"

#include "MinCut.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPASSIGNPRECISIONPASS
#include "amp/Dialect/AMP/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

//===----------------------------------------------------------------------===//
// Excluded regions
//===----------------------------------------------------------------------===//

/// Makes every call with autocast disabled (marked, or nested in a marked
/// region) call a function that is itself marked: the callee when all its
/// calls are disabled, otherwise a private copy `<callee>_autocast_disabled`.
/// PyTorch's autocast(enabled=False) is dynamically scoped; copying gives
/// the callee both behaviours.
void resolveDisabledCalls(ModuleOp module) {
  SymbolTableCollection symbolTables;
  SymbolTable &moduleTable = symbolTables.getSymbolTable(module);
  SmallVector<CallOpInterface> worklist;
  module.walk([&](CallOpInterface call) {
    if (isInAutocastDisabledRegion(call))
      worklist.push_back(call);
  });
  llvm::DenseSet<Operation *> handled;
  while (!worklist.empty()) {
    CallOpInterface call = worklist.pop_back_val();
    if (!handled.insert(call).second)
      continue;
    auto callee = dyn_cast_or_null<FunctionOpInterface>(
        call.resolveCallableInTable(&symbolTables));
    if (!callee || callee.isExternal() ||
        callee->hasAttr(kAutocastDisabledAttrName))
      continue;
    bool allDisabled = true;
    if (std::optional<SymbolTable::UseRange> uses =
            SymbolTable::getSymbolUses(callee, module)) {
      for (const SymbolTable::SymbolUse &use : *uses)
        if (!isInAutocastDisabledRegion(use.getUser()))
          allDisabled = false;
    } else {
      allDisabled = false;
    }
    FunctionOpInterface target = callee;
    if (!allDisabled) {
      target = cast<FunctionOpInterface>(callee->clone());
      SymbolTable::setSymbolVisibility(target,
                                       SymbolTable::Visibility::Private);
      SymbolTable::setSymbolName(target,
                                 callee.getName().str() + "_autocast_disabled");
      moduleTable.insert(target); // renames on a clash
      call.setCalleeFromCallable(
          FlatSymbolRefAttr::get(target->getContext(), target.getName()));
    }
    target->setAttr(kAutocastDisabledAttrName,
                    UnitAttr::get(target->getContext()));
    target.walk([&](CallOpInterface nested) { worklist.push_back(nested); });
  }
}

//===----------------------------------------------------------------------===//
// Nodes
//===----------------------------------------------------------------------===//

enum class Decision { Free, Low, F32 };

struct Node {
  Operation *op = nullptr;
  std::optional<PrecisionCategory> category;
  Decision decision = Decision::Free;
  std::string rule;
  /// Painting (participating nodes only).
  bool participates = false;
  bool allowPaint = false;
  bool denyPaint = false;
  StringRef paintRule;
  /// Graph node of a Free op in the min-cut.
  unsigned graphNode = 0;
};

/// Whether `loc` carries `name` (a NameLoc, possibly fused or in a call
/// site).
bool hasLocationName(Location loc, StringRef name) {
  bool found = false;
  loc->walk([&](Location nested) {
    if (auto named = dyn_cast<NameLoc>(nested))
      if (named.getName().getValue() == name)
        found = true;
    return found ? WalkResult::interrupt() : WalkResult::advance();
  });
  return found;
}

/// Whether the dense float constant `op` keeps every value when converted
/// to `low`: no finite value overflows, no non-zero value flushes to zero.
bool isRepresentable(ConstantOp op, FloatType low) {
  auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
  if (!dense || !isa<FloatType>(dense.getElementType()))
    return true;
  const llvm::fltSemantics &semantics = low.getFloatSemantics();
  auto check = [&](const APFloat &value) {
    if (!value.isFinite() || value.isZero())
      return true;
    APFloat converted = value;
    bool losesInfo = false;
    converted.convert(semantics, APFloat::rmNearestTiesToEven, &losesInfo);
    return converted.isFinite() && !converted.isZero();
  };
  if (dense.isSplat())
    return check(dense.getSplatValue<APFloat>());
  for (const APFloat &value : dense.getValues<APFloat>())
    if (!check(value))
      return false;
  return true;
}

std::string withSource(StringRef rule, StringRef source) {
  if (source.empty())
    return rule.str();
  return (rule + " (" + source + ")").str();
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct AMPAssignPrecisionPass
    : mlir::amp::impl::AMPAssignPrecisionPassBase<AMPAssignPrecisionPass> {
  using AMPAssignPrecisionPassBase::AMPAssignPrecisionPassBase;

  void runOnOperation() override;

private:
  LogicalResult configure();
  LogicalResult collectNodes();
  void paint();
  void solveMinCut();
  void record();

  // Painting helpers.
  template <typename Enter, typename Visit>
  void traverse(unsigned root, bool forward, bool backward, Enter enter,
                Visit visit);
  bool isCategory(unsigned node, PrecisionCategory category) const {
    return nodes[node].category == category;
  }

  // Min-cut helpers.
  enum class TermKind { None, Source, Sink, Graph };
  struct Term {
    TermKind kind = TermKind::None;
    unsigned node = 0;
  };
  Term fixedTerm(Type type) const;
  Term nodeTerm(unsigned index) const;
  Term producerTerm(Value value, MinCutGraph &graph);
  Term consumerTerm(OpOperand &use, Term producer);
  FloatType tentativePrecision(unsigned index) const;

  FloatType low;
  PrecisionLevel level = PrecisionLevel::Default;
  bool lowPrecisionNorms = false;
  std::optional<PrecisionPolicy> policy;
  std::optional<CategoryTable> table;

  std::vector<Node> nodes;
  llvm::DenseMap<Operation *, unsigned> nodeIndex;
  std::vector<SmallVector<unsigned, 4>> successors, predecessors;
  llvm::DenseMap<std::pair<Operation *, unsigned>, unsigned> resultNodes;
};

LogicalResult AMPAssignPrecisionPass::configure() {
  MLIRContext *context = &getContext();
  Location moduleLoc = getOperation().getLoc();
  if (!policyFile.empty()) {
    FailureOr<PrecisionPolicy> loaded =
        loadPrecisionPolicy(context, policyFile, moduleLoc);
    if (failed(loaded))
      return failure();
    policy = std::move(*loaded);
  }

  // A setting given both as an option and in the policy must agree.
  StringRef precisionName = precision.empty() ? StringRef("bf16") : precision;
  low = parsePrecisionName(context, precisionName, /*allowF32=*/false);
  if (!low)
    return emitError(moduleLoc) << "amp-assign-precision: unknown precision '"
                                << precision << "'; expected fp16 or bf16";
  if (policy && policy->precision) {
    if (!precision.empty() && policy->precision->value != low)
      return emitError(policy->precision->loc)
             << "precision policy: 'precision' is " << policy->precision->value
             << " but the pass option precision is " << low;
    low = policy->precision->value;
  }

  StringRef levelText = levelName.empty() ? StringRef("default") : levelName;
  std::optional<PrecisionLevel> parsedLevel = parsePrecisionLevel(levelText);
  if (!parsedLevel)
    return emitError(moduleLoc)
           << "amp-assign-precision: unknown level '" << levelName
           << "'; expected default, tensor-cores-only, unsafe-force-all or "
              "infer-as-deny";
  level = *parsedLevel;
  if (policy && policy->level) {
    if (!levelName.empty() && policy->level->value != level)
      return emitError(policy->level->loc)
             << "precision policy: 'level' is "
             << stringifyPrecisionLevel(policy->level->value)
             << " but the pass option level is "
             << stringifyPrecisionLevel(level);
    level = policy->level->value;
  }

  lowPrecisionNorms =
      lpNorm || (policy && policy->lpNorm && policy->lpNorm->value);
  if (lowPrecisionNorms)
    emitWarning(moduleLoc)
        << "lp-norm: layer_norm, group_norm and rms_norm (and their "
           "gradients) run in "
        << low
        << " (Composer's low-precision norms); this can cause loss spikes. "
           "Their statistics stay f32.";

  PolicyLists optionLists;
  ArrayRef<std::string> options[4][2] = {{allowAdd, allowRemove},
                                         {inferAdd, inferRemove},
                                         {denyAdd, denyRemove},
                                         {clearAdd, clearRemove}};
  const char *optionNames[4][2] = {{"allow-add", "allow-remove"},
                                   {"infer-add", "infer-remove"},
                                   {"deny-add", "deny-remove"},
                                   {"clear-add", "clear-remove"}};
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 2; ++j)
      for (const std::string &name : options[i][j])
        (j == 0 ? optionLists.add[i] : optionLists.remove[i])
            .push_back({name, moduleLoc,
                        (Twine("option ") + optionNames[i][j]).str(),
                        (Twine("option ") + optionNames[i][j]).str()});
  SmallVector<const PolicyLists *> sources;
  if (policy)
    sources.push_back(&policy->lists);
  sources.push_back(&optionLists);
  FailureOr<CategoryTable> built =
      CategoryTable::build(context, level, lowPrecisionNorms, sources);
  if (failed(built))
    return failure();
  table = std::move(*built);
  return success();
}

/// Decides what does not depend on the graph and builds the painting
/// graph of the participating ops.
LogicalResult AMPAssignPrecisionPass::collectNodes() {
  ModuleOp module = getOperation();
  module.walk([&](Operation *op) {
    if (isa<PrecisionOpInterface>(op)) {
      nodeIndex[op] = nodes.size();
      nodes.push_back({});
      nodes.back().op = op;
      return;
    }
    // Ops of other dialects keep their types: say so when they touch float
    // tensors (terminators, calls and functions are structure, not compute;
    // amp ops without a category have types fixed by their role).
    if (isa<FixedPrecisionOpInterface>(op) ||
        op->hasTrait<mlir::OpTrait::IsTerminator>() ||
        isa<CallOpInterface>(op) || op->getNumRegions() != 0)
      return;
    bool touchesFloat = llvm::any_of(op->getOperandTypes(), isFloatTensor) ||
                        llvm::any_of(op->getResultTypes(), isFloatTensor);
    if (touchesFloat)
      op->emitRemark() << "'" << op->getName()
                       << "' has no precision category; it keeps its types";
  });

  // Policy pins that match no op are probably misspelled.
  llvm::DenseSet<const PolicyPin *> usedPins;
  auto lowName = [&]() { return low.isF16() ? "fp16" : "bf16"; };
  for (Node &node : nodes) {
    Operation *op = node.op;
    node.category = table->lookup(op);
    // Pins.
    const PolicyPin *policyPin = nullptr;
    if (policy)
      for (const PolicyPin &pin : policy->pins)
        if (hasLocationName(op->getLoc(), pin.name)) {
          policyPin = &pin;
          usedPins.insert(&pin);
        }
    Type pinned;
    std::string pinRule;
    if (auto attr = op->getAttrOfType<TypeAttr>(kPinAttrName)) {
      pinned = attr.getValue();
      pinRule = rule::kPin;
      if (policyPin && policyPin->type != pinned) {
        InFlightDiagnostic diag =
            op->emitError() << "contradicting pins: amp.pin = " << pinned
                            << " but the precision policy pins '"
                            << policyPin->name << "' to " << policyPin->type;
        diag.attachNote(policyPin->loc) << "policy pin";
        return failure();
      }
    } else if (policyPin) {
      pinned = policyPin->type;
      pinRule = withSource(rule::kPin, policyPin->source);
    }
    if (pinned) {
      if (!pinned.isF32() && pinned != low) {
        op->emitError() << "contradicting pins: pinned to " << pinned
                        << " but the low precision is " << low
                        << " (precision=" << lowName() << ")";
        return failure();
      }
      node.decision = pinned.isF32() ? Decision::F32 : Decision::Low;
      node.rule = pinRule;
      continue;
    }
    if (isInAutocastDisabledRegion(op)) {
      node.decision = Decision::F32;
      node.rule = rule::kAutocastDisabled;
      continue;
    }
    if (!node.category) {
      node.decision = Decision::F32;
      node.rule = withSource(rule::kUnlisted, table->getSource(op));
      op->emitRemark() << "'" << op->getName() << "' is in no precision list ("
                       << table->getSource(op) << "); it stays f32";
      continue;
    }
    node.participates = true;
  }
  if (policy)
    for (const PolicyPin &pin : policy->pins)
      if (!usedPins.contains(&pin))
        emitWarning(pin.loc) << "precision policy: pin '" << pin.name
                             << "' matches no op location";

  // Constants the low type cannot represent stay f32, and so do their
  // INFER/CLEAR users: converting them would turn a -1e9 mask into -inf or
  // an epsilon into 0 (transformers#382).
  for (Node &node : nodes) {
    auto constant = dyn_cast<ConstantOp>(node.op);
    if (!constant || !node.participates ||
        node.category == PrecisionCategory::Deny ||
        isRepresentable(constant, low))
      continue;
    std::string why = ("not representable in " + Twine(lowName()) + ")").str();
    node.participates = false;
    node.decision = Decision::F32;
    node.rule = (Twine(rule::kF32Constant) + " (" + why).str();
    for (Operation *user : constant->getUsers()) {
      auto it = nodeIndex.find(user);
      if (it == nodeIndex.end())
        continue;
      Node &userNode = nodes[it->second];
      if (!userNode.participates)
        continue;
      if (userNode.category == PrecisionCategory::Infer ||
          userNode.category == PrecisionCategory::Clear) {
        userNode.participates = false;
        userNode.decision = Decision::F32;
        userNode.rule =
            (Twine(rule::kF32Constant) + " (an operand is " + why).str();
      } else if (userNode.category == PrecisionCategory::Allow) {
        user->emitWarning() << "runs in " << low
                            << " but a constant operand is not "
                               "representable in "
                            << low;
      }
    }
  }

  // The painting graph: float data edges between participating ops.
  successors.assign(nodes.size(), {});
  predecessors.assign(nodes.size(), {});
  for (auto [index, node] : llvm::enumerate(nodes)) {
    if (!node.participates)
      continue;
    auto interface = cast<PrecisionOpInterface>(node.op);
    for (OpOperand &operand : node.op->getOpOperands()) {
      if (!isFloatTensor(operand.get().getType()) ||
          interface.isStatisticOperand(operand.getOperandNumber()))
        continue;
      Operation *producer =
          lookThroughWideningCasts(operand.get()).getDefiningOp();
      auto it = producer ? nodeIndex.find(producer) : nodeIndex.end();
      if (it == nodeIndex.end() || !nodes[it->second].participates)
        continue;
      successors[it->second].push_back(index);
      predecessors[index].push_back(it->second);
    }
  }
  return success();
}

template <typename Enter, typename Visit>
void AMPAssignPrecisionPass::traverse(unsigned root, bool forward,
                                      bool backward, Enter enter, Visit visit) {
  llvm::DenseSet<unsigned> visited;
  SmallVector<unsigned> stack = {root};
  visited.insert(root);
  while (!stack.empty()) {
    unsigned node = stack.pop_back_val();
    visit(node);
    auto push = [&](ArrayRef<unsigned> neighbours) {
      for (unsigned next : neighbours)
        if (!visited.contains(next) && enter(next)) {
          visited.insert(next);
          stack.push_back(next);
        }
    };
    if (forward)
      push(successors[node]);
    if (backward)
      push(predecessors[node]);
  }
}

/// TensorFlow's passes 1-5 (auto_mixed_precision.cc), on participating
/// ops only.
void AMPAssignPrecisionPass::paint() {
  using PC = PrecisionCategory;
  unsigned count = nodes.size();
  auto participates = [&](unsigned n) { return nodes[n].participates; };
  // Traverses from each participating root that `isRoot` accepts, asked
  // when the sweep reaches it (after the earlier roots' paint); `visit`
  // sees the root and the node.
  auto sweep = [&](auto isRoot, bool forward, bool backward, auto enter,
                   auto visit) {
    for (unsigned root = 0; root < count; ++root)
      if (participates(root) && isRoot(root))
        traverse(root, forward, backward, enter,
                 [&](unsigned n) { visit(root, n); });
  };
  std::vector<bool> allow(count, false), deny(count, false);

  // Pass 1: ALLOW ops.
  for (unsigned n = 0; n < count; ++n)
    if (participates(n) && isCategory(n, PC::Allow))
      allow[n] = true;

  // Pass 2: deny paint. First the CLEAR ops upstream (through CLEAR ops)
  // of a DENY or INFER op, then DENY spreads forward through them.
  std::vector<bool> upstreamOfDenyOrInfer(count, false);
  sweep(
      [&](unsigned root) {
        return isCategory(root, PC::Deny) || isCategory(root, PC::Infer);
      },
      /*forward=*/false, /*backward=*/true,
      [&](unsigned n) {
        return participates(n) && !upstreamOfDenyOrInfer[n] &&
               isCategory(n, PC::Clear);
      },
      [&](unsigned, unsigned n) { upstreamOfDenyOrInfer[n] = true; });
  sweep(
      [&](unsigned root) { return !deny[root] && isCategory(root, PC::Deny); },
      /*forward=*/true, /*backward=*/false,
      [&](unsigned n) {
        return participates(n) && !deny[n] && upstreamOfDenyOrInfer[n];
      },
      [&](unsigned, unsigned n) { deny[n] = true; });

  // Pass 3: INFER/CLEAR ops both downstream and upstream of ALLOW ops.
  auto isAllowRoot = [&](unsigned root) { return allow[root] && !deny[root]; };
  std::vector<bool> downstreamOfAllow(count, false),
      upstreamOfAllow(count, false);
  sweep(
      isAllowRoot,
      /*forward=*/true, /*backward=*/false,
      [&](unsigned n) {
        return participates(n) && !downstreamOfAllow[n] && !allow[n] &&
               !deny[n] &&
               (isCategory(n, PC::Infer) || isCategory(n, PC::Clear));
      },
      [&](unsigned, unsigned n) { downstreamOfAllow[n] = true; });
  auto paintAllow = [&](unsigned n, StringRef why) {
    if (allow[n])
      return;
    allow[n] = true;
    nodes[n].paintRule = why;
  };
  sweep(
      [&](unsigned root) { return isCategory(root, PC::Allow) && !deny[root]; },
      /*forward=*/false, /*backward=*/true,
      [&](unsigned n) { return !upstreamOfAllow[n] && downstreamOfAllow[n]; },
      [&](unsigned root, unsigned n) {
        upstreamOfAllow[n] = true;
        if (downstreamOfAllow[n])
          paintAllow(n, rule::kBetweenAllow);
      });

  // Pass 4 (bf16 only): INFER ops fed by allow ops.
  if (low.isBF16()) {
    sweep(
        isAllowRoot,
        /*forward=*/true, /*backward=*/false,
        [&](unsigned n) {
          return participates(n) && !allow[n] && !deny[n] &&
                 isCategory(n, PC::Infer);
        },
        [&](unsigned root, unsigned n) {
          if (n != root)
            paintAllow(n, rule::kAfterAllowBf16);
        });
  }

  // Pass 5: allow spreads through CLEAR ops in both directions.
  std::vector<bool> clearNextToAllow(count, false);
  sweep(
      isAllowRoot,
      /*forward=*/true, /*backward=*/true,
      [&](unsigned n) {
        return participates(n) && !allow[n] && !deny[n] &&
               !clearNextToAllow[n] && isCategory(n, PC::Clear);
      },
      [&](unsigned root, unsigned n) {
        if (n != root)
          clearNextToAllow[n] = true;
      });
  for (unsigned n = 0; n < count; ++n)
    if (clearNextToAllow[n])
      paintAllow(n, rule::kClearNextToAllow);

  for (unsigned n = 0; n < count; ++n) {
    Node &node = nodes[n];
    if (!node.participates)
      continue;
    node.allowPaint = allow[n];
    node.denyPaint = deny[n];
    StringRef source = table->getSource(node.op);
    if (isCategory(n, PC::Allow)) {
      node.decision = Decision::Low;
      node.rule = withSource(rule::kAllow, source);
    } else if (isCategory(n, PC::Deny)) {
      node.decision = Decision::F32;
      node.rule = withSource(rule::kDeny, source);
    } else if (deny[n]) {
      node.decision = Decision::F32;
      node.rule = rule::kDenyPaint;
    } else {
      node.decision = Decision::Free;
    }
  }
}

//===----------------------------------------------------------------------===//
// Min-cut
//===----------------------------------------------------------------------===//

AMPAssignPrecisionPass::Term
AMPAssignPrecisionPass::fixedTerm(Type type) const {
  Type element = getElementTypeOrNull(type);
  if (element == low)
    return {TermKind::Source};
  if (element && element.isF32())
    return {TermKind::Sink};
  return {};
}

AMPAssignPrecisionPass::Term
AMPAssignPrecisionPass::nodeTerm(unsigned index) const {
  switch (nodes[index].decision) {
  case Decision::Low:
    return {TermKind::Source};
  case Decision::F32:
    return {TermKind::Sink};
  case Decision::Free:
    return {TermKind::Graph, nodes[index].graphNode};
  }
  llvm_unreachable("unknown decision");
}

FloatType AMPAssignPrecisionPass::tentativePrecision(unsigned index) const {
  if (nodes[index].decision == Decision::F32)
    return Float32Type::get(low.getContext());
  return low;
}

AMPAssignPrecisionPass::Term
AMPAssignPrecisionPass::producerTerm(Value value, MinCutGraph &graph) {
  auto result = dyn_cast<OpResult>(value);
  auto it = result ? nodeIndex.find(result.getOwner()) : nodeIndex.end();
  if (it == nodeIndex.end())
    return fixedTerm(value.getType());
  unsigned index = it->second;
  Operation *op = result.getOwner();
  unsigned operandIndex = 0;
  switch (getResultRole(op, result.getResultNumber(), tentativePrecision(index),
                        &operandIndex)) {
  case ResultRole::Follows:
    return nodeTerm(index);
  case ResultRole::Widenable: {
    if (nodes[index].decision == Decision::F32)
      return {TermKind::Sink};
    // Free to be f32 when the op is low; f32 when the op is f32.
    auto key = std::make_pair(op, result.getResultNumber());
    auto [entry, inserted] = resultNodes.try_emplace(key, 0);
    if (inserted) {
      entry->second = graph.addNode();
      if (nodes[index].decision == Decision::Free)
        graph.addEdge(entry->second, nodes[index].graphNode,
                      MinCutGraph::kInfinity);
    }
    return {TermKind::Graph, entry->second};
  }
  case ResultRole::SameAsOperand: {
    Value operand = op->getOperand(operandIndex);
    auto producer = dyn_cast<OpResult>(operand);
    bool fixedProducer = !producer || !nodeIndex.contains(producer.getOwner());
    if (fixedProducer && getElementTypeOrNull(operand.getType()).isF32())
      return {TermKind::Sink};
    return nodeTerm(index);
  }
  case ResultRole::F32:
    return {TermKind::Sink};
  case ResultRole::NotFloat:
  case ResultRole::Fixed:
    return fixedTerm(value.getType());
  }
  llvm_unreachable("unknown result role");
}

AMPAssignPrecisionPass::Term
AMPAssignPrecisionPass::consumerTerm(OpOperand &use, Term producer) {
  Operation *owner = use.getOwner();
  auto it = nodeIndex.find(owner);
  if (it == nodeIndex.end()) {
    if (getOperandRole(owner, use.getOperandNumber(), {}) == OperandRole::Fixed)
      return fixedTerm(use.get().getType());
    return {};
  }
  unsigned index = it->second;
  switch (getOperandRole(owner, use.getOperandNumber(),
                         tentativePrecision(index))) {
  case OperandRole::Follows:
    return nodeTerm(index);
  case OperandRole::F32:
    return {TermKind::Sink};
  case OperandRole::FollowsOrF32:
    // An f32 value is accepted as it is.
    if (producer.kind == TermKind::Sink)
      return {};
    return nodeTerm(index);
  case OperandRole::Flexible:
  case OperandRole::NotFloat:
  case OperandRole::Fixed:
    return {};
  }
  llvm_unreachable("unknown operand role");
}

void AMPAssignPrecisionPass::solveMinCut() {
  MinCutGraph graph;
  unsigned freeCount = 0;
  for (Node &node : nodes)
    if (node.decision == Decision::Free) {
      node.graphNode = graph.addNode();
      ++freeCount;
    }
  if (freeCount == 0)
    return;
  // Cast bytes dominate; one unit per painting choice broken breaks ties.
  const MinCutGraph::Capacity scale = freeCount + 1;
  auto addNet = [&](ArrayRef<Term> terms, int64_t bytes) {
    bool hasSource = false, hasSink = false;
    llvm::SetVector<unsigned> members;
    for (const Term &term : terms) {
      switch (term.kind) {
      case TermKind::None:
        break;
      case TermKind::Source:
        hasSource = true;
        break;
      case TermKind::Sink:
        hasSink = true;
        break;
      case TermKind::Graph:
        members.insert(term.node);
        break;
      }
    }
    // Both fixed sides present: the cast is unavoidable whatever we choose.
    if (hasSource && hasSink)
      return;
    if (hasSource)
      members.insert(MinCutGraph::kSource);
    if (hasSink)
      members.insert(MinCutGraph::kSink);
    if (members.size() < 2)
      return;
    MinCutGraph::Capacity weight = scale * bytes;
    if (members.size() == 2) {
      graph.addEdge(members[0], members[1], weight);
      graph.addEdge(members[1], members[0], weight);
      return;
    }
    // Lawler's net: cut exactly once iff members end up on both sides.
    unsigned in = graph.addNode(), out = graph.addNode();
    graph.addEdge(in, out, weight);
    for (unsigned member : members) {
      graph.addEdge(member, in, MinCutGraph::kInfinity);
      graph.addEdge(out, member, MinCutGraph::kInfinity);
    }
  };
  auto addValue = [&](Value value) {
    if (!isFloatTensor(value.getType()) || value.use_empty())
      return;
    // Converting a constant is free: it happens at compile time. The users
    // of a widening cast are accounted with the value it widens.
    if (value.getDefiningOp<ConstantOp>() ||
        isExactWideningCast(value.getDefiningOp()))
      return;
    int64_t bytes = getCastBytes(value.getType(), low);
    SmallVector<Term> terms;
    Term producer = producerTerm(value, graph);
    terms.push_back(producer);
    forEachUseThroughWideningCasts(value, [&](OpOperand &use) {
      terms.push_back(consumerTerm(use, producer));
    });
    addNet(terms, bytes);
  };
  getOperation().walk([&](Block *block) {
    for (BlockArgument argument : block->getArguments())
      addValue(argument);
    for (Operation &op : *block)
      for (Value result : op.getResults())
        addValue(result);
  });
  // Tie-break: prefer painting's choice.
  for (Node &node : nodes) {
    if (node.decision != Decision::Free)
      continue;
    if (node.allowPaint)
      graph.addEdge(MinCutGraph::kSource, node.graphNode, 1);
    else
      graph.addEdge(node.graphNode, MinCutGraph::kSink, 1);
  }
  graph.solve();
  for (Node &node : nodes) {
    if (node.decision != Decision::Free)
      continue;
    bool isLow = graph.isOnSourceSide(node.graphNode);
    // Converting a constant costs nothing, so the cut leaves it to the
    // tie-break; give it the type its users agree on instead, which saves
    // amp-insert-casts a converted copy.
    if (auto constant = dyn_cast<ConstantOp>(node.op)) {
      std::optional<bool> usersLow;
      bool agree = true;
      for (OpOperand &use : constant->getUses()) {
        auto it = nodeIndex.find(use.getOwner());
        if (it == nodeIndex.end()) {
          agree = false;
          break;
        }
        const Node &user = nodes[it->second];
        bool userLow = user.decision == Decision::Free
                           ? graph.isOnSourceSide(user.graphNode)
                           : user.decision == Decision::Low;
        if (getOperandRole(user.op, use.getOperandNumber(),
                           tentativePrecision(it->second)) !=
                OperandRole::Follows ||
            (usersLow && *usersLow != userLow)) {
          agree = false;
          break;
        }
        usersLow = userLow;
      }
      if (agree && usersLow)
        isLow = *usersLow;
    }
    node.decision = isLow ? Decision::Low : Decision::F32;
    if (isLow == node.allowPaint)
      node.rule = isLow ? node.paintRule.str() : rule::kUnpainted.str();
    else
      node.rule = rule::kMinCut;
  }
}

void AMPAssignPrecisionPass::record() {
  Builder builder(&getContext());
  Type f32 = builder.getF32Type();
  for (Node &node : nodes) {
    assert(node.decision != Decision::Free && "undecided op");
    Type type = node.decision == Decision::Low ? Type(low) : f32;
    node.op->setAttr(kPrecisionAttrName, TypeAttr::get(type));
    node.op->setAttr(kPrecisionRuleAttrName, builder.getStringAttr(node.rule));
  }
}

void AMPAssignPrecisionPass::runOnOperation() {
  // A pass instance may run more than once.
  policy.reset();
  table.reset();
  nodes.clear();
  nodeIndex.clear();
  successors.clear();
  predecessors.clear();
  resultNodes.clear();
  if (failed(configure()))
    return signalPassFailure();
  resolveDisabledCalls(getOperation());
  if (failed(collectNodes()))
    return signalPassFailure();
  paint();
  solveMinCut();
  record();
}

} // namespace
