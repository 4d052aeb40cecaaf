//===- Driver.cpp - the compile flow of amp-compile as a library ----------===//
//
// Loading a model, the training pipeline around the model description and
// the output, shared by amp-compile and the Python package (python/).
//
//===----------------------------------------------------------------------===//

#include "amp/Driver/Driver.h"

#include "amp/Dialect/AMP/IR/AMPDialect.h"
#include "amp/Dialect/AMP/IR/TrainingStep.h"
#include "amp/Dialect/AMP/Transforms/Passes.h"
#include "amp/Support/ToolIO.h"
#include "amp/Target/Emulator/EmulatorTarget.h"
#ifdef AMP_ENABLE_ONNX_IMPORT
#include "amp/Target/ONNX/ONNXImporter.h"
#endif

#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/xxhash.h"

using namespace mlir;
using namespace mlir::amp;

void mlir::amp::registerCompileDialects(DialectRegistry &registry) {
  registry.insert<AMPDialect>();
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  gpu::registerOffloadingLLVMTranslationInterfaceExternalModels(registry);
  registerNVVMDialectTranslation(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  emulator::registerEmulatorTarget(registry);
}

bool mlir::amp::hasONNXImport() {
#ifdef AMP_ENABLE_ONNX_IMPORT
  return true;
#else
  return false;
#endif
}

#ifdef AMP_ENABLE_ONNX_IMPORT
namespace {
/// The ONNX import of a file or of bytes: the input shapes, then `import`,
/// then the initializers as initial values.
OwningOpRef<ModuleOp>
importONNX(ArrayRef<std::string> inputShapes, StringRef inputShapeOption,
           InitialValues &initial, std::string &message,
           function_ref<FailureOr<ONNXImportResult>(ONNXImportOptions &)>
               import) {
  ONNXImportOptions options;
  options.inputShapeOption = inputShapeOption.str();
  for (const std::string &entry : inputShapes)
    if (failed(
            addInputShape(options.inputShapeOption, entry, options, message)))
      return nullptr;
  FailureOr<ONNXImportResult> imported = import(options);
  if (failed(imported))
    return nullptr;
  for (const ONNXInitialValue &value : imported->initialValues)
    initial.add(value.name, value.data);
  return std::move(imported->module);
}
} // namespace
#endif

#ifndef AMP_ENABLE_ONNX_IMPORT
/// Without libonnx: the reason, for every ONNX entry point.
static constexpr StringLiteral kNoONNXMessage =
    "this amp was built without ONNX import (libonnx-dev was not found)";
#endif

OwningOpRef<ModuleOp> mlir::amp::importONNXModel(
    MLIRContext &context, StringRef bytes, StringRef modelName,
    ArrayRef<std::string> inputShapes, StringRef inputShapeOption,
    InitialValues &initial, std::string &message,
    const ONNXTensorRules &rules) {
#ifdef AMP_ENABLE_ONNX_IMPORT
  return importONNX(inputShapes, inputShapeOption, initial, message,
                    [&](ONNXImportOptions &options) {
                      options.trainable = rules.trainable;
                      for (const auto &[name, index] : rules.paddingIndices)
                        options.paddingIndices[name] = index;
                      return importONNXBuffer(bytes, modelName, &context,
                                              options);
                    });
#else
  message = kNoONNXMessage.str();
  return nullptr;
#endif
}

namespace {
OwningOpRef<ModuleOp> parseMLIRFile(MLIRContext &context,
                                    llvm::SourceMgr &sources, StringRef path,
                                    StringRef tool, std::string &message) {
  std::unique_ptr<llvm::MemoryBuffer> input =
      ::amp::readMLIRInput(path, tool, message);
  if (!input)
    return nullptr;
  StringRef text = input->getBuffer();
  sources.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sources, &context);
  if (module && !::amp::checkBytecodeNesting(text, path, *module, message)) {
    // Not destroyed: destroying deeply nested regions recurses too.
    (void)module.release();
    return nullptr;
  }
  return module;
}
} // namespace

