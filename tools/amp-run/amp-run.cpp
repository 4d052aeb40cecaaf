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
// A run that fails leaves existing outputs as they were, with one exception
// that keeps training: when only the metrics cannot be written, the
// checkpoint still is (docs/Driver.md, "amp-run").
//
//===----------------------------------------------------------------------===//

#include "amp/Host/Agreement.h"
#include "amp/Host/FindNonfinite.h"
#include "amp/Host/LRSchedule.h"
#include "amp/Host/NpyFile.h"
#include "amp/Host/Profile.h"
#include "amp/Host/SampleOrder.h"
#include "amp/Runtime/DeviceRuntime.h"
#include "amp/Runtime/ModelABI.h"
#include "amp/Runtime/Numerics.h"
#include "amp/Support/InputFile.h"
#include "amp/Support/OutputFile.h"
#include "amp/Target/ModelABI/LoadedModel.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <optional>
#include <unistd.h>

namespace cl = llvm::cl;
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
amp::LRSchedule lrSchedule;
/// Whether the thread count comes from AMP_NUM_THREADS (not --threads):
/// its errors name what the user set.
bool threadsFromEnvironment = false;

amp::NonfiniteSettings nonfiniteSettings() {
  amp::NonfiniteSettings settings;
  if (findNonfinite.getNumOccurrences())
    settings.mode = findNonfinite.getValue();
  settings.reportPath = nonfiniteReportPath;
  return settings;
}

int fail(const llvm::Twine &message) {
  // One write per message: the ranks of a data-parallel run share stderr,
  // and llvm::errs() (unbuffered) would write each piece on its own.
  std::string line;
  llvm::raw_string_ostream os(line);
  os.enable_colors(llvm::errs().has_colors());
  llvm::WithColor::error(os, "amp-run") << message << "\n";
  llvm::errs() << line;
  return 1;
}

/// The library's C ABI, resolved by name.
struct Model {
  decltype(&amp_abi_version) abiVersion;
  decltype(&amp_last_error) lastError;
  decltype(&amp_num_tensors) numTensors;
  decltype(&amp_tensor) tensor;
  decltype(&amp_has_eval) hasEval;
  decltype(&amp_state_create) create;
  decltype(&amp_state_destroy) destroy;
  decltype(&amp_state_tensor) stateTensor;
  decltype(&amp_set_hyperparameter) setHyperparameter;
  decltype(&amp_train_step) trainStep;
  decltype(&amp_eval) eval;
  decltype(&amp_num_eval_results) numEvalResults;
  decltype(&amp_eval_result_info) evalResultInfo;
  decltype(&amp_eval_result) evalResult;
  decltype(&amp_state_save) save;
  decltype(&amp_state_load) load;
  /// Only in libraries compiled for --target=cuda.
  decltype(&amp_cuda_device_ops) cudaDevice = nullptr;
  /// Overlapped steps (absent in libraries older than them).
  decltype(&amp_train_step_begin) beginStep = nullptr;
  decltype(&amp_train_step_finish) finishStep = nullptr;
  decltype(&amp_train_step_finished_scales) finishedScales = nullptr;
  /// Data parallelism (absent in libraries older than it).
  decltype(&amp_dp_rank) dpRank = nullptr;
  decltype(&amp_dp_world_size) dpWorldSize = nullptr;
  /// What rebuilds the library (--find-nonfinite's instrumented build).
  decltype(&amp_build_argument) buildArgument = nullptr;
  /// The all-gather of the start-up agreement check (DataParallel.h).
  int32_t (*dpAllgather)(const void *, int64_t, void *,
                         const char **) = nullptr;
  /// OpenBLAS's thread count, in CPU libraries older than amp_cpu_sgemm
  /// (which call the BLAS on the runtime's threads, each call on one).
  void (*setBlasThreads)(int) = nullptr;
  void (*runtimeSgemm)() = nullptr;
  /// The runtime's threads for parallel loops (absent in older libraries).
  int32_t (*setThreads)(int32_t) = nullptr;
};

template <typename T>
bool resolve(mlir::amp::LoadedModel &library, const char *name, T &fn) {
  fn = reinterpret_cast<T>(library.symbol(name));
  return fn != nullptr;
}

/// Data parallelism (docs/DataParallel.md): this process's rank among the
/// launcher's. Only rank 0 writes checkpoints, metrics, evaluation outputs
/// and the progress and summary; every rank reads its shard of --data.
int32_t dpRank = 0, dpSize = 1;

void useDataParallelRank(int32_t rank, int32_t size) {
  dpRank = rank;
  dpSize = size;
  if (rank == 0)
    return;
  savePath = "";
  metricsPath = "";
  evalOutputDir = "";
}

std::optional<Model> loadModel(std::string &error) {
  // The one loader of compiled libraries: the file checked (ELF structure,
  // amp-compile's checksum) before dlopen. Never unloaded: the runtime's
  // threads live until the process ends.
  auto loaded = mlir::amp::LoadedModel::open(libraryPath, error);
  if (!loaded)
    return std::nullopt;
  mlir::amp::LoadedModel &library = *loaded.release();
  Model m;
  bool ok = resolve(library, "amp_abi_version", m.abiVersion) &&
            resolve(library, "amp_last_error", m.lastError) &&
            resolve(library, "amp_num_tensors", m.numTensors) &&
            resolve(library, "amp_tensor", m.tensor) &&
            resolve(library, "amp_has_eval", m.hasEval) &&
            resolve(library, "amp_state_create", m.create) &&
            resolve(library, "amp_state_destroy", m.destroy) &&
            resolve(library, "amp_state_tensor", m.stateTensor) &&
            resolve(library, "amp_set_hyperparameter", m.setHyperparameter) &&
            resolve(library, "amp_train_step", m.trainStep) &&
            resolve(library, "amp_eval", m.eval) &&
            resolve(library, "amp_num_eval_results", m.numEvalResults) &&
            resolve(library, "amp_eval_result_info", m.evalResultInfo) &&
            resolve(library, "amp_eval_result", m.evalResult) &&
            resolve(library, "amp_state_save", m.save) &&
            resolve(library, "amp_state_load", m.load);
  resolve(library, "amp_cuda_device_ops", m.cudaDevice);
  resolve(library, "amp_train_step_begin", m.beginStep);
  resolve(library, "amp_train_step_finish", m.finishStep);
  resolve(library, "amp_train_step_finished_scales", m.finishedScales);
  resolve(library, "amp_dp_rank", m.dpRank);
  resolve(library, "amp_dp_world_size", m.dpWorldSize);
  resolve(library, "amp_build_argument", m.buildArgument);
  resolve(library, "amp_dp_allgather", m.dpAllgather);
  resolve(library, "openblas_set_num_threads", m.setBlasThreads);
  resolve(library, "amp_cpu_sgemm", m.runtimeSgemm);
  resolve(library, "amp_set_num_threads", m.setThreads);
  // The library's copy of amp::OutputFile lists the checkpoint it is
  // saving: a signal then removes that temporary too (libraries older than
  // the hook have none).
  void (*removeTemporaries)() = nullptr;
  if (resolve(library, "amp_output_file_remove_temporaries", removeTemporaries))
    amp::addSignalCleanup(removeTemporaries);
  if (!ok) {
    error = "it is not a library made by amp-compile (the model ABI is "
            "missing)";
    return std::nullopt;
  }
  if (m.abiVersion() != AMP_ABI_VERSION) {
    error = "it has model ABI version " + std::to_string(m.abiVersion()) +
            " but amp-run speaks version " + std::to_string(AMP_ABI_VERSION);
    return std::nullopt;
  }
  return m;
}

