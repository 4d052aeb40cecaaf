//===- amp-compile.cpp - compile a training graph to a shared library -----===//
//
// amp-compile MODEL.mlir --target=cpu|cuda --precision=fp32|fp16|bf16 -o LIB.so
//
// Reads a graph in the amp dialect, builds its training step (autodiff when
// the model is a forward model, then the mixed-precision passes), lowers the
// step and the forward model to machine code (for cuda: host code plus
// kernels embedded as a fatbin) and links them with the model runtime (and
// for cuda our CUDA runtime) into a library with the C ABI of
// include/amp/Runtime/ModelABI.h.
//
//===----------------------------------------------------------------------===//

#include "amp/Conversion/Passes.h"
#include "amp/Dialect/AMP/IR/AMPDialect.h"
#include "amp/Dialect/AMP/IR/AMPOps.h"
#include "amp/Dialect/AMP/IR/TrainingGraph.h"
#include "amp/Dialect/AMP/Transforms/Passes.h"
#include "amp/Dialect/AMP/Transforms/PrecisionPipeline.h"
#include "amp/Pipelines/Pipelines.h"
#include "amp/Runtime/ModelABI.h"
#include "amp/Support/ToolIO.h"
#include "amp/Target/Emulator/EmulatorTarget.h"
#ifdef AMP_ENABLE_ONNX_IMPORT
#include "amp/Target/ONNX/ONNXImporter.h"
#endif

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"

#include <cmath>
#include <limits>
#include <optional>
#include <unistd.h>

using namespace mlir;
namespace cl = llvm::cl;

