//===- Bisect.cpp - find the ops a mixed-precision step needs in fp32 -----===//
//
// The step is built in process (lib/Pipelines) to list the low-precision ops
// and count the casts each pin set adds; each candidate pin set is trained by
// amp-compile and amp-run (subprocesses: they are the user's tools, and a
// diverging library cannot take this process down with it). Each trial runs
// in a process group of its own, which interruptBisect ends as a whole.
//
//===----------------------------------------------------------------------===//

#include "amp/Driver/Bisect.h"
#include "amp/Dialect/AMP/IR/AMPDialect.h"
#include "amp/Dialect/AMP/Transforms/Precision.h"
#include "amp/Dialect/AMP/Transforms/PrecisionPolicy.h"
#include "amp/Driver/Driver.h"
#include "amp/Support/OutputFile.h"

#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLParser.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <limits>
#include <optional>
#include <spawn.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char **environ;

using namespace mlir;
using namespace mlir::amp;

SmallVector<std::string> mlir::amp::lowPrecisionOpNames(ModuleOp step,
                                                        unsigned &unnamed) {
  unnamed = 0;
  SmallVector<std::string> names;
  llvm::StringSet<> seen;
  step.walk([&](Operation *op) {
    auto type = op->getAttrOfType<TypeAttr>(kPrecisionAttrName);
    if (!type || type.getValue().isF32())
      return;
    std::string name = getLocationName(op->getLoc()).str();
    if (name.empty())
      ++unnamed;
    else if (seen.insert(name).second)
      names.push_back(name);
  });
  return names;
}

int64_t mlir::amp::castBytes(ModuleOp step) {
  int64_t bytes = 0;
  step.walk([&](CastOp cast) {
    auto type = cast.getType();
    bytes += type.getNumElements() * type.getElementTypeBitWidth() / 8;
  });
  return bytes;
}

double mlir::amp::maxRelativeDeviation(ArrayRef<double> reference,
                                       ArrayRef<double> run) {
  constexpr double kInfinity = std::numeric_limits<double>::infinity();
  if (run.size() < reference.size())
    return kInfinity;
  double worst = 0;
  for (auto [expected, actual] : llvm::zip(reference, run)) {
    double deviation =
        std::fabs(actual - expected) / std::max(std::fabs(expected), 1e-12);
    if (!std::isfinite(deviation))
      return kInfinity;
    worst = std::max(worst, deviation);
  }
  return worst;
}

/// `pins` less those in `group`, in order.
static SmallVector<std::string> withoutPins(ArrayRef<std::string> pins,
                                            ArrayRef<std::string> group) {
  SmallVector<std::string> rest;
  for (const std::string &pin : pins)
    if (!llvm::is_contained(group, pin))
      rest.push_back(pin);
  return rest;
}

SmallVector<std::string>
mlir::amp::minimisePins(ArrayRef<std::string> candidates,
                        function_ref<double(ArrayRef<std::string>)> deviation,
                        double tolerance) {
  SmallVector<std::string> pins(candidates);
  auto without = [&](ArrayRef<std::string> group) {
    return withoutPins(pins, group);
  };
  // Bisection: a group whose pins are not needed goes at once; a needed
  // group is split until single ops remain.
  std::function<void(ArrayRef<std::string>)> bisect =
      [&](ArrayRef<std::string> group) {
        SmallVector<std::string> rest = without(group);
        if (deviation(rest) <= tolerance) {
          pins = std::move(rest);
          return;
        }
        if (group.size() == 1)
          return;
        SmallVector<std::string> copy(group);
        size_t half = copy.size() / 2;
        bisect(ArrayRef(copy).take_front(half));
        bisect(ArrayRef(copy).drop_front(half));
      };
  bisect(SmallVector<std::string>(candidates));
  // Greedy: a pin needed only with others that went may go now.
  for (const std::string &pin : SmallVector<std::string>(pins)) {
    SmallVector<std::string> rest = without(pin);
    if (pins.size() > 1 && deviation(rest) <= tolerance)
      pins = std::move(rest);
  }
  return pins;
}