using amp::elementBytes;
using amp::isFloatDtype;
using amp::Random;
using amp::storeValue;

/// Seeded synthetic data: N(0, 1) floats; integers uniform in
/// [0, label_range) (or [0, 2) when the range is unknown).
void fillSynthetic(const amp_tensor_info &info, void *data, Random &random) {
  for (int64_t i = 0; i < info.num_elements; ++i) {
    if (isFloatDtype(info.dtype)) {
      storeValue(data, info.dtype, i, random.normal());
      continue;
    }
    int64_t range = info.label_range > 0 ? info.label_range : 2;
    storeValue(data, info.dtype, i, static_cast<double>(random.next() % range));
  }
}

/// A number as printf's %g writes it ("nan", "inf", "-1", "0.001").
std::string formatNumber(double value) {
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%g", value);
  return text;
}

const char *dtypeName(int32_t dtype) {
  switch (dtype) {
  case AMP_DTYPE_F32:
    return "f32";
  case AMP_DTYPE_F16:
    return "f16";
  case AMP_DTYPE_BF16:
    return "bf16";
  case AMP_DTYPE_I64:
    return "i64";
  case AMP_DTYPE_I32:
    return "i32";
  default:
    return "i1";
  }
}

/// The model's learning rate, the hyper-parameter 'lr', or null.
const amp_tensor_info *findLearningRate(const Model &model) {
  for (int32_t i = 0; i < model.numTensors(); ++i) {
    const amp_tensor_info *info = model.tensor(i);
    if (info->role == AMP_ROLE_HYPERPARAMETER && StringRef(info->name) == "lr")
      return info;
  }
  return nullptr;
}

/// Why `value` cannot be a learning rate stored as `info`'s dtype, or
/// nothing when it is positive and finite there: a rate of 0 trains
/// nothing, and --lr 1e-50 is 0 in f32.
std::optional<std::string> rateProblem(double value,
                                       const amp_tensor_info &info) {
  if (std::isnan(value))
    return std::string("is not a number");
  if (value < 0)
    return std::string("is negative");
  if (value == 0)
    return std::string("is 0, which trains nothing");
  if (std::isinf(value))
    return std::string("is infinite");
  uint64_t stored = 0;
  storeValue(&stored, info.dtype, 0, value);
  double rounded = amp::loadValue(&stored, info.dtype, 0);
  if (rounded > 0 && std::isfinite(rounded))
    return std::nullopt;
  return "is " + formatNumber(rounded) + " in " + dtypeName(info.dtype) +
         ", the type of the model's '" + info.name + "'";
}

const char *npyDescr(int32_t dtype) {
  switch (dtype) {
  case AMP_DTYPE_F32:
    return "<f4";
  case AMP_DTYPE_F16:
    return "<f2";
  case AMP_DTYPE_I64:
    return "<i8";
  case AMP_DTYPE_I32:
    return "<i4";
  case AMP_DTYPE_I1:
    return "|b1";
  default:
    return nullptr; // numpy has no bf16
  }
}

std::string shapeString(llvm::ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "scalar";
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::interleave(shape, os, "x");
  return text;
}

/// The data of a .npy file after checking its header against the tensor;
/// `error` says what is wrong otherwise. With `samples`, the file holds any
/// number of the tensor's rows (its first dimension is the sample axis),
/// and `samples` is set to that number.
std::optional<StringRef> npyData(StringRef contents,
                                 const amp_tensor_info &info,
                                 std::string &error,
                                 int64_t *samples = nullptr) {
  amp::NpyHeader header;
  if (!amp::parseNpy(contents, header, error))
    return std::nullopt;
  const char *descr = npyDescr(info.dtype);
  llvm::ArrayRef<int64_t> shape(info.shape, info.rank);
  if (!descr || header.descr != descr) {
    error = std::string("has another dtype than the model's (expected ") +
            (descr ? descr : "bf16, which .npy cannot hold: give a raw file") +
            "): it holds '" + header.descr + "'";
    return std::nullopt;
  }
  if (header.fortranOrder) {
    error = "is in Fortran order; save it in C order "
            "(numpy.ascontiguousarray)";
    return std::nullopt;
  }
  llvm::ArrayRef<int64_t> given(header.shape);
  if (samples && (given.empty() || shape.empty() ||
                  given.drop_front() != shape.drop_front())) {
    error = "has shape " + shapeString(header.shape) + " but the samples of '" +
            info.name + "' are " + shapeString(shape.drop_front()) +
            " (the first dimension counts the samples)";
    return std::nullopt;
  }
  if (!samples && given != shape) {
    error = "has shape " + shapeString(header.shape) + " but '" + info.name +
            "' is " + shapeString(shape);
    return std::nullopt;
  }
  if (samples)
    *samples = given.front();
  return header.data;
}

/// A value that an input or label must not hold: `value` at `element`,
/// for `reason`.
struct BadValue {
  int64_t element;
  std::string value, reason;
};

/// The first label outside the classes or NaN or infinite float in `data`
/// of tensor `info` (NaN or infinite data would only show as a NaN loss).
std::optional<BadValue> findBadValue(const amp_tensor_info &info,
                                     const void *data) {
  if (int64_t bad = amp::firstLabelOutOfRange(info, data); bad >= 0)
    return BadValue{
        bad, "label " + std::to_string(amp::loadInteger(data, info.dtype, bad)),
        ", outside the classes [0, " + std::to_string(info.label_range) + ")"};
  if (int64_t bad = amp::firstNonFinite(info, data); bad >= 0)
    return BadValue{bad, formatNumber(amp::loadValue(data, info.dtype, bad)),
                    " (data must be finite)"};
  return std::nullopt;
}

/// The input or label `name` that `option` feeds, or null after an error.
const amp_tensor_info *findInput(const Model &model, StringRef option,
                                 StringRef name) {
  for (int32_t i = 0; i < model.numTensors(); ++i) {
    const amp_tensor_info *info = model.tensor(i);
    if (name == info->name &&
        (info->role == AMP_ROLE_INPUT || info->role == AMP_ROLE_LABEL))
      return info;
  }
  fail("--" + option + " " + name +
       ": the model has no input or label named '" + name + "'");
  return nullptr;
}

/// The whole regular file `path` (amp::InputFile: a device, a FIFO, a
/// socket or a directory is refused unread), refused unread above `limit`
/// bytes; null after an error naming `option`.
std::unique_ptr<llvm::MemoryBuffer>
readInputFile(const llvm::Twine &option, StringRef path, uint64_t limit) {
  amp::InputFile file;
  std::string reason;
  if (!file.open(path.str(), reason)) {
    fail(option + ": cannot read '" + path + "': " + reason);
    return nullptr;
  }
  if (file.size() > limit) {
    fail(option + ": '" + path + "' has " + llvm::Twine(file.size()) +
         " bytes, more than the " + llvm::Twine(limit) +
         " its tensor and a .npy header can take");
    return nullptr;
  }
  // Read, not mapped: a file cut short while mapped would be a SIGBUS.
  std::unique_ptr<llvm::WritableMemoryBuffer> buffer =
      llvm::WritableMemoryBuffer::getNewUninitMemBuffer(file.size(), path);
  if (!buffer) {
    fail(option + ": cannot read '" + path + "': not enough memory");
    return nullptr;
  }
  if (!file.read(buffer->getBufferStart(), reason)) {
    fail(option + ": cannot read '" + path + "': " + reason);
    return nullptr;
  }
  return buffer;
}

