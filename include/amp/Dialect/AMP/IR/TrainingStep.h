//===- TrainingStep.h - the training-step contract as a view ----*- C++ -*-===//
//
// The training-graph contract (DESIGN.md section 3) lives in attributes:
// `amp.graph` on a function says whether it is a forward model or a training
// step, `amp.role` and `amp.name` on its arguments and results say what each
// tensor is. This header is the one place that knows how to read and write
// that contract, in the spirit of upstream's BufferResultsToOutParams
// helpers: the graph-kind lookup, the role groups of a signature, the rule
// pairing a state argument with the result that returns it updated, adding
// state, and stripping the contract once lowering no longer needs it.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_IR_TRAININGSTEP_H
#define AMP_DIALECT_AMP_IR_TRAININGSTEP_H

#include "amp/Dialect/AMP/IR/AMPDialect.h"
#include "amp/Dialect/AMP/IR/AMPEnums.h"
#include "amp/Runtime/ModelABI.h"
#include "amp/Runtime/StateNames.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include <optional>

namespace mlir::amp {

//===----------------------------------------------------------------------===//
// What the run side reads of the contract
//===----------------------------------------------------------------------===//

/// A compiled library tells the run side each tensor's role as amp_role
/// (the descriptor glue writes Role's value): they must agree.
static_assert(uint32_t(Role::Parameter) == AMP_ROLE_PARAMETER &&
                  uint32_t(Role::Input) == AMP_ROLE_INPUT &&
                  uint32_t(Role::Label) == AMP_ROLE_LABEL &&
                  uint32_t(Role::Loss) == AMP_ROLE_LOSS &&
                  uint32_t(Role::OptimizerState) == AMP_ROLE_OPTIMIZER_STATE &&
                  uint32_t(Role::ScalerState) == AMP_ROLE_SCALER_STATE &&
                  uint32_t(Role::Hyperparameter) == AMP_ROLE_HYPERPARAMETER &&
                  uint32_t(Role::Skipped) == AMP_ROLE_SKIPPED &&
                  uint32_t(Role::Output) == AMP_ROLE_OUTPUT &&
                  uint32_t(Role::Buffer) == AMP_ROLE_BUFFER,
              "the dialect's Role and the C ABI's amp_role differ");

/// The state names the run side finds tensors by (amp/Runtime/StateNames.h).
inline constexpr StringLiteral kLearningRateName = AMP_STATE_LEARNING_RATE;
inline constexpr StringLiteral kAccumulateName = AMP_STATE_ACCUMULATE;
inline constexpr StringLiteral kGradAccumMicroStepName = AMP_STATE_MICRO_STEP;
inline constexpr StringLiteral kLossScaleName = AMP_STATE_LOSS_SCALE;

//===----------------------------------------------------------------------===//
// The contract attributes of one argument or result
//===----------------------------------------------------------------------===//

/// The amp.role in an argument's or result's attributes, if any.
std::optional<Role> getRole(DictionaryAttr attrs);

/// The amp.name in an argument's or result's attributes, or "".
StringRef getAMPName(DictionaryAttr attrs);

/// The amp.copy_of in an argument's or result's attributes, or "".
StringRef getCopyOf(DictionaryAttr attrs);

/// {amp.role = role, amp.name = name} (no name when `name` is empty).
DictionaryAttr makeContractAttrs(MLIRContext *context, Role role,
                                 StringRef name);

/// Removes the contract from `function`: every `amp.*` argument and result
/// attribute (other attributes stay) and `amp.graph`. Lowering calls this
/// once tensors become buffers, which the contract does not describe. With
/// `keepStateUpdates`, the pairing of state results with their arguments
/// outlives it as `amp.state_updates` (getStateUpdates), so that
/// bufferization can write updated state into the buffers it came from
/// (for callers that know, as the model ABI's runtime does).
void stripContractAttributes(FunctionOpInterface function,
                             bool keepStateUpdates = false);

/// Per result of `function`, the argument it returns updated (-1 for none),
/// as `amp.state_updates` records it; empty without the attribute.
SmallVector<int32_t> getStateUpdates(Operation *function);

/// The arguments `function` updates in place (amp-state-updates-in-place),
/// as `amp.updated_in_place` records them; empty without the attribute.
SmallVector<int32_t> getUpdatedInPlace(Operation *function);

/// Fails, with an error on the offending function or op, when a tensor of
/// `function` (its signature or an op result) has a zero-size dimension.
/// Part of the training-step contract; tools that compile a forward model
/// check it there too. (Defined in AMPDialect.cpp.)
LogicalResult verifyNoZeroSizeTensors(FunctionOpInterface function);

//===----------------------------------------------------------------------===//
// Graph kinds: finding the training step and the forward model
//===----------------------------------------------------------------------===//

/// The `amp.graph` kind of `function`, if it has one.
std::optional<GraphKind> getGraphKind(Operation *function);

/// Marks `function` as a graph of `kind`.
void setGraphKind(Operation *function, GraphKind kind);

/// Whether `function` is marked `kind` and has a body (a declaration is
/// never the graph a pass rewrites or a tool compiles).
bool isGraphDefinition(FunctionOpInterface function, GraphKind kind);

/// The function definitions of `module` marked `kind`, in module order.
/// `FuncT` is the function op to look at (e.g. func::FuncOp).
template <typename FuncT = FunctionOpInterface>
SmallVector<FuncT> getGraphDefinitions(ModuleOp module, GraphKind kind) {
  SmallVector<FuncT> functions;
  for (Operation &op : module.getOps())
    if (auto function = dyn_cast<FuncT>(op))
      if (isGraphDefinition(function, kind))
        functions.push_back(function);
  return functions;
}

/// The first training step (definition) of `module`, or null.
template <typename FuncT = FunctionOpInterface>
FuncT findTrainingStep(ModuleOp module) {
  SmallVector<FuncT> steps =
      getGraphDefinitions<FuncT>(module, GraphKind::TrainingStep);
  return steps.empty() ? FuncT() : steps.front();
}

/// The first forward model (definition) of `module`, or null.
template <typename FuncT = FunctionOpInterface>
FuncT findForward(ModuleOp module) {
  SmallVector<FuncT> forwards =
      getGraphDefinitions<FuncT>(module, GraphKind::Forward);
  return forwards.empty() ? FuncT() : forwards.front();
}

//===----------------------------------------------------------------------===//
// Role groups and state
//===----------------------------------------------------------------------===//

/// The roles a training step threads through, in the order its signature
/// lists them: parameters, buffers, optimizer state, scaler state. Each is
/// taken as arguments and returned updated as results of the same role.
ArrayRef<Role> getStateRoles();

/// Whether `role` is one of getStateRoles().
bool isStateRole(Role role);

/// A view of a function's signature as the contract describes it: which
/// arguments and results have which role, which result returns which state
/// argument updated, and how to add state. It holds only the function and
/// reads the attributes on every call, so it stays valid while the
/// signature changes (through it or otherwise).
///
/// The readers are defensive (a missing or short attribute array reads as
/// "no role"), so the dialect verifier can use them before the function op
/// has checked its attribute arrays.
class TrainingStep {
public:
  explicit TrainingStep(FunctionOpInterface function) : function(function) {}

