//===- ModelDescription.cpp - the model as the runtime sees it ------------===//
//
// The tensors of a training step (roles, element types, shapes, how each
// starts) and its entry points, for the descriptor of a compiled library.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/AMP/IR/AMPDialect.h"
#include "amp/Dialect/AMP/IR/AMPOps.h"
#include "amp/Dialect/AMP/IR/TrainingStep.h"
#include "amp/Dialect/AMP/Transforms/Nonfinite.h"
#include "amp/Target/ModelLibrary/ModelLibrary.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/MathExtras.h"

#include <cstdio>
#include <limits>
#include <unistd.h>

using namespace mlir;
using namespace mlir::amp;

void InitialValues::add(StringRef name, ArrayRef<char> data) {
  offsetAndSize[name] = {blob.size(), data.size()};
  blob.append(data.begin(), data.end());
  blob.resize(llvm::alignTo(blob.size(), 64), '\0');
}

namespace {
FailureOr<amp_dtype> dtypeOf(Location loc, Type elementType) {
  if (elementType.isF32())
    return AMP_DTYPE_F32;
  if (elementType.isF16())
    return AMP_DTYPE_F16;
  if (elementType.isBF16())
    return AMP_DTYPE_BF16;
  if (elementType.isInteger(64))
    return AMP_DTYPE_I64;
  if (elementType.isInteger(32))
    return AMP_DTYPE_I32;
  if (elementType.isInteger(1))
    return AMP_DTYPE_I1;
  return emitError(loc) << "element type " << elementType
                        << " is not supported by the model ABI";
}

FailureOr<TensorDescription> describeTensor(Location loc, Type type,
                                            DictionaryAttr attrs,
                                            const Twine &fallbackName) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return emitError(loc) << "the model ABI needs statically shaped tensors, "
                             "got "
                          << type << " for '" << fallbackName << "'";
  TensorDescription description;
  description.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
  FailureOr<amp_dtype> dtype = dtypeOf(loc, tensor.getElementType());
  if (failed(dtype))
    return failure();
  description.dtype = *dtype;
  description.name = fallbackName.str();
  if (attrs) {
    if (auto name = attrs.getAs<StringAttr>(AMPDialect::kNameAttrName))
      description.name = name.str();
    if (auto role = attrs.getAs<RoleAttr>(AMPDialect::kRoleAttrName))
      description.role = role.getValue();
  }
  return description;
}

/// How a state tensor starts: PyTorch's defaults where the name tells what
/// the tensor is (norm scales and running variances start at one), the
/// fan-in uniform for weight matrices, zeros otherwise.
void chooseInit(TensorDescription &tensor, double learningRate) {
  StringRef name = tensor.name;
  bool isScale = name.ends_with("weight") && tensor.shape.size() <= 1;
  switch (tensor.role) {
  case Role::Parameter:
    if (tensor.shape.size() >= 2) {
      tensor.init = AMP_INIT_UNIFORM_FAN_IN;
      tensor.fanIn = 1;
      for (int64_t dim : ArrayRef<int64_t>(tensor.shape).drop_front())
        tensor.fanIn *= dim;
    } else if (isScale) {
      tensor.init = AMP_INIT_ONES;
    }
    return;
  case Role::Buffer:
    if (name.ends_with("running_var"))
      tensor.init = AMP_INIT_ONES;
    return;
  case Role::Hyperparameter:
    if (name == AMP_STATE_LEARNING_RATE) {
      tensor.init = AMP_INIT_CONSTANT;
      tensor.initConstant = learningRate;
    }
    return;
  default:
    return;
  }
}

/// Integer labels feeding a cross-entropy take values in [0, classes).
int64_t labelRangeOf(BlockArgument label) {
  for (Operation *user : label.getUsers())
    if (auto loss = dyn_cast<CrossEntropyOp>(user))
      if (loss.getLabels() == label)
        return cast<RankedTensorType>(loss.getLogits().getType()).getDimSize(1);
  return 0;
}

