//===- AssignPrecision.cpp - choose f16/bf16/f32 for every op -------------===//
//
// `amp-assign-precision` records on every op with the precision interface
// the type it computes in (amp.precision) and why (amp.precision_rule). It
// changes no type; `amp-insert-casts` does.
//
//  1. Fixed decisions: pins (amp.pin, policy pins), ops in regions with
//     autocast disabled, op kinds in no list, constants the low type cannot
//     represent (and their INFER/CLEAR users).
//  2. TensorFlow's painting (PaintPrecision.cpp) over the remaining ops by
//     effective category:
//     (1) ALLOW ops are allow; (2) deny paint spreads from DENY ops forward
//     through INFER/CLEAR ops that lead to DENY/INFER ops; (3) INFER/CLEAR
//     ops between ALLOW ops are allow; (4) bf16 only: INFER ops fed by allow
//     ops are allow; (5) allow spreads through CLEAR ops.
//  3. A minimum s-t cut (PrecisionMinCut.cpp) chooses the precision of every
//     INFER/CLEAR op that painting did not deny: ALLOW ops are tied to the
//     low side, DENY and deny-painted ops to the f32 side, and every value
//     pays the bytes of one cast if its producer and a user disagree. Among
//     the optimal cuts it keeps the most of painting's choices (a tie-break
//     weight), so the min-cut changes painting only where that moves fewer
//     bytes.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/AMP/Transforms/Passes.h"
#include "amp/Dialect/AMP/Transforms/Precision.h"
#include "amp/Dialect/AMP/Transforms/PrecisionPolicy.h"

#include "PrecisionGraph.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseSet.h"

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

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct AMPAssignPrecisionPass
    : mlir::amp::impl::AMPAssignPrecisionPassBase<AMPAssignPrecisionPass> {
  using AMPAssignPrecisionPassBase::AMPAssignPrecisionPassBase;

  void runOnOperation() override;

private:
  LogicalResult configure();
  LogicalResult configureLowAndLevel();
  LogicalResult buildCategoryTable();
  LogicalResult collectNodes();
  FailureOr<std::pair<Type, std::string>>
  pinOf(Operation *op, llvm::DenseSet<const PolicyPin *> &usedPins);
  LogicalResult decideFixedNodes();
  void record();

  PrecisionLevel level = PrecisionLevel::Default;
  bool lowPrecisionNorms = false;
  std::optional<PrecisionPolicy> policy;
  std::optional<CategoryTable> table;
  PrecisionGraph graph;
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
  if (failed(configureLowAndLevel()))
    return failure();
  lowPrecisionNorms =
      lpNorm || (policy && policy->lpNorm && policy->lpNorm->value);
  if (lowPrecisionNorms)
    emitWarning(moduleLoc)
        << "lp-norm: layer_norm, group_norm and rms_norm (and their "
           "gradients) run in "
        << graph.low
        << " (Composer's low-precision norms); this can cause loss spikes. "
           "Their statistics stay f32.";
  return buildCategoryTable();
}

/// The level a LevelChoice names (Auto: the default level).
static PrecisionLevel toPrecisionLevel(LevelChoice choice) {
  switch (choice) {
  case LevelChoice::TensorCoresOnly:
    return PrecisionLevel::TensorCoresOnly;
  case LevelChoice::UnsafeForceAll:
    return PrecisionLevel::UnsafeForceAll;
  case LevelChoice::InferAsDeny:
    return PrecisionLevel::InferAsDeny;
  case LevelChoice::Auto:
  case LevelChoice::Default:
    break;
  }
  return PrecisionLevel::Default;
}

