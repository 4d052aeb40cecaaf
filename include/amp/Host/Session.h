//===- Session.h - a training or evaluation run of a model ------*- C++ -*-===//
//
// A run of a library made by amp-compile, as amp-run drives it
// (docs/Driver.md, "amp-run"): load the library and create the state; set
// it up (a checkpoint, the learning rate, gradient accumulation, the inputs,
// the data streams, the outputs) and, in a data-parallel run, agree with
// the other ranks; run the steps, each an optimizer update of one or more
// micro-batches (or an evaluation), overlapped on a GPU where nothing of
// the state is read between steps, the learning rate set per step from a
// schedule; then write the reports and the checkpoint. Each step follows
// the per-step rules of Stepper.h, which Python's Trainer follows too.
//
// A session is configured by a SessionConfig, the options as given; its
// messages name them as amp-run spells them. A run that fails leaves
// existing outputs as they were, with one exception that keeps training:
// when only a report cannot be written, the checkpoint still is.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_HOST_SESSION_H
#define AMP_HOST_SESSION_H

#include "amp/Host/Diagnostics.h"
#include "amp/Host/FindNonfinite.h"
#include "amp/Host/Inputs.h"
#include "amp/Host/LRSchedule.h"
#include "amp/Host/Model.h"
#include "amp/Host/Outputs.h"
#include "amp/Host/Profile.h"
#include "amp/Host/Stepper.h"

#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace amp {

/// What a session does: amp-run's options, after the checks that need no
/// library (amp-run's checkOptions).
struct SessionConfig {
  /// The program that names itself in messages.
  std::string tool = "amp-run";
  std::string libraryPath;
  /// Optimizer updates (or evaluations, with `evalOnly`).
  int64_t steps = 10;
  /// --input NAME=FILE and --data NAME=PATH, as given.
  std::vector<std::string> inputs, dataSpecs;
  /// The initial state, the synthetic data and the order of --data.
  uint64_t seed = 0;
  /// Run the forward model only.
  bool evalOnly = false;
  /// Where rank 0 writes the checkpoint, the metrics ("-": standard
  /// output) and the results of --eval (a directory); empty for none.
  std::string savePath, metricsPath, evalOutputDir;
  /// Save even a state with NaN or infinity in it.
  bool saveNonfinite = false;
  /// A checkpoint to start from; empty for none.
  std::string loadPath;
  /// The emulated device's counts; empty for none.
  std::string profilePath;
  /// Overlap each step's upload with the step before where possible.
  bool overlapSteps = true;
  /// Threads of the runtime's parallel loops (0: the library's choice),
  /// and whether they come from AMP_NUM_THREADS, which errors then name.
  int threads = 0;
  bool threadsFromEnvironment = false;
  /// The learning rate, if given; the schedule scales it (`lrScheduleSpec`
  /// as given, `lrSchedule` parsed from it; empty spec: none).
  std::optional<double> learningRate;
  std::string lrScheduleSpec;
  LRSchedule lrSchedule;
  /// Micro-batches per optimizer update, if given (else the compiled
  /// count).
  std::optional<int64_t> accumulate;
  NonfiniteSettings nonfinite;
};

/// A run of a compiled model. Each stage returns 0 or 1 after printing the
/// error; a failed stage ends the session.
class Session {
public:
  explicit Session(SessionConfig config);
  ~Session();

  /// Loads the library and creates the state (where the ranks of a
  /// data-parallel run meet).
  int open();

  /// Sets the state up and opens the inputs and outputs; in a data-parallel
  /// run, then checks that every rank is about to do the same (a rank that
  /// failed takes part, so that all stop).
  int setUp();

  /// Runs the steps, printing the progress and the summary.
  int run();

  /// Writes the reports and the checkpoint (from a finite state, unless
  /// saveNonfinite) and commits the outputs; 1 when any of that failed or
  /// the loss is NaN.
  int finish();

private:
  struct Summary {
    float firstLoss = NAN, lastLoss = NAN;
    int64_t skipped = 0;
    double seconds = 0;
  };

  int fail(const llvm::Twine &message) const {
    return diagnostics.error(message);
  }
  void useDataParallelRank(int32_t rank, int32_t size);
  int prepareState();
  int setAccumulation();
  int checkLoadedHyperparameters();
  int checkLearningRates();
  std::optional<std::string> scheduledRateProblem(int64_t step) const;
  int scheduleLearningRate(int64_t step, std::optional<double> &lr);
  void describeRun(RunRecord &record) const;
  int agreeWithOtherRanks(bool ready);
  int startProfile();
  bool writeProfile(OutputFile &file, std::string &error) const;
  bool canOverlapSteps() const;
  int runMicroBatches(int64_t step, Stepper::Update &outcome);
  int runEvaluation(int64_t step, Stepper::Update &outcome);
  void reportStep(int64_t step, const Stepper::Update &outcome,
                  llvm::ArrayRef<float> scales, std::optional<double> lr,
                  bool live);
  void printProgress(int64_t step, float loss, llvm::ArrayRef<float> scales,
                     std::optional<double> lr, bool live) const;
  void printSummary() const;
  int runPlain();
  int runOverlapped();
  int save();

  SessionConfig config;
  Diagnostics diagnostics;
  /// Data parallelism (docs/DataParallel.md): this process's rank among the
  /// launcher's. Only rank 0 writes checkpoints, metrics, evaluation outputs
  /// and the progress and summary; every rank reads its shard of --data.
  int32_t dpRank = 0, dpSize = 1;
  /// The outputs this rank writes: the configured ones on rank 0, none on
  /// the other ranks.
  std::string savePath, metricsPath, evalOutputDir;

  std::optional<Model> model;
  std::unique_ptr<amp_state, void (*)(amp_state *)> state{nullptr, nullptr};
  /// The per-step rules on `state`.
  std::optional<Stepper> stepper;
  DeviceProfile profile;
  std::unique_ptr<mlir::amp::NonfiniteFinder> finder;
  std::optional<Metrics> metrics;
  std::optional<EvalOutputs> evalOutputs;
  std::optional<DataStreams> data;
  Summary summary;
};

} // namespace amp

#endif // AMP_HOST_SESSION_H