/// The most bytes of a .npy header amp-run reads: numpy writes a few
/// hundred (version 1.0 holds at most 64 KiB).
constexpr uint64_t kMaxNpyHeaderBytes = 1 << 20;

int loadInput(const Model &model, amp_state *state, StringRef spec) {
  auto [name, path] = spec.split('=');
  if (name.empty() || path.empty())
    return fail("--input expects NAME=FILE, got '" + spec + "'");
  const amp_tensor_info *info = findInput(model, "input", name);
  if (!info)
    return 1;
  size_t expected = 0;
  amp::tensorBytes(*info, expected); // amp_state_create checked it
  std::unique_ptr<llvm::MemoryBuffer> buffer =
      readInputFile("--input " + name, path, expected + kMaxNpyHeaderBytes);
  if (!buffer)
    return 1;
  StringRef contents = buffer->getBuffer();
  if (path.ends_with(".npy") || amp::looksLikeNpy(contents)) {
    std::string error;
    std::optional<StringRef> data = npyData(contents, *info, error);
    if (!data)
      return fail("--input " + name + ": '" + path + "' " + error);
    contents = *data;
  }
  if (contents.size() != expected)
    return fail("--input " + name + ": '" + path + "' holds " +
                llvm::Twine(contents.size()) + " bytes of data but the " +
                "tensor needs " + llvm::Twine(expected));
  void *data = model.stateTensor(state, info->name);
  if (!data)
    return fail("--input " + name + ": " + model.lastError());
  std::memcpy(data, contents.data(), expected);
  if (std::optional<BadValue> bad = findBadValue(*info, data))
    return fail("--input " + name + ": '" + path + "' holds " + bad->value +
                " at element " + llvm::Twine(bad->element) + bad->reason);
  return 0;
}

/// The --data sources: for each input or label, the samples of its .npy
/// files (first dimension: the sample axis), mapped rather than read, and
/// a new batch per step in an order shuffled per epoch with --seed.
class DataStreams {
public:
  /// Maps and checks every source; 1 after an error naming the option.
  int open(const Model &model) {
    for (StringRef spec : dataSpecs)
      if (addSource(model, spec) != 0)
        return 1;
    const Source &first = sources.front();
    for (const Source &source : sources) {
      if (source.samples != first.samples)
        return fail(llvm::Twine("--data: '") + first.info->name + "' has " +
                    llvm::Twine(first.samples) + " samples but '" +
                    source.info->name + "' has " + llvm::Twine(source.samples) +
                    " (inputs and labels go together)");
      if (source.info->shape[0] != first.info->shape[0])
        return fail(llvm::Twine("--data: '") + first.info->name + "' takes " +
                    llvm::Twine(first.info->shape[0]) +
                    " samples per step but '" + source.info->name + "' takes " +
                    llvm::Twine(source.info->shape[0]));
    }
    batch = first.info->shape[0];
    order = amp::SampleOrder(first.samples);
    if (first.samples < batch * ranks)
      return fail("--data: " + llvm::Twine(first.samples) +
                  " samples are fewer than one batch of " + llvm::Twine(batch) +
                  (ranks > 1 ? " on each of " + llvm::Twine(ranks) + " ranks"
                             : llvm::Twine()));
    return 0;
  }

  /// Data parallelism: every rank follows the same order and takes its
  /// slice of each global batch of `batch * size` samples.
  void shard(int32_t rankOfThis, int32_t size) {
    rank = rankOfThis;
    ranks = size;
  }

  /// Copies the next batch of every source into the state; 1 after an
  /// error naming the source, the file and the sample.
  int fill(const Model &model, amp_state *state) {
    if (!started || next + batch * ranks > int64_t(order.size()))
      newEpoch();
    int64_t first = next + batch * rank;
    for (const Source &source : sources) {
      auto *data =
          static_cast<char *>(model.stateTensor(state, source.info->name));
      if (!data)
        return fail("--data " + llvm::Twine(source.info->name) + ": " +
                    model.lastError());
      for (int64_t row = 0; row < batch; ++row)
        std::memcpy(data + row * source.sampleBytes,
                    source.sample(order(first + row)).data(),
                    source.sampleBytes);
      if (std::optional<BadValue> bad = findBadValue(*source.info, data)) {
        int64_t perSample = source.info->num_elements / batch;
        auto [file, row] =
            source.locate(order(first + bad->element / perSample));
        return fail("--data " + llvm::Twine(source.info->name) + ": '" +
                    file->path + "' sample " + llvm::Twine(row) + " holds " +
                    bad->value + " at element " +
                    llvm::Twine(bad->element % perSample) + bad->reason);
      }
    }
    next += batch * ranks;
    return 0;
  }

  /// The sources for the ranks' agreement check: every rank must read the
  /// same samples (the same order indexes them all). A source's hash covers
  /// its sample count and size and its rows in order, whatever files hold
  /// them: every row up to RunRecord::kWholeDataBytes in all, else
  /// kSampledRows rows spread evenly and the last (reading a large data set
  /// whole would cost a pass over it before the first step).
  void describe(amp::RunRecord &record) const {
    record.dataCount = uint32_t(sources.size());
    for (size_t i = 0; i < sources.size(); ++i) {
      const Source &source = sources[i];
      uint64_t bytes = 0;
      bool whole =
          !__builtin_mul_overflow(uint64_t(source.samples),
                                  uint64_t(source.sampleBytes), &bytes) &&
          bytes <= amp::RunRecord::kWholeDataBytes;
      uint64_t sizes[] = {uint64_t(source.samples), source.sampleBytes};
      uint64_t hash = amp::hashBytes(sizes, sizeof(sizes));
      auto hashRow = [&](int64_t index) {
        StringRef row = source.sample(index);
        hash = amp::hashBytes(row.data(), row.size(), hash);
      };
      if (whole) {
        for (const File &file : source.files)
          for (size_t offset = 0; offset < file.data.size();
               offset += source.sampleBytes)
            hash = amp::hashBytes(file.data.data() + offset, source.sampleBytes,
                                  hash);
      } else {
        constexpr int64_t rows = amp::RunRecord::kSampledRows;
        for (int64_t k = 0; k < rows; ++k)
          hashRow(int64_t((unsigned __int128)k * source.samples / rows));
        hashRow(source.samples - 1);
      }
      if (i >= size_t(amp::RunRecord::kMaxData)) {
        record.moreData =
            amp::hashBytes(source.info->name, std::strlen(source.info->name),
                           record.moreData ^ hash);
        continue;
      }
      amp::RecordData &entry = record.data[i];
      entry.name.set(source.info->name);
      entry.paths.set(source.path);
      entry.samples = source.samples;
      entry.contents = hash;
      entry.sampled = !whole;
    }
  }

private:
  struct File {
    std::string path;
    std::unique_ptr<llvm::MemoryBuffer> buffer;
    StringRef data;
    int64_t firstSample = 0;
  };
  struct Source {
    const amp_tensor_info *info = nullptr;
    /// PATH of --data NAME=PATH.
    std::string path;
    std::vector<File> files;
    int64_t samples = 0;
    size_t sampleBytes = 0;

