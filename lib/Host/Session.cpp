//===- Session.cpp - a training or evaluation run of a model --------------===//

#include "amp/Host/Session.h"
#include "amp/Runtime/DTypeName.h"
#include "amp/Runtime/Numerics.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstring>
#include <deque>

using llvm::StringRef;
using namespace amp;

namespace {
/// "12.3 steps/s", or "- steps/s" before anything took measurable time.
std::string rate(int64_t count, double seconds) {
  if (!(seconds > 0))
    return "- steps/s";
  std::string text;
  llvm::raw_string_ostream(text)
      << llvm::format("%.1f", count / seconds) << " steps/s";
  return text;
}

/// Flushes the summary; false with the reason when standard output cannot
/// take it (LLVM would otherwise abort with "IO failure" at exit).
bool flushStandardOutput(std::string &error) {
  llvm::outs().flush();
  std::error_code ec = llvm::outs().error();
  llvm::outs().clear_error();
  if (ec)
    error = "cannot write the summary to standard output: " + ec.message();
  return !ec;
}
} // namespace

Session::Session(SessionConfig config)
    : config(std::move(config)), diagnostics(this->config.tool),
      savePath(this->config.savePath), metricsPath(this->config.metricsPath),
      evalOutputDir(this->config.evalOutputDir) {}

Session::~Session() = default;

void Session::useDataParallelRank(int32_t rank, int32_t size) {
  dpRank = rank;
  dpSize = size;
  if (rank == 0)
    return;
  savePath = "";
  metricsPath = "";
  evalOutputDir = "";
}

int Session::open() {
  if (!llvm::sys::fs::exists(config.libraryPath))
    return fail("cannot open '" + config.libraryPath + "': no such file");
  std::string error;
  model = loadModel(config.libraryPath, error);
  if (!model)
    return fail(error);
  if (config.threads > 0 && model->setThreads &&
      model->setThreads(config.threads) != 0)
    return fail(llvm::Twine(config.threadsFromEnvironment ? "AMP_NUM_THREADS="
                                                          : "--threads ") +
                llvm::Twine(config.threads) +
                " is more threads than the model runtime takes (4096)");
  if (config.threads > 0 && model->setBlasThreads && !model->runtimeSgemm)
    model->setBlasThreads(config.threads);
  if (config.evalOnly && !model->hasEval())
    return fail("--eval: '" + config.libraryPath + "' has no forward model");
  state = {model->create(config.seed), model->destroy};
  if (!state)
    return fail("cannot create the model state: " +
                llvm::Twine(model->lastError()));
  stepper.emplace(*model, state.get());
  if (model->cudaDevice)
    diagnostics.note("on " + llvm::Twine(model->cudaDevice()->device_name()));
  if (model->dpRank && model->dpWorldSize)
    useDataParallelRank(model->dpRank(), model->dpWorldSize());
  return 0;
}

/// Loads the state from --load, sets the learning rate and the inputs.
int Session::prepareState() {
  if (!config.loadPath.empty() &&
      model->load(state.get(), config.loadPath.c_str()) != 0)
    return fail("--load: " + llvm::Twine(model->lastError()));
  if (!config.loadPath.empty() && checkLoadedHyperparameters())
    return 1;
  if (config.learningRate.has_value() && checkLearningRates() != 0)
    return 1;
  std::string error;
  if (config.learningRate.has_value() &&
      !stepper->setLearningRate(*config.learningRate, error))
    return fail("--lr: " + error);
  if (config.accumulate.has_value() && setAccumulation() != 0)
    return 1;

  // Synthetic data first, then what the user gave.
  Random random{config.seed ^ 0xDA7A5EEDull};
  for (int32_t i = 0; i < model->numTensors(); ++i) {
    const amp_tensor_info *info = model->tensor(i);
    if (info->role == AMP_ROLE_INPUT || info->role == AMP_ROLE_LABEL)
      fillSynthetic(*info, model->stateTensor(state.get(), info->name), random);
  }
  llvm::StringSet<> fed;
  for (const std::string &spec : config.inputs) {
    StringRef name = StringRef(spec).split('=').first;
    if (!name.empty() && !fed.insert(name).second)
      return fail("--input " + name + " is given twice");
    if (loadInput(*model, state.get(), spec, diagnostics) != 0)
      return 1;
  }
  return 0;
}

