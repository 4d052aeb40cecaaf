//===- amp-translate.cpp - translations into the amp dialect --------------===//
//
//   amp-translate --import-onnx MODEL.onnx [-o OUT.mlir] [--weights=CKPT]
//       [--no-weights] [--input-shape=NAME=D0xD1x...]... [--no-raise]
//       [--loss-output=NAME] [--function-name=NAME]
//       [--onnx-trainable=NAME,...] [--onnx-padding-idx=NAME=P]...
//       [--mlir-print-...]
//   amp-translate --raise-onnx-idioms IN.mlir [-o OUT.mlir]
//
// --import-onnx imports an ONNX model (opsets 13-17) as a forward model in
// the amp dialect (docs/ONNX.md). The initial values of its parameters and
// buffers go to an amp checkpoint next to the output (OUT.mlir ->
// OUT.ckpt), or to --weights; they are never printed into the IR.
// --onnx-trainable and --onnx-padding-idx say what the ONNX file cannot
// (ONNXImportOptions::trainable and paddingIndices, as the Python package
// passes them from the torch module). --raise-onnx-idioms runs only the raising
// rewrite on an amp module (to test it on hand-written IR).
//
// Errors are printed as `FILE: error: node 'NAME' (OpType): reason`, and
// the exit status is 1; nothing is written on failure.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/AMP/IR/AMPDialect.h"
#include "amp/Support/ToolIO.h"
#include "amp/Target/ONNX/ONNXImporter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
namespace cl = llvm::cl;