    /// The file holding sample `index` of the source, and its row there.
    std::pair<const File *, int64_t> locate(int64_t index) const {
      auto it = llvm::upper_bound(files, index, [](int64_t i, const File &f) {
        return i < f.firstSample;
      });
      const File *file = &*std::prev(it);
      return {file, index - file->firstSample};
    }
    StringRef sample(int64_t index) const {
      auto [file, row] = locate(index);
      return file->data.substr(row * sampleBytes, sampleBytes);
    }
  };

  /// The .npy files of PATH: a directory's (sorted by name), a comma
  /// list, or one file.
  static int listFiles(StringRef name, StringRef path,
                       std::vector<std::string> &files) {
    if (!llvm::sys::fs::is_directory(path)) {
      llvm::SmallVector<StringRef> parts;
      path.split(parts, ',');
      for (StringRef part : parts)
        files.push_back(part.str());
      return 0;
    }
    std::error_code ec;
    for (llvm::sys::fs::directory_iterator it(path, ec), end; !ec && it != end;
         it.increment(ec))
      if (StringRef(it->path()).ends_with(".npy"))
        files.push_back(it->path());
    if (ec)
      return fail("--data " + name + ": cannot list '" + path +
                  "': " + ec.message());
    if (files.empty())
      return fail("--data " + name + ": '" + path + "' holds no .npy file");
    llvm::sort(files);
    return 0;
  }

  int addSource(const Model &model, StringRef spec) {
    auto [name, path] = spec.split('=');
    if (name.empty() || path.empty())
      return fail("--data expects NAME=PATH, got '" + spec + "'");
    Source source;
    source.path = path.str();
    source.info = findInput(model, "data", name);
    if (!source.info)
      return 1;
    for (const Source &other : sources)
      if (other.info == source.info)
        return fail("--data " + name + " is given twice");
    if (llvm::is_contained(
            llvm::map_range(inputs,
                            [](const std::string &input) {
                              return StringRef(input).split('=').first;
                            }),
            name))
      return fail("--data " + name + ": --input feeds it too");
    if (source.info->rank == 0)
      return fail("--data " + name + ": '" + name +
                  "' is a scalar, without a batch dimension");
    source.sampleBytes = elementBytes(source.info->dtype) *
                         (source.info->num_elements / source.info->shape[0]);
    std::vector<std::string> paths;
    if (listFiles(name, path, paths) != 0)
      return 1;
    for (const std::string &file : paths)
      if (addFile(name, file, source) != 0)
        return 1;
    sources.push_back(std::move(source));
    return 0;
  }

  int addFile(StringRef name, const std::string &path, Source &source) {
    // A regular file only (amp::InputFile), of the size it had when opened.
    amp::InputFile file;
    std::string reason;
    if (!file.open(path, reason))
      return fail("--data " + name + ": cannot read '" + path + "': " + reason);
    // Mapped (LLVM maps all but small files): datasets larger than memory.
    auto buffer = llvm::MemoryBuffer::getOpenFile(
        file.fd(), path, file.size(), /*RequiresNullTerminator=*/false);
    if (!buffer)
      return fail("--data " + name + ": cannot read '" + path +
                  "': " + buffer.getError().message());
    std::string error;
    int64_t samples = 0;
    std::optional<StringRef> data =
        npyData((*buffer)->getBuffer(), *source.info, error, &samples);
    if (!data)
      return fail("--data " + name + ": '" + path + "' " + error);
    size_t expected = 0;
    if (__builtin_mul_overflow(size_t(samples), source.sampleBytes,
                               &expected) ||
        data->size() != expected)
      return fail("--data " + name + ": '" + path + "' holds " +
                  llvm::Twine(data->size()) + " bytes of data but its " +
                  llvm::Twine(samples) + " samples need " +
                  llvm::Twine(expected));
    source.files.push_back({path, std::move(*buffer), *data, source.samples});
    source.samples += samples;
    return 0;
  }

  /// A new epoch: the next round keys of the order, from one amp::Random
  /// (SplitMix64) seeded with --seed ^ 0x5EEDDA7A for the whole run.
  void newEpoch() {
    started = true;
    order.reshuffle(random);
    next = 0;
  }

  std::vector<Source> sources;
  int64_t batch = 0;
  int32_t rank = 0, ranks = 1;
  /// The epoch's order, computed per position: no table of N indices.
  amp::SampleOrder order{0};
  bool started = false;
  int64_t next = 0;
  Random random{seed ^ 0x5EEDDA7Aull};
};

/// Reads the loss scales of the model, one per loss (scaler-state tensors
/// named "...scale"), in the model's order; none without loss scaling.
/// False when a scale cannot be read (from a GPU whose step failed).
bool readLossScales(const Model &model, amp_state *state,
                    llvm::SmallVectorImpl<float> &scales) {
  for (int32_t i = 0; i < model.numTensors(); ++i) {
    const amp_tensor_info *info = model.tensor(i);
    if (!amp::isLossScale(*info))
      continue;
    auto *scale = static_cast<float *>(model.stateTensor(state, info->name));
    if (!scale)
      return false;
    scales.push_back(*scale);
  }
  return true;
}

struct Summary {
  float firstLoss = NAN, lastLoss = NAN;
  int64_t skipped = 0;
  double seconds = 0;
};

/// "12.3 steps/s", or "- steps/s" before anything took measurable time.
std::string rate(int64_t count, double seconds) {
  if (!(seconds > 0))
    return "- steps/s";
  std::string text;
  llvm::raw_string_ostream(text)
      << llvm::format("%.1f", count / seconds) << " steps/s";
  return text;
}

/// A number for a JSON line: JSON has no NaN or infinity, null stands in.
std::string jsonNumber(double value) {
  if (!std::isfinite(value))
    return "null";
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%.9g", value);
  return text;
}

/// The --metrics output: one JSON line per step, written through
/// amp::OutputFile (a regular file appears only when the run succeeds).
class Metrics {
public:
  /// Opens the output; false with a message naming the file on failure.
  bool open(std::string &error) {
    if (!file.open(metricsPath, error))
      return false;
    // Standard output stays open for the summary.
    if (file.writePath() == "-") {
      os = std::make_unique<llvm::raw_fd_ostream>(STDOUT_FILENO,
                                                  /*shouldClose=*/false);
      return true;
    }
    std::error_code ec;
    os = std::make_unique<llvm::raw_fd_ostream>(file.writePath(), ec);
    if (ec)
      error = "cannot write '" + metricsPath + "': " + ec.message();
    return !ec;
  }

  void write(int64_t step, float loss, llvm::ArrayRef<float> scales,
             bool skipped, double seconds, std::optional<double> lr) {
    // "scale" is the first loss's scale; "scales" lists them all when a
    // step has several losses.
    *os << "{\"step\": " << step << ", \"loss\": " << jsonNumber(loss)
        << ", \"scale\": "
        << (scales.empty() ? "null" : jsonNumber(scales.front()));
    if (scales.size() > 1) {
      *os << ", \"scales\": [";
      llvm::interleaveComma(scales, *os,
                            [&](float scale) { *os << jsonNumber(scale); });
      *os << "]";
    }
    if (lr)
      *os << ", \"lr\": " << jsonNumber(*lr);
    *os << ", \"skipped\": " << (skipped ? "true" : "false")
        << ", \"seconds\": " << llvm::format("%.6f", seconds) << "}\n";
  }