/// --accumulate: the micro-batches per update of a library that
/// accumulates gradients (1 is also fine for one that does not).
int Session::setAccumulation() {
  std::string error;
  switch (stepper->setAccumulation(*config.accumulate, error)) {
  case Stepper::AccumulationResult::Set:
    return 0;
  case Stepper::AccumulationResult::NotCompiled:
    return fail("--accumulate=" + llvm::Twine(*config.accumulate) + ": '" +
                config.libraryPath +
                "' does not accumulate gradients; compile it with amp-compile "
                "--accumulate=N");
  case Stepper::AccumulationResult::Failed:
    break;
  }
  return fail("--accumulate: " + error);
}

/// The hyper-parameters a checkpoint brought: finite; the learning rate
/// positive (0, which a schedule may end with, only where --lr replaces it
/// or --eval does not train).
int Session::checkLoadedHyperparameters() {
  for (int32_t i = 0; i < model->numTensors(); ++i) {
    const amp_tensor_info *info = model->tensor(i);
    if (info->role != AMP_ROLE_HYPERPARAMETER || info->num_elements < 1)
      continue;
    const void *data = model->stateTensor(state.get(), info->name);
    if (!data)
      return fail("--load: " + llvm::Twine(model->lastError()));
    StringRef name = info->name;
    for (int64_t e = 0; e < info->num_elements; ++e) {
      double value = amp::loadValue(data, info->dtype, e);
      std::string reason;
      if (!std::isfinite(value))
        reason = "a hyper-parameter must be finite";
      else if (name == kLearningRateName && value < 0)
        reason = "a learning rate must be positive";
      else if (name == kLearningRateName && value == 0 && !config.evalOnly &&
               !config.learningRate.has_value())
        reason = "training at rate 0 changes nothing; give --lr";
      if (reason.empty())
        continue;
      return fail("--load: checkpoint '" + config.loadPath + "' holds " + name +
                  (info->num_elements > 1 ? "[" + llvm::Twine(e) + "]"
                                          : llvm::Twine()) +
                  " = " + formatNumber(value) + ": " + reason);
    }
  }
  return 0;
}

/// --lr, and every rate --lr-schedule gives it over the run, before any
/// step: positive and finite in the type of 'lr' (the schedule's exact
/// zeros aside); an error naming the option otherwise.
int Session::checkLearningRates() {
  const amp_tensor_info *info = stepper->learningRate();
  if (!info)
    return 0; // amp_set_hyperparameter names the missing 'lr'
  if (std::optional<std::string> problem =
          learningRateProblem(*config.learningRate, *info))
    return fail("--lr " + formatNumber(*config.learningRate) + " " + *problem);
  if (config.lrScheduleSpec.empty())
    return 0;
  // The rate is monotone between the extreme steps: the first bad step
  // lies after the last good one, found by bisection.
  int64_t good = -1;
  for (int64_t bad : config.lrSchedule.extremeSteps(config.steps)) {
    if (!scheduledRateProblem(bad)) {
      good = bad;
      continue;
    }
    while (bad - good > 1) {
      int64_t middle = good + (bad - good) / 2;
      (scheduledRateProblem(middle) ? bad : good) = middle;
    }
    return fail(*scheduledRateProblem(bad));
  }
  return 0;
}

/// Why --lr-schedule's rate of step `step` (0 for the first) cannot be
/// used (Stepper::scheduledRateProblem), naming the options; or nothing.
std::optional<std::string> Session::scheduledRateProblem(int64_t step) const {
  std::optional<std::string> problem = stepper->scheduledRateProblem(
      config.lrSchedule, *config.learningRate, step);
  if (!problem)
    return std::nullopt;
  double rate = config.lrSchedule.rate(*config.learningRate, step);
  return "--lr-schedule '" + config.lrScheduleSpec + "': the rate of step " +
         std::to_string(step + 1) + ", " + formatNumber(rate) + ", " +
         *problem + " (from --lr " + formatNumber(*config.learningRate) + ")";
}

