//===- Outputs.cpp - what a run writes besides the checkpoint -------------===//

#include "amp/Host/Outputs.h"
#include "amp/Host/NpyFile.h"
#include "amp/Runtime/Numerics.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"

#include <cmath>
#include <unistd.h>

using llvm::StringRef;
using namespace amp;

namespace {
/// A number for a JSON line: JSON has no NaN or infinity, null stands in.
std::string jsonNumber(double value) {
  if (!std::isfinite(value))
    return "null";
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%.9g", value);
  return text;
}

/// A result's name as a file name: characters other than letters,
/// digits, '_', '-' and '.' become '_'.
std::string fileName(StringRef name) {
  std::string text = name.str();
  for (char &c : text)
    if (!llvm::isAlnum(c) && c != '_' && c != '-' && c != '.')
      c = '_';
  return text.empty() || text[0] == '.' ? "_" + text : text;
}
} // namespace

bool Metrics::open(const std::string &outputPath, std::string &error) {
  path = outputPath;
  if (!file.open(path, error))
    return false;
  // Standard output stays open for the summary.
  if (file.writePath() == "-") {
    os = std::make_unique<llvm::raw_fd_ostream>(STDOUT_FILENO,
                                                /*shouldClose=*/false);
    return true;
  }
  std::error_code ec;
  os = std::make_unique<llvm::raw_fd_ostream>(file.openForWriting(ec),
                                              /*shouldClose=*/true);
  if (ec)
    error = "cannot write '" + path + "': " + ec.message();
  return !ec;
}

void Metrics::write(int64_t step, float loss, llvm::ArrayRef<float> scales,
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

bool Metrics::close(std::string &error) {
  if (file.writePath() == "-")
    os->flush();
  else
    os->close();
  std::error_code ec = os->error();
  os->clear_error();
  if (ec)
    error = "cannot write metrics to '" + path + "': " + ec.message();
  return !ec;
}

Metrics::~Metrics() {
  if (!os)
    return;
  os->flush();
  os->clear_error();
}

bool EvalOutputs::open(const Model &model, const std::string &directory,
                       int64_t steps, std::string &error) {
  for (int32_t i = 0; i < model.numEvalResults(); ++i) {
    const amp_tensor_info *info = model.evalResultInfo(i);
    auto result = std::make_unique<Result>();
    result->info = info;
    result->index = i;
    std::string path = directory + "/" + fileName(info->name) + ".npy";
    for (const auto &other : results)
      if (other->file.path() == path) {
        error = "results '" + std::string(other->info->name) + "' and '" +
                info->name + "' would both be written to '" + path + "'";
        return false;
      }
    llvm::SmallVector<int64_t> shape(info->shape, info->shape + info->rank);
    if (shape.empty())
      shape.push_back(steps);
    else if (__builtin_mul_overflow(shape[0], steps, &shape[0])) {
      error = "the results of " + std::to_string(steps) + " steps of '" +
              info->name + "' overflow a .npy shape";
      return false;
    }
    if (!result->file.open(path, error))
      return false;
    std::error_code ec;
    result->os = std::make_unique<llvm::raw_fd_ostream>(
        result->file.openForWriting(ec), /*shouldClose=*/true);
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

bool EvalOutputs::write(const Model &model, const amp_state *state,
                        std::string &error) {
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

bool EvalOutputs::close(std::string &error) {
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

bool EvalOutputs::commit(std::string &error) {
  for (const auto &result : results)
    if (!result->file.commit(error))
      return false;
  return true;
}