OwningOpRef<ModuleOp>
mlir::amp::loadModelFile(MLIRContext &context, llvm::SourceMgr &sources,
                         StringRef path, ArrayRef<std::string> inputShapes,
                         StringRef inputShapeOption, StringRef tool,
                         InitialValues &initial, std::string &message) {
  auto toolError = [&](const Twine &text) -> OwningOpRef<ModuleOp> {
    message = (tool + ": error: " + text).str();
    return nullptr;
  };
  if (!path.ends_with(".onnx")) {
    if (!inputShapes.empty())
      return toolError(inputShapeOption +
                       " applies to ONNX models (.onnx) only");
    return parseMLIRFile(context, sources, path, tool, message);
  }
#ifdef AMP_ENABLE_ONNX_IMPORT
  OwningOpRef<ModuleOp> module =
      importONNX(inputShapes, inputShapeOption, initial, message,
                 [&](ONNXImportOptions &options) {
                   return importONNXFile(path, &context, options);
                 });
#else
  OwningOpRef<ModuleOp> module;
  message = kNoONNXMessage.str();
#endif
  if (!module && !message.empty())
    return toolError(message);
  return module;
}

namespace {
LogicalResult runPipeline(ModuleOp module,
                          function_ref<void(OpPassManager &)> build) {
  auto pm = PassManager::on<ModuleOp>(module.getContext());
  build(pm);
  return pm.run(module);
}

/// Writes the module as text to `path` (the IR outputs).
LogicalResult writeModule(ModuleOp module, StringRef path,
                          std::string &message) {
  ::amp::OutputStream output;
  if (!output.open(path, message))
    return failure();
  module.print(output.os());
  return success(output.commit(message));
}

/// The training step of a module that has a graph to train, checked for
/// what lowering cannot take.
LogicalResult buildTrainingStep(ModuleOp module,
                                const TrainingPipelineOptions &options,
                                const CompileRequest &request,
                                std::string &message) {
  if (failed(checkTensorSizes(module)))
    return failure();
  // The dialect verifies this for training steps only (ONNX allows empty
  // tensors in forward models); neither lowers.
  func::FuncOp forward = findForward<func::FuncOp>(module);
  if (forward && failed(verifyNoZeroSizeTensors(forward)))
    return failure();
  if (!forward && !findTrainingStep<func::FuncOp>(module)) {
    message = ("'" + request.modelName + "' " + kNoTrainingGraphMessage).str();
    return failure();
  }
  if (failed(runPipeline(module, [&](OpPassManager &pm) {
        buildTrainingStepPipeline(pm, options);
        if (request.instrumentNonfinite)
          pm.addPass(createAMPInstrumentNonfinitePass());
      })))
    return failure();
  return checkTensorSizes(module);
}
} // namespace

LogicalResult mlir::amp::compileModel(ModuleOp module,
                                      const InitialValues &initial,
                                      const TrainingPipelineOptions &options,
                                      const CompileRequest &request,
                                      std::string &message) {
  if (failed(buildTrainingStep(module, options, request, message)))
    return failure();
  if (request.emit == CompileOutput::MLIR)
    return writeModule(module, request.output, message);
  func::FuncOp step = findTrainingStep<func::FuncOp>(module);
  func::FuncOp forward = findForward<func::FuncOp>(module);
  FailureOr<ModelDescription> model =
      describeModel(step, forward, initial, options.learningRate);
  if (failed(model))
    return failure();
  model->buildArguments = request.buildArguments;
  if (std::optional<std::string> warning = checkPhysicalMemory(step, forward))
    if (request.warn)
      request.warn(*warning);
  if (failed(prepareEntryPoints(module, step, forward)) ||
      failed(runPipeline(
          module,
          [&](OpPassManager &pm) { buildTargetPipeline(pm, options); })) ||
      failed(checkLowered(module)) ||
      failed(recordUpdatesInPlace(module, *model)))
    return failure();
  if (request.emit == CompileOutput::LLVM)
    return writeModule(module, request.output, message);
  LibraryOptions library = request.library;
  // The CPU is a pipeline option (amp-compile --cpu, amp.compile(cpu=)).
  library.cpu = options.cpu;
  return compileLibrary(module, *model, initial, library, request.output,
                        message);
}

LogicalResult
mlir::amp::recordModelSource(StringRef path,
                             SmallVectorImpl<std::string> &arguments,
                             std::string &message) {
  auto contents = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
  if (!contents) {
    message =
        ("cannot read '" + path + "': " + contents.getError().message()).str();
    return failure();
  }
  SmallString<256> absolute(path);
  llvm::sys::fs::make_absolute(absolute);
  arguments.push_back(llvm::utohexstr(llvm::xxh3_64bits(
      llvm::arrayRefFromStringRef((*contents)->getBuffer()))));
  arguments.push_back(absolute.str().str());
  return success();
}
