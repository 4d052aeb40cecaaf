//===- amp-compile.cpp - compile a training graph to a shared library -----===//
//
// amp-compile MODEL.mlir --target=cpu|cuda --precision=fp32|fp16|bf16 -o LIB.so
//
// Reads a graph in the amp dialect (or an ONNX model), builds its training
// step and lowers it for the target with the training pipeline
// (lib/Pipelines/TrainingPipeline.cpp), and links it with the model runtime
// into a library with the C ABI of include/amp/Runtime/ModelABI.h
// (lib/Target/ModelLibrary), through the compile flow of lib/Driver. This file
// is the command line around them.
//
//===----------------------------------------------------------------------===//

#include "amp/Driver/Driver.h"
#include "amp/Support/InputFile.h"
#include "amp/Support/ToolIO.h"
#include "amp/Target/ModelLibrary/ModelLibrary.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/WithColor.h"

using namespace mlir;
namespace cl = llvm::cl;

namespace {
/// An error for the user: "amp-compile: error: <message>".
LogicalResult error(const Twine &message) {
  llvm::WithColor::error(llvm::errs(), "amp-compile") << message << "\n";
  return failure();
}

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
cl::opt<std::string> emit("emit", cl::init("lib"),
                          cl::desc("What to write: lib (the shared library), "
                                   "mlir (the training step in the amp "
                                   "dialect) or llvm (the LLVM dialect)"),
                          cl::cat(category));
cl::opt<bool> instrumentNonfinite(
    "instrument-nonfinite",
    cl::desc("Check every op of the step for inf/NaN results "
             "(amp-instrument-nonfinite; what amp-run --find-nonfinite "
             "builds, docs/Debugging.md)"),
    cl::cat(category));

/// A flag for one option of TrainingPipelineOptions: the option's name,
/// description, choices and default, so that they are written once (in
/// Pipelines.h). The flag's text goes to the option; a name that a choice
/// option does not know is kept in `firstError` ("--NAME=TEXT is not one of
/// ..."), for parseOptions to report after the command line.
class PipelineFlag : public cl::Option {
public:
  PipelineFlag(amp::TrainingOptionBase &target, std::string &firstError)
      : cl::Option(cl::Optional, cl::NotHidden), target(target),
        firstError(firstError) {
    cl::Option &option = target.getOption();
    std::string defaultText = target.getValueText();
    help = option.HelpStr.str();
    if (target.getKind() != amp::TrainingOptionBase::Kind::Flag &&
        !defaultText.empty())
      help += " (default: " + defaultText + ")";
    // The option prints this flag's help (with a choice's values).
    option.setDescription(help);
    setArgStr(option.ArgStr);
    setDescription(help);
    setValueStr(option.ValueStr);
    setValueExpectedFlag(option.getValueExpectedFlag());
    addCategory(category);
    addArgument();
  }
  ~PipelineFlag() override { removeArgument(); }

  amp::TrainingOptionBase &getTarget() const { return target; }

private:
  bool handleOccurrence(unsigned, StringRef, StringRef value) override {
    std::string message;
    if (succeeded(target.parse(value, "--", message)))
      return false;
    // Other options' parsers have already said why (as cl::opt would).
    if (target.getKind() != amp::TrainingOptionBase::Kind::Choice)
      return true;
    if (firstError.empty())
      firstError = message;
    return false;
  }
  size_t getOptionWidth() const override {
    return target.getOption().getOptionWidth();
  }
  void printOptionInfo(size_t globalWidth) const override {
    target.getOption().printOptionInfo(globalWidth);
  }
  void printOptionValue(size_t globalWidth, bool force) const override {
    target.getOption().printOptionValue(globalWidth, force);
  }
  void setDefault() override {}