/// Sets step `step`'s learning rate from --lr-schedule, if any.
int Session::scheduleLearningRate(int64_t step, std::optional<double> &lr) {
  if (config.lrScheduleSpec.empty())
    return 0;
  lr = config.lrSchedule.rate(*config.learningRate, step - 1);
  if (std::optional<std::string> problem = scheduledRateProblem(step - 1))
    return fail(*problem);
  std::string error;
  if (!stepper->setLearningRate(*lr, error))
    return fail(llvm::Twine("--lr-schedule: step ") + llvm::Twine(step) + ": " +
                error);
  return 0;
}

/// This rank's record for the agreement check (Agreement.h), after a
/// set-up without error.
void Session::describeRun(RunRecord &record) const {
  record.ready = 1;
  record.eval = config.evalOnly;
  record.steps = config.steps;
  record.seed = config.seed;
  record.lrGiven = config.learningRate.has_value();
  record.lr = record.lrGiven ? *config.learningRate : 0.0;
  record.lrSchedule.set(config.lrScheduleSpec);
  record.accumulate = config.accumulate.has_value() ? *config.accumulate : 0;
  record.findNonfinite.set(config.nonfinite.setting());
  record.load.set(config.loadPath);
  for (int32_t i = 0; i < model->numTensors(); ++i) {
    const amp_tensor_info *info = model->tensor(i);
    int32_t fields[] = {info->role, info->dtype, info->rank};
    record.model =
        amp::hashBytes(info->name, std::strlen(info->name), record.model);
    record.model = amp::hashBytes(fields, sizeof(fields), record.model);
    record.model =
        amp::hashBytes(info->shape, sizeof(int64_t) * info->rank, record.model);
    if (info->role == AMP_ROLE_INPUT || info->role == AMP_ROLE_LABEL)
      continue;
    // Before the first step the state is on the host.
    const void *bytes = model->stateTensor(state.get(), info->name);
    size_t size = 0;
    if (bytes && amp::tensorBytes(*info, size))
      record.state = amp::hashBytes(bytes, size, record.state);
  }
  std::vector<std::string> names;
  for (const std::string &spec : config.inputs)
    names.push_back(StringRef(spec).split('=').first.str());
  llvm::sort(names);
  record.inputs.set(llvm::join(names, ", "));
  if (data)
    data->describe(record);
}

/// Data parallelism: before the first step, every rank's record (the mode,
/// the options that decide training, hashes of the state and of --data)
/// is compared with rank 0's (Agreement.h); any difference stops every
/// rank with the same message. A rank that is not `ready` (its set-up
/// failed, with its error printed) takes part so that the others stop too.
/// 0 when the run may go on.
int Session::agreeWithOtherRanks(bool ready) {
  if (dpSize <= 1)
    return ready ? 0 : 1;
  if (!model->dpAllgather) {
    if (dpRank == 0)
      diagnostics.warning("'" + config.libraryPath +
                          "' predates the ranks' start-up agreement check "
                          "(amp_dp_allgather): their options, state and data "
                          "are not compared; recompile it");
    return ready ? 0 : 1;
  }
  amp::RunRecord record;
  amp::RunRecord::clear(record);
  if (ready)
    describeRun(record);
  std::vector<amp::RunRecord> records(static_cast<size_t>(dpSize));
  for (amp::RunRecord &each : records)
    amp::RunRecord::clear(each);
  const char *error = nullptr;
  if (model->dpAllgather(&record, sizeof(record), records.data(), &error))
    return fail(error ? error : "the start-up agreement check failed");
  if (!ready)
    return 1;
  std::string disagreement = amp::findDisagreement(records);
  if (disagreement.empty())
    return 0;
  return fail("rank " + llvm::Twine(dpRank) + " of " + llvm::Twine(dpSize) +
              ": " + disagreement);
}

/// Starts counting on the emulated device; a library that runs elsewhere
/// cannot be counted, which is an error rather than an empty profile.
int Session::startProfile() {
  const char *hint = "; the counts come from the emulated CUDA device, "
                     "which runs libraries compiled with "
                     "--target=cuda-emulator on any machine";
  if (!model->cudaDevice)
    return fail("--profile: '" + config.libraryPath + "' runs on the CPU" +
                hint);
  if (!profile.start())
    return fail("--profile: '" + config.libraryPath + "' runs on " +
                model->cudaDevice()->device_name() + hint);
  return 0;
}