  /// Flushes what was written; false with a message naming the file when a
  /// write failed (a full disk), instead of LLVM's fatal "IO failure".
  bool close(std::string &error) {
    if (file.writePath() == "-")
      os->flush();
    else
      os->close();
    std::error_code ec = os->error();
    os->clear_error();
    if (ec)
      error = "cannot write metrics to '" + metricsPath + "': " + ec.message();
    return !ec;
  }

  /// A run that fails before close() still must not end in LLVM's fatal
  /// "IO failure" for a write error nobody reports.
  ~Metrics() {
    if (!os)
      return;
    os->flush();
    os->clear_error();
  }

  /// Makes the metrics the output (a regular file replaces the old one).
  bool commit(std::string &error) { return file.commit(error); }

private:
  amp::OutputFile file;
  std::unique_ptr<llvm::raw_fd_ostream> os;
};

/// The --eval-output files: DIR/NAME.npy for every result of the forward
/// model, holding the results of every step: concatenated along the first
/// (batch) axis, and a scalar (the loss) as one element per step. bf16,
/// which .npy cannot hold, is written as f32. Each goes through
/// amp::OutputFile: a run that fails replaces none of them.
class EvalOutputs {
public:
  /// Opens the files and writes their headers; false with `error` naming
  /// the file or the result on failure.
  bool open(const Model &model, std::string &error) {
    for (int32_t i = 0; i < model.numEvalResults(); ++i) {
      const amp_tensor_info *info = model.evalResultInfo(i);
      auto result = std::make_unique<Result>();
      result->info = info;
      result->index = i;
      std::string path = evalOutputDir + "/" + fileName(info->name) + ".npy";
      for (const auto &other : results)
        if (other->file.path() == path) {
          error = "results '" + std::string(other->info->name) + "' and '" +
                  info->name + "' would both be written to '" + path + "'";
          return false;
        }
      llvm::SmallVector<int64_t> shape(info->shape, info->shape + info->rank);
      if (shape.empty())
        shape.push_back(steps);
      else if (__builtin_mul_overflow(shape[0], steps.getValue(), &shape[0])) {
        error = "the results of " + std::to_string(steps) + " steps of '" +
                info->name + "' overflow a .npy shape";
        return false;
      }
      if (!result->file.open(path, error))
        return false;
      std::error_code ec;
      result->os =
          std::make_unique<llvm::raw_fd_ostream>(result->file.writePath(), ec);
      if (ec) {
        error = "cannot write '" + path + "': " + ec.message();
        return false;
      }
      const char *descr = npyDescr(info->dtype);
      *result->os << amp::npyHeader(descr ? descr : "<f4", shape);
      results.push_back(std::move(result));
    }
    return true;
  }

  /// Appends the results of the last amp_eval.
  bool write(const Model &model, const amp_state *state, std::string &error) {
    for (const auto &result : results) {
      const void *data = model.evalResult(state, result->index);
      if (!data) {
        error = model.lastError();
        return false;
      }
      const amp_tensor_info &info = *result->info;
      if (npyDescr(info.dtype)) {
        result->os->write(static_cast<const char *>(data),
                          info.num_elements * elementBytes(info.dtype));
        continue;
      }
      for (int64_t i = 0; i < info.num_elements; ++i) {
        float value = amp::loadValue(data, info.dtype, i);
        result->os->write(reinterpret_cast<const char *>(&value), sizeof value);
      }
    }
    return true;
  }

  /// Closes the files; false with `error` naming the file on a write error.
  bool close(std::string &error) {
    for (const auto &result : results) {
      result->os->close();
      std::error_code ec = result->os->error();
      result->os->clear_error();
      if (ec) {
        error = "cannot write '" + result->file.path() + "': " + ec.message();
        return false;
      }
    }
    return true;
  }

  bool commit(std::string &error) {
    for (const auto &result : results)
      if (!result->file.commit(error))
        return false;
    return true;
  }

private:
  struct Result {
    const amp_tensor_info *info = nullptr;
    int32_t index = 0;
    amp::OutputFile file;
    std::unique_ptr<llvm::raw_fd_ostream> os;
    ~Result() {
      if (os) // a failed run: no fatal "IO failure" for an unreported error
        os->clear_error();
    }
  };

  /// A result's name as a file name: characters other than letters,
  /// digits, '_', '-' and '.' become '_'.
  static std::string fileName(StringRef name) {
    std::string text = name.str();
    for (char &c : text)
      if (!llvm::isAlnum(c) && c != '_' && c != '-' && c != '.')
        c = '_';
    return text.empty() || text[0] == '.' ? "_" + text : text;
  }

  std::vector<std::unique_ptr<Result>> results;
};

