//===- amp-run.cpp - train a compiled model -------------------------------===//
//
// amp-run LIB.so --steps N [--input NAME=FILE ...] [--seed S] [--eval]
//        [--save CKPT] [--load CKPT] [--metrics FILE] [--lr F]
//
// Loads a library made by amp-compile through its C ABI, feeds it seeded
// synthetic data or the given files (raw little-endian or .npy), and runs
// training steps (or the forward model with --eval) with a live progress
// line, per-step JSON metrics and a summary.
//
//===----------------------------------------------------------------------===//

#include "amp/Runtime/DeviceRuntime.h"
#include "amp/Runtime/ModelABI.h"
#include "amp/Runtime/Numerics.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <optional>

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
cl::opt<uint64_t> seed("seed", cl::init(0),
                       cl::desc("Seed for the initial state and synthetic "
                                "data"),
                       cl::cat(category));
cl::opt<bool> evalOnly("eval", cl::desc("Run the forward model only"),
                       cl::cat(category));
cl::opt<std::string> savePath("save", cl::desc("Save the state at the end"),
                              cl::value_desc("CKPT"), cl::cat(category));
cl::opt<std::string> loadPath("load", cl::desc("Load the state first"),
                              cl::value_desc("CKPT"), cl::cat(category));
cl::opt<std::string> metricsPath("metrics",
                                 cl::desc("Write a JSON line per step"),
                                 cl::value_desc("FILE"), cl::cat(category));
cl::opt<double> learningRate("lr", cl::desc("Set the 'lr' hyper-parameter"),
                             cl::init(std::nan("")), cl::cat(category));

int fail(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "amp-run") << message << "\n";
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
  decltype(&amp_state_save) save;
  decltype(&amp_state_load) load;
  /// Only in libraries compiled for --target=cuda.
  decltype(&amp_cuda_device_ops) cudaDevice = nullptr;
};

template <typename T>
bool resolve(llvm::sys::DynamicLibrary &library, const char *name, T &fn) {
  fn = reinterpret_cast<T>(library.getAddressOfSymbol(name));
  return fn != nullptr;
}

std::optional<Model> loadModel(std::string &error) {
  // dlopen searches the library path for a bare file name: anchor it.
  llvm::SmallString<256> path(libraryPath);
  llvm::sys::fs::make_absolute(path);
  auto library = llvm::sys::DynamicLibrary::getLibrary(path.c_str(), &error);
  if (!library.isValid())
    return std::nullopt;
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
            resolve(library, "amp_state_save", m.save) &&
            resolve(library, "amp_state_load", m.load);
  resolve(library, "amp_cuda_device_ops", m.cudaDevice);
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

/// The payload of a .npy file after checking its dtype and element count.
std::optional<StringRef> npyPayload(StringRef contents,
                                    const amp_tensor_info &info,
                                    std::string &error) {
  if (!contents.starts_with("\x93NUMPY") || contents.size() < 10) {
    error = "is not a .npy file";
    return std::nullopt;
  }
  uint8_t major = contents[6];
  size_t headerLength =
      major == 1 ? (uint8_t(contents[8]) | uint8_t(contents[9]) << 8)
                 : (uint8_t(contents[8]) | uint8_t(contents[9]) << 8 |
                    uint8_t(contents[10]) << 16 | uint8_t(contents[11]) << 24);
  size_t offset = major == 1 ? 10 : 12;
  if (contents.size() < offset + headerLength) {
    error = "has a truncated .npy header";
    return std::nullopt;
  }
  StringRef header = contents.substr(offset, headerLength);
  const char *descr = npyDescr(info.dtype);
  if (!descr || !header.contains(std::string("'") + descr + "'")) {
    error = std::string("has another dtype than the model's (expected ") +
            (descr ? descr : "bf16, which .npy cannot hold") + ")";
    return std::nullopt;
  }
  if (header.contains("'fortran_order': True")) {
    error = "is in Fortran order";
    return std::nullopt;
  }
  return contents.drop_front(offset + headerLength);
}

int loadInput(const Model &model, amp_state *state, StringRef spec) {
  auto [name, path] = spec.split('=');
  if (name.empty() || path.empty())
    return fail("--input expects NAME=FILE, got '" + spec + "'");
  const amp_tensor_info *info = nullptr;
  for (int32_t i = 0; i < model.numTensors(); ++i)
    if (name == model.tensor(i)->name)
      info = model.tensor(i);
  if (!info || (info->role != AMP_ROLE_INPUT && info->role != AMP_ROLE_LABEL))
    return fail("--input " + name +
                ": the model has no input or label named '" + name + "'");
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!buffer)
    return fail("--input " + name + ": cannot read '" + path +
                "': " + buffer.getError().message());
  StringRef contents = (*buffer)->getBuffer();
  if (path.ends_with(".npy")) {
    std::string error;
    std::optional<StringRef> payload = npyPayload(contents, *info, error);
    if (!payload)
      return fail("--input " + name + ": '" + path + "' " + error);
    contents = *payload;
  }
  size_t expected = info->num_elements * elementBytes(info->dtype);
  if (contents.size() != expected)
    return fail("--input " + name + ": '" + path + "' holds " +
                llvm::Twine(contents.size()) + " bytes of data but the " +
                "tensor needs " + llvm::Twine(expected));
  std::memcpy(model.stateTensor(state, info->name), contents.data(), expected);
  return 0;
}