/// Prints the summary of the profile and writes its lines to a temporary
/// that `file` commits with the run's other outputs; false with `error`
/// naming the option when it cannot.
bool Session::writeProfile(OutputFile &file, std::string &error) const {
  std::vector<std::string> lines = profile.lines();
  if (!amp::printProfileSummary(lines, llvm::outs(), error) ||
      !file.open(config.profilePath, error)) {
    error = "--profile: " + error;
    return false;
  }
  std::error_code ec;
  llvm::raw_fd_ostream os(file.openForWriting(ec), /*shouldClose=*/true);
  if (!ec) {
    for (const std::string &line : lines)
      os << line << "\n";
    os.close();
    ec = os.error();
    os.clear_error();
  }
  if (ec)
    error =
        "--profile: cannot write '" + config.profilePath + "': " + ec.message();
  return !ec;
}

/// Whether the run can overlap its steps (--overlap-steps): a GPU library
/// with amp_train_step_begin, and nothing of the state to read between
/// steps (gradient accumulation's counter, the debugger's or the
/// evaluation's outputs). The loss scales each step prints come with its
/// finish (amp_train_step_finished_scales; a library without it runs plain
/// steps when it scales its loss).
bool Session::canOverlapSteps() const {
  return config.overlapSteps && model->cudaDevice &&
         stepper->hasOverlappedSteps() && !config.evalOnly && !evalOutputs &&
         !finder && config.profilePath.empty() && !stepper->accumulates() &&
         stepper->finishReportsScales();
}

/// Step `step`: the micro-batches of one update (Stepper::runUpdate),
/// each with a new batch; the loss is their mean.
int Session::runMicroBatches(int64_t step, Stepper::Update &outcome) {
  if (config.evalOnly)
    return runEvaluation(step, outcome);
  auto before = [&] {
    // The batch first: --find-nonfinite re-runs the step from the state
    // saved before it, inputs and hyper-parameters included.
    std::string error;
    if (data && data->fill(*model, state.get()) != 0)
      return false;
    if (!finder || finder->beforeStep(state.get(), error))
      return true;
    fail("--find-nonfinite: " + error);
    return false;
  };
  auto after = [&](float loss) {
    std::string error;
    if (!finder ||
        amp::checkNonfiniteStep(*finder, step, state.get(), loss, error))
      return true;
    fail(error);
    return false;
  };
  std::string error;
  if (stepper->runUpdate(before, after, outcome, error))
    return 0;
  return error.empty()
             ? 1
             : fail(llvm::Twine("step ") + llvm::Twine(step) + ": " + error);
}

/// Evaluation `step` of --eval: the forward model on a new batch.
int Session::runEvaluation(int64_t step, Stepper::Update &outcome) {
  if (data && data->fill(*model, state.get()) != 0)
    return 1;
  auto start = std::chrono::steady_clock::now();
  int32_t status = model->eval(state.get(), &outcome.loss);
  outcome.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  if (status != 0)
    return fail(llvm::Twine("step ") + llvm::Twine(step) + ": " +
                model->lastError());
  std::string error;
  if (evalOutputs && !evalOutputs->write(*model, state.get(), error))
    return fail(llvm::Twine("--eval-output: step ") + llvm::Twine(step) + ": " +
                error);
  return 0;
}

/// Counts step `step` in the summary, prints its progress line and writes
/// its metrics.
void Session::reportStep(int64_t step, const Stepper::Update &outcome,
                         llvm::ArrayRef<float> scales, std::optional<double> lr,
                         bool live) {
  summary.seconds += outcome.seconds;
  summary.skipped += outcome.skipped;
  if (step == 1)
    summary.firstLoss = outcome.loss;
  summary.lastLoss = outcome.loss;
  printProgress(step, outcome.loss, scales, lr, live);
  if (metrics)
    metrics->write(step, outcome.loss, scales, outcome.skipped, outcome.seconds,
                   lr);
}

