//===- amp-bisect.cpp - find the ops that need fp32 ---------------------===//
//
// amp-bisect MODEL -o POLICY [--steps K] [--seed S] [--tolerance T]
//            -- --precision=fp16 [amp-compile options]
//
// Trains the mixed-precision step and the fp32 step for K steps and finds a
// small set of ops to pin to f32 so that the loss stays within T (relative)
// of fp32; writes them as a precision policy (docs/Precision.md) and reports
// their effect and cost. The search is lib/Driver/Bisect.cpp
// (docs/Debugging.md); this file is its command line.
//
//===----------------------------------------------------------------------===//

#include "amp/Driver/Bisect.h"
#include "amp/Driver/Driver.h"
#include "amp/Support/ToolIO.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"

#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>

using namespace mlir;
namespace cl = llvm::cl;

namespace {
cl::OptionCategory category("amp-bisect options");

// The model, then (after "--") amp-compile's options.
cl::list<std::string>
    positionals(cl::Positional, cl::OneOrMore,
                cl::desc("<model.mlir|model.onnx> -- --precision=fp16|bf16 "
                         "[amp-compile options]"),
                cl::cat(category));
cl::opt<std::string> outputFilename("o", cl::Required,
                                    cl::desc("The policy file to write"),
                                    cl::value_desc("POLICY.yaml"),
                                    cl::cat(category));
cl::opt<int64_t> steps("steps", cl::init(5),
                       cl::desc("Training steps to compare (K)"),
                       cl::cat(category));
cl::opt<uint64_t> seed("seed", cl::init(1),
                       cl::desc("Seed of amp-run's initial state and data"),
                       cl::cat(category));
cl::opt<double> tolerance("tolerance", cl::init(0.01),
                          cl::desc("Largest relative deviation of the loss "
                                   "from fp32 at any step"),
                          cl::cat(category));

int error(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "amp-bisect") << message << "\n";
  return 1;
}

void onStopSignal(int signal) { mlir::amp::interruptBisect(signal); }

/// SIGINT, SIGTERM and SIGHUP end the running trial's process group and
/// stop the search, which then cleans up; main ends by the signal after.
/// A signal the process ignores (nohup) stays ignored.
void handleStopSignals() {
  struct sigaction action;
  std::memset(&action, 0, sizeof(action));
  action.sa_handler = onStopSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  for (int signal : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction previous;
    if (::sigaction(signal, nullptr, &previous) == 0 &&
        ((previous.sa_flags & SA_SIGINFO) || previous.sa_handler != SIG_IGN))
      ::sigaction(signal, &action, nullptr);
  }
}

/// Ends the process by `signal`, with its default action: the exit status
/// says the signal ended amp-bisect.
[[noreturn]] void endBySignal(int signal) {
  ::signal(signal, SIG_DFL);
  sigset_t unblock;
  sigemptyset(&unblock);
  sigaddset(&unblock, signal);
  ::pthread_sigmask(SIG_UNBLOCK, &unblock, nullptr);
  ::raise(signal);
  std::_Exit(128 + signal);
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  handleStopSignals();
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "amp-bisect: find the ops a mixed-precision step needs in "
      "fp32 and write them as a policy\n");
  const std::string &inputFilename = positionals.front();
  if (steps < 1)
    return error("--steps=" + llvm::Twine(steps.getValue()) +
                 ": give at least 1 step");
  if (!std::isfinite(tolerance) || tolerance <= 0)
    return error("--tolerance=" + std::to_string(tolerance) +
                 ": give a positive relative deviation");
  if (!llvm::sys::fs::exists(inputFilename))
    return error("cannot open '" + inputFilename + "': no such file");
  if (::amp::isSameFile(outputFilename, inputFilename))
    return error("-o '" + outputFilename +
                 "' is the input file; it would be overwritten");

  mlir::amp::BisectOptions options;
  options.model = inputFilename;
  options.compileArguments.assign(std::next(positionals.begin()),
                                  positionals.end());
  options.steps = steps;
  options.seed = seed;
  options.tolerance = tolerance;
  options.output = outputFilename;
  options.toolDirectory =
      llvm::sys::path::parent_path(
          llvm::sys::fs::getMainExecutable(argv[0], (void *)&error))
          .str();

  DialectRegistry registry;
  mlir::amp::registerCompileDialects(registry);
  MLIRContext context(registry);
  context.printOpOnDiagnostic(false);
  context.loadAllAvailableDialects();
  std::string message;
  LogicalResult result =
      mlir::amp::runBisect(context, options, llvm::outs(), message);
  // The trial, its folder and the policy's temporary are gone by now.
  if (int signal = mlir::amp::bisectInterruption()) {
    llvm::outs().flush();
    endBySignal(signal);
  }
  if (failed(result))
    return message.empty() ? 1 : error(message);
  return 0;
}