void printProgress(int64_t step, float loss, llvm::ArrayRef<float> scales,
                   std::optional<double> lr, const Summary &summary,
                   bool live) {
  if (dpRank != 0)
    return;
  llvm::errs() << (live ? "\r" : "") << "step " << step << "/" << steps
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

/// What the precision debugger reads of the model.
mlir::amp::TrainedModel trainedModel(const Model &model) {
  return {model.numTensors, model.tensor, model.stateTensor, model.lastError};
}

/// The hyper-parameter and the counter of a library that accumulates
/// gradients (amp-accumulate-gradients, docs/LossScaling.md).
constexpr const char *kAccumulateName = "accumulate";
constexpr const char *kMicroStepName = "grad_accum.micro_step";

bool accumulatesGradients(const Model &model) {
  for (int32_t i = 0; i < model.numTensors(); ++i)
    if (model.tensor(i)->role == AMP_ROLE_HYPERPARAMETER &&
        StringRef(model.tensor(i)->name) == kAccumulateName)
      return true;
  return false;
}

/// Whether the last call completed an optimizer update: always without
/// gradient accumulation; with it, when the micro-batch counter is back at
/// zero.
bool completedUpdate(const Model &model, amp_state *state) {
  auto *microStep =
      static_cast<const float *>(model.stateTensor(state, kMicroStepName));
  return !microStep || *microStep == 0;
}

/// What one optimizer update (or evaluation) gave.
struct StepOutcome {
  float loss = NAN;
  int32_t skipped = 0;
  double seconds = 0;
};

/// Step `step`: the micro-batches of one update (one call without
/// gradient accumulation, or with --eval), each with a new batch; the loss
/// is their mean.
int runMicroBatches(const Model &model, amp_state *state,
                    EvalOutputs *evalOutputs, DataStreams *data, int64_t step,
                    mlir::amp::NonfiniteFinder *finder, StepOutcome &outcome) {
  // Far above any real accumulation: a library whose counter never returns
  // to zero is an error, not a hang.
  constexpr int64_t kMaxMicroBatches = int64_t(1) << 24;
  double lossSum = 0;
  int64_t calls = 0;
  do {
    float loss = NAN;
    int32_t skipped = 0;
    std::string error;
    // The batch first: --find-nonfinite re-runs the step from the state
    // saved before it, inputs and hyper-parameters included.
    if (data && data->fill(model, state) != 0)
      return 1;
    if (finder && !finder->beforeStep(state, error))
      return fail("--find-nonfinite: " + error);
    auto start = std::chrono::steady_clock::now();
    int32_t status = evalOnly ? model.eval(state, &loss)
                              : model.trainStep(state, &loss, &skipped);
    outcome.seconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    if (status != 0)
      return fail(llvm::Twine("step ") + llvm::Twine(step) + ": " +
                  model.lastError());
    if (evalOutputs && !evalOutputs->write(model, state, error))
      return fail(llvm::Twine("--eval-output: step ") + llvm::Twine(step) +
                  ": " + error);
    if (finder && !amp::checkNonfiniteStep(*finder, step, state, loss, error))
      return fail(error);
    lossSum += loss;
    outcome.skipped |= skipped;
    ++calls;
  } while (!evalOnly && !completedUpdate(model, state) &&
           calls < kMaxMicroBatches);
  if (!completedUpdate(model, state))
    return fail(llvm::Twine("step ") + llvm::Twine(step) +
                ": no update after " + llvm::Twine(calls) + " micro-batches");
  outcome.loss = float(lossSum / double(calls));
  return 0;
}

/// Why --lr-schedule's rate of step `step` (0 for the first) cannot be
/// used, or nothing: it must be positive and finite in the type of 'lr',
/// or exactly 0 by the formula (a warm-up from 0, cosine's end at
/// min_lr=0, step_decay's gamma=0).
std::optional<std::string> scheduledRateProblem(const amp_tensor_info &lr,
                                                int64_t step) {
  double rate = lrSchedule.rate(learningRate, step);
  std::optional<std::string> problem = rateProblem(rate, lr);
  if (!problem || (rate == 0 && lrSchedule.isZero(step)))
    return std::nullopt;
  return "--lr-schedule '" + lrScheduleSpec + "': the rate of step " +
         std::to_string(step + 1) + ", " + formatNumber(rate) + ", " +
         *problem + " (from --lr " + formatNumber(learningRate) + ")";
}

int checkScheduledRate(const Model &model, int64_t step) {
  const amp_tensor_info *info = findLearningRate(model);
  if (!info)
    return 0; // amp_set_hyperparameter names the missing 'lr'
  if (std::optional<std::string> problem = scheduledRateProblem(*info, step))
    return fail(*problem);
  return 0;
}

/// Sets step `step`'s learning rate from --lr-schedule, if any.
int scheduleLearningRate(const Model &model, amp_state *state, int64_t step,
                         std::optional<double> &lr) {
  if (lrScheduleSpec.empty())
    return 0;
  lr = lrSchedule.rate(learningRate, step - 1);
  if (checkScheduledRate(model, step - 1) != 0)
    return 1;
  if (model.setHyperparameter(state, "lr", *lr) != 0)
    return fail(llvm::Twine("--lr-schedule: step ") + llvm::Twine(step) + ": " +
                model.lastError());
  return 0;
}

/// Counts step `step` in the summary, prints its progress line and writes
/// its metrics.
void reportStep(int64_t step, const StepOutcome &outcome,
                llvm::ArrayRef<float> scales, std::optional<double> lr,
                Metrics *metrics, Summary &summary, bool live) {
  summary.seconds += outcome.seconds;
  summary.skipped += outcome.skipped;
  if (step == 1)
    summary.firstLoss = outcome.loss;
  summary.lastLoss = outcome.loss;
  printProgress(step, outcome.loss, scales, lr, summary, live);
  if (metrics)
    metrics->write(step, outcome.loss, scales, outcome.skipped, outcome.seconds,
                   lr);
}

int run(const Model &model, amp_state *state, Metrics *metrics,
        EvalOutputs *evalOutputs, DataStreams *data, Summary &summary,
        mlir::amp::NonfiniteFinder *finder) {
  bool live = llvm::sys::Process::StandardErrIsDisplayed();
  // Counting from 0 to `steps` (not 1 to `steps` inclusive) cannot overflow
  // at --steps=INT64_MAX.
  for (int64_t done = 0; done < steps; ++done) {
    int64_t step = done + 1;
    std::optional<double> lr;
    if (scheduleLearningRate(model, state, step, lr) != 0)
      return 1;
    StepOutcome outcome;
    if (runMicroBatches(model, state, evalOutputs, data, step, finder,
                        outcome) != 0)
      return 1;
    llvm::SmallVector<float> scales;
    if (!readLossScales(model, state, scales))
      return fail(llvm::Twine("step ") + llvm::Twine(step) + ": " +
                  model.lastError());
    reportStep(step, outcome, scales, lr, metrics, summary, live);
  }
  if (live && steps > 0)
    llvm::errs() << "\n";
  return 0;
}

/// Whether the run can overlap its steps (--overlap-steps): a GPU library
/// with amp_train_step_begin, and nothing of the state to read between
/// steps (gradient accumulation's counter, the debugger's or the
/// evaluation's outputs). The loss scales each step prints come with its
/// finish (amp_train_step_finished_scales; a library without it runs plain
/// steps when it scales its loss).
bool canOverlapSteps(const Model &model, bool evalOutputs, bool finder) {
  if (!overlapSteps || !model.cudaDevice || !model.beginStep ||
      !model.finishStep || evalOnly || evalOutputs || finder ||
      !profilePath.empty() || accumulatesGradients(model))
    return false;
  if (model.finishedScales)
    return true;
  for (int32_t i = 0; i < model.numTensors(); ++i)
    if (amp::isLossScale(*model.tensor(i)))
      return false;
  return true;
}

/// Step k+1's batch is written and begun before step k is finished, so
/// that its upload overlaps step k on the GPU. A step's seconds are the
/// time since the step before it finished.
int runOverlapped(const Model &model, amp_state *state, Metrics *metrics,
                  DataStreams *data, Summary &summary) {
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
    StepOutcome outcome;
    if (model.finishStep(state, &outcome.loss, &outcome.skipped) != 0)
      return fail(llvm::Twine("step ") + llvm::Twine(oldest.step) + ": " +
                  model.lastError());
    auto now = std::chrono::steady_clock::now();
    outcome.seconds = std::chrono::duration<double>(now - last).count();
    last = now;
    llvm::SmallVector<float> scales;
    if (model.finishedScales) {
      int32_t count = model.finishedScales(state, nullptr, 0);
      scales.resize(std::max(count, 0));
      if (count < 0 ||
          model.finishedScales(state, scales.data(), count) != count)
        return fail(llvm::Twine("step ") + llvm::Twine(oldest.step) +
                    ": cannot read its loss scales: " + model.lastError());
    }
    reportStep(oldest.step, outcome, scales, oldest.lr, metrics, summary, live);
    return 0;
  };
  for (int64_t done = 0; done < steps; ++done) {
    Begun next{done + 1, std::nullopt};
    if (scheduleLearningRate(model, state, next.step, next.lr) != 0 ||
        (data && data->fill(model, state) != 0))
      return 1;
    if (done == 0)
      last = std::chrono::steady_clock::now();
    if (model.beginStep(state) != 0)
      return fail(llvm::Twine("step ") + llvm::Twine(next.step) + ": " +
                  model.lastError());
    begun.push_back(next);
    if (begun.size() == 2 && finishOne() != 0)
      return 1;
  }
  while (!begun.empty())
    if (finishOne() != 0)
      return 1;
  if (live && steps > 0)
    llvm::errs() << "\n";
  return 0;
}

