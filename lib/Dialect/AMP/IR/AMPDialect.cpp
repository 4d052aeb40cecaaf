//===- AMPDialect.cpp - amp dialect and training-graph contract -----------===//
//
// Besides registering ops and attributes, the dialect verifies the
// training-graph contract carried by function attributes: `amp.role` on
// arguments and results, `amp.name` for a stable external name,
// `amp.copy_of` on a buffer that is a low-precision copy of a parameter, and
// `amp.graph` on the function saying whether it is a forward model or a
// training step. It also verifies the op attributes of the mixed-precision
// passes (`amp.precision`, `amp.precision_rule`, `amp.pin`,
// `amp.autocast_disabled`).
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/AMP/IR/AMPDialect.h"
#include "amp/Dialect/AMP/IR/AMPOps.h"
#include "amp/Dialect/AMP/IR/TrainingStep.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::amp;

#include "amp/Dialect/AMP/IR/AMPEnums.cpp.inc"
#include "amp/Dialect/AMP/IR/AMPOpsDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "amp/Dialect/AMP/IR/AMPAttrs.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "amp/Dialect/AMP/IR/AMPOpsTypes.cpp.inc"

void AMPDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "amp/Dialect/AMP/IR/AMPOps.cpp.inc"
      >();
  registerAttributes();
  registerTypes();
}

void AMPDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "amp/Dialect/AMP/IR/AMPOpsTypes.cpp.inc"
      >();
}

void AMPDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "amp/Dialect/AMP/IR/AMPAttrs.cpp.inc"
      >();
}

Operation *AMPDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                           Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, elements);
}

//===----------------------------------------------------------------------===//
// Training-graph contract
//===----------------------------------------------------------------------===//

static bool hasZeroSizeDimension(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && llvm::is_contained(tensor.getShape(), 0);
}

