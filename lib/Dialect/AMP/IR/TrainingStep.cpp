//===- TrainingStep.cpp - the training-step contract as a view ------------===//

#include "amp/Dialect/AMP/IR/TrainingStep.h"

using namespace mlir;
using namespace mlir::amp;

//===----------------------------------------------------------------------===//
// Contract attributes
//===----------------------------------------------------------------------===//

std::optional<Role> mlir::amp::getRole(DictionaryAttr attrs) {
  if (!attrs)
    return std::nullopt;
  if (auto role = attrs.getAs<RoleAttr>(AMPDialect::kRoleAttrName))
    return role.getValue();
  return std::nullopt;
}

static StringRef getString(DictionaryAttr attrs, StringRef name) {
  if (!attrs)
    return {};
  if (auto value = attrs.getAs<StringAttr>(name))
    return value.getValue();
  return {};
}

StringRef mlir::amp::getAMPName(DictionaryAttr attrs) {
  return getString(attrs, AMPDialect::kNameAttrName);
}

StringRef mlir::amp::getCopyOf(DictionaryAttr attrs) {
  return getString(attrs, AMPDialect::kCopyOfAttrName);
}

DictionaryAttr mlir::amp::makeContractAttrs(MLIRContext *context, Role role,
                                            StringRef name) {
  Builder b(context);
  SmallVector<NamedAttribute> attrs = {
      b.getNamedAttr(AMPDialect::kRoleAttrName, RoleAttr::get(context, role))};
  if (!name.empty())
    attrs.push_back(
        b.getNamedAttr(AMPDialect::kNameAttrName, b.getStringAttr(name)));
  return b.getDictionaryAttr(attrs);
}

/// Records the state pairing as amp.state_updates, if the function has any.
static void recordStateUpdates(FunctionOpInterface function) {
  TrainingStep view(function);
  SmallVector<int32_t> updates;
  bool any = false;
  for (unsigned i = 0; i < function.getNumResults(); ++i) {
    std::optional<unsigned> argument = view.getUpdatedArgument(i);
    updates.push_back(argument ? int32_t(*argument) : -1);
    any |= argument.has_value();
  }
  if (any)
    function->setAttr(AMPDialect::kStateUpdatesAttrName,
                      DenseI32ArrayAttr::get(function.getContext(), updates));
}

static SmallVector<int32_t> getI32Array(Operation *function, StringRef name) {
  if (auto array = function->getAttrOfType<DenseI32ArrayAttr>(name))
    return llvm::to_vector(array.asArrayRef());
  return {};
}

SmallVector<int32_t> mlir::amp::getStateUpdates(Operation *function) {
  return getI32Array(function, AMPDialect::kStateUpdatesAttrName);
}

SmallVector<int32_t> mlir::amp::getUpdatedInPlace(Operation *function) {
  return getI32Array(function, AMPDialect::kUpdatedInPlaceAttrName);
}

void mlir::amp::stripContractAttributes(FunctionOpInterface function,
                                        bool keepStateUpdates) {
  if (keepStateUpdates)
    recordStateUpdates(function);
  auto withoutContract = [](DictionaryAttr attrs) {
    SmallVector<NamedAttribute> kept;
    if (attrs)
      llvm::copy_if(attrs.getValue(), std::back_inserter(kept),
                    [](NamedAttribute attr) {
                      return !attr.getName().getValue().starts_with("amp.");
                    });
    return kept;
  };
  for (unsigned i = 0; i < function.getNumArguments(); ++i)
    function.setArgAttrs(i, withoutContract(function.getArgAttrDict(i)));
  for (unsigned i = 0; i < function.getNumResults(); ++i)
    function.setResultAttrs(i, withoutContract(function.getResultAttrDict(i)));
  function->removeAttr(AMPDialect::kGraphAttrName);
}

//===----------------------------------------------------------------------===//
// Graph kinds
//===----------------------------------------------------------------------===//

std::optional<GraphKind> mlir::amp::getGraphKind(Operation *function) {
  if (auto kind =
          function->getAttrOfType<GraphKindAttr>(AMPDialect::kGraphAttrName))
    return kind.getValue();
  return std::nullopt;
}

void mlir::amp::setGraphKind(Operation *function, GraphKind kind) {
  function->setAttr(AMPDialect::kGraphAttrName,
                    GraphKindAttr::get(function->getContext(), kind));
}

bool mlir::amp::isGraphDefinition(FunctionOpInterface function,
                                  GraphKind kind) {
  return !function.isExternal() && getGraphKind(function) == kind;
}

//===----------------------------------------------------------------------===//
// Role groups and state
//===----------------------------------------------------------------------===//

ArrayRef<Role> mlir::amp::getStateRoles() {
  static constexpr Role kStateRoles[] = {
      Role::Parameter, Role::Buffer, Role::OptimizerState, Role::ScalerState};
  return kStateRoles;
}

bool mlir::amp::isStateRole(Role role) {
  return llvm::is_contained(getStateRoles(), role);
}

/// Entry `index` of an argument or result attribute array, read defensively.
static DictionaryAttr dictionaryAt(ArrayAttr attrs, unsigned index) {
  if (!attrs || index >= attrs.size())
    return {};
  return dyn_cast<DictionaryAttr>(attrs[index]);
}

DictionaryAttr TrainingStep::getArgumentAttrs(unsigned index) {
  return dictionaryAt(function.getArgAttrsAttr(), index);
}

DictionaryAttr TrainingStep::getResultAttrs(unsigned index) {
  return dictionaryAt(function.getResAttrsAttr(), index);
}