  FunctionOpInterface getFunction() { return function; }

  /// The attributes of argument (result) `index`, or null.
  DictionaryAttr getArgumentAttrs(unsigned index);
  DictionaryAttr getResultAttrs(unsigned index);

  /// The role of argument (result) `index`, if it has one.
  std::optional<Role> getArgumentRole(unsigned index) {
    return getRole(getArgumentAttrs(index));
  }
  std::optional<Role> getResultRole(unsigned index) {
    return getRole(getResultAttrs(index));
  }

  /// The positions of the arguments (results) with `role`, in order.
  SmallVector<unsigned> getArguments(Role role);
  SmallVector<unsigned> getResults(Role role);

  /// The position of the first result with role `loss`, if any.
  std::optional<unsigned> getLossResult();

  /// A state argument and the result that returns it updated.
  struct StatePair {
    unsigned argument;
    unsigned result;
  };

  /// The pairing rule: a training step returns its state updated in the
  /// order it takes it, so the k-th argument with a state role is returned
  /// by the k-th result with that role. Lists the pairs of `role` in order;
  /// an argument or result without a partner (which the verifier reports)
  /// is left out.
  SmallVector<StatePair> getStatePairs(Role role);

  /// The state argument that result `index` returns updated, if any.
  std::optional<unsigned> getUpdatedArgument(unsigned index);

  /// The result that returns state argument `index` updated, if any.
  std::optional<unsigned> getUpdateResult(unsigned index);

  /// Where new state of `role` goes: one past the last argument (result)
  /// whose role is `role` or a state role before it, so that the state
  /// groups stay in getStateRoles() order.
  unsigned getStateArgumentPosition(Role role);
  unsigned getStateResultPosition(Role role);

  /// Adds state of `role` (a state role): one argument per type, with the
  /// given attributes (whose amp.role must be `role`), after the existing
  /// state of that role, each returned unchanged by a new result with the
  /// same attributes after the existing state results. Returns the new
  /// block arguments; give each its updated value with setUpdatedValue.
  /// Needs a definition whose body is one block.
  FailureOr<SmallVector<BlockArgument>>
  addState(Role role, ArrayRef<Type> types, ArrayRef<DictionaryAttr> attrs);

  /// Returns `value` as the update of state argument `argument` (its
  /// paired result), which must have a partner.
  void setUpdatedValue(BlockArgument argument, Value value);

  /// A result to add: its position among the current results (several at
  /// one position keep their order), the returned value and its attributes.
  struct NewResult {
    unsigned index;
    Value value;
    DictionaryAttr attrs;
  };

  /// Adds results returning the given values. Needs a definition whose body
  /// is one block.
  void addResults(ArrayRef<NewResult> results);

  /// The terminator returning the results of a single-block definition.
  Operation *getReturn();

private:
  FunctionOpInterface function;
};

} // namespace mlir::amp

#endif // AMP_DIALECT_AMP_IR_TRAININGSTEP_H