/// The low precision and the level, from the options and the policy (a
/// setting given both ways must agree).
LogicalResult AMPAssignPrecisionPass::configureLowAndLevel() {
  MLIRContext *context = &getContext();
  Location moduleLoc = getOperation().getLoc();
  bool precisionGiven = precision != LowPrecision::Auto;
  graph.low = precision == LowPrecision::FP16
                  ? FloatType(Float16Type::get(context))
                  : FloatType(BFloat16Type::get(context));
  if (policy && policy->precision) {
    if (precisionGiven && policy->precision->value != graph.low)
      return emitError(policy->precision->loc)
             << "precision policy: 'precision' is " << policy->precision->value
             << " but the pass option precision is " << graph.low;
    graph.low = policy->precision->value;
  }

  bool levelGiven = levelChoice != LevelChoice::Auto;
  level = toPrecisionLevel(levelChoice);
  if (policy && policy->level) {
    if (levelGiven && policy->level->value != level)
      return emitError(policy->level->loc)
             << "precision policy: 'level' is "
             << stringifyPrecisionLevel(policy->level->value)
             << " but the pass option level is "
             << stringifyPrecisionLevel(level);
    level = policy->level->value;
  }

  return success();
}

/// The category table from the policy's lists and the list options.
LogicalResult AMPAssignPrecisionPass::buildCategoryTable() {
  MLIRContext *context = &getContext();
  Location moduleLoc = getOperation().getLoc();
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

/// The pin of `op` (amp.pin, or a policy pin matching its location) and its
/// rule, or a null type; fails on pins that contradict each other or the
/// low precision. Marks the policy pins that match in `usedPins`.
FailureOr<std::pair<Type, std::string>>
AMPAssignPrecisionPass::pinOf(Operation *op,
                              llvm::DenseSet<const PolicyPin *> &usedPins) {
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
  if (pinned && !pinned.isF32() && pinned != graph.low) {
    op->emitError() << "contradicting pins: pinned to " << pinned
                    << " but the low precision is " << graph.low
                    << " (precision=" << graph.lowName() << ")";
    return failure();
  }
  return std::make_pair(pinned, pinRule);
}

/// Pins, regions with autocast disabled and ops in no list decide their
/// nodes; the rest take part in painting.
LogicalResult AMPAssignPrecisionPass::decideFixedNodes() {
  // Policy pins that match no op are probably misspelled.
  llvm::DenseSet<const PolicyPin *> usedPins;
  for (Node &node : graph.nodes) {
    Operation *op = node.op;
    node.category = table->lookup(op);
    FailureOr<std::pair<Type, std::string>> pin = pinOf(op, usedPins);
    if (failed(pin))
      return failure();
    if (Type pinned = pin->first) {
      node.decision = pinned.isF32() ? Decision::F32 : Decision::Low;
      node.rule = pin->second;
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
  return success();
}

/// Decides what does not depend on the graph (pins, disabled autocast, ops
/// in no list, constants the low type cannot represent) and builds the
/// painting graph of the participating ops.
LogicalResult AMPAssignPrecisionPass::collectNodes() {
  collectPrecisionNodes(graph, getOperation());
  if (failed(decideFixedNodes()))
    return failure();
  keepUnrepresentableConstantsF32(graph);
  connectPrecisionGraph(graph);
  return success();
}

void AMPAssignPrecisionPass::record() {
  Builder builder(&getContext());
  Type f32 = builder.getF32Type();
  for (Node &node : graph.nodes) {
    assert(node.decision != Decision::Free && "undecided op");
    Type type = node.decision == Decision::Low ? Type(graph.low) : f32;
    node.op->setAttr(kPrecisionAttrName, TypeAttr::get(type));
    node.op->setAttr(kPrecisionRuleAttrName, builder.getStringAttr(node.rule));
  }
}

void AMPAssignPrecisionPass::runOnOperation() {
  // A pass instance may run more than once.
  policy.reset();
  table.reset();
  graph = PrecisionGraph();
  if (failed(configure()))
    return signalPassFailure();
  resolveDisabledCalls(getOperation());
  if (failed(collectNodes()))
    return signalPassFailure();
  paintPrecisionGraph(graph, *table);
  solvePrecisionMinCut(graph, getOperation());
  record();
}

} // namespace