namespace {
// `amp` is the dialect's namespace here; the tool support (OutputStream,
// readMLIRInput) is spelled ::amp.
namespace amp = mlir::amp;

cl::OptionCategory category("amp-compile options");

cl::opt<std::string> inputFilename(cl::Positional, cl::Required,
                                   cl::desc("<model.mlir|model.onnx>"),
                                   cl::cat(category));
cl::opt<std::string> outputFilename("o", cl::Required,
                                    cl::desc("Output shared library"),
                                    cl::value_desc("LIB.so"),
                                    cl::cat(category));
cl::list<std::string> inputShapes(
    "input-shape",
    cl::desc("For an ONNX model: the static shape of a graph input with "
             "dynamic dimensions, NAME=D0xD1x... (repeatable)"),
    cl::value_desc("name=shape"), cl::cat(category));
cl::opt<std::string> target("target", cl::init("cpu"),
                            cl::desc("Target: cpu, cuda or cuda-emulator (the "
                                     "GPU code on an emulated CUDA device)"),
                            cl::cat(category));
cl::opt<std::string> chip("chip", cl::init("sm_90"),
                          cl::desc("GPU architecture for --target=cuda"),
                          cl::cat(category));
cl::opt<bool> allowTF32("allow-tf32",
                        cl::desc("Let fp32 GEMMs use TF32 tensor cores "
                                 "(--target=cuda)"),
                        cl::cat(category));
cl::opt<std::string> precision("precision", cl::init("fp32"),
                               cl::desc("fp32, fp16 or bf16"),
                               cl::cat(category));
cl::opt<std::string>
    optLevel("opt-level", cl::init("O1"),
             cl::desc("Apex-style AMP level for fp16/bf16: O0, O1, O2 or O3"),
             cl::cat(category));
cl::opt<std::string> optimizer("optimizer", cl::init("sgd"),
                               cl::desc("Optimizer for a forward model: sgd "
                                        "or adamw"),
                               cl::cat(category));
cl::opt<std::string>
    lossKind("loss", cl::init("none"),
             cl::desc("Loss to append to a model that returns logits: none, "
                      "cross_entropy or mse"),
             cl::cat(category));
cl::opt<double> learningRate("lr", cl::init(0.01),
                             cl::desc("Initial learning rate"),
                             cl::cat(category));
cl::opt<double> momentum("momentum", cl::init(0.0), cl::desc("SGD momentum"),
                         cl::cat(category));
cl::opt<double> weightDecay("weight-decay", cl::init(0.0),
                            cl::desc("Weight decay"), cl::cat(category));
cl::opt<double> maxGradNorm("max-grad-norm", cl::init(0.0),
                            cl::desc("Clip gradients to this global norm"),
                            cl::cat(category));
cl::opt<std::string>
    lossScale("loss-scale", cl::init("auto"),
              cl::desc("Loss scaling: auto (dynamic for fp16, none otherwise), "
                       "dynamic, static or none"),
              cl::cat(category));
cl::opt<double> initScale("init-scale", cl::init(65536.0),
                          cl::desc("Initial (or static) loss scale"),
                          cl::cat(category));
cl::opt<int64_t>
    growthInterval("growth-interval", cl::init(2000),
                   cl::desc("Clean steps before the dynamic scale grows"),
                   cl::cat(category));
cl::opt<int64_t> hysteresis("hysteresis", cl::init(1),
                            cl::desc("Overflows before the scale backs off"),
                            cl::cat(category));
cl::opt<bool>
    errorAtMin("error-at-min",
               cl::desc("Fail a step when the scale is stuck at its minimum"),
               cl::cat(category));
cl::opt<std::string> emit("emit", cl::init("lib"),
                          cl::desc("What to write: lib (the shared library), "
                                   "mlir (the training step in the amp "
                                   "dialect) or llvm (the LLVM dialect)"),
                          cl::cat(category));
cl::opt<std::string> compiler("cxx", cl::init("c++"),
                              cl::desc("C++ compiler used to link"),
                              cl::cat(category));

std::string formatDouble(const char *format, double value) {
  char text[40];
  snprintf(text, sizeof(text), format, value);
  return text;
}

/// `value` printed so that it reads back as the same double (raw_ostream's
/// default keeps 6 digits).
std::string exact(double value) { return formatDouble("%.17g", value); }

/// An error for the user: "amp-compile: error: <message>".
LogicalResult error(const Twine &message) {
  llvm::WithColor::error(llvm::errs(), "amp-compile") << message << "\n";
  return failure();
}

/// --chip must name an architecture that LLVM's NVPTX backend knows (an
/// unknown one crashes its code generator) and that CUDA 13 still builds
/// for (sm_75 and newer).
LogicalResult checkChip() {
  StringRef name = chip;
  unsigned number = 0;
  if (!name.starts_with("sm_") || name.drop_front(3).getAsInteger(10, number))
    return error("--chip=" + chip +
                 " is not an NVIDIA architecture such as sm_90");
  if (!amp::isNVPTXChip(name))
    return error("--chip=" + chip + " is not an architecture LLVM " +
                 LLVM_VERSION_STRING + " can generate code for");
  if (number < 75)
    return error("--chip=" + chip +
                 " is older than the CUDA 13 toolkit supports (sm_75 and "
                 "newer)");
  return success();
}

/// `--NAME=VALUE` must be finite and within [low, high]: refused here, a
/// non-finite value would reach the generated code (`inf` is no C++).
LogicalResult checkRange(StringRef name, double value, double low, double high,
                         StringRef expected) {
  if (std::isfinite(value) && value >= low && value <= high)
    return success();
  return error("--" + name + "=" + formatDouble("%g", value) +
               " is out of range: expected " + expected);
}

LogicalResult checkNumericOptions() {
  // Hyper-parameters and the loss scale are f32 tensors in the model.
  constexpr double kMaxF32 = std::numeric_limits<float>::max();
  constexpr double kMinF32 = std::numeric_limits<float>::denorm_min();
  constexpr StringLiteral kNonNegative = "a finite f32 value >= 0";
  if (failed(checkRange("lr", learningRate, 0, kMaxF32, kNonNegative)) ||
      failed(checkRange("momentum", momentum, 0, kMaxF32, kNonNegative)) ||
      failed(
          checkRange("weight-decay", weightDecay, 0, kMaxF32, kNonNegative)) ||
      failed(checkRange("max-grad-norm", maxGradNorm, 0, kMaxF32,
                        "a finite f32 value >= 0 (0: no clipping)")) ||
      failed(checkRange("init-scale", initScale, kMinF32, kMaxF32,
                        "a positive, finite f32 value")))
    return failure();
  if (growthInterval < 1)
    return error("--growth-interval=" + Twine(int64_t(growthInterval)) +
                 " is out of range: expected at least 1");
  if (hysteresis < 1)
    return error("--hysteresis=" + Twine(int64_t(hysteresis)) +
                 " is out of range: expected at least 1");
  return success();
}

LogicalResult checkOptions() {
  auto oneOf = [](const std::string &value, StringRef name,
                  std::initializer_list<StringRef> allowed) {
    if (llvm::is_contained(allowed, value))
      return success();
    std::string list;
    llvm::raw_string_ostream os(list);
    llvm::interleave(allowed, os, ", ");
    return error("--" + name + "=" + value + " is not one of " + list);
  };
  if (failed(oneOf(target, "target", {"cpu", "cuda", "cuda-emulator"})) ||
      failed(oneOf(precision, "precision", {"fp32", "fp16", "bf16"})) ||
      failed(oneOf(optLevel, "opt-level", {"O0", "O1", "O2", "O3"})) ||
      failed(oneOf(optimizer, "optimizer", {"sgd", "adamw"})) ||
      failed(oneOf(lossKind, "loss", {"none", "cross_entropy", "mse"})) ||
      failed(oneOf(lossScale, "loss-scale",
                   {"auto", "dynamic", "static", "none"})) ||
      failed(oneOf(emit, "emit", {"lib", "mlir", "llvm"})))
    return failure();
  if (failed(checkChip()))
    return failure();
  if (::amp::isSameFile(outputFilename, inputFilename))
    return error("-o '" + outputFilename +
                 "' is the input file; it would be overwritten");
  if (target != "cuda" && (chip.getNumOccurrences() || allowTF32) &&
      !(target == "cuda-emulator" && !chip.getNumOccurrences()))
    return error("--chip and --allow-tf32 apply to --target=cuda only "
                 "(--allow-tf32 also to cuda-emulator)");
  return checkNumericOptions();
}

//===----------------------------------------------------------------------===//
// Finding the graph and building the training step
//===----------------------------------------------------------------------===//

std::optional<amp::GraphKind> graphKind(func::FuncOp function) {
  auto kind = function->getAttrOfType<amp::GraphKindAttr>(
      amp::AMPDialect::kGraphAttrName);
  if (!kind)
    return std::nullopt;
  return kind.getValue();
}

func::FuncOp findGraph(ModuleOp module, amp::GraphKind kind) {
  for (auto function : module.getOps<func::FuncOp>())
    if (!function.isExternal() && graphKind(function) == kind)
      return function;
  return {};
}

LogicalResult runPipeline(ModuleOp module, StringRef pipeline) {
  // `pipeline` lists passes to run on the module itself.
  auto pm = PassManager::on<ModuleOp>(module.getContext());
  std::string errors;
  llvm::raw_string_ostream os(errors);
  if (failed(parsePassPipeline(pipeline, pm, os)))
    return error("cannot build the pipeline '" + pipeline + "': " + errors);
  return pm.run(module);
}

/// Makes sure the module has a training step: runs autodiff on a forward
/// model, then the mixed-precision pipeline.
LogicalResult buildTrainingStep(ModuleOp module) {
  if (!findGraph(module, amp::GraphKind::TrainingStep)) {
    if (!findGraph(module, amp::GraphKind::Forward))
      return error("'" + inputFilename +
                   "' has neither a training step (amp.graph = "
                   "#amp.graph<training_step>) nor a forward model "
                   "(#amp.graph<forward>)");
    std::string autodiff;
    llvm::raw_string_ostream os(autodiff);
    os << "amp-autodiff{optimizer=" << optimizer << " loss=" << lossKind
       << " momentum=" << exact(momentum)
       << " weight-decay=" << exact(weightDecay)
       << " max-grad-norm=" << exact(maxGradNorm) << "}";
    if (failed(runPipeline(module, autodiff)))
      return failure();
    if (!findGraph(module, amp::GraphKind::TrainingStep))
      return error("amp-autodiff made no training step");
  }
  std::string scaling;
  llvm::raw_string_ostream scalingOs(scaling);
  scalingOs << " init-scale=" << exact(initScale)
            << " growth-interval=" << growthInterval
            << " hysteresis=" << hysteresis
            << " error-at-min=" << (errorAtMin ? "true" : "false");
  if (precision == "fp32") {
    if (lossScale != "dynamic" && lossScale != "static")
      return success();
    return runPipeline(module,
                       "amp-loss-scaling{mode=" + lossScale + scaling + "}");
  }
  std::string amp;
  llvm::raw_string_ostream os(amp);
  // O2 is Apex's fp32 master weights with a low-precision model: the
  // optimizer updates also write the low-precision copies, which the
  // runtime initialises from the parameters (AMP_INIT_COPY_OF).
  os << "amp-pipeline{opt-level=" << optLevel << " precision=" << precision
     << " loss-scaling=" << lossScale << scaling
     << " master-weights=" << (optLevel == "O2" ? "true" : "false") << "}";
  return runPipeline(module, amp);
}

/// The forward model becomes the evaluation entry point, in evaluation mode
/// as PyTorch's model.eval(): batch norm normalizes with (and returns
/// unchanged) the running statistics, dropout passes its input through.
void setEvaluationMode(func::FuncOp forward) {
  forward.walk([](amp::BatchNormOp op) { op.setTraining(false); });
  forward.walk([](amp::DropoutOp op) {
    OpBuilder b(op);
    auto maskType = cast<RankedTensorType>(op.getMask().getType());
    Value keepAll = amp::ConstantOp::create(
        b, op.getLoc(), DenseElementsAttr::get(maskType, true));
    op.getOutput().replaceAllUsesWith(op.getInput());
    op.getMask().replaceAllUsesWith(keepAll);
    op.erase();
  });
}

/// amp_eval reports the loss the library trains. A forward model that
/// returns logits gets the loss amp-autodiff appended to the step (--loss),
/// on the label argument autodiff added; an unmarked scalar result, which
/// amp-autodiff takes as the loss, is marked as one.
void addEvaluationLoss(func::FuncOp forward, func::FuncOp step) {
  SmallVector<unsigned> outputs;
  for (unsigned i = 0; i < forward.getNumResults(); ++i) {
    std::optional<amp::Role> role = amp::getRole(forward.getResultAttrDict(i));
    if (role == amp::Role::Loss)
      return;
    if (!role || role == amp::Role::Output)
      outputs.push_back(i);
  }
  if (outputs.size() != 1)
    return;
  MLIRContext *context = forward.getContext();
  auto scalar = RankedTensorType::get({}, Float32Type::get(context));
  DictionaryAttr lossAttrs =
      amp::makeContractAttrs(context, amp::Role::Loss, "loss");
  if (lossKind == "none") {
    if (forward.getResultTypes()[outputs.front()] == scalar)
      forward.setResultAttrs(outputs.front(), lossAttrs);
    return;
  }
  // The label: the step's label argument that the forward model lacks.
  std::optional<unsigned> label;
  for (unsigned i = 0; i < step.getNumArguments(); ++i) {
    StringRef name = amp::getAMPName(step.getArgAttrDict(i));
    if (amp::getRole(step.getArgAttrDict(i)) == amp::Role::Label &&
        llvm::none_of(llvm::seq(forward.getNumArguments()), [&](unsigned j) {
          return amp::getAMPName(forward.getArgAttrDict(j)) == name;
        }))
      label = i;
  }
  if (!label)
    return;
  auto ret = cast<func::ReturnOp>(forward.getBody().front().getTerminator());
  unsigned labelIndex = forward.getNumArguments();
  (void)forward.insertArgument(labelIndex, step.getArgumentTypes()[*label],
                               step.getArgAttrDict(*label), ret.getLoc());
  OpBuilder b(ret);
  Value logits = ret.getOperand(outputs.front());
  Value labels = forward.getArgument(labelIndex);
  Value loss =
      lossKind == "cross_entropy"
          ? amp::CrossEntropyOp::create(b, ret.getLoc(), scalar, logits, labels)
                .getResult()
          : amp::MseLossOp::create(b, ret.getLoc(), scalar, logits, labels)
                .getResult();
  (void)forward.insertResult(forward.getNumResults(), scalar, lossAttrs);
  ret.getOperandsMutable().append(loss);
}

//===----------------------------------------------------------------------===//
// Describing the model for the runtime
//===----------------------------------------------------------------------===//

struct TensorDescription {
  std::string name;
  amp::Role role = amp::Role::Input;
  amp_dtype dtype = AMP_DTYPE_F32;
  SmallVector<int64_t> shape;
  amp_init init = AMP_INIT_ZEROS;
  double initConstant = 0;
  int64_t fanIn = 0;
  int64_t labelRange = 0;
  /// For AMP_INIT_COPY_OF: the index of the tensor this one copies.
  int32_t copyOf = -1;
  /// Offset of the initial contents in the blob of initial values.
  std::optional<size_t> initOffset;
};

/// Initial contents of state tensors by name (from an ONNX model's
/// initializers), packed into one blob the library embeds.
struct InitialValues {
  llvm::StringMap<std::pair<size_t, size_t>> offsetAndSize;
  std::string blob;
};

struct EntryDescription {
  std::string symbol;
  SmallVector<int32_t> args;
  SmallVector<TensorDescription> results;
  SmallVector<int32_t> resultUpdates;
  int32_t lossResult = -1;
  int32_t skippedResult = -1;
};

struct ModelDescription {
  SmallVector<TensorDescription> tensors;
  EntryDescription step;
  std::optional<EntryDescription> eval;
};

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
    if (auto name = attrs.getAs<StringAttr>(amp::AMPDialect::kNameAttrName))
      description.name = name.str();
    if (auto role = attrs.getAs<amp::RoleAttr>(amp::AMPDialect::kRoleAttrName))
      description.role = role.getValue();
  }
  return description;
}

