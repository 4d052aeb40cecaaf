//===- Profile.cpp - amp-run --profile: the emulated device's counts ------===//

#include "amp/Host/Profile.h"

#include "amp/Runtime/EmulatorABI.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"

#include <dlfcn.h>

using namespace amp;

bool DeviceProfile::start() {
  // The runtime opens the device RTLD_LOCAL, under its own name or as the
  // driver (docs/GPURuntime.md); a real driver lacks the extension.
  for (const char *name : {"libamp_cuda_emulator.so", "libcuda.so.1"}) {
    void *library = dlopen(name, RTLD_NOW | RTLD_NOLOAD);
    if (!library)
      continue;
    auto *startFn = reinterpret_cast<uint64_t (*)()>(
        dlsym(library, AMP_EMU_PROFILE_START_SYMBOL));
    forEach = reinterpret_cast<decltype(forEach)>(
        dlsym(library, AMP_EMU_PROFILE_FOR_EACH_SYMBOL));
    // The runtime keeps its own reference: the functions stay loaded.
    dlclose(library);
    if (startFn && forEach) {
      first = startFn();
      return true;
    }
  }
  forEach = nullptr;
  return false;
}

std::vector<std::string> DeviceProfile::lines() const {
  std::vector<std::string> result;
  if (forEach)
    forEach(
        first,
        [](const char *line, void *context) {
          static_cast<std::vector<std::string> *>(context)->push_back(line);
        },
        &result);
  return result;
}

namespace {

struct KernelTotals {
  uint64_t launches = 0, threads = 0, loaded = 0, stored = 0;
};

struct GemmTotals {
  uint64_t calls = 0;
  double flops = 0;
};

/// Totals by name, in the order names first appear.
template <typename T>
using Ordered = llvm::MapVector<std::string, T, llvm::StringMap<unsigned>>;

/// "32x1x1" from a JSON [x, y, z]; the product of the three in `count`.
bool readDims(const llvm::json::Object &record, llvm::StringRef key,
              std::string &text, uint64_t &count) {
  const llvm::json::Array *dims = record.getArray(key);
  if (!dims || dims->size() != 3)
    return false;
  count = 1;
  for (const llvm::json::Value &dim : *dims) {
    std::optional<int64_t> value = dim.getAsInteger();
    if (!value || *value < 0)
      return false;
    text += (text.empty() ? "" : "x") + std::to_string(*value);
    count *= uint64_t(*value);
  }
  return true;
}

bool addLaunch(const llvm::json::Object &record,
               Ordered<KernelTotals> &kernels) {
  std::optional<llvm::StringRef> name = record.getString("kernel");
  std::optional<int64_t> module = record.getInteger("module");
  std::optional<int64_t> loaded = record.getInteger("loaded_bytes");
  std::optional<int64_t> stored = record.getInteger("stored_bytes");
  std::string grid, block;
  uint64_t blocks = 0, threadsPerBlock = 0;
  if (!name || !module || !loaded || !stored ||
      !readDims(record, "grid", grid, blocks) ||
      !readDims(record, "block", block, threadsPerBlock))
    return false;
  KernelTotals &totals =
      kernels[(*name + " #" + llvm::Twine(*module) + " " + grid + " " + block)
                  .str()];
  totals.launches += 1;
  totals.threads += blocks * threadsPerBlock;
  totals.loaded += uint64_t(*loaded);
  totals.stored += uint64_t(*stored);
  return true;
}

bool addGemm(const llvm::json::Object &record, Ordered<GemmTotals> &gemms) {
  std::optional<int64_t> m = record.getInteger("m"), n = record.getInteger("n"),
                         k = record.getInteger("k"),
                         batch = record.getInteger("batch");
  std::optional<llvm::StringRef> ab = record.getString("ab_type"),
                                 d = record.getString("d_type");
  std::optional<double> flops = record.getNumber("flops");
  if (!m || !n || !k || !batch || !ab || !d || !flops)
    return false;
  std::string shape =
      std::to_string(*m) + "x" + std::to_string(*n) + "x" + std::to_string(*k) +
      " batch " + std::to_string(*batch) + " " + ab->str() + "->" + d->str() +
      (record.getBoolean("tf32").value_or(false) ? " tf32" : "");
  GemmTotals &totals = gemms[shape];
  totals.calls += 1;
  totals.flops += *flops;
  return true;
}

} // namespace

bool amp::printProfileSummary(const std::vector<std::string> &lines,
                              llvm::raw_ostream &os, std::string &error) {
  Ordered<KernelTotals> kernels;
  Ordered<GemmTotals> gemms;
  for (const std::string &line : lines) {
    llvm::Expected<llvm::json::Value> value = llvm::json::parse(line);
    const llvm::json::Object *record = value ? value->getAsObject() : nullptr;
    std::optional<llvm::StringRef> kind =
        record ? record->getString("kind") : std::nullopt;
    bool ok = kind && ((*kind == "launch" && addLaunch(*record, kernels)) ||
                       (*kind == "gemm" && addGemm(*record, gemms)));
    if (!value)
      llvm::consumeError(value.takeError());
    if (!ok) {
      error =
          "the emulated device recorded a line amp-run cannot read: " + line;
      return false;
    }
  }
  os << llvm::format("%-48s %9s %12s %14s %14s\n", "kernel #module grid block",
                     "launches", "threads", "loaded bytes", "stored bytes");
  for (const auto &[name, t] : kernels)
    os << llvm::format(
        "%-48s %9llu %12llu %14llu %14llu\n", name.c_str(),
        (unsigned long long)t.launches, (unsigned long long)t.threads,
        (unsigned long long)t.loaded, (unsigned long long)t.stored);
  if (gemms.empty())
    return true;
  os << llvm::format("%-48s %9s %12s\n", "GEMM m x n x k", "calls", "FLOPs");
  for (const auto &[shape, t] : gemms)
    os << llvm::format("%-48s %9llu %12.4g\n", shape.c_str(),
                       (unsigned long long)t.calls, t.flops);
  return true;
}
