//===- LoadModel.cpp - amp-compile's input --------------------------------===//

#include "LoadModel.h"

#include "amp/Support/ToolIO.h"
#ifdef AMP_ENABLE_ONNX_IMPORT
#include "amp/Target/ONNX/ONNXImporter.h"
#endif

#include "mlir/Parser/Parser.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

namespace ampcompile {
// `amp` is the dialect's namespace here; the tool support is spelled ::amp.
namespace amp = mlir::amp;

OwningOpRef<ModuleOp> loadModel(MLIRContext &context, llvm::SourceMgr &sources,
                                StringRef inputFilename,
                                ArrayRef<std::string> inputShapes,
                                amp::InitialValues &initial) {
  if (!inputFilename.ends_with(".onnx")) {
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
  for (const amp::ONNXInitialValue &value : imported->initialValues)
    initial.add(value.name, value.data);
  return std::move(imported->module);
#else
  (void)error("this amp-compile was built without ONNX import (libonnx-dev "
              "was not found)");
  return nullptr;
#endif
}
} // namespace ampcompile