/// How a state tensor starts: PyTorch's defaults where the name tells what
/// the tensor is (norm scales and running variances start at one), the
/// fan-in uniform for weight matrices, zeros otherwise.
void chooseInit(TensorDescription &tensor) {
  StringRef name = tensor.name;
  bool isScale = name.ends_with("weight") && tensor.shape.size() <= 1;
  switch (tensor.role) {
  case amp::Role::Parameter:
    if (tensor.shape.size() >= 2) {
      tensor.init = AMP_INIT_UNIFORM_FAN_IN;
      tensor.fanIn = 1;
      for (int64_t dim : ArrayRef<int64_t>(tensor.shape).drop_front())
        tensor.fanIn *= dim;
    } else if (isScale) {
      tensor.init = AMP_INIT_ONES;
    }
    return;
  case amp::Role::Buffer:
    if (name.ends_with("running_var"))
      tensor.init = AMP_INIT_ONES;
    return;
  case amp::Role::Hyperparameter:
    if (name == "lr") {
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
    if (auto loss = dyn_cast<amp::CrossEntropyOp>(user))
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
  // The k-th result with a state role replaces the k-th argument with it.
  DenseMap<amp::Role, unsigned> seenPerRole;
  for (unsigned i = 0; i < function.getNumResults(); ++i) {
    FailureOr<TensorDescription> result =
        describeTensor(function.getLoc(), function.getResultTypes()[i],
                       function.getResultAttrDict(i), "result" + Twine(i));
    if (failed(result))
      return failure();
    int32_t update = -1;
    amp::Role role = result->role;
    if (!mapByName &&
        (role == amp::Role::Parameter || role == amp::Role::Buffer ||
         role == amp::Role::OptimizerState || role == amp::Role::ScalerState)) {
      unsigned k = seenPerRole[role]++;
      for (auto [index, tensor] : llvm::enumerate(tensors))
        if (tensor.role == role && k-- == 0) {
          update = index;
          break;
        }
    }
    if (role == amp::Role::Loss)
      entry.lossResult = i;
    if (role == amp::Role::Skipped)
      entry.skippedResult = i;
    entry.resultUpdates.push_back(update);
    entry.results.push_back(*result);
  }
  return entry;
}

FailureOr<ModelDescription> describeModel(func::FuncOp step,
                                          func::FuncOp forward,
                                          const InitialValues &initial) {
  ModelDescription model;
  for (unsigned i = 0; i < step.getNumArguments(); ++i) {
    FailureOr<TensorDescription> tensor =
        describeTensor(step.getLoc(), step.getArgumentTypes()[i],
                       step.getArgAttrDict(i), "arg" + Twine(i));
    if (failed(tensor))
      return failure();
    chooseInit(*tensor);
    auto value = initial.offsetAndSize.find(tensor->name);
    if (value != initial.offsetAndSize.end()) {
      tensor->init = AMP_INIT_VALUES;
      tensor->initOffset = value->second.first;
    }
    if (tensor->role == amp::Role::Label)
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
    StringRef master = amp::getCopyOf(step.getArgAttrDict(i));
    if (master.empty())
      continue;
    auto source = llvm::find_if(model.tensors, [&](const TensorDescription &t) {
      return t.name == master;
    });
    model.tensors[i].init = AMP_INIT_COPY_OF;
    model.tensors[i].copyOf = source - model.tensors.begin();
  }
  FailureOr<EntryDescription> entry = describeEntry(
      step, "amp_train_step_impl", model.tensors, /*mapByName=*/false);
  if (failed(entry))
    return failure();
  model.step = *entry;
  if (forward) {
    FailureOr<EntryDescription> eval = describeEntry(
        forward, "amp_eval_impl", model.tensors, /*mapByName=*/true);
    if (failed(eval))
      return failure();
    model.eval = *eval;
  }
  return model;
}

//===----------------------------------------------------------------------===//
// Memory: tensor sizes and the machine
//===----------------------------------------------------------------------===//

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

/// Every tensor of every function (arguments by amp.name, op results by op)
/// has a byte size that fits in int64.
LogicalResult checkTensorSizes(ModuleOp module) {
  for (auto function : module.getOps<func::FuncOp>()) {
    for (auto [index, type] : llvm::enumerate(function.getArgumentTypes())) {
      StringRef name = amp::getAMPName(function.getArgAttrDict(index));
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

int64_t addSaturated(int64_t a, int64_t b) {
  int64_t sum;
  return llvm::AddOverflow(a, b, sum) ? std::numeric_limits<int64_t>::max()
                                      : sum;
}

std::string gibibytes(int64_t bytes) {
  return formatDouble("%.1f GiB", double(bytes) / double(int64_t(1) << 30));
}

/// Warns when what the library allocates at least (the step's arguments,
/// which are the state, inputs and hyper-parameters, the step's and the
/// evaluation's results, and the largest intermediate tensor of the step)
/// exceeds the machine's physical memory.
void warnAboutMemory(func::FuncOp step, func::FuncOp forward) {
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
  total = addSaturated(total, largest);
  long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGE_SIZE);
  int64_t physical;
  if (pages <= 0 || pageSize <= 0 ||
      llvm::MulOverflow(int64_t(pages), int64_t(pageSize), physical) ||
      total <= physical)
    return;
  llvm::WithColor::warning(llvm::errs(), "amp-compile")
      << "the model needs at least " << gibibytes(total)
      << " (its state, inputs and results, and the largest intermediate "
         "tensor of the training step), more than this machine's physical "
         "memory ("
      << gibibytes(physical) << "); creating its state will fail here\n";
}

//===----------------------------------------------------------------------===//
// Code generation
//===----------------------------------------------------------------------===//

/// Renames the entry points to the symbols the glue calls, makes every other
/// function private, and drops the contract attributes: the runtime has
/// them now, and they describe tensors, not the buffers lowering makes.
LogicalResult prepareEntryPoints(ModuleOp module, func::FuncOp step,
                                 func::FuncOp forward) {
  for (auto function : module.getOps<func::FuncOp>()) {
    function.removeArgAttrsAttr();
    function.removeResAttrsAttr();
    function->removeAttr(amp::AMPDialect::kGraphAttrName);
  }
  SymbolTable symbols(module);
  if (failed(symbols.rename(step, "amp_train_step_impl")))
    return error("cannot rename the training step");
  if (forward && failed(symbols.rename(forward, "amp_eval_impl")))
    return error("cannot rename the forward model");
  for (auto function : module.getOps<func::FuncOp>())
    if (function != step && function != forward && !function.isExternal())
      function.setPrivate();
  return success();
}

LogicalResult lowerToLLVMDialect(ModuleOp module) {
  PassManager pm(module.getContext());
  if (target == "cuda" || target == "cuda-emulator") {
    amp::GPUPipelineOptions options;
    options.modelABI = true;
    options.emulator = target == "cuda-emulator";
    options.emulatorLinker = compiler;
    options.chip = chip;
    options.allowTF32 = allowTF32;
    amp::buildGPUPipeline(pm, options);
  } else {
    amp::CPUPipelineOptions options;
    options.modelABI = true;
    amp::buildCPUPipeline(pm, options);
  }
  return pm.run(module);
}

/// The lowering must leave only the LLVM dialect (and, for cuda, the
/// serialized kernels and their launches): anything else cannot be
/// translated, and --emit=llvm must not print it as if it were a result.
LogicalResult checkLowered(ModuleOp module) {
  WalkResult walk = module->walk([](Operation *op) {
    if (isa<ModuleOp>(op) || isa<gpu::GPUDialect>(op->getDialect()) ||
        isa<LLVM::LLVMDialect>(op->getDialect()))
      return WalkResult::advance();
    op->emitError() << "'" << op->getName()
                    << "' was not lowered to the LLVM dialect";
    return WalkResult::interrupt();
  });
  return failure(walk.wasInterrupted());
}

std::unique_ptr<llvm::TargetMachine> hostTargetMachine() {
  llvm::Triple triple(llvm::sys::getDefaultTargetTriple());
  std::string message;
  const llvm::Target *llvmTarget =
      llvm::TargetRegistry::lookupTarget(triple, message);
  if (!llvmTarget) {
    (void)error("no LLVM target for " + triple.str() + ": " + message);
    return nullptr;
  }
  llvm::StringMap<bool> hostFeatures = llvm::sys::getHostCPUFeatures();
  llvm::SubtargetFeatures features;
  for (auto &feature : hostFeatures)
    features.AddFeature(feature.first(), feature.second);
  llvm::TargetOptions targetOptions;
  return std::unique_ptr<llvm::TargetMachine>(llvmTarget->createTargetMachine(
      triple, llvm::sys::getHostCPUName(), features.getString(), targetOptions,
      llvm::Reloc::PIC_));
}

LogicalResult writeObject(ModuleOp module, StringRef path) {
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, context);
  if (!llvmModule)
    return error("cannot translate the model to LLVM IR");
  std::unique_ptr<llvm::TargetMachine> machine = hostTargetMachine();
  if (!machine)
    return failure();
  llvmModule->setDataLayout(machine->createDataLayout());
  llvmModule->setTargetTriple(machine->getTargetTriple());
  auto optimize =
      makeOptimizingTransformer(/*optLevel=*/3, /*sizeLevel=*/0, machine.get());
  if (llvm::Error err = optimize(llvmModule.get()))
    return error("LLVM optimization failed: " + llvm::toString(std::move(err)));
  ::amp::OutputStream output;
  std::string message;
  if (!output.open(path, message))
    return error(message);
  llvm::legacy::PassManager codegen;
  if (machine->addPassesToEmitFile(codegen, output.os(), nullptr,
                                   llvm::CodeGenFileType::ObjectFile))
    return error("the target cannot emit object files");
  codegen.run(*llvmModule);
  if (!output.commit(message))
    return error(message);
  return success();
}

/// `text` escaped for the inside of a C string literal.
std::string cEscaped(StringRef text) {
  std::string result;
  for (char c : text) {
    if (c == '"' || c == '\\')
      result += '\\';
    if (llvm::isPrint(c)) {
      result += c;
    } else {
      char escape[8];
      snprintf(escape, sizeof(escape), "\\%03o", static_cast<unsigned char>(c));
      result += escape;
    }
  }
  return result;
}

/// A C string literal for `text`.
std::string quoted(StringRef text) { return "\"" + cEscaped(text) + "\""; }

void emitTensorInfos(llvm::raw_ostream &os, StringRef prefix,
                     ArrayRef<TensorDescription> tensors) {
  for (auto [index, tensor] : llvm::enumerate(tensors)) {
    os << "static const int64_t " << prefix << "_shape" << index << "[] = {";
    llvm::interleaveComma(tensor.shape, os);
    os << (tensor.shape.empty() ? "0" : "") << "};\n";
  }
  os << "static const amp_tensor_info " << prefix << "[] = {\n";
  for (auto [index, tensor] : llvm::enumerate(tensors)) {
    int64_t elements = 1;
    for (int64_t dim : tensor.shape)
      elements *= dim;
    os << "  {" << quoted(tensor.name) << ", "
       << static_cast<int32_t>(tensor.role) << ", " << tensor.dtype << ", "
       << tensor.shape.size() << ", " << prefix << "_shape" << index << ", "
       << elements << ", " << tensor.init << ", " << exact(tensor.initConstant)
       << ", " << tensor.fanIn << ", ";
    if (tensor.initOffset)
      os << "amp_initial_values + " << *tensor.initOffset;
    else
      os << "nullptr";
    os << ", " << tensor.labelRange << ", " << tensor.copyOf << "},\n";
  }
  if (tensors.empty())
    os << "  {}\n";
  os << "};\n";
}

void emitIntArray(llvm::raw_ostream &os, StringRef name,
                  ArrayRef<int32_t> values) {
  os << "static const int32_t " << name << "[] = {";
  llvm::interleaveComma(values, os);
  os << (values.empty() ? "0" : "") << "};\n";
}

void emitEntry(llvm::raw_ostream &os, StringRef prefix,
               const EntryDescription &entry) {
  size_t count = entry.args.size() + entry.results.size();
  os << "extern \"C\" void " << entry.symbol << "(";
  for (size_t i = 0; i < count; ++i)
    os << (i ? ", " : "") << "void *";
  os << ");\n";
  os << "static void " << prefix << "_packed(void **b) {\n  " << entry.symbol
     << "(";
  for (size_t i = 0; i < count; ++i)
    os << (i ? ", " : "") << "b[" << i << "]";
  os << ");\n}\n";
  emitIntArray(os, (prefix + "_args").str(), entry.args);
  emitIntArray(os, (prefix + "_updates").str(), entry.resultUpdates);
  emitTensorInfos(os, (prefix + "_results").str(), entry.results);
}

void emitEntryDescriptor(llvm::raw_ostream &os, StringRef prefix,
                         const EntryDescription &entry) {
  os << "{" << prefix << "_packed, " << entry.args.size() << ", " << prefix
     << "_args, " << entry.results.size() << ", " << prefix << "_results, "
     << prefix << "_updates, " << entry.lossResult << ", "
     << entry.skippedResult << "}";
}

std::string generateGlue(const ModelDescription &model, StringRef blobPath) {
  std::string glue;
  llvm::raw_string_ostream os(glue);
  bool cuda = target == "cuda" || target == "cuda-emulator";
  os << "// Generated by amp-compile: the model descriptor.\n"
     << "#include \"amp/Runtime/ModelDescriptor.h\"\n\n";
  // Initial values are embedded with .incbin rather than as a C array: a
  // ResNet's 45 MB would otherwise be a very large source file.
  os << "extern \"C\" const unsigned char amp_initial_values[];\n"
     << "__asm__(\".section .rodata\\n.balign 64\\n"
     << ".hidden amp_initial_values\\namp_initial_values:\\n.incbin "
     << "\\\"" << cEscaped(cEscaped(blobPath)) << "\\\""
     << "\\n.byte 0\\n.previous\");\n\n";
  emitTensorInfos(os, "tensors", model.tensors);
  emitEntry(os, "step", model.step);
  if (model.eval)
    emitEntry(os, "eval", *model.eval);
  os << "static const amp_model_descriptor descriptor = {AMP_ABI_VERSION, "
     << model.tensors.size() << ", tensors, ";
  emitEntryDescriptor(os, "step", model.step);
  os << ", " << (model.eval ? 1 : 0) << ", ";
  if (model.eval)
    emitEntryDescriptor(os, "eval", *model.eval);
  else
    os << "{}";
  os << ", " << (cuda ? "amp_cuda_device_ops" : "nullptr") << "};\n"
     << "extern \"C\" const amp_model_descriptor *amp_model_descriptor_get("
        "void) {\n  return &descriptor;\n}\n";
  return glue;
}

LogicalResult writeFile(StringRef path, StringRef contents) {
  std::string message;
  if (!::amp::writeOutput(path, contents, message))
    return error(message);
  return success();
}

/// The runtime archive and headers, next to the tool (bin/../lib,
/// bin/../include) in the build tree and once installed.
std::string toolPrefix(const char *argv0) {
  std::string executable =
      llvm::sys::fs::getMainExecutable(argv0, (void *)&toolPrefix);
  return llvm::sys::path::parent_path(llvm::sys::path::parent_path(executable))
      .str();
}

LogicalResult linkLibrary(StringRef prefix, StringRef glue, StringRef object,
                          StringRef output) {
  llvm::ErrorOr<std::string> cxx = llvm::sys::findProgramByName(compiler);
  if (!cxx)
    return error("cannot find the C++ compiler '" + compiler + "' (set --cxx)");
  std::string include = (prefix + "/include").str();
  std::string runtime = (prefix + "/lib/libamp_model_runtime.a").str();
  bool emulated = target == "cuda-emulator";
  // The emulator build of the CUDA runtime opens the emulated device
  // (libamp_cuda_emulator.so, found through the library's run path).
  std::string cudaRuntime =
      (prefix + (emulated ? "/lib/libamp_cuda_emulator_runtime.a"
                          : "/lib/libamp_cuda_runtime.a"))
          .str();
  std::string emulatorPath = "-Wl,-rpath," + prefix.str() + "/lib";
  for (StringRef archive : {StringRef(runtime), StringRef(cudaRuntime)})
    if (!llvm::sys::fs::exists(archive) &&
        (archive == runtime || target != "cpu"))
      return error("cannot find the runtime library " + archive +
                   (archive == runtime ? ""
                                       : " (amp was built without the CUDA "
                                         "toolkit; see AMP_CUDA_ROOT)"));
  SmallVector<StringRef> args = {*cxx,    "-O2",  "-shared",
                                 "-fPIC", "-I",   include,
                                 glue,    object, "-Wl,--whole-archive",
                                 runtime};
  // The CUDA runtime loads libcuda and libcublasLt itself (dlopen): the
  // library builds and loads on machines without a GPU driver.
  if (target != "cpu")
    args.append({cudaRuntime, "-ldl", "-lpthread"});
  if (emulated)
    args.push_back(emulatorPath);
  args.append({"-Wl,--no-whole-archive", "-lm", "-o", output});
  std::string message;
  int status =
      llvm::sys::ExecuteAndWait(*cxx, args, std::nullopt, {}, 0, 0, &message);
  if (status != 0)
    return error("linking the library failed (" + *cxx + " exited with " +
                 Twine(status) + (message.empty() ? "" : ": " + message) + ")");
  return success();
}

/// Compiles `module` into the library at `output`, through a temporary
/// directory; `output` is replaced only when everything succeeded.
LogicalResult compileLibrary(ModuleOp module, const ModelDescription &model,
                             const InitialValues &initial, StringRef prefix) {
  SmallString<128> directory;
  if (std::error_code ec =
          llvm::sys::fs::createUniqueDirectory("amp-compile", directory))
    return error("cannot create a temporary directory: " + ec.message());
  llvm::scope_exit cleanup(
      [&] { llvm::sys::fs::remove_directories(directory); });
  std::string object = (directory + "/model.o").str();
  std::string glue = (directory + "/glue.cpp").str();
  std::string library = (directory + "/model.so").str();
  std::string blob = (directory + "/initial-values.bin").str();
  if (failed(writeObject(module, object)) ||
      failed(writeFile(blob, initial.blob)) ||
      failed(writeFile(glue, generateGlue(model, blob))) ||
      failed(linkLibrary(prefix, glue, object, library)))
    return failure();
  // Through amp::OutputStream: a full disk leaves no partial library, a
  // device is written in place.
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> linked =
      llvm::MemoryBuffer::getFile(library, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!linked)
    return error("cannot read the linked library: " +
                 linked.getError().message());
  return writeFile(outputFilename, (*linked)->getBuffer());
}

/// Writes the module as text to the output (for --emit=mlir|llvm).
LogicalResult writeModule(ModuleOp module) {
  ::amp::OutputStream output;
  std::string message;
  if (!output.open(outputFilename, message))
    return error(message);
  module.print(output.os());
  if (!output.commit(message))
    return error(message);
  return success();
}

/// Reads the model: MLIR, or ONNX with its initializers as initial values.
OwningOpRef<ModuleOp> loadModel(MLIRContext &context, llvm::SourceMgr &sources,
                                InitialValues &initial) {
  if (!StringRef(inputFilename).ends_with(".onnx")) {
    if (!inputShapes.empty()) {
      (void)error("--input-shape applies to ONNX models (.onnx) only");
      return nullptr;
    }
    std::string message;
    std::unique_ptr<llvm::MemoryBuffer> input =
        ::amp::readMLIRInput(inputFilename, "amp-compile", message);
    if (!input) {
      llvm::errs() << message << "\n";
      return nullptr;
    }
    StringRef text = input->getBuffer();
    sources.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
    OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sources, &context);
    if (module &&
        !::amp::checkBytecodeNesting(text, inputFilename, *module, message)) {
      // Not destroyed: destroying deeply nested regions recurses too.
      (void)module.release();
      llvm::errs() << message << "\n";
      return nullptr;
    }
    return module;
  }
#ifdef AMP_ENABLE_ONNX_IMPORT
  amp::ONNXImportOptions options;
  options.inputShapeOption = "--input-shape";
  for (const std::string &entry : inputShapes) {
    std::string message;
    if (failed(amp::addInputShape(options.inputShapeOption, entry, options,
                                  message))) {
      (void)error(message);
      return nullptr;
    }
  }
  FailureOr<amp::ONNXImportResult> imported =
      amp::importONNXFile(inputFilename, &context, options);
  if (failed(imported))
    return nullptr;
  for (const amp::ONNXInitialValue &value : imported->initialValues) {
    initial.offsetAndSize[value.name] = {initial.blob.size(),
                                         value.data.size()};
    initial.blob.append(value.data.begin(), value.data.end());
    initial.blob.resize(llvm::alignTo(initial.blob.size(), 64), '\0');
  }
  return std::move(imported->module);
#else
  (void)error("this amp-compile was built without ONNX import (libonnx-dev "
              "was not found)");
  return nullptr;
#endif
}

LogicalResult compile(MLIRContext &context, const char *argv0) {
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  InitialValues initial;
  OwningOpRef<ModuleOp> module = loadModel(context, sourceMgr, initial);
  if (!module || failed(checkTensorSizes(*module)))
    return failure();
  // The dialect verifies this for training steps only (ONNX allows empty
  // tensors in forward models); neither lowers.
  if (func::FuncOp forward = findGraph(*module, amp::GraphKind::Forward))
    if (failed(amp::verifyNoZeroSizeTensors(forward)))
      return failure();
  if (failed(buildTrainingStep(*module)) || failed(checkTensorSizes(*module)))
    return failure();
  func::FuncOp step = findGraph(*module, amp::GraphKind::TrainingStep);
  func::FuncOp forward = findGraph(*module, amp::GraphKind::Forward);
  if (forward) {
    setEvaluationMode(forward);
    addEvaluationLoss(forward, step);
  }
  if (emit == "mlir")
    return writeModule(*module);
  FailureOr<ModelDescription> model = describeModel(step, forward, initial);
  if (failed(model))
    return failure();
  warnAboutMemory(step, forward);
  if (failed(prepareEntryPoints(*module, step, forward)) ||
      failed(lowerToLLVMDialect(*module)) || failed(checkLowered(*module)))
    return failure();
  if (emit == "llvm")
    return writeModule(*module);
  return compileLibrary(*module, *model, initial, toolPrefix(argv0));
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  registerAllPasses();
  mlir::amp::registerAMPConversionPasses();
  mlir::amp::registerAMPPipelines();
  mlir::amp::registerAMPPasses();
  mlir::amp::registerAMPPrecisionPipelines();
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "amp-compile: compile a training graph into a shared library\n");
  if (failed(checkOptions()))
    return 1;
  if (!llvm::sys::fs::exists(inputFilename))
    return failed(error("cannot open '" + inputFilename + "': no such file"))
               ? 1
               : 0;

  DialectRegistry registry;
  registry.insert<mlir::amp::AMPDialect>();
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  gpu::registerOffloadingLLVMTranslationInterfaceExternalModels(registry);
  registerNVVMDialectTranslation(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  mlir::amp::emulator::registerEmulatorTarget(registry);
  MLIRContext context(registry);
  // Diagnostics name the place and the reason; the IR of the failing op
  // (often a whole lowered kernel) is no help to a user of this tool.
  context.printOpOnDiagnostic(false);
  context.loadAllAvailableDialects();
  return failed(compile(context, argv[0])) ? 1 : 0;
}