void Session::printProgress(int64_t step, float loss,
                            llvm::ArrayRef<float> scales,
                            std::optional<double> lr, bool live) const {
  if (dpRank != 0)
    return;
  llvm::errs() << (live ? "\r" : "") << "step " << step << "/" << config.steps
               << "  loss " << llvm::format("%.6f", loss);
  if (lr)
    llvm::errs() << "  lr " << llvm::format("%g", *lr);
  if (!scales.empty()) {
    llvm::errs() << "  scale ";
    llvm::interleave(
        scales, llvm::errs(),
        [](float scale) { llvm::errs() << llvm::format("%g", scale); }, "/");
  }
  llvm::errs() << "  skipped " << summary.skipped << "  "
               << rate(step, summary.seconds) << (live ? "   " : "\n");
}

void Session::printSummary() const {
  if (dpRank != 0)
    return;
  llvm::outs() << (config.evalOnly ? "evaluated " : "trained ") << config.steps
               << " steps in " << llvm::format("%.3f", summary.seconds)
               << " s (" << rate(config.steps, summary.seconds) << ")";
  if (config.steps > 0)
    llvm::outs() << "; loss " << llvm::format("%.6f", summary.firstLoss)
                 << " -> " << llvm::format("%.6f", summary.lastLoss)
                 << "; skipped steps " << summary.skipped;
  llvm::outs() << "\n";
}

int Session::runPlain() {
  bool live = llvm::sys::Process::StandardErrIsDisplayed();
  // Counting from 0 to `steps` (not 1 to `steps` inclusive) cannot overflow
  // at --steps=INT64_MAX.
  for (int64_t done = 0; done < config.steps; ++done) {
    int64_t step = done + 1;
    std::optional<double> lr;
    if (scheduleLearningRate(step, lr) != 0)
      return 1;
    Stepper::Update outcome;
    if (runMicroBatches(step, outcome) != 0)
      return 1;
    llvm::SmallVector<float> scales;
    if (!stepper->lossScales(scales))
      return fail(llvm::Twine("step ") + llvm::Twine(step) + ": " +
                  model->lastError());
    reportStep(step, outcome, scales, lr, live);
  }
  if (live && config.steps > 0)
    llvm::errs() << "\n";
  return 0;
}

/// Step k+1's batch is written and begun before step k is finished, so
/// that its upload overlaps step k on the GPU. A step's seconds are the
/// time since the step before it finished.
int Session::runOverlapped() {
  bool live = llvm::sys::Process::StandardErrIsDisplayed();
  struct Begun {
    int64_t step;
    std::optional<double> lr;
  };
  std::deque<Begun> begun;
  auto last = std::chrono::steady_clock::now();
  auto finishOne = [&]() -> int {
    Begun oldest = begun.front();
    begun.pop_front();
    Stepper::MicroBatch finished;
    llvm::SmallVector<float> scales;
    std::string error;
    if (!stepper->finishStep(finished, &scales, error))
      return fail(llvm::Twine("step ") + llvm::Twine(oldest.step) + ": " +
                  error);
    auto now = std::chrono::steady_clock::now();
    Stepper::Update outcome{finished.loss, finished.skipped, 1,
                            std::chrono::duration<double>(now - last).count()};
    last = now;
    reportStep(oldest.step, outcome, scales, oldest.lr, live);
    return 0;
  };
  for (int64_t done = 0; done < config.steps; ++done) {
    Begun next{done + 1, std::nullopt};
    if (scheduleLearningRate(next.step, next.lr) != 0 ||
        (data && data->fill(*model, state.get()) != 0))
      return 1;
    if (done == 0)
      last = std::chrono::steady_clock::now();
    std::string error;
    if (!stepper->beginStep(error))
      return fail(llvm::Twine("step ") + llvm::Twine(next.step) + ": " + error);
    begun.push_back(next);
    if (begun.size() == 2 && finishOne() != 0)
      return 1;
  }
  while (!begun.empty())
    if (finishOne() != 0)
      return 1;
  if (live && config.steps > 0)
    llvm::errs() << "\n";
  return 0;
}