/// No tensor of a training step has a zero-size dimension: such tensors hold
/// no data, and the lowering turns the loops over them into nothing it can
/// translate. Checks the signature and every op result in the body.
/// (Forward models may have them, as ONNX allows; amp-compile checks the
/// forward model it compiles.)
LogicalResult mlir::amp::verifyNoZeroSizeTensors(FunctionOpInterface function) {
  auto fail = [](Operation *op, const Twine &what, Type type) {
    return op->emitOpError()
           << what << " is " << type
           << ", which has a zero-size dimension; the tensors of a training "
              "step (and of a forward model amp-compile compiles) need every "
              "dimension to be at least 1";
  };
  for (auto [index, type] : llvm::enumerate(function.getArgumentTypes()))
    if (hasZeroSizeDimension(type))
      return fail(function, "argument #" + Twine(index), type);
  for (auto [index, type] : llvm::enumerate(function.getResultTypes()))
    if (hasZeroSizeDimension(type))
      return fail(function, "result #" + Twine(index), type);
  WalkResult walk = function->walk([&](Operation *op) {
    for (OpResult result : op->getResults())
      if (hasZeroSizeDimension(result.getType())) {
        (void)fail(op, "result #" + Twine(result.getResultNumber()),
                   result.getType());
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

namespace {
bool isScalarOf(Type type, llvm::function_ref<bool(Type)> isElement) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getRank() == 0 && isElement(tensor.getElementType());
}

bool isFloatTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor &&
         isa<Float32Type, Float16Type, BFloat16Type>(tensor.getElementType());
}

/// Checks that `role` may appear on an argument (or result) of `type`.
LogicalResult verifyRole(Operation *op, StringRef where, Role role, Type type,
                         bool isResult) {
  auto fail = [&](StringRef why) {
    return op->emitOpError() << where << " has amp.role '"
                             << stringifyRole(role) << "' but " << why;
  };
  switch (role) {
  case Role::Parameter:
  case Role::Buffer:
    if (!isFloatTensor(type))
      return fail("is not a tensor of f32, f16 or bf16");
    return success();
  case Role::Loss:
    if (!isResult)
      return fail("a loss is a result, not an argument");
    if (!isScalarOf(type, [](Type t) { return t.isF32(); }))
      return fail("a loss must be a 0-d tensor of f32");
    return success();
  case Role::Skipped:
    if (!isResult)
      return fail("'skipped' is a result, not an argument");
    if (!isScalarOf(type, [](Type t) { return t.isInteger(1); }))
      return fail("'skipped' must be a 0-d tensor of i1");
    return success();
  case Role::Input:
  case Role::Label:
  case Role::Hyperparameter:
    if (isResult)
      return fail("this role is for arguments only");
    if (!isa<RankedTensorType>(type))
      return fail("is not a ranked tensor");
    return success();
  case Role::Output:
    if (!isResult)
      return fail("'output' is a result, not an argument");
    return success();
  case Role::OptimizerState:
  case Role::ScalerState:
    if (!isa<RankedTensorType>(type))
      return fail("is not a ranked tensor");
    return success();
  }
  llvm_unreachable("unknown role");
}

LogicalResult verifyContractAttribute(Operation *op, StringRef where,
                                      NamedAttribute attribute, Type type,
                                      bool isResult) {
  StringRef name = attribute.getName().getValue();
  if (name == AMPDialect::kRoleAttrName) {
    auto role = dyn_cast<RoleAttr>(attribute.getValue());
    if (!role)
      return op->emitOpError()
             << where << ": 'amp.role' must be an #amp.role<...> attribute";
    return verifyRole(op, where, role.getValue(), type, isResult);
  }
  if (name == AMPDialect::kNameAttrName) {
    auto str = dyn_cast<StringAttr>(attribute.getValue());
    if (!str || str.getValue().empty())
      return op->emitOpError()
             << where << ": 'amp.name' must be a non-empty string";
    return success();
  }
  if (name == AMPDialect::kCopyOfAttrName) {
    auto str = dyn_cast<StringAttr>(attribute.getValue());
    if (!str || str.getValue().empty())
      return op->emitOpError()
             << where << ": 'amp.copy_of' must be a non-empty string";
    return success();
  }
  return op->emitOpError() << where << ": unknown amp attribute '" << name
                           << "'";
}

/// A training step returns its state updated, in the order it takes it
/// (TrainingStep::getStatePairs).
LogicalResult verifyThreadedState(TrainingStep step, Role role) {
  FunctionOpInterface function = step.getFunction();
  size_t in = step.getArguments(role).size();
  size_t out = step.getResults(role).size();
  if (in != out)
    return function->emitOpError()
           << "is a training step with " << in << " '" << stringifyRole(role)
           << "' arguments but " << out
           << " such results; state must be threaded through";
  for (auto [index, pair] : llvm::enumerate(step.getStatePairs(role))) {
    Type argType = function.getArgumentTypes()[pair.argument];
    Type resultType = function.getResultTypes()[pair.result];
    if (argType != resultType)
      return function->emitOpError()
             << "'" << stringifyRole(role) << "' #" << index << " is taken as "
             << argType << " but returned as " << resultType;
  }
  return success();
}

/// Each `amp.copy_of` argument of a training step is a buffer of f16 or
/// bf16 with the shape of the f32 parameter argument it names.
LogicalResult verifyCopies(TrainingStep step) {
  FunctionOpInterface function = step.getFunction();
  ArrayRef<Type> types = function.getArgumentTypes();
  for (size_t i = 0; i < types.size(); ++i) {
    StringRef source = getCopyOf(step.getArgumentAttrs(i));
    if (source.empty())
      continue;
    auto fail = [&]() -> InFlightDiagnostic {
      return function->emitOpError()
             << "argument #" << i << " is 'amp.copy_of' \"" << source
             << "\" but ";
    };
    if (step.getArgumentRole(i) != Role::Buffer)
      return fail() << "is not a 'buffer'";
    std::optional<size_t> master;
    for (unsigned j : step.getArguments(Role::Parameter))
      if (getAMPName(step.getArgumentAttrs(j)) == source)
        master = j;
    if (!master)
      return fail() << "no 'parameter' argument has that amp.name";
    auto copyType = cast<RankedTensorType>(types[i]);
    auto masterType = dyn_cast<RankedTensorType>(types[*master]);
    if (!masterType || !masterType.getElementType().isF32() ||
        masterType.getShape() != copyType.getShape() ||
        !isa<Float16Type, BFloat16Type>(copyType.getElementType()))
      return fail() << "is " << copyType
                    << ", not an f16 or bf16 tensor of the shape of that f32 "
                       "parameter ("
                    << types[*master] << ")";
  }
  return success();
}

LogicalResult verifyGraph(FunctionOpInterface function, GraphKind kind) {
  TrainingStep step(function);
  size_t losses = step.getResults(Role::Loss).size();
  if (kind == GraphKind::Forward) {
    if (losses > 1)
      return function->emitOpError() << "is a forward model with " << losses
                                     << " loss results; mark at most one";
    return success();
  }
  if (losses != 1)
    return function->emitOpError()
           << "is a training step with " << losses
           << " loss results; it must return exactly one";
  if (failed(verifyNoZeroSizeTensors(function)))
    return failure();
  for (Role role : getStateRoles())
    if (failed(verifyThreadedState(step, role)))
      return failure();
  return verifyCopies(step);
}
} // namespace

//===----------------------------------------------------------------------===//
// Mixed-precision op attributes
//===----------------------------------------------------------------------===//
//
// Written and read by the precision passes (amp/Dialect/AMP/Transforms/
// Precision.h names them; docs/Precision.md, section 4):
//   amp.precision = f32|f16|bf16      the type the op computes in
//   amp.precision_rule = "..."        why (next to amp.precision)
//   amp.pin = f32|f16|bf16            a user pin the passes respect
//   amp.autocast_disabled             on an op with regions or a call
//   amp.fp8 = "..."                   amp-fp8's choice for a contraction

namespace {
constexpr StringLiteral kPrecisionAttrName = "amp.precision";
constexpr StringLiteral kPrecisionRuleAttrName = "amp.precision_rule";
constexpr StringLiteral kPinAttrName = "amp.pin";
constexpr StringLiteral kAutocastDisabledAttrName = "amp.autocast_disabled";
constexpr StringLiteral kFp8AttrName = "amp.fp8";

/// amp.precision and amp.pin: f32, f16 or bf16 on an op with a precision.
LogicalResult verifyPrecisionTypeAttribute(Operation *op, StringRef name,
                                           Attribute value) {
  auto type = dyn_cast<TypeAttr>(value);
  if (!type || !isa<Float32Type, Float16Type, BFloat16Type>(type.getValue()))
    return op->emitOpError() << "'" << name << "' must be f32, f16 or bf16";
  if (!isa<PrecisionOpInterface>(op))
    return op->emitOpError()
           << "'" << name
           << "' is only valid on ops with a precision category "
              "(PrecisionOpInterface)";
  return success();
}

/// amp.state_updates: per result of `function`, an argument or -1.
LogicalResult verifyStateUpdates(FunctionOpInterface function, StringRef name,
                                 ArrayRef<int32_t> updates) {
  if (updates.size() != function.getNumResults())
    return function->emitOpError()
           << "'" << name << "' has " << updates.size() << " entries for "
           << function.getNumResults() << " results";
  for (auto [index, argument] : llvm::enumerate(updates))
    if (argument < -1 || argument >= int32_t(function.getNumArguments()))
      return function->emitOpError()
             << "'" << name << "' names argument " << argument << " for result "
             << index << ", which is not an argument";
  return success();
}

/// amp.updated_in_place: argument positions of `function`, ascending.
LogicalResult verifyUpdatedInPlace(FunctionOpInterface function, StringRef name,
                                   ArrayRef<int32_t> positions) {
  for (size_t i = 0; i < positions.size(); ++i)
    if (positions[i] < 0 ||
        positions[i] >= int32_t(function.getNumArguments()) ||
        (i && positions[i] <= positions[i - 1]))
      return function->emitOpError()
             << "'" << name
             << "' must list argument positions in ascending order";
  return success();
}

/// The function attributes of lowering (amp.state_updates,
/// amp.updated_in_place): an array<i32> on a function, then its own rules.
LogicalResult verifyFunctionArray(Operation *op, StringRef name,
                                  Attribute value) {
  auto function = dyn_cast<FunctionOpInterface>(op);
  auto array = dyn_cast<DenseI32ArrayAttr>(value);
  if (!function || !array)
    return op->emitOpError()
           << "'" << name << "' must be an array<i32> on a function";
  if (name == AMPDialect::kStateUpdatesAttrName)
    return verifyStateUpdates(function, name, array.asArrayRef());
  return verifyUpdatedInPlace(function, name, array.asArrayRef());
}
} // namespace

LogicalResult AMPDialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attribute) {
  StringRef name = attribute.getName().getValue();
  if (name == kPrecisionAttrName || name == kPinAttrName)
    return verifyPrecisionTypeAttribute(op, name, attribute.getValue());
  if (name == kPrecisionRuleAttrName) {
    auto rule = dyn_cast<StringAttr>(attribute.getValue());
    if (!rule || rule.getValue().empty())
      return op->emitOpError()
             << "'amp.precision_rule' must be a non-empty string";
    if (!op->hasAttr(kPrecisionAttrName))
      return op->emitOpError()
             << "'amp.precision_rule' explains 'amp.precision', which the op "
                "does not have";
    return success();
  }
  if (name == kAutocastDisabledAttrName) {
    if (!isa<UnitAttr>(attribute.getValue()))
      return op->emitOpError() << "'amp.autocast_disabled' is a unit attribute";
    if (op->getNumRegions() == 0 && !isa<CallOpInterface>(op))
      return op->emitOpError()
             << "'amp.autocast_disabled' is only valid on an op with regions "
                "or a call; pin a single op with amp.pin = f32";
    return success();
  }
  if (name == kFp8AttrName) {
    auto text = dyn_cast<StringAttr>(attribute.getValue());
    if (!text || text.getValue().empty() ||
        !isa<LinearOp, MatmulOp, Fp8MatmulOp>(op))
      return op->emitOpError() << "'amp.fp8' is a non-empty string on "
                                  "amp.linear, amp.matmul or amp.fp8_matmul";
    return success();
  }
  if (name == kStateUpdatesAttrName || name == kUpdatedInPlaceAttrName)
    return verifyFunctionArray(op, name, attribute.getValue());
  if (name != kGraphAttrName)
    return op->emitOpError()
           << "unknown amp attribute '" << name << "' on an operation";
  auto function = dyn_cast<FunctionOpInterface>(op);
  if (!function)
    return op->emitOpError() << "'amp.graph' is only valid on a function";
  auto kind = dyn_cast<GraphKindAttr>(attribute.getValue());
  if (!kind)
    return op->emitOpError() << "'amp.graph' must be #amp.graph<forward> or "
                                "#amp.graph<training_step>";
  // The rules depend on the signature only, so declarations follow them too.
  return verifyGraph(function, kind.getValue());
}

LogicalResult AMPDialect::verifyRegionArgAttribute(Operation *op,
                                                   unsigned regionIndex,
                                                   unsigned argIndex,
                                                   NamedAttribute attribute) {
  // A function's type, not its entry block, is the truth for its arguments
  // (the two are checked against each other later).
  Type type;
  if (auto function = dyn_cast<FunctionOpInterface>(op)) {
    type = function.getArgumentTypes()[argIndex];
  } else {
    Region &region = op->getRegion(regionIndex);
    if (region.empty() || argIndex >= region.getNumArguments())
      return op->emitOpError() << "has no region argument #" << argIndex;
    type = region.getArgument(argIndex).getType();
  }
  std::string where = ("argument #" + Twine(argIndex)).str();
  return verifyContractAttribute(op, where, attribute, type,
                                 /*isResult=*/false);
}

LogicalResult
AMPDialect::verifyRegionResultAttribute(Operation *op, unsigned regionIndex,
                                        unsigned resultIndex,
                                        NamedAttribute attribute) {
  auto function = dyn_cast<FunctionOpInterface>(op);
  if (!function)
    return op->emitOpError()
           << "amp result attributes are only valid on functions";
  std::string where = ("result #" + Twine(resultIndex)).str();
  return verifyContractAttribute(op, where, attribute,
                                 function.getResultTypes()[resultIndex],
                                 /*isResult=*/true);
}