FailureOr<EntryDescription> describeEntry(func::FuncOp function,
                                          StringRef symbol,
                                          ArrayRef<TensorDescription> tensors,
                                          bool mapByName) {
  EntryDescription entry;
  entry.symbol = symbol.str();
  for (unsigned i = 0; i < function.getNumArguments(); ++i) {
    FailureOr<TensorDescription> arg =
        describeTensor(function.getLoc(), function.getArgumentTypes()[i],
                       function.getArgAttrDict(i), "arg" + Twine(i));
    if (failed(arg))
      return failure();
    if (!mapByName) {
      entry.args.push_back(i);
      continue;
    }
    auto it = llvm::find_if(tensors, [&](const TensorDescription &tensor) {
      return tensor.name == arg->name;
    });
    if (it == tensors.end())
      return function.emitError()
             << "argument '" << arg->name
             << "' of the forward model is not a tensor of the training step";
    entry.args.push_back(it - tensors.begin());
  }
  // The step's state results replace the state arguments they update (the
  // training step's pairing rule); the tensors are the step's arguments.
  TrainingStep view(function);
  for (unsigned i = 0; i < function.getNumResults(); ++i) {
    FailureOr<TensorDescription> result =
        describeTensor(function.getLoc(), function.getResultTypes()[i],
                       function.getResultAttrDict(i), "result" + Twine(i));
    if (failed(result))
      return failure();
    std::optional<unsigned> updated =
        mapByName ? std::nullopt : view.getUpdatedArgument(i);
    int32_t update = updated ? int32_t(*updated) : -1;
    Role role = result->role;
    if (role == Role::Loss)
      entry.lossResult = i;
    if (role == Role::Skipped)
      entry.skippedResult = i;
    entry.resultUpdates.push_back(update);
    entry.resultInPlace.push_back(0);
    entry.results.push_back(*result);
  }
  if (auto sites = function->getAttrOfType<ArrayAttr>(kIndexSitesAttrName))
    for (auto site : sites.getAsRange<StringAttr>())
      entry.indexSites.push_back(site.str());
  return entry;
}

/// The sites amp-instrument-nonfinite listed on the step, if any.
std::vector<NonfiniteSite> describeNonfiniteSites(func::FuncOp step) {
  std::vector<NonfiniteSite> sites;
  auto table = step->getAttrOfType<ArrayAttr>(kNonfiniteSitesAttrName);
  if (!table)
    return sites;
  for (auto site : table.getAsRange<DictionaryAttr>()) {
    auto field = [&](StringRef key) {
      auto value = site.getAs<StringAttr>(key);
      return value ? value.str() : std::string();
    };
    auto rows = [&](StringRef key) -> std::optional<SmallVector<int64_t>> {
      if (auto array = site.getAs<DenseI64ArrayAttr>(key))
        return llvm::to_vector(array.asArrayRef());
      return std::nullopt;
    };
    sites.push_back(
        {field("kind"), field("name"), field("location"), field("precision"),
         rows("results").value_or(SmallVector<int64_t>()),
         rows("operands").value_or(SmallVector<int64_t>()), rows("f32")});
  }
  return sites;
}
} // namespace

FailureOr<ModelDescription>
mlir::amp::describeModel(func::FuncOp step, func::FuncOp forward,
                         const InitialValues &initial, double learningRate) {
  ModelDescription model;
  for (unsigned i = 0; i < step.getNumArguments(); ++i) {
    FailureOr<TensorDescription> tensor =
        describeTensor(step.getLoc(), step.getArgumentTypes()[i],
                       step.getArgAttrDict(i), "arg" + Twine(i));
    if (failed(tensor))
      return failure();
    chooseInit(*tensor, learningRate);
    auto value = initial.offsetAndSize.find(tensor->name);
    if (value != initial.offsetAndSize.end()) {
      tensor->init = AMP_INIT_VALUES;
      tensor->initOffset = value->second.first;
    }
    if (tensor->role == Role::Label)
      tensor->labelRange = labelRangeOf(step.getArgument(i));
    if (llvm::any_of(model.tensors, [&](const TensorDescription &other) {
          return other.name == tensor->name;
        }))
      return step.emitError() << "two arguments are named '" << tensor->name
                              << "': amp.name must be unique";
    model.tensors.push_back(*tensor);
  }
  // Low-precision copies of master weights start as their master rounded
  // (the dialect verified that the master exists and matches).
  for (unsigned i = 0; i < step.getNumArguments(); ++i) {
    StringRef master = getCopyOf(step.getArgAttrDict(i));
    if (master.empty())
      continue;
    auto source = llvm::find_if(model.tensors, [&](const TensorDescription &t) {
      return t.name == master;
    });
    model.tensors[i].init = AMP_INIT_COPY_OF;
    model.tensors[i].copyOf = source - model.tensors.begin();
  }
  FailureOr<EntryDescription> entry =
      describeEntry(step, kTrainStepSymbol, model.tensors, /*mapByName=*/false);
  if (failed(entry))
    return failure();
  model.step = *entry;
  model.nonfiniteSites = describeNonfiniteSites(step);
  if (forward) {
    FailureOr<EntryDescription> eval =
        describeEntry(forward, kEvalSymbol, model.tensors, /*mapByName=*/true);
    if (failed(eval))
      return failure();
    model.eval = *eval;
  }
  return model;
}

//===----------------------------------------------------------------------===//
// Memory: tensor sizes
//===----------------------------------------------------------------------===//

namespace {
/// The bytes a static tensor of `type` holds, or nothing when that
/// overflows int64 (then neither the runtime nor the lowering can index it).
std::optional<int64_t> tensorBytes(RankedTensorType type) {
  Type element = type.getElementType();
  int64_t bytes =
      element.isIntOrFloat()
          ? std::max<int64_t>(1, element.getIntOrFloatBitWidth() / 8)
          : 8;
  for (int64_t dim : type.getShape())
    if (!ShapedType::isDynamic(dim) && llvm::MulOverflow(bytes, dim, bytes))
      return std::nullopt;
  return bytes;
}

LogicalResult checkTensorBytes(Location loc, Type type, const Twine &name) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || tensorBytes(tensor))
    return success();
  return emitError(loc) << "tensor " << name << " (" << type
                        << ") is too large: its size in bytes overflows a "
                           "64-bit integer";
}

} // namespace

