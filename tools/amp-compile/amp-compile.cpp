//===- amp-compile.cpp - compile a training graph to a shared library -----===//
//
// amp-compile MODEL.mlir --target=cpu|cuda --precision=fp32|fp16|bf16 -o LIB.so
//
// Reads a graph in the amp dialect (or an ONNX model), builds its training
// step and lowers it for the target with the training pipeline
// (lib/Pipelines/TrainingPipeline.cpp), and links it with the model runtime
// into a library with the C ABI of include/amp/Runtime/ModelABI.h
// (lib/Target/ModelABI), through the compile flow of lib/Driver. This file
// is the command line around them.
//
//===----------------------------------------------------------------------===//

#include "amp/Driver/Driver.h"
#include "amp/Support/InputFile.h"
#include "amp/Support/ToolIO.h"
#include "amp/Target/ModelABI/ModelABI.h"

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
cl::opt<std::string> target("target", cl::init("cpu"),
                            cl::desc("Target: cpu, cuda or cuda-emulator (the "
                                     "GPU code on an emulated CUDA device)"),
                            cl::cat(category));
cl::opt<std::string> chip("chip", cl::init("sm_90"),
                          cl::desc("GPU architecture for --target=cuda"),
                          cl::cat(category));
cl::opt<std::string>
    cpu("cpu",
        cl::desc("CPU the library's code (for GPU targets its host code) is "
                 "compiled for: by default a portable level (x86-64-v3: "
                 "AVX2 and FMA, any x86-64 since about 2015); native for this "
                 "machine's CPU and every feature it has; or any LLVM CPU "
                 "name (x86-64-v2, skylake, znver3...)"),
        cl::value_desc("NAME"), cl::cat(category));
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
cl::opt<std::string>
    policyFile("policy",
               cl::desc("Precision policy file (JSON or YAML) for fp16/bf16: "
                        "lists, pins, level, lp-norm (docs/Precision.md)"),
               cl::value_desc("FILE"), cl::cat(category));
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
cl::opt<int64_t>
    accumulate("accumulate", cl::init(1),
               cl::desc("Micro-batches per optimizer update: the step "
                        "accumulates gradients (1: none)"),
               cl::cat(category));
cl::opt<bool> dataParallel(
    "data-parallel", cl::init(false),
    cl::desc("Data-parallel training across MPI ranks: gradients and "
             "found_inf all-reduced (run with mpirun -np N amp-run)"),
    cl::cat(category));
cl::opt<double> bucketCapMB(
    "bucket-cap-mb", cl::init(25.0),
    cl::desc("With --data-parallel: largest gradient bucket, in MiB"),
    cl::cat(category));