/// The positions among `count` entries of `attrs` whose role is `role`.
static SmallVector<unsigned> positionsWithRole(ArrayAttr attrs, unsigned count,
                                               Role role) {
  SmallVector<unsigned> positions;
  for (unsigned i = 0; i < count; ++i)
    if (getRole(dictionaryAt(attrs, i)) == role)
      positions.push_back(i);
  return positions;
}

SmallVector<unsigned> TrainingStep::getArguments(Role role) {
  return positionsWithRole(function.getArgAttrsAttr(),
                           function.getNumArguments(), role);
}

SmallVector<unsigned> TrainingStep::getResults(Role role) {
  return positionsWithRole(function.getResAttrsAttr(), function.getNumResults(),
                           role);
}

std::optional<unsigned> TrainingStep::getLossResult() {
  SmallVector<unsigned> losses = getResults(Role::Loss);
  if (losses.empty())
    return std::nullopt;
  return losses.front();
}

SmallVector<TrainingStep::StatePair> TrainingStep::getStatePairs(Role role) {
  SmallVector<StatePair> pairs;
  for (auto [argument, result] :
       llvm::zip(getArguments(role), getResults(role)))
    pairs.push_back({argument, result});
  return pairs;
}

/// The state pair of `role` (if a state role) that `matches`.
static std::optional<TrainingStep::StatePair>
findStatePair(TrainingStep &step, std::optional<Role> role,
              llvm::function_ref<bool(TrainingStep::StatePair)> matches) {
  if (!role || !isStateRole(*role))
    return std::nullopt;
  for (TrainingStep::StatePair pair : step.getStatePairs(*role))
    if (matches(pair))
      return pair;
  return std::nullopt;
}

std::optional<unsigned> TrainingStep::getUpdatedArgument(unsigned index) {
  if (auto pair = findStatePair(*this, getResultRole(index),
                                [&](StatePair p) { return p.result == index; }))
    return pair->argument;
  return std::nullopt;
}

std::optional<unsigned> TrainingStep::getUpdateResult(unsigned index) {
  if (auto pair =
          findStatePair(*this, getArgumentRole(index),
                        [&](StatePair p) { return p.argument == index; }))
    return pair->result;
  return std::nullopt;
}

/// One past the last of `count` entries of `attrs` whose role is `role` or
/// a state role before it; 0 when there is none.
static unsigned statePosition(ArrayAttr attrs, unsigned count, Role role) {
  ArrayRef<Role> roles = getStateRoles();
  ArrayRef<Role> upTo =
      roles.take_front(llvm::find(roles, role) - roles.begin() + 1);
  unsigned position = 0;
  for (unsigned i = 0; i < count; ++i) {
    std::optional<Role> found = getRole(dictionaryAt(attrs, i));
    if (found && llvm::is_contained(upTo, *found))
      position = i + 1;
  }
  return position;
}

unsigned TrainingStep::getStateArgumentPosition(Role role) {
  return statePosition(function.getArgAttrsAttr(), function.getNumArguments(),
                       role);
}

unsigned TrainingStep::getStateResultPosition(Role role) {
  return statePosition(function.getResAttrsAttr(), function.getNumResults(),
                       role);
}

Operation *TrainingStep::getReturn() {
  Region &body = function.getFunctionBody();
  assert(body.hasOneBlock() && "expected a definition with one block");
  return body.front().getTerminator();
}

FailureOr<SmallVector<BlockArgument>>
TrainingStep::addState(Role role, ArrayRef<Type> types,
                       ArrayRef<DictionaryAttr> attrs) {
  assert(isStateRole(role) && "state must have a state role");
  assert(types.size() == attrs.size() && "one dictionary per new state");
  assert(
      llvm::all_of(
          attrs, [&](DictionaryAttr dict) { return getRole(dict) == role; }) &&
      "new state must carry its role");
  if (function.isExternal() || !function.getFunctionBody().hasOneBlock())
    return failure();
  unsigned argPosition = getStateArgumentPosition(role);
  unsigned resultPosition = getStateResultPosition(role);
  SmallVector<unsigned> indices(types.size(), argPosition);
  SmallVector<Location> locs(types.size(), function.getLoc());
  if (failed(function.insertArguments(indices, types, attrs, locs)))
    return failure();
  SmallVector<BlockArgument> added;
  SmallVector<NewResult> results;
  for (auto [k, dict] : llvm::enumerate(attrs)) {
    added.push_back(function.getArgument(argPosition + k));
    results.push_back({resultPosition, added.back(), dict});
  }
  addResults(results);
  return added;
}

void TrainingStep::setUpdatedValue(BlockArgument argument, Value value) {
  std::optional<unsigned> result = getUpdateResult(argument.getArgNumber());
  assert(result && "state argument without a result");
  getReturn()->setOperand(*result, value);
}

void TrainingStep::addResults(ArrayRef<NewResult> added) {
  Operation *ret = getReturn();
  SmallVector<Value> operands;
  SmallVector<Type> types;
  SmallVector<DictionaryAttr> attrs;
  unsigned count = function.getNumResults();
  for (unsigned i = 0; i <= count; ++i) {
    for (const NewResult &result : added)
      if (result.index == i) {
        operands.push_back(result.value);
        types.push_back(result.value.getType());
        attrs.push_back(result.attrs);
      }
    if (i == count)
      break;
    operands.push_back(ret->getOperand(i));
    types.push_back(function.getResultTypes()[i]);
    attrs.push_back(function.getResultAttrDict(i));
  }
  function.setType(function.cloneTypeWith(function.getArgumentTypes(), types));
  function.setAllResultAttrs(attrs);
  ret->setOperands(operands);
}