LogicalResult mlir::amp::checkTensorSizes(ModuleOp module) {
  for (auto function : module.getOps<func::FuncOp>()) {
    for (auto [index, type] : llvm::enumerate(function.getArgumentTypes())) {
      StringRef name = getAMPName(function.getArgAttrDict(index));
      if (failed(checkTensorBytes(function.getLoc(), type,
                                  name.empty()
                                      ? "argument #" + Twine(index) + " of @" +
                                            function.getSymName()
                                      : "'" + name + "'")))
        return failure();
    }
    WalkResult walk = function.walk([](Operation *op) {
      for (OpResult result : op->getResults())
        if (failed(checkTensorBytes(
                op->getLoc(), result.getType(),
                "result #" + Twine(result.getResultNumber()) + " of '" +
                    op->getName().getStringRef() + "'")))
          return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();
  }
  return success();
}

namespace {
int64_t addSaturated(int64_t a, int64_t b) {
  int64_t sum;
  return llvm::AddOverflow(a, b, sum) ? std::numeric_limits<int64_t>::max()
                                      : sum;
}

std::string gibibytes(int64_t bytes) {
  char text[40];
  snprintf(text, sizeof(text), "%.1f GiB",
           double(bytes) / double(int64_t(1) << 30));
  return text;
}

/// What the library allocates at least: the step's arguments (the state,
/// inputs and hyper-parameters), the step's and the evaluation's results,
/// and the largest intermediate tensor of the step.
int64_t minimumModelBytes(func::FuncOp step, func::FuncOp forward) {
  auto bytesOf = [](Type type) -> int64_t {
    auto tensor = dyn_cast<RankedTensorType>(type);
    return tensor ? tensorBytes(tensor).value_or(
                        std::numeric_limits<int64_t>::max())
                  : 0;
  };
  int64_t total = 0, largest = 0;
  for (Type type : step.getArgumentTypes())
    total = addSaturated(total, bytesOf(type));
  for (Type type : step.getResultTypes())
    total = addSaturated(total, bytesOf(type));
  if (forward)
    for (Type type : forward.getResultTypes())
      total = addSaturated(total, bytesOf(type));
  step.walk([&](Operation *op) {
    for (Type type : op->getResultTypes())
      largest = std::max(largest, bytesOf(type));
  });
  return addSaturated(total, largest);
}
} // namespace

std::optional<std::string>
mlir::amp::checkPhysicalMemory(func::FuncOp step, func::FuncOp forward) {
  int64_t total = minimumModelBytes(step, forward);
  long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGE_SIZE);
  int64_t physical;
  if (pages <= 0 || pageSize <= 0 ||
      llvm::MulOverflow(int64_t(pages), int64_t(pageSize), physical) ||
      total <= physical)
    return std::nullopt;
  return "the model needs at least " + gibibytes(total) +
         " (its state, inputs and results, and the largest intermediate "
         "tensor of the training step), more than this machine's physical "
         "memory (" +
         gibibytes(physical) + "); creating its state will fail here";
}

LogicalResult mlir::amp::prepareEntryPoints(ModuleOp module, func::FuncOp step,
                                            func::FuncOp forward) {
  // The target pipeline builds a model-ABI entry: it may update state in
  // place (recordUpdatesInPlace reads which).
  for (auto function : module.getOps<func::FuncOp>())
    stripContractAttributes(function, /*keepStateUpdates=*/true);
  SymbolTable symbols(module);
  if (failed(symbols.rename(step, kTrainStepSymbol)))
    return step.emitError("cannot rename the training step");
  if (forward && failed(symbols.rename(forward, kEvalSymbol)))
    return forward.emitError("cannot rename the forward model");
  for (auto function : module.getOps<func::FuncOp>())
    if (function != step && function != forward && !function.isExternal())
      function.setPrivate();
  return success();
}

LogicalResult mlir::amp::recordUpdatesInPlace(ModuleOp module,
                                              ModelDescription &model) {
  Operation *entry = SymbolTable::lookupSymbolIn(module, model.step.symbol);
  if (!entry)
    return module.emitError()
           << "the lowered module has no '" << model.step.symbol << "'";
  EntryDescription &step = model.step;
  for (int32_t argument : getUpdatedInPlace(entry)) {
    auto result = llvm::find(step.resultUpdates, argument);
    if (result == step.resultUpdates.end())
      return entry->emitError() << "argument " << argument
                                << " is updated in place but no result of "
                                   "the training step updates it";
    step.resultInPlace[result - step.resultUpdates.begin()] = 1;
  }
  entry->removeAttr(AMPDialect::kUpdatedInPlaceAttrName);
  return success();
}