cl::opt<std::string> dpReduction(
    "dp-reduction", cl::init("mean"),
    cl::desc("With --data-parallel: mean (as DDP) or sum of the gradients"),
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
cl::opt<std::string> costReport("cost-report",
                                cl::desc("GPU targets: write the step's "
                                         "static cost report (JSON) to FILE"),
                                cl::value_desc("FILE"), cl::cat(category));
cl::opt<std::string> costDevice("cost-device", cl::init("h200"),
                                cl::desc("Device model of --cost-report"),
                                cl::cat(category));
cl::opt<std::string> compiler("cxx", cl::init("c++"),
                              cl::desc("C++ compiler used to link"),
                              cl::cat(category));
cl::opt<bool> instrumentNonfinite(
    "instrument-nonfinite",
    cl::desc("Check every op of the step for inf/NaN results "
             "(amp-instrument-nonfinite; what amp-run --find-nonfinite "
             "builds, docs/Debugging.md)"),
    cl::cat(category));

/// The training pipeline's options from the flags, checked once
/// (TrainingPipelineOptions::verify), and the tool's own.
LogicalResult parseOptions(amp::TrainingPipelineOptions &options) {
  std::string message;
  auto parse = [&](auto &option, const std::string &text) {
    return amp::parseOptionValue(option, text, "--", message);
  };
  if (failed(parse(options.target, target)) ||
      failed(parse(options.precision, precision)) ||
      failed(parse(options.optLevel, optLevel)) ||
      failed(parse(options.optimizer, optimizer)) ||
      failed(parse(options.loss, lossKind)) ||
      failed(parse(options.lossScale, lossScale)) ||
      (chip.getNumOccurrences() && failed(parse(options.chip, chip))) ||
      (cpu.getNumOccurrences() && failed(parse(options.cpu, cpu))))
    return error(message);
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
  if (!policyFile.empty()) {
    ::amp::InputFile policy;
    std::string reason;
    if (!policy.open(policyFile, reason))
      return error("--policy: cannot read '" + policyFile + "': " + reason);
  }
  options.allowTF32 = allowTF32;
  options.policy = policyFile;
  options.linker = compiler;
  options.costReport = costReport;
  options.costDevice = costDevice;
  options.learningRate = learningRate;
  options.momentum = momentum;
  options.weightDecay = weightDecay;
  options.maxGradNorm = maxGradNorm;
  options.accumulate = accumulate;
  options.dataParallel = dataParallel;
  options.bucketCapMB = bucketCapMB;
  options.dpReduction = dpReduction;
  options.initScale = initScale;
  options.growthInterval = growthInterval;
  options.hysteresis = hysteresis;
  options.errorAtMin = errorAtMin;
  options.modelABI = true;
  if (failed(options.verify("--", message)))
    return error(message);
  return success();
}

/// The options that shaped the step, as amp-compile arguments: what
/// amp-run --find-nonfinite gives amp-compile to rebuild the library
/// instrumented (not the output, --emit or the cost report).
SmallVector<std::string> shapingOptions() {
  SmallVector<std::string> arguments;
  auto add = [&](cl::Option &option, const Twine &value) {
    if (option.getNumOccurrences())
      arguments.push_back(("--" + option.ArgStr + "=" + value).str());
  };
  auto number = [](double value) {
    char text[40];
    snprintf(text, sizeof(text), "%.17g", value);
    return std::string(text);
  };
  for (const std::string &shape : inputShapes)
    arguments.push_back("--input-shape=" + shape);
  if (!policyFile.empty()) {
    SmallString<256> policyPath(policyFile);
    llvm::sys::fs::make_absolute(policyPath);
    arguments.push_back(("--policy=" + policyPath).str());
  }
  for (cl::opt<std::string> *option :
       {&target, &chip, &cpu, &precision, &optLevel, &optimizer, &lossKind,
        &lossScale, &compiler})
    add(*option, option->getValue());
  for (cl::opt<double> *option :
       {&learningRate, &momentum, &weightDecay, &maxGradNorm, &initScale})
    add(*option, number(*option));
  for (cl::opt<int64_t> *option : {&accumulate, &growthInterval, &hysteresis})
    add(*option, Twine(option->getValue()));
  for (cl::opt<bool> *option : {&allowTF32, &errorAtMin})
    add(*option, *option ? "true" : "false");
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
  request.library.compiler = compiler;
  request.library.prefix = toolPrefix(argv0);
  request.library.cpu = options.cpu;
  request.library.cuda = options.target != amp::TrainingTarget::CPU;
  request.library.emulator =
      options.target == amp::TrainingTarget::CUDAEmulator;
  request.instrumentNonfinite = instrumentNonfinite;
  if (failed(amp::recordModelSource(inputFilename, request.buildArguments,
                                    message)))
    return error(message);
  llvm::append_range(request.buildArguments, shapingOptions());
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
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "amp-compile: compile a training graph into a shared library\n");
  mlir::amp::TrainingPipelineOptions options;
  if (failed(parseOptions(options)))
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
  return failed(compile(context, options, argv[0])) ? 1 : 0;
}
