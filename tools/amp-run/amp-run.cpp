//===- amp-run.cpp - train a compiled model -------------------------------===//
//
// amp-run LIB.so --steps N [--input NAME=FILE ...] [--data NAME=PATH ...]
//        [--seed S] [--eval] [--eval-output DIR] [--save CKPT]
//        [--save-nonfinite] [--load CKPT] [--metrics FILE] [--lr F]
//        [--lr-schedule SPEC] [--profile FILE] [--threads N]
//
// Loads a library made by amp-compile through its C ABI, feeds it seeded
// synthetic data, the given files (raw little-endian or .npy) or a new
// batch per step from mapped .npy datasets (--data), and runs training
// steps (or the forward model with --eval) with a live progress line,
// per-step JSON metrics and a summary.
//
// This file is the command line: the options, their checks that need no
// library, and the configuration of the run, which amp::Session
// (lib/Host) carries out.
//
//===----------------------------------------------------------------------===//

#include "amp/Host/Session.h"
#include "amp/Support/OutputFile.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"

#include <cmath>
#include <cstdlib>

namespace cl = llvm::cl;
using amp::formatNumber;
using llvm::StringRef;

namespace {
cl::OptionCategory category("amp-run options");
cl::opt<std::string> libraryPath(cl::Positional, cl::Required,
                                 cl::desc("<LIB.so>"), cl::cat(category));
cl::opt<int64_t> steps("steps", cl::init(10),
                       cl::desc("Number of steps (or evaluations)"),
                       cl::cat(category));
cl::list<std::string> inputs("input",
                             cl::desc("NAME=FILE: feed an input or "
                                      "label from a raw or .npy file"),
                             cl::value_desc("NAME=FILE"), cl::cat(category));
cl::list<std::string> dataSpecs(
    "data",
    cl::desc("NAME=PATH: feed an input or label a new batch per step from "
             ".npy files whose first dimension is the sample axis (a "
             "directory of them, a comma list, or one file), mapped, "
             "shuffled per epoch with --seed"),
    cl::value_desc("NAME=PATH"), cl::cat(category));
cl::opt<uint64_t> seed("seed", cl::init(0),
                       cl::desc("Seed for the initial state and synthetic "
                                "data"),
                       cl::cat(category));
cl::opt<bool> evalOnly("eval", cl::desc("Run the forward model only"),
                       cl::cat(category));
cl::opt<std::string> savePath("save", cl::desc("Save the state at the end"),
                              cl::value_desc("CKPT"), cl::cat(category));
cl::opt<bool> saveNonfinite(
    "save-nonfinite",
    cl::desc("Save the state even if it holds NaN or infinity, or the loss "
             "is NaN (to debug a diverged run)"),
    cl::cat(category));
cl::opt<std::string> loadPath("load", cl::desc("Load the state first"),
                              cl::value_desc("CKPT"), cl::cat(category));
cl::opt<std::string> metricsPath("metrics",
                                 cl::desc("Write a JSON line per step"),
                                 cl::value_desc("FILE"), cl::cat(category));
cl::opt<std::string> profilePath(
    "profile",
    cl::desc("Write the emulated CUDA device's kernel launches and GEMMs "
             "during the steps as JSON lines and print a per-kernel summary "
             "(libraries compiled with --target=cuda-emulator)"),
    cl::value_desc("FILE"), cl::cat(category));
cl::opt<bool> overlapSteps(
    "overlap-steps", cl::init(true),
    cl::desc("On a GPU, upload each step's batch while the step before runs "
             "(amp_train_step_begin/finish), where nothing of the state is "
             "read between steps: not with gradient accumulation, --eval, "
             "--eval-output, --find-nonfinite or --profile (default on; "
             "--overlap-steps=false for plain steps)"),
    cl::cat(category));
cl::opt<bool> cudaGraphs(
    "cuda-graphs", cl::init(true),
    cl::desc("On a GPU, capture the training step as a CUDA graph once and "
             "replay it every step (default on; --cuda-graphs=false runs "
             "each step's launches from the host, as AMP_CUDA_GRAPHS=0 "
             "does)"),
    cl::cat(category));
// Registered as --threads in main (libLLVM has an option of that name).
cl::opt<int>
    threads("amp-run-threads",
            cl::desc("Threads of a CPU library's parallel loops and matrix "
                     "products (default: $AMP_NUM_THREADS, else one per core)"),
            cl::init(0), cl::cat(category));
cl::opt<double> learningRate("lr", cl::desc("Set the 'lr' hyper-parameter"),
                             cl::cat(category));
cl::opt<std::string> lrScheduleSpec(
    "lr-schedule",
    cl::desc("Set 'lr' before every step from --lr by a schedule: constant, "
             "linear_warmup:warmup_steps=W[,start_factor=F], "
             "cosine:total_steps=T[,min_lr=F], "
             "warmup_cosine:warmup_steps=W,total_steps=T[,min_lr=F], "
             "step_decay:step_size=S[,gamma=F]"),
    cl::value_desc("SPEC"), cl::cat(category));
cl::opt<int64_t> accumulate(
    "accumulate",
    cl::desc("Micro-batches per optimizer update, for libraries compiled "
             "with amp-compile --accumulate (default: the compiled count); "
             "--steps, --lr-schedule and the printed loss (the mean over "
             "the micro-batches) are per update"),
    cl::value_desc("N"), cl::cat(category));
cl::opt<std::string> evalOutputDir(
    "eval-output",
    cl::desc("With --eval: write each result of the forward model (its "
             "outputs, then the loss) of every step to DIR/NAME.npy"),
    cl::value_desc("DIR"), cl::cat(category));
cl::OptionCategory nonfiniteCategory("amp-run precision debugging");
cl::opt<std::string> findNonfinite(
    "find-nonfinite", cl::ValueOptional,
    cl::desc("When a step makes the loss or the state inf or NaN, re-run it "
             "checking every op and name the first op that produced inf or "
             "NaN from finite operands (=every: check every step)"),
    cl::value_desc("first|every"), cl::cat(nonfiniteCategory));
cl::opt<std::string> nonfiniteReportPath(
    "find-nonfinite-report",
    cl::desc("Also write the --find-nonfinite reports to FILE as JSON"),
    cl::value_desc("FILE"), cl::cat(nonfiniteCategory));
/// The messages of the options' checks, as the session's.
const amp::Diagnostics diagnostics("amp-run");

int fail(const llvm::Twine &message) { return diagnostics.error(message); }

/// Checks the numeric options; the message names the option. Sets what
/// they decide of `config` beyond their values (AMP_NUM_THREADS, the
/// schedule).
int checkOptions(amp::SessionConfig &config) {
  if (steps < 0)
    return fail("--steps must be non-negative, got " + llvm::Twine(steps));
  if (learningRate.getNumOccurrences() &&
      !(std::isfinite(learningRate) && learningRate > 0))
    return fail("--lr must be a positive finite number, got " +
                formatNumber(learningRate));
  if (threads.getNumOccurrences() && threads < 1)
    return fail("--threads must be at least 1, got " + llvm::Twine(threads));
  if (!threads.getNumOccurrences())
    if (const char *env = std::getenv("AMP_NUM_THREADS")) {
      config.threadsFromEnvironment = true;
      if (StringRef(env).getAsInteger(10, threads.getValue()) || threads < 1)
        return fail("AMP_NUM_THREADS must be a positive integer, got '" +
                    llvm::Twine(env) + "'");
    }
  // Given but empty is a mistake (an unset shell variable), not "none".
  if (lrScheduleSpec.getNumOccurrences() && lrScheduleSpec.empty())
    return fail("--lr-schedule is empty; give a schedule: constant, "
                "linear_warmup, cosine, warmup_cosine or step_decay");
  if (!lrScheduleSpec.empty()) {
    std::string error;
    if (!learningRate.getNumOccurrences())
      return fail("--lr-schedule needs --lr, the base rate it scales");
    if (!config.lrSchedule.parse(lrScheduleSpec, error))
      return fail("--lr-schedule '" + lrScheduleSpec + "': " + error);
  }
  if (accumulate.getNumOccurrences() && accumulate < 1)
    return fail("--accumulate must be at least 1, got " +
                llvm::Twine(accumulate));
  // The library's micro-batch counter is an f32.
  if (accumulate.getNumOccurrences() && accumulate > (int64_t(1) << 24))
    return fail("--accumulate must be at most 16777216 (2^24), got " +
                llvm::Twine(accumulate));
  if (accumulate.getNumOccurrences() && evalOnly)
    return fail("--accumulate applies to training, not --eval");
  if (!evalOutputDir.empty() && !evalOnly)
    return fail("--eval-output needs --eval");
  if (!evalOutputDir.empty() && !llvm::sys::fs::is_directory(evalOutputDir))
    return fail("--eval-output: '" + evalOutputDir +
                "' is not an existing directory");
  if (saveNonfinite && savePath.empty())
    return fail("--save-nonfinite needs --save");
  if (savePath == "-")
    return fail("--save: standard output has the summary; name a file");
  if (profilePath == "-")
    return fail("--profile: standard output has the summary; name a file");
  return 0;
}

/// Whether `path` can be written, checked before training so that a long
/// run does not end unable to save (a missing directory, a directory).
int checkWritable(StringRef option, const std::string &path) {
  if (llvm::sys::fs::is_directory(path))
    return fail("--" + option + ": cannot write '" + path +
                "': it is a directory");
  amp::OutputFile probe;
  std::string error;
  if (!probe.open(path, error))
    return fail("--" + option + ": " + error);
  return 0;
}

/// The run the options describe (after checkOptions, which sets the rest).
void configure(amp::SessionConfig &config) {
  config.libraryPath = libraryPath;
  config.steps = steps;
  config.inputs = inputs;
  config.dataSpecs = dataSpecs;
  config.seed = seed;
  config.evalOnly = evalOnly;
  config.savePath = savePath;
  config.metricsPath = metricsPath;
  config.evalOutputDir = evalOutputDir;
  config.saveNonfinite = saveNonfinite;
  config.loadPath = loadPath;
  config.profilePath = profilePath;
  config.overlapSteps = overlapSteps;
  config.threads = threads;
  if (learningRate.getNumOccurrences())
    config.learningRate = learningRate;
  config.lrScheduleSpec = lrScheduleSpec;
  if (accumulate.getNumOccurrences())
    config.accumulate = accumulate;
  if (findNonfinite.getNumOccurrences())
    config.nonfinite.mode = findNonfinite.getValue();
  config.nonfinite.reportPath = nonfiniteReportPath;
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  // SIGINT, SIGTERM and SIGHUP remove the temporaries of the outputs (and,
  // through the library's hook, of a checkpoint being saved) first.
  amp::removeTemporariesOnSignal();
  // libLLVM registers a `threads` option of its own, before amp-run's
  // statics: it moves aside for amp-run's.
  if (cl::Option *llvmThreads = cl::getRegisteredOptions().lookup("threads"))
    llvmThreads->setArgStr("llvm-threads");
  threads.setArgStr("threads");
  cl::HideUnrelatedOptions({&category, &nonfiniteCategory});
  cl::ParseCommandLineOptions(
      argc, argv, "amp-run: train a model compiled by amp-compile\n");
  amp::SessionConfig config;
  if (checkOptions(config) != 0 ||
      (!savePath.empty() && checkWritable("save", savePath) != 0) ||
      (!metricsPath.empty() && checkWritable("metrics", metricsPath) != 0) ||
      (!profilePath.empty() && checkWritable("profile", profilePath) != 0))
    return 1;
  configure(config);
  // The model runtime reads it when it creates the state (docs/GPURuntime.md).
  if (!cudaGraphs && ::setenv("AMP_CUDA_GRAPHS", "0", 1) != 0)
    return fail("--cuda-graphs=false: cannot set AMP_CUDA_GRAPHS");
  amp::Session session(std::move(config));
  if (session.open() != 0 || session.setUp() != 0 || session.run() != 0)
    return 1;
  return session.finish();
}