void printSummary(const Summary &summary) {
  if (dpRank != 0)
    return;
  llvm::outs() << (evalOnly ? "evaluated " : "trained ") << steps
               << " steps in " << llvm::format("%.3f", summary.seconds)
               << " s (" << rate(steps, summary.seconds) << ")";
  if (steps > 0)
    llvm::outs() << "; loss " << llvm::format("%.6f", summary.firstLoss)
                 << " -> " << llvm::format("%.6f", summary.lastLoss)
                 << "; skipped steps " << summary.skipped;
  llvm::outs() << "\n";
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

/// Checks the numeric options; the message names the option.
int checkOptions() {
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
      threadsFromEnvironment = true;
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
    if (!lrSchedule.parse(lrScheduleSpec, error))
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

/// Writes the checkpoint, from a finite state unless --save-nonfinite.
int save(const Model &model, amp_state *state) {
  if (!saveNonfinite) {
    std::string bad =
        mlir::amp::describeNonfiniteState(trainedModel(model), state);
    if (!bad.empty())
      return fail("--save: not writing '" + savePath + "': " + bad +
                  " (--save-nonfinite writes it anyway)");
  }
  if (model.save(state, savePath.c_str()) != 0)
    return fail("--save: " + llvm::Twine(model.lastError()));
  return 0;
}

/// Starts counting on the emulated device; a library that runs elsewhere
/// cannot be counted, which is an error rather than an empty profile.
int startProfile(const Model &model, amp::DeviceProfile &profile) {
  const char *hint = "; the counts come from the emulated CUDA device, "
                     "which runs libraries compiled with "
                     "--target=cuda-emulator on any machine";
  if (!model.cudaDevice)
    return fail("--profile: '" + libraryPath + "' runs on the CPU" + hint);
  if (!profile.start())
    return fail("--profile: '" + libraryPath + "' runs on " +
                model.cudaDevice()->device_name() + hint);
  return 0;
}

/// Prints the summary of the profile and writes its lines to a temporary
/// that `file` commits with the run's other outputs; false with `error`
/// naming the option when it cannot.
bool writeProfile(const amp::DeviceProfile &profile, amp::OutputFile &file,
                  std::string &error) {
  std::vector<std::string> lines = profile.lines();
  if (!amp::printProfileSummary(lines, llvm::outs(), error) ||
      !file.open(profilePath, error)) {
    error = "--profile: " + error;
    return false;
  }
  std::error_code ec;
  llvm::raw_fd_ostream os(file.writePath(), ec);
  for (const std::string &line : lines)
    os << line << "\n";
  os.close();
  if (!ec)
    ec = os.error();
  os.clear_error();
  if (ec)
    error = "--profile: cannot write '" + profilePath + "': " + ec.message();
  return !ec;
}

/// --accumulate: the micro-batches per update of a library that
/// accumulates gradients (1 is also fine for one that does not).
int setAccumulation(const Model &model, amp_state *state) {
  if (!accumulatesGradients(model)) {
    if (accumulate == 1)
      return 0;
    return fail("--accumulate=" + llvm::Twine(accumulate) + ": '" +
                libraryPath +
                "' does not accumulate gradients; compile it with amp-compile "
                "--accumulate=N");
  }
  if (model.setHyperparameter(state, kAccumulateName, double(accumulate)) != 0)
    return fail("--accumulate: " + llvm::Twine(model.lastError()));
  return 0;
}

/// The hyper-parameters a checkpoint brought: finite; the learning rate
/// positive (0, which a schedule may end with, only where --lr replaces it
/// or --eval does not train).
int checkLoadedHyperparameters(const Model &model, amp_state *state) {
  for (int32_t i = 0; i < model.numTensors(); ++i) {
    const amp_tensor_info *info = model.tensor(i);
    if (info->role != AMP_ROLE_HYPERPARAMETER || info->num_elements < 1)
      continue;
    const void *data = model.stateTensor(state, info->name);
    if (!data)
      return fail("--load: " + llvm::Twine(model.lastError()));
    StringRef name = info->name;
    for (int64_t e = 0; e < info->num_elements; ++e) {
      double value = amp::loadValue(data, info->dtype, e);
      std::string reason;
      if (!std::isfinite(value))
        reason = "a hyper-parameter must be finite";
      else if (name == "lr" && value < 0)
        reason = "a learning rate must be positive";
      else if (name == "lr" && value == 0 && !evalOnly &&
               !learningRate.getNumOccurrences())
        reason = "training at rate 0 changes nothing; give --lr";
      if (reason.empty())
        continue;
      return fail("--load: checkpoint '" + loadPath + "' holds " + name +
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
int checkLearningRates(const Model &model) {
  const amp_tensor_info *info = findLearningRate(model);
  if (!info)
    return 0; // amp_set_hyperparameter names the missing 'lr'
  if (std::optional<std::string> problem = rateProblem(learningRate, *info))
    return fail("--lr " + formatNumber(learningRate) + " " + *problem);
  if (lrScheduleSpec.empty())
    return 0;
  // The rate is monotone between the extreme steps: the first bad step
  // lies after the last good one, found by bisection.
  int64_t good = -1;
  for (int64_t bad : lrSchedule.extremeSteps(steps)) {
    if (!scheduledRateProblem(*info, bad)) {
      good = bad;
      continue;
    }
    while (bad - good > 1) {
      int64_t middle = good + (bad - good) / 2;
      (scheduledRateProblem(*info, middle) ? bad : good) = middle;
    }
    return fail(*scheduledRateProblem(*info, bad));
  }
  return 0;
}

/// This rank's record for the agreement check (Agreement.h), after a
/// set-up without error.
void describeRun(const Model &model, amp_state *state, const DataStreams *data,
                 amp::RunRecord &record) {
  record.ready = 1;
  record.eval = evalOnly;
  record.steps = steps;
  record.seed = seed;
  record.lrGiven = learningRate.getNumOccurrences() != 0;
  record.lr = record.lrGiven ? double(learningRate) : 0.0;
  record.lrSchedule.set(lrScheduleSpec);
  record.accumulate = accumulate.getNumOccurrences() ? int64_t(accumulate) : 0;
  record.findNonfinite.set(nonfiniteSettings().setting());
  record.load.set(loadPath);
  for (int32_t i = 0; i < model.numTensors(); ++i) {
    const amp_tensor_info *info = model.tensor(i);
    int32_t fields[] = {info->role, info->dtype, info->rank};
    record.model =
        amp::hashBytes(info->name, std::strlen(info->name), record.model);
    record.model = amp::hashBytes(fields, sizeof(fields), record.model);
    record.model =
        amp::hashBytes(info->shape, sizeof(int64_t) * info->rank, record.model);
    if (info->role == AMP_ROLE_INPUT || info->role == AMP_ROLE_LABEL)
      continue;
    // Before the first step the state is on the host.
    const void *bytes = model.stateTensor(state, info->name);
    size_t size = 0;
    if (bytes && amp::tensorBytes(*info, size))
      record.state = amp::hashBytes(bytes, size, record.state);
  }
  std::vector<std::string> names;
  for (const std::string &spec : inputs)
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
int agreeWithOtherRanks(const Model &model, amp_state *state,
                        const DataStreams *data, bool ready) {
  if (dpSize <= 1)
    return ready ? 0 : 1;
  if (!model.dpAllgather) {
    if (dpRank == 0)
      llvm::WithColor::warning(llvm::errs(), "amp-run")
          << "'" << libraryPath
          << "' predates the ranks' start-up agreement check "
             "(amp_dp_allgather): their options, state and data are not "
             "compared; recompile it\n";
    return ready ? 0 : 1;
  }
  amp::RunRecord record;
  amp::RunRecord::clear(record);
  if (ready)
    describeRun(model, state, data, record);
  std::vector<amp::RunRecord> records(static_cast<size_t>(dpSize));
  for (amp::RunRecord &each : records)
    amp::RunRecord::clear(each);
  const char *error = nullptr;
  if (model.dpAllgather(&record, sizeof(record), records.data(), &error))
    return fail(error ? error : "the start-up agreement check failed");
  if (!ready)
    return 1;
  std::string disagreement = amp::findDisagreement(records);
  if (disagreement.empty())
    return 0;
  return fail("rank " + llvm::Twine(dpRank) + " of " + llvm::Twine(dpSize) +
              ": " + disagreement);
}

/// Loads the library and creates the state (where the ranks of a
/// data-parallel run meet).
int prepare(std::optional<Model> &model,
            std::unique_ptr<amp_state, void (*)(amp_state *)> &state) {
  if (!llvm::sys::fs::exists(libraryPath))
    return fail("cannot open '" + libraryPath + "': no such file");
  std::string error;
  model = loadModel(error);
  if (!model)
    return fail(error);
  if (threads > 0 && model->setThreads && model->setThreads(threads) != 0)
    return fail(llvm::Twine(threadsFromEnvironment ? "AMP_NUM_THREADS="
                                                   : "--threads ") +
                llvm::Twine(threads) +
                " is more threads than the model runtime takes (4096)");
  if (threads > 0 && model->setBlasThreads && !model->runtimeSgemm)
    model->setBlasThreads(threads);
  if (evalOnly && !model->hasEval())
    return fail("--eval: '" + libraryPath + "' has no forward model");
  state = {model->create(seed), model->destroy};
  if (!state)
    return fail("cannot create the model state: " +
                llvm::Twine(model->lastError()));
  if (model->cudaDevice)
    llvm::errs() << "amp-run: on " << model->cudaDevice()->device_name()
                 << "\n";
  if (model->dpRank && model->dpWorldSize)
    useDataParallelRank(model->dpRank(), model->dpWorldSize());
  return 0;
}

/// Loads the state from --load, sets the learning rate and the inputs.
int prepareState(const Model &model, amp_state *state) {
  if (!loadPath.empty() && model.load(state, loadPath.c_str()) != 0)
    return fail("--load: " + llvm::Twine(model.lastError()));
  if (!loadPath.empty() && checkLoadedHyperparameters(model, state))
    return 1;
  if (learningRate.getNumOccurrences() && checkLearningRates(model) != 0)
    return 1;
  if (learningRate.getNumOccurrences() &&
      model.setHyperparameter(state, "lr", learningRate) != 0)
    return fail("--lr: " + llvm::Twine(model.lastError()));
  if (accumulate.getNumOccurrences() && setAccumulation(model, state) != 0)
    return 1;

  // Synthetic data first, then what the user gave.
  Random random{seed ^ 0xDA7A5EEDull};
  for (int32_t i = 0; i < model.numTensors(); ++i) {
    const amp_tensor_info *info = model.tensor(i);
    if (info->role == AMP_ROLE_INPUT || info->role == AMP_ROLE_LABEL)
      fillSynthetic(*info, model.stateTensor(state, info->name), random);
  }
  llvm::StringSet<> fed;
  for (const std::string &spec : inputs) {
    StringRef name = StringRef(spec).split('=').first;
    if (!name.empty() && !fed.insert(name).second)
      return fail("--input " + name + " is given twice");
    if (loadInput(model, state, spec) != 0)
      return 1;
  }
  return 0;
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
  if (checkOptions() != 0 ||
      (!savePath.empty() && checkWritable("save", savePath) != 0) ||
      (!metricsPath.empty() && checkWritable("metrics", metricsPath) != 0) ||
      (!profilePath.empty() && checkWritable("profile", profilePath) != 0))
    return 1;
  std::optional<Model> model;
  std::unique_ptr<amp_state, void (*)(amp_state *)> state(nullptr, nullptr);
  if (prepare(model, state) != 0)
    return 1;

  amp::DeviceProfile profile;
  std::string error;
  std::unique_ptr<mlir::amp::NonfiniteFinder> finder;
  std::optional<Metrics> metrics;
  std::optional<EvalOutputs> evalOutputs;
  std::optional<DataStreams> data;
  auto setUp = [&]() -> int {
    if (prepareState(*model, state.get()) != 0)
      return 1;
    if (!profilePath.empty() && startProfile(*model, profile) != 0)
      return 1;
    finder = amp::createNonfiniteFinder(nonfiniteSettings(), libraryPath,
                                        trainedModel(*model),
                                        model->buildArgument, error);
    if (!error.empty())
      return fail(error);
    if (finder && evalOnly)
      return fail("--find-nonfinite re-runs training steps, not --eval");
    if (!metricsPath.empty() && !metrics.emplace().open(error))
      return fail("--metrics: " + error);
    if (!evalOutputDir.empty() && !evalOutputs.emplace().open(*model, error))
      return fail("--eval-output: " + error);
    if (!dataSpecs.empty()) {
      data.emplace();
      data->shard(dpRank, dpSize);
    }
    if (data && data->open(*model) != 0)
      return 1;
    return 0;
  };
  // A rank that failed to set up still takes part in the agreement check,
  // which stops every rank.
  bool ready = setUp() == 0;
  if (agreeWithOtherRanks(*model, state.get(), data ? &*data : nullptr,
                          ready) != 0 ||
      !ready)
    return 1;
  Summary summary;
  bool overlapped =
      canOverlapSteps(*model, evalOutputs.has_value(), finder != nullptr);
  if (overlapped && dpRank == 0)
    llvm::errs() << "amp-run: each step's upload overlaps the step before "
                    "(--overlap-steps)\n";
  int status =
      overlapped
          ? runOverlapped(*model, state.get(), metrics ? &*metrics : nullptr,
                          data ? &*data : nullptr, summary)
          : run(*model, state.get(), metrics ? &*metrics : nullptr,
                evalOutputs ? &*evalOutputs : nullptr, data ? &*data : nullptr,
                summary, finder.get());
  if (status != 0)
    return 1;
  printSummary(summary);
  // The --find-nonfinite report is what a diverged run is for: written even
  // when the NaN loss fails the run, and said at once when it cannot be.
  std::string findingsError;
  bool findingsWritten =
      !finder ||
      amp::writeNonfiniteReport(*finder, nonfiniteReportPath, findingsError);
  if (!findingsWritten)
    fail(findingsError);
  amp::OutputFile profileFile;
  std::string profileError;
  bool profileWritten =
      profilePath.empty() || writeProfile(profile, profileFile, profileError);

  // A report that cannot be written (metrics, the profile, the summary on a
  // full disk) must not lose the training: the checkpoint is still written
  // (from a finite state), then the run fails.
  std::string metricsError;
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
  bool nanLoss = steps > 0 && std::isnan(summary.lastLoss);
  bool saved = !savePath.empty() && (!nanLoss || saveNonfinite);
  if (saved && save(*model, state.get()) != 0)
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
  if (!profilePath.empty() && !profileFile.commit(error))
    return fail("--profile: " + error);
  return 0;
}