  amp::TrainingOptionBase &target;
  std::string &firstError;
  std::string help;
};

/// The pipeline's options that are not flags: amp-compile always builds a
/// library with the model ABI, and --emit says where to stop.
bool isToolSet(StringRef name) {
  return name == "model-abi" || name == "lower";
}

/// Makes a flag of each option of `options`.
std::vector<std::unique_ptr<PipelineFlag>>
makePipelineFlags(amp::TrainingPipelineOptions &options,
                  std::string &firstError) {
  std::vector<std::unique_ptr<PipelineFlag>> flags;
  for (amp::TrainingOptionBase *option : options.getOptionList())
    if (!isToolSet(option->getOption().ArgStr))
      flags.push_back(std::make_unique<PipelineFlag>(*option, firstError));
  return flags;
}

/// The training pipeline's options, set by their flags, checked once
/// (TrainingPipelineOptions::verify), and the tool's own.
LogicalResult parseOptions(amp::TrainingPipelineOptions &options,
                           const std::string &flagError) {
  if (!flagError.empty())
    return error(flagError);
  std::string message;
  // Before the work: LLVM would only warn about an unknown name.
  if (failed(amp::checkTargetCPU(options.cpu, "--", message)))
    return error(message);
  if (emit != "lib" && emit != "mlir" && emit != "llvm")
    return error("--emit=" + emit + " is not one of lib, mlir, llvm");
  if (::amp::isSameFile(outputFilename, inputFilename))
    return error("-o '" + outputFilename +
                 "' is the input file; it would be overwritten");
  // A regular file only (amp::InputFile): a FIFO would block the policy
  // reader, a device would never end.
  if (!options.policy.empty()) {
    ::amp::InputFile policy;
    std::string reason;
    if (!policy.open(options.policy, reason))
      return error("--policy: cannot read '" + options.policy + "': " + reason);
  }
  options.modelABI = true;
  if (failed(options.verify("--", message)))
    return error(message);
  return success();
}

/// The options that shaped the step, as amp-compile arguments: what
/// amp-run --find-nonfinite gives amp-compile to rebuild the library
/// instrumented (not the output, --emit, the cost report or data
/// parallelism: the rebuilt step runs in one process).
SmallVector<std::string>
shapingOptions(const amp::TrainingPipelineOptions &options,
               ArrayRef<std::unique_ptr<PipelineFlag>> flags) {
  SmallVector<std::string> arguments;
  for (const std::string &shape : inputShapes)
    arguments.push_back("--input-shape=" + shape);
  if (!options.policy.empty()) {
    SmallString<256> policyPath(StringRef(options.policy));
    llvm::sys::fs::make_absolute(policyPath);
    arguments.push_back(("--policy=" + policyPath).str());
  }
  for (const std::unique_ptr<PipelineFlag> &flag : flags) {
    StringRef name = flag->ArgStr;
    if (!flag->getNumOccurrences() ||
        llvm::is_contained({"policy", "cost-report", "cost-device",
                            "data-parallel", "bucket-cap-mb", "dp-reduction"},
                           name))
      continue;
    arguments.push_back(
        ("--" + name + "=" + flag->getTarget().getValueText()).str());
  }
  return arguments;
}

/// The runtime archive and headers, next to the tool (bin/../lib,
/// bin/../include) in the build tree and once installed.
std::string toolPrefix(const char *argv0) {
  std::string executable =
      llvm::sys::fs::getMainExecutable(argv0, (void *)&toolPrefix);
  return llvm::sys::path::parent_path(llvm::sys::path::parent_path(executable))
      .str();
}

/// Loads the model, then the compile flow of lib/Driver writes the output.
LogicalResult compile(MLIRContext &context,
                      const amp::TrainingPipelineOptions &options,
                      ArrayRef<std::unique_ptr<PipelineFlag>> flags,
                      const char *argv0) {
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  amp::InitialValues initial;
  std::string message;
  OwningOpRef<ModuleOp> module =
      amp::loadModelFile(context, sourceMgr, inputFilename, inputShapes,
                         "--input-shape", "amp-compile", initial, message);
  if (!module) {
    if (!message.empty())
      llvm::errs() << message << "\n";
    return failure();
  }
  amp::CompileRequest request;
  request.modelName = inputFilename;
  request.emit = emit == "mlir"   ? amp::CompileOutput::MLIR
                 : emit == "llvm" ? amp::CompileOutput::LLVM
                                  : amp::CompileOutput::Library;
  request.output = outputFilename;
  request.library.compiler = options.linker;
  request.library.prefix = toolPrefix(argv0);
  request.library.cpu = options.cpu;
  request.library.cuda = options.target != amp::TrainingTarget::CPU;
  request.library.emulator =
      options.target == amp::TrainingTarget::CUDAEmulator;
  request.instrumentNonfinite = instrumentNonfinite;
  if (failed(amp::recordModelSource(inputFilename, request.buildArguments,
                                    message)))
    return error(message);
  llvm::append_range(request.buildArguments, shapingOptions(options, flags));
  request.warn = [](StringRef warning) {
    llvm::WithColor::warning(llvm::errs(), "amp-compile") << warning << "\n";
  };
  if (failed(amp::compileModel(*module, initial, options, request, message)))
    return message.empty() ? failure() : error(message);
  return success();
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  // A signal removes the library's temporary (amp::OutputFile) first.
  ::amp::removeTemporariesOnSignal();
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  mlir::amp::TrainingPipelineOptions options;
  std::string flagError;
  std::vector<std::unique_ptr<PipelineFlag>> flags =
      makePipelineFlags(options, flagError);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "amp-compile: compile a training graph into a shared library\n");
  if (failed(parseOptions(options, flagError)))
    return 1;
  if (!llvm::sys::fs::exists(inputFilename))
    return failed(error("cannot open '" + inputFilename + "': no such file"))
               ? 1
               : 0;

  DialectRegistry registry;
  mlir::amp::registerCompileDialects(registry);
  MLIRContext context(registry);
  // Diagnostics name the place and the reason; the IR of the failing op
  // (often a whole lowered kernel) is no help to a user of this tool.
  context.printOpOnDiagnostic(false);
  context.loadAllAvailableDialects();
  return failed(compile(context, options, flags, argv[0])) ? 1 : 0;
}