namespace {
/// The process group of the running trial (its leader's pid) or 0, and the
/// signal that interrupted the search or 0: what interruptBisect, in a
/// signal handler, reads and writes.
std::atomic<pid_t> trialGroup{0};
std::atomic<int> interruption{0};

/// Whether the trial leader `pid` has exited; it stays a zombie (not
/// reaped), so its group id cannot be reused while the group is signalled.
bool hasExited(pid_t pid) {
  siginfo_t info;
  std::memset(&info, 0, sizeof(info));
  if (::waitid(P_PID, pid, &info, WEXITED | WNOWAIT | WNOHANG) != 0)
    return errno != EINTR; // ECHILD: nothing left to wait for
  return info.si_pid == pid;
}

/// Runs `args` (args[0] the program's path) with `environment` ("NAME=VALUE"),
/// standard input from /dev/null and its output in `log`, in a process group
/// of its own, and waits for it. Returns its exit status, or -1 when it could
/// not start or a signal ended it. When the search is interrupted the group
/// gets SIGTERM (from interruptBisect, or here when the signal came as the
/// trial started); a trial that outlives it by 10 seconds gets SIGKILL, and so
/// do its group's other processes (a linker under amp-compile).
int runTrial(ArrayRef<std::string> args, ArrayRef<std::string> environment,
             const std::string &log) {
  if (interruption.load())
    return -1;
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attributes;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attributes);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null",
                                   O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);
  SmallVector<char *> argv;
  for (const std::string &argument : args)
    argv.push_back(const_cast<char *>(argument.c_str()));
  argv.push_back(nullptr);
  SmallVector<char *> envp;
  for (const std::string &variable : environment)
    envp.push_back(const_cast<char *>(variable.c_str()));
  envp.push_back(nullptr);
  pid_t pid = -1;
  int spawned = posix_spawn(&pid, argv[0], &actions, &attributes, argv.data(),
                            envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (spawned != 0)
    return -1;
  trialGroup.store(pid);
  // A signal handled before the store (on any thread) did not see the group.
  if (interruption.load())
    ::kill(-pid, SIGTERM);
  // Polled, not a blocking wait: the signal may be handled on another
  // thread (MLIR's), which would not interrupt a wait here.
  using Clock = std::chrono::steady_clock;
  std::optional<Clock::time_point> killAt;
  auto pause = std::chrono::milliseconds(1);
  while (!hasExited(pid)) {
    if (interruption.load() && !killAt)
      killAt = Clock::now() + std::chrono::seconds(10);
    if (killAt && Clock::now() >= *killAt)
      ::kill(-pid, SIGKILL);
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(50));
  }
  trialGroup.store(0);
  if (interruption.load())
    ::kill(-pid, SIGKILL);
  int status = 0;
  pid_t reaped;
  while ((reaped = ::waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
  }
  return reaped == pid && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/// One pin of the written policy and its measured effect.
struct Pin {
  std::string name;
  double deviationWithout = 0;
};

std::string formatDeviation(double deviation) {
  if (!std::isfinite(deviation))
    return "inf (diverged)";
  char text[32];
  snprintf(text, sizeof(text), "%.3g", deviation);
  return text;
}

/// The policy file: the precision and one f32 pin per name, each after the
/// comment lines in `comments` (one per pin, may be empty).
void printPolicy(llvm::raw_ostream &os, StringRef precision,
                 ArrayRef<std::string> header, ArrayRef<std::string> names,
                 ArrayRef<std::string> comments) {
  for (const std::string &line : header)
    os << "# " << line << "\n";
  os << "precision: " << precision << "\n";
  if (names.empty()) {
    os << "pins: []\n";
    return;
  }
  os << "pins:\n";
  for (auto [index, name] : llvm::enumerate(names)) {
    if (index < comments.size())
      os << "  # " << comments[index] << "\n";
    os << "  - name: \"" << llvm::yaml::escape(name) << "\"\n"
       << "    precision: f32\n";
  }
}

/// Prints into `output` (opened) and makes it the file; a write error (a
/// full disk) is a message naming the file, not LLVM's fatal "IO failure".
LogicalResult writeFile(::amp::OutputFile &output,
                        function_ref<void(llvm::raw_ostream &)> print,
                        std::string &message) {
  std::error_code error;
  llvm::raw_fd_ostream os(output.openForWriting(error), /*shouldClose=*/true);
  if (!error) {
    print(os);
    os.close();
    error = os.error();
    os.clear_error();
  }
  if (error) {
    message = "cannot write '" + output.path() + "': " + error.message();
    output.discard();
    return failure();
  }
  return success(output.commit(message));
}

/// The search's state: the loaded model, a scratch directory, the fp32
/// reference losses.
class Bisector {
public:
  Bisector(MLIRContext &context, const BisectOptions &options)
      : context(context), options(options) {}
  ~Bisector() {
    if (!scratch.empty())
      llvm::sys::fs::remove_directories(scratch);
  }

  LogicalResult run(llvm::raw_ostream &report, std::string &message);

private:
  LogicalResult parseArguments(std::string &message);
  LogicalResult load(std::string &message);
  /// The step built with `pins` pinned to f32 (null on failure).
  OwningOpRef<ModuleOp> buildStep(ArrayRef<std::string> pins);
  /// The losses of K steps trained with `pins`; empty when the run failed
  /// (diverged: amp-run refuses a NaN loss); with `fp32` the reference.
  FailureOr<SmallVector<double>> train(ArrayRef<std::string> pins, bool fp32,
                                       std::string &message);
  std::string writeTrialPolicy(ArrayRef<std::string> pins);
  /// ":\n" and what the last trial's tools printed, for an error.
  std::string logText() const;
  /// The device the last trial trained on, as amp-run names it for a GPU
  /// library ("amp-run: on NAME"); "" for the CPU.
  std::string lastDevice() const;

  MLIRContext &context;
  const BisectOptions &options;
  std::unique_ptr<TrainingPipelineOptions> pipeline;
  std::string precision;
  SmallVector<std::string> inputShapes;
  llvm::SourceMgr sources;
  SourceMgrDiagnosticHandler diagnostics{sources, &context};
  /// The policy, opened first: a bad -o (a missing directory, a full
  /// device) fails before the search.
  ::amp::OutputFile policyFile;
  OwningOpRef<ModuleOp> model;
  SmallString<128> scratch;
  /// The trials' environment: this one, with the scratch directory as
  /// TMPDIR, so that what a trial leaves there (amp-compile's link folder,
  /// when the search is interrupted) goes with it.
  SmallVector<std::string> trialEnvironment;
  SmallVector<double> reference;
  unsigned trials = 0;
  std::string lastLog;
};

std::string Bisector::logText() const {
  auto text = llvm::MemoryBuffer::getFile(lastLog);
  if (!text || (*text)->getBuffer().trim().empty())
    return "";
  return ":\n" + (*text)->getBuffer().rtrim().str();
}

std::string Bisector::lastDevice() const {
  auto text = llvm::MemoryBuffer::getFile(lastLog);
  if (!text)
    return "";
  SmallVector<StringRef> lines;
  (*text)->getBuffer().split(lines, '\n');
  for (StringRef line : lines)
    if (line.consume_front("amp-run: on "))
      return line.trim().str();
  return "";
}

/// The training pipeline's options from amp-compile's arguments.
LogicalResult Bisector::parseArguments(std::string &message) {
  std::string text;
  for (const std::string &argument : options.compileArguments) {
    StringRef option(argument);
    if (!option.consume_front("--") || !option.contains('=')) {
      message = "compile option '" + argument + "' is not --NAME=VALUE";
      return failure();
    }
    if (option.starts_with("policy=")) {
      message = "compile option '" + argument +
                "': amp-bisect writes the policy itself";
      return failure();
    }
    // The model's, not the step's: loadModelFile takes them.
    if (option.consume_front("input-shape=")) {
      inputShapes.push_back(option.str());
      continue;
    }
    if (option.consume_front("precision="))
      precision = option.str();
    text += " " + argument.substr(2);
  }
  if (precision != "fp16" && precision != "bf16") {
    message = "give the mixed precision to check: --precision=fp16 or "
              "--precision=bf16 after '--'";
    return failure();
  }
  pipeline = TrainingPipelineOptions::createFromString(text);
  if (!pipeline) {
    message = "invalid compile options '" + text.substr(1) + "'";
    return failure();
  }
  return pipeline->verify("--", message);
}

LogicalResult Bisector::load(std::string &message) {
  if (failed(parseArguments(message)) ||
      !policyFile.open(options.output, message) ||
      !policyFile.checkDeviceTakesData(message))
    return failure();
  InitialValues initial;
  model = loadModelFile(context, sources, options.model, inputShapes,
                        "--input-shape", "amp-bisect", initial, message);
  if (!model)
    return failure();
  if (std::error_code error =
          llvm::sys::fs::createUniqueDirectory("amp-bisect", scratch)) {
    message = "cannot create a scratch directory: " + error.message();
    return failure();
  }
  for (char **variable = environ; *variable; ++variable)
    if (!StringRef(*variable).starts_with("TMPDIR="))
      trialEnvironment.push_back(*variable);
  trialEnvironment.push_back(("TMPDIR=" + scratch).str());
  return success();
}

std::string Bisector::writeTrialPolicy(ArrayRef<std::string> pins) {
  std::string path = (scratch + "/trial" + Twine(trials++) + ".yaml").str();
  std::string ignored;
  ::amp::OutputFile output;
  if (output.open(path, ignored))
    (void)writeFile(
        output,
        [&](llvm::raw_ostream &os) {
          printPolicy(os, precision, {}, pins, {});
        },
        ignored);
  return path;
}

OwningOpRef<ModuleOp> Bisector::buildStep(ArrayRef<std::string> pins) {
  OwningOpRef<ModuleOp> step = cast<ModuleOp>((*model)->clone());
  pipeline->policy = writeTrialPolicy(pins);
  auto pm = PassManager::on<ModuleOp>(&context);
  buildTrainingStepPipeline(pm, *pipeline);
  if (failed(pm.run(*step)))
    return nullptr;
  return step;
}

/// The "loss" of each line of amp-run's metrics.
SmallVector<double> readLosses(StringRef path) {
  SmallVector<double> losses;
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return losses;
  SmallVector<StringRef> lines;
  (*buffer)->getBuffer().split(lines, '\n', -1, /*KeepEmpty=*/false);
  for (StringRef line : lines) {
    llvm::Expected<llvm::json::Value> value = llvm::json::parse(line);
    if (!value) {
      llvm::consumeError(value.takeError());
      continue;
    }
    if (auto *object = value->getAsObject())
      if (std::optional<double> loss = object->getNumber("loss"))
        losses.push_back(*loss);
  }
  return losses;
}

FailureOr<SmallVector<double>>
Bisector::train(ArrayRef<std::string> pins, bool fp32, std::string &message) {
  std::string index = std::to_string(trials);
  std::string policy = writeTrialPolicy(pins);
  std::string library = (scratch + "/trial" + index + ".so").str();
  std::string metrics = (scratch + "/trial" + index + ".jsonl").str();
  std::string log = (scratch + "/trial" + index + ".log").str();
  SmallString<128> compile(options.toolDirectory), runTool(compile);
  llvm::sys::path::append(compile, "amp-compile");
  llvm::sys::path::append(runTool, "amp-run");
  SmallVector<std::string> compileArgs = {compile.str().str(), options.model,
                                          "-o", library};
  // The fp32 reference: the same options at fp32, without the policy.
  for (const std::string &argument : options.compileArguments)
    if (!fp32 || !StringRef(argument).starts_with("--precision="))
      compileArgs.push_back(argument);
  compileArgs.push_back(fp32 ? "--precision=fp32" : "--policy=" + policy);
  lastLog = log;
  if (runTrial(compileArgs, trialEnvironment, log) != 0) {
    message =
        interruption.load() ? "interrupted" : "amp-compile failed" + logText();
    return failure();
  }
  // A diverging run fails (NaN loss) and writes no metrics: no losses.
  SmallVector<std::string> runArgs = {
      runTool.str().str(), library, "--steps=" + std::to_string(options.steps),
      "--seed=" + std::to_string(options.seed), "--metrics=" + metrics};
  (void)runTrial(runArgs, trialEnvironment, log);
  if (interruption.load()) {
    message = "interrupted";
    return failure();
  }
  return readLosses(metrics);
}

LogicalResult Bisector::run(llvm::raw_ostream &report, std::string &message) {
  if (failed(load(message)))
    return failure();
  OwningOpRef<ModuleOp> unpinned = buildStep({});
  if (!unpinned)
    return failure();
  unsigned unnamed = 0;
  SmallVector<std::string> candidates = lowPrecisionOpNames(*unpinned, unnamed);
  FailureOr<SmallVector<double>> fp32 = train({}, /*fp32=*/true, message);
  if (failed(fp32))
    return failure();
  reference = std::move(*fp32);
  if (reference.size() != size_t(options.steps)) {
    message = "the fp32 run of '" + options.model + "' failed" + logText();
    return failure();
  }
  // Said so that a device run (--target after '--') shows where it ran.
  if (std::string device = lastDevice(); !device.empty())
    report << "amp-bisect: the trials train on " << device << "\n";
  // Trials by pin set: the greedy pass and the per-pin effects ask again.
  llvm::StringMap<double> trialDeviations;
  std::string trainError;
  auto deviation = [&](ArrayRef<std::string> pins) {
    std::string key = llvm::join(pins, "\n");
    if (auto known = trialDeviations.find(key); known != trialDeviations.end())
      return known->second;
    FailureOr<SmallVector<double>> losses =
        train(pins, /*fp32=*/false, trainError);
    double result = failed(losses) ? std::numeric_limits<double>::infinity()
                                   : maxRelativeDeviation(reference, *losses);
    trialDeviations[key] = result;
    return result;
  };
  double before = deviation({});
  if (!trainError.empty()) {
    message = trainError;
    return failure();
  }
  SmallVector<std::string> pins;
  if (before > options.tolerance) {
    if (deviation(candidates) > options.tolerance) {
      message = "pinning all " + std::to_string(candidates.size()) +
                " low-precision op names to f32 does not keep the loss "
                "within " +
                formatDeviation(options.tolerance) + " of fp32";
      return failure();
    }
    pins = minimisePins(candidates, deviation, options.tolerance);
  }
  double after = pins.empty() ? before : deviation(pins);
  SmallVector<Pin> effects;
  for (const std::string &name : pins)
    effects.push_back({name, deviation(withoutPins(pins, name))});
  // A trial that did not compile (or an interrupted search) is an error,
  // not a diverged run.
  if (!trainError.empty()) {
    message = trainError;
    return failure();
  }
  OwningOpRef<ModuleOp> pinned = buildStep(pins);
  if (!pinned)
    return failure();
  int64_t bytesBefore = castBytes(*unpinned), bytesAfter = castBytes(*pinned);
  std::string castChange = std::to_string(bytesBefore) +
                           " bytes without pins, " +
                           std::to_string(bytesAfter) + " with them (" +
                           (bytesAfter >= bytesBefore ? "+" : "") +
                           std::to_string(bytesAfter - bytesBefore) + ")";

  SmallVector<std::string> comments;
  for (const Pin &pin : effects)
    comments.push_back("without this pin: deviation " +
                       formatDeviation(pin.deviationWithout));
  SmallVector<std::string> header = {
      "amp precision policy written by amp-bisect for " +
          llvm::sys::path::filename(options.model).str(),
      std::to_string(options.steps) + " steps, seed " +
          std::to_string(options.seed) + ", tolerance " +
          formatDeviation(options.tolerance),
      "max relative loss deviation from fp32: " + formatDeviation(before) +
          " without pins, " + formatDeviation(after) + " with them",
      "casts per step: " + castChange};
  if (failed(writeFile(
          policyFile,
          [&](llvm::raw_ostream &os) {
            printPolicy(os, precision, header, pins, comments);
          },
          message)))
    return failure();

  report << "amp-bisect: " << candidates.size() << " low-precision op names ("
         << unnamed << " low-precision ops have no name a pin can match), "
         << trialDeviations.size() << " mixed-precision trial runs\n";
  for (const Pin &pin : effects)
    report << "pin " << pin.name << " to f32: deviation without it "
           << formatDeviation(pin.deviationWithout) << "\n";
  report << "deviation: " << formatDeviation(before) << " without pins, "
         << formatDeviation(after) << " with " << pins.size() << " (tolerance "
         << formatDeviation(options.tolerance) << ")\n";
  report << "casts per step: " << castChange << "\n";
  report << "policy: " << options.output << "\n";
  return success();
}
} // namespace

void mlir::amp::interruptBisect(int signal) {
  int none = 0;
  bool first = interruption.compare_exchange_strong(none, signal);
  // A second signal does not wait for the trial to clean up.
  if (pid_t group = trialGroup.load())
    ::kill(-group, first ? SIGTERM : SIGKILL);
}

int mlir::amp::bisectInterruption() { return interruption.load(); }

LogicalResult mlir::amp::runBisect(MLIRContext &context,
                                   const BisectOptions &options,
                                   llvm::raw_ostream &report,
                                   std::string &message) {
  Bisector bisector(context, options);
  return bisector.run(report, message);
}