/// Reads the loss scales of the model, one per loss (scaler-state tensors
/// named "...scale"), in the model's order; none without loss scaling.
/// False when a scale cannot be read (from a GPU whose step failed).
bool readLossScales(const Model &model, amp_state *state,
                    llvm::SmallVectorImpl<float> &scales) {
  for (int32_t i = 0; i < model.numTensors(); ++i) {
    const amp_tensor_info *info = model.tensor(i);
    if (info->role != AMP_ROLE_SCALER_STATE ||
        !StringRef(info->name).ends_with("scale") ||
        info->dtype != AMP_DTYPE_F32)
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

int run(const Model &model, amp_state *state, Summary &summary) {
  std::unique_ptr<llvm::raw_fd_ostream> metrics;
  if (!metricsPath.empty()) {
    std::error_code ec;
    metrics = std::make_unique<llvm::raw_fd_ostream>(metricsPath, ec);
    if (ec)
      return fail("cannot write metrics to '" + metricsPath +
                  "': " + ec.message());
  }
  bool live = llvm::sys::Process::StandardErrIsDisplayed();
  for (int64_t step = 1; step <= steps; ++step) {
    float loss = NAN;
    int32_t skipped = 0;
    auto start = std::chrono::steady_clock::now();
    int32_t status = evalOnly ? model.eval(state, &loss)
                              : model.trainStep(state, &loss, &skipped);
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    if (status != 0)
      return fail(llvm::Twine("step ") + llvm::Twine(step) + ": " +
                  model.lastError());
    summary.seconds += seconds;
    summary.skipped += skipped;
    if (step == 1)
      summary.firstLoss = loss;
    summary.lastLoss = loss;
    llvm::SmallVector<float> scales;
    if (!readLossScales(model, state, scales))
      return fail(llvm::Twine("step ") + llvm::Twine(step) + ": " +
                  model.lastError());
    llvm::errs() << (live ? "\r" : "") << "step " << step << "/" << steps
                 << "  loss " << llvm::format("%.6f", loss);
    if (!scales.empty()) {
      llvm::errs() << "  scale ";
      llvm::interleave(
          scales, llvm::errs(),
          [](float scale) { llvm::errs() << llvm::format("%g", scale); }, "/");
    }
    llvm::errs() << "  skipped " << summary.skipped << "  "
                 << llvm::format("%.1f", step / summary.seconds) << " steps/s"
                 << (live ? "   " : "\n");
    if (metrics) {
      // "scale" is the first loss's scale; "scales" lists them all when a
      // step has several losses.
      *metrics << "{\"step\": " << step
               << ", \"loss\": " << llvm::format("%.9g", loss)
               << ", \"scale\": ";
      if (!scales.empty())
        *metrics << llvm::format("%.9g", scales.front());
      else
        *metrics << "null";
      if (scales.size() > 1) {
        *metrics << ", \"scales\": [";
        llvm::interleaveComma(scales, *metrics, [&](float scale) {
          *metrics << llvm::format("%.9g", scale);
        });
        *metrics << "]";
      }
      *metrics << ", \"skipped\": " << (skipped ? "true" : "false")
               << ", \"seconds\": " << llvm::format("%.6f", seconds) << "}\n";
    }
  }
  if (live)
    llvm::errs() << "\n";
  return 0;
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv, "amp-run: train a model compiled by amp-compile\n");
  if (steps < 0)
    return fail("--steps must be non-negative");
  if (!llvm::sys::fs::exists(libraryPath))
    return fail("cannot open '" + libraryPath + "': no such file");
  std::string error;
  std::optional<Model> model = loadModel(error);
  if (!model)
    return fail("cannot load '" + libraryPath + "': " + error);
  if (evalOnly && !model->hasEval())
    return fail("--eval: '" + libraryPath + "' has no forward model");

  std::unique_ptr<amp_state, decltype(model->destroy)> state(
      model->create(seed), model->destroy);
  if (!state)
    return fail("cannot create the model state: " +
                llvm::Twine(model->lastError()));
  if (model->cudaDevice)
    llvm::errs() << "amp-run: on " << model->cudaDevice()->device_name()
                 << "\n";
  if (!loadPath.empty() && model->load(state.get(), loadPath.c_str()) != 0)
    return fail("--load: " + llvm::Twine(model->lastError()));
  if (!std::isnan(learningRate) &&
      model->setHyperparameter(state.get(), "lr", learningRate) != 0)
    return fail("--lr: " + llvm::Twine(model->lastError()));

  // Synthetic data first, then what the user gave.
  Random random{seed ^ 0xDA7A5EEDull};
  for (int32_t i = 0; i < model->numTensors(); ++i) {
    const amp_tensor_info *info = model->tensor(i);
    if (info->role == AMP_ROLE_INPUT || info->role == AMP_ROLE_LABEL)
      fillSynthetic(*info, model->stateTensor(state.get(), info->name), random);
  }
  for (const std::string &spec : inputs)
    if (loadInput(*model, state.get(), spec) != 0)
      return 1;

  Summary summary;
  if (run(*model, state.get(), summary) != 0)
    return 1;
  llvm::outs() << (evalOnly ? "evaluated " : "trained ") << steps
               << " steps in " << llvm::format("%.3f", summary.seconds)
               << " s (" << llvm::format("%.1f", steps / summary.seconds)
               << " steps/s); loss " << llvm::format("%.6f", summary.firstLoss)
               << " -> " << llvm::format("%.6f", summary.lastLoss)
               << "; skipped steps " << summary.skipped << "\n";
  if (!savePath.empty() && model->save(state.get(), savePath.c_str()) != 0)
    return fail("--save: " + llvm::Twine(model->lastError()));
  if (std::isnan(summary.lastLoss) && steps > 0)
    return fail("the loss is NaN");
  return 0;
}