namespace {
cl::OptionCategory category("amp-translate options");

enum class Translation { None, ImportONNX, RaiseONNXIdioms };
cl::opt<Translation> translation(
    cl::desc("Translation to perform"), cl::init(Translation::None),
    cl::values(clEnumValN(Translation::ImportONNX, "import-onnx",
                          "Import an ONNX model (opsets 13-17) into the amp "
                          "dialect"),
               clEnumValN(Translation::RaiseONNXIdioms, "raise-onnx-idioms",
                          "Rewrite decomposed LayerNorm/GELU/GroupNorm/Linear "
                          "in an amp module (MLIR in, MLIR out)")),
    cl::cat(category));

cl::opt<std::string> inputFilename(cl::Positional, cl::desc("<input file>"),
                                   cl::init("-"), cl::cat(category));
cl::opt<std::string> outputFilename("o",
                                    cl::desc("Output file (default: "
                                             "stdout)"),
                                    cl::value_desc("filename"), cl::init("-"),
                                    cl::cat(category));
cl::opt<std::string> weightsFilename(
    "weights",
    cl::desc("Write the initial parameters and buffers to this amp "
             "checkpoint (default: the output with .ckpt instead of .mlir; "
             "none when writing to stdout or a device)"),
    cl::value_desc("filename"), cl::cat(category));
cl::opt<bool> noWeights("no-weights",
                        cl::desc("Do not write the initial values"),
                        cl::init(false), cl::cat(category));
cl::list<std::string> inputShapes(
    "input-shape",
    cl::desc("Static shape for a graph input with dynamic dimensions: "
             "NAME=D0xD1x... (repeatable; NAME= for a 0-d input)"),
    cl::value_desc("name=shape"), cl::cat(category));
cl::opt<bool> noRaise("no-raise",
                      cl::desc("Keep decomposed LayerNorm/GELU/GroupNorm/"
                               "Linear as imported"),
                      cl::init(false), cl::cat(category));
cl::opt<std::string> lossOutput(
    "loss-output",
    cl::desc("Graph output to mark #amp.role<loss> (a 0-d f32); '-' for "
             "none. Default: the single 0-d f32 output named like a loss"),
    cl::value_desc("name"), cl::cat(category));
cl::opt<int64_t> maxFoldedElements(
    "max-folded-elements",
    cl::desc("Largest tensor (in elements) that import-time constant folding "
             "may create or read (default 4194304)"),
    cl::init(int64_t(1) << 22), cl::cat(category));
cl::opt<std::string> functionName("function-name",
                                  cl::desc("Name of the imported function"),
                                  cl::init("forward"), cl::cat(category));
cl::list<std::string> trainable(
    "onnx-trainable",
    cl::desc("Only these floating-point initializers train (parameters); "
             "every other one is a buffer. Names that are no initializer "
             "are ignored; an empty list trains none. Default: all train"),
    cl::value_desc("name,..."), cl::CommaSeparated, cl::cat(category));
cl::list<std::string> paddingIndices(
    "onnx-padding-idx",
    cl::desc("An embedding table (initializer) and its padding index: the "
             "Gather reading it gets amp.gather's padding_idx, so that row "
             "gets no gradient (repeatable; a negative index counts from "
             "the end)"),
    cl::value_desc("name=index"), cl::cat(category));

/// "FILE: error: node 'n' (Op): message" from a diagnostic's location.
void printDiagnostic(Diagnostic &diag, llvm::raw_ostream &os) {
  std::string file, nodeName;
  Location loc = diag.getLocation();
  while (true) {
    if (auto name = dyn_cast<NameLoc>(loc)) {
      if (nodeName.empty())
        nodeName = name.getName().str();
      loc = name.getChildLoc();
      continue;
    }
    if (auto fused = dyn_cast<FusedLoc>(loc)) {
      if (fused.getLocations().empty())
        break;
      loc = fused.getLocations().front();
      continue;
    }
    if (auto fileLoc = dyn_cast<FileLineColLoc>(loc)) {
      file = fileLoc.getFilename().str();
      if (fileLoc.getLine() != 0)
        file += ":" + std::to_string(fileLoc.getLine()) + ":" +
                std::to_string(fileLoc.getColumn());
    }
    break;
  }
  os << (file.empty() ? "amp-translate" : file) << ": ";
  switch (diag.getSeverity()) {
  case DiagnosticSeverity::Error:
    os << "error: ";
    break;
  case DiagnosticSeverity::Warning:
    os << "warning: ";
    break;
  case DiagnosticSeverity::Note:
    os << "note: ";
    break;
  case DiagnosticSeverity::Remark:
    os << "remark: ";
    break;
  }
  std::string message = diag.str();
  if (!nodeName.empty() && !StringRef(message).starts_with("node "))
    os << "node '" << nodeName << "': ";
  os << message << "\n";
  for (Diagnostic &note : diag.getNotes())
    printDiagnostic(note, os);
}

LogicalResult parseShapes(mlir::amp::ONNXImportOptions &options) {
  options.inputShapeOption = "--input-shape";
  for (const std::string &entry : inputShapes) {
    std::string message;
    if (failed(mlir::amp::addInputShape(options.inputShapeOption, entry,
                                        options, message))) {
      llvm::WithColor::error(llvm::errs(), "amp-translate") << message << "\n";
      return failure();
    }
  }
  return success();
}

LogicalResult reportError(const Twine &message) {
  llvm::WithColor::error(llvm::errs(), "amp-translate") << message << "\n";
  return failure();
}

/// --onnx-trainable and --onnx-padding-idx into `options`.
LogicalResult parseTensorRules(mlir::amp::ONNXImportOptions &options) {
  if (trainable.getNumOccurrences() > 0) {
    options.trainable.emplace();
    for (const std::string &name : trainable)
      if (!name.empty())
        options.trainable->push_back(name);
  }
  for (const std::string &entry : paddingIndices) {
    // The index follows the last '=': a name may contain one.
    auto [name, index] = StringRef(entry).rsplit('=');
    int64_t value;
    if (name.size() == entry.size() || name.empty() ||
        index.getAsInteger(10, value))
      return reportError("--onnx-padding-idx='" + entry +
                         "' must be NAME=INDEX, with an integer INDEX");
    if (!options.paddingIndices.try_emplace(name, value).second)
      return reportError("--onnx-padding-idx gives '" + name + "' twice");
  }
  return success();
}

/// Prints `module` to the output through amp::OutputStream and checks every
/// write; the output is replaced only by commit().
LogicalResult printModule(ModuleOp module, ::amp::OutputStream &output) {
  std::string error;
  if (!output.open(outputFilename, error))
    return reportError(error);
  module->print(output.os(), OpPrintingFlags());
  output.os() << "\n";
  if (!output.finish(error))
    return reportError(error);
  return success();
}

LogicalResult writeModule(ModuleOp module) {
  ::amp::OutputStream output;
  std::string error;
  if (failed(printModule(module, output)))
    return failure();
  if (!output.commit(error))
    return reportError(error);
  return success();
}

/// Refuses outputs that would destroy the input or each other.
LogicalResult checkDistinctFiles(StringRef weights) {
  if (::amp::isSameFile(outputFilename, inputFilename))
    return reportError("-o '" + outputFilename +
                       "' is the input file; it would be overwritten");
  if (!weights.empty() && ::amp::isSameFile(weights, inputFilename))
    return reportError("the weights file '" + weights +
                       "' is the input file; it would be overwritten");
  if (!weights.empty() &&
      (weights == outputFilename || ::amp::isSameFile(weights, outputFilename)))
    return reportError("the weights file '" + weights +
                       "' is the output file (-o); choose another --weights");
  return success();
}

LogicalResult importONNX(MLIRContext &context) {
  mlir::amp::ONNXImportOptions options;
  options.functionName = functionName;
  options.raise = !noRaise;
  options.lossOutput = lossOutput;
  options.maxFoldedElements = maxFoldedElements;
  if (failed(parseShapes(options)) || failed(parseTensorRules(options)))
    return failure();
  if (inputFilename == "-") {
    llvm::WithColor::error(llvm::errs(), "amp-translate")
        << "--import-onnx needs a model file (external data is resolved "
           "next to it)\n";
    return failure();
  }
  FailureOr<mlir::amp::ONNXImportResult> result =
      mlir::amp::importONNXFile(inputFilename, &context, options);
  if (failed(result))
    return failure();
  std::string weights = weightsFilename;
  // No default checkpoint next to stdout or a device (-o /dev/null).
  if (weights.empty() && !noWeights && !::amp::isDirectOutput(outputFilename)) {
    llvm::SmallString<256> path(outputFilename.getValue());
    if (llvm::sys::path::extension(path) == ".mlir")
      llvm::sys::path::replace_extension(path, ".ckpt");
    else
      path += ".ckpt";
    weights = std::string(path);
  }
  if (noWeights)
    weights.clear();
  if (failed(checkDistinctFiles(weights)))
    return failure();
  // The module is written first and committed last: a failure anywhere
  // leaves both existing outputs as they were (short of a failing rename).
  ::amp::OutputStream output;
  if (failed(printModule(*result->module, output)))
    return failure();
  std::string message;
  if (!weights.empty() &&
      !mlir::amp::writeAMPCheckpoint(weights, result->initialValues, message))
    return reportError(message);
  if (!output.commit(message))
    return reportError(message);
  return success();
}

LogicalResult raiseIdioms(MLIRContext &context) {
  context.loadDialect<mlir::amp::AMPDialect, func::FuncDialect>();
  llvm::SourceMgr sourceMgr;
  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> input =
      ::amp::readMLIRInput(inputFilename, "amp-translate", errorMessage);
  if (!input) {
    llvm::errs() << errorMessage << "\n";
    return failure();
  }
  StringRef text = input->getBuffer();
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (module && !::amp::checkBytecodeNesting(text, inputFilename, *module,
                                             errorMessage)) {
    // Not destroyed: destroying deeply nested regions recurses too.
    (void)module.release();
    llvm::errs() << errorMessage << "\n";
    return failure();
  }
  if (!module || failed(mlir::amp::raiseONNXIdioms(*module)) ||
      failed(verify(*module)))
    return failure();
  return writeModule(*module);
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "amp-translate: translations into the amp dialect\n\n"
      "  amp-translate --import-onnx MODEL.onnx -o MODEL.mlir\n"
      "      writes MODEL.mlir (the forward model) and MODEL.ckpt (its\n"
      "      initial parameters and buffers, an amp checkpoint)\n\n"
      "  MLIR's printing options (--mlir-print-debuginfo, ...) apply; see\n"
      "  --help-hidden.\n");
  if (translation == Translation::None) {
    llvm::WithColor::error(llvm::errs(), "amp-translate")
        << "choose a translation: --import-onnx or --raise-onnx-idioms\n";
    return 1;
  }
  DialectRegistry registry;
  registry.insert<mlir::amp::AMPDialect, func::FuncDialect>();
  MLIRContext context(registry);
  ScopedDiagnosticHandler handler(&context, [](Diagnostic &diag) {
    printDiagnostic(diag, llvm::errs());
    return success();
  });
  LogicalResult result = translation == Translation::ImportONNX
                             ? importONNX(context)
                             : raiseIdioms(context);
  return succeeded(result) ? 0 : 1;
}