/// Writes the checkpoint, from a finite state unless --save-nonfinite.
int Session::save() {
  if (!config.saveNonfinite) {
    std::string bad =
        mlir::amp::describeNonfiniteState(trainedModel(*model), state.get());
    if (!bad.empty())
      return fail("--save: not writing '" + savePath + "': " + bad +
                  " (--save-nonfinite writes it anyway)");
  }
  if (model->save(state.get(), savePath.c_str()) != 0)
    return fail("--save: " + llvm::Twine(model->lastError()));
  return 0;
}

int Session::setUp() {
  std::string error;
  auto setUpThisRank = [&]() -> int {
    if (prepareState() != 0)
      return 1;
    if (!config.profilePath.empty() && startProfile() != 0)
      return 1;
    finder = amp::createNonfiniteFinder(config.nonfinite, config.libraryPath,
                                        trainedModel(*model),
                                        model->buildArgument, error);
    if (!error.empty())
      return fail(error);
    if (finder && config.evalOnly)
      return fail("--find-nonfinite re-runs training steps, not --eval");
    if (!metricsPath.empty() && !metrics.emplace().open(metricsPath, error))
      return fail("--metrics: " + error);
    if (!evalOutputDir.empty() &&
        !evalOutputs.emplace().open(*model, evalOutputDir, config.steps, error))
      return fail("--eval-output: " + error);
    if (!config.dataSpecs.empty()) {
      data.emplace(config.dataSpecs, config.inputs, config.seed, diagnostics);
      data->shard(dpRank, dpSize);
    }
    if (data && data->open(*model) != 0)
      return 1;
    return 0;
  };
  // A rank that failed to set up still takes part in the agreement check,
  // which stops every rank.
  bool ready = setUpThisRank() == 0;
  if (agreeWithOtherRanks(ready) != 0 || !ready)
    return 1;
  return 0;
}

int Session::run() {
  bool overlapped = canOverlapSteps();
  if (overlapped && dpRank == 0)
    diagnostics.note("each step's upload overlaps the step before "
                     "(--overlap-steps)");
  if ((overlapped ? runOverlapped() : runPlain()) != 0)
    return 1;
  printSummary();
  return 0;
}

int Session::finish() {
  // The --find-nonfinite report is what a diverged run is for: written even
  // when the NaN loss fails the run, and said at once when it cannot be.
  std::string findingsError;
  bool findingsWritten =
      !finder || amp::writeNonfiniteReport(*finder, config.nonfinite.reportPath,
                                           findingsError);
  if (!findingsWritten)
    fail(findingsError);
  amp::OutputFile profileFile;
  std::string profileError;
  bool profileWritten =
      config.profilePath.empty() || writeProfile(profileFile, profileError);

  // A report that cannot be written (metrics, the profile, the summary on a
  // full disk) must not lose the training: the checkpoint is still written
  // (from a finite state), then the run fails.
  std::string error, metricsError;
  bool summaryWritten = flushStandardOutput(error);
  bool metricsWritten = !metrics || metrics->close(metricsError);
  std::string evalError;
  bool evalWritten = !evalOutputs || evalOutputs->close(evalError);
  if (summaryWritten)
    error = !metricsWritten ? metricsError
            : !evalWritten  ? "--eval-output: " + evalError
                            : profileError;
  bool reportFailed = !summaryWritten || !metricsWritten || !evalWritten ||
                      !profileWritten || !findingsWritten;
  bool nanLoss = config.steps > 0 && std::isnan(summary.lastLoss);
  bool saved = !savePath.empty() && (!nanLoss || config.saveNonfinite);
  if (saved && save() != 0)
    return 1;
  if (nanLoss)
    return fail(llvm::Twine("the loss is NaN") +
                (savePath.empty() || saved
                     ? ""
                     : "; the checkpoint '" + savePath + "' was not written"));
  if (reportFailed && error.empty()) // only the findings, reported above
    return 1;
  if (reportFailed)
    return fail(error + (saved
                             ? "; the checkpoint '" + savePath + "' was written"
                             : std::string()));
  if (metrics && !metrics->commit(error))
    return fail("--metrics: " + error);
  if (evalOutputs && !evalOutputs->commit(error))
    return fail("--eval-output: " + error);
  if (!config.profilePath.empty() && !profileFile.commit(error))
    return fail("--profile: " + error);
  return 0;
}
