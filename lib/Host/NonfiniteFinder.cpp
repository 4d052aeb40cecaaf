//===- NonfiniteFinder.cpp - name the first op that made inf/NaN ----------===//
//
// The instrumented library is loaded (through LoadedModel, its file checked
// first) with RTLD_DEEPBIND so that its copy of the runtime, not the trained
// library's or one the host process exports, serves it. Its state is filled, by
// tensor name, from the snapshot of the trained state; it has the same tensors
// plus the records.
//
//===----------------------------------------------------------------------===//

#include "amp/Host/NonfiniteFinder.h"

#include "amp/Host/LoadedModel.h"
#include "amp/Runtime/NonfiniteABI.h"
#include "amp/Runtime/Numerics.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstring>

using namespace mlir::amp;
using llvm::StringRef;

namespace {
std::string formatNumber(double value) {
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%g", value);
  return text;
}

/// The model ABI of an instrumented library, opened through the loader of
/// compiled libraries (LoadedModel: its file checked first).
struct InstrumentedLibrary {
  std::unique_ptr<LoadedModel> library;
  decltype(&amp_last_error) lastError = nullptr;
  decltype(&amp_num_tensors) numTensors = nullptr;
  decltype(&amp_tensor) tensor = nullptr;
  decltype(&amp_state_create) create = nullptr;
  decltype(&amp_state_destroy) destroy = nullptr;
  decltype(&amp_state_tensor) stateTensor = nullptr;
  decltype(&amp_train_step) trainStep = nullptr;
  decltype(&amp_nonfinite_sites) sites = nullptr;

  bool open(const std::string &path, std::string &error) {
    library = LoadedModel::open(path, error, /*deepBind=*/true);
    if (!library)
      return false;
    lastError = library->lastError;
    numTensors = library->numTensors;
    tensor = library->tensor;
    create = library->create;
    destroy = library->destroy;
    stateTensor = library->stateTensor;
    trainStep = library->trainStep;
    sites = reinterpret_cast<decltype(&amp_nonfinite_sites)>(
        library->symbol("amp_nonfinite_sites"));
    if (sites)
      return true;
    error = "'" + path +
            "' is not an instrumented library (amp-compile "
            "--instrument-nonfinite)";
    return false;
  }

  /// The number of record rows.
  int64_t countRecords() const {
    for (int32_t i = 0; i < numTensors(); ++i)
      if (std::strcmp(tensor(i)->name, AMP_NONFINITE_STATS_NAME) == 0)
        return tensor(i)->num_elements / AMP_NONFINITE_COLUMNS;
    return 0;
  }
};

/// The records of an instrumented step (include/amp/Runtime/NonfiniteABI.h).
struct Records {
  const float *data;
  int64_t count;

  /// The rows listed in `list` ("3,4"); nothing when one is out of range.
  std::optional<llvm::SmallVector<int64_t>> parse(StringRef list) const {
    llvm::SmallVector<StringRef> items;
    list.split(items, ',', -1, /*KeepEmpty=*/false);
    llvm::SmallVector<int64_t> rows;
    for (StringRef item : items) {
      int64_t row;
      if (item.getAsInteger(10, row) || row < 0 || row >= count)
        return std::nullopt;
      rows.push_back(row);
    }
    return rows;
  }

  /// Whether every value of `list` is finite (maxima propagate NaN).
  std::optional<bool> finite(StringRef list) const {
    std::optional<llvm::SmallVector<int64_t>> rows = parse(list);
    if (!rows)
      return std::nullopt;
    return llvm::all_of(*rows, [&](int64_t row) {
      const float *record = data + row * AMP_NONFINITE_COLUMNS;
      return std::isfinite(record[AMP_NONFINITE_MAX]) &&
             std::isfinite(record[AMP_NONFINITE_NEG_MIN]);
    });
  }

  /// The least and greatest element over the values of `list`.
  void range(StringRef list, float &min, float &max) const {
    min = INFINITY;
    max = -INFINITY;
    for (int64_t row : parse(list).value_or(llvm::SmallVector<int64_t>())) {
      const float *record = data + row * AMP_NONFINITE_COLUMNS;
      min = std::min(min, -record[AMP_NONFINITE_NEG_MIN]);
      max = std::max(max, record[AMP_NONFINITE_MAX]);
    }
  }
};

/// A number for the report; JSON has no inf or NaN, null stands in.
llvm::json::Value jsonNumber(double value) {
  if (!std::isfinite(value))
    return nullptr;
  return value;
}
} // namespace

std::string mlir::amp::describeNonfiniteState(const TrainedModel &model,
                                              amp_state *state) {
  for (int32_t i = 0; i < model.numTensors(); ++i) {
    const amp_tensor_info *info = model.tensor(i);
    if (info->role == AMP_ROLE_INPUT || info->role == AMP_ROLE_LABEL)
      continue;
    const void *data = model.stateTensor(state, info->name);
    int64_t bad = data ? ::amp::firstNonFinite(*info, data) : -1;
    if (bad >= 0)
      return (llvm::Twine("tensor '") + info->name + "' element " +
              llvm::Twine(bad) + " is " +
              formatNumber(::amp::loadValue(data, info->dtype, bad)))
          .str();
  }
  return "";
}

std::string mlir::amp::nonfiniteTrigger(const TrainedModel &model,
                                        amp_state *state, float loss) {
  if (!std::isfinite(loss))
    return "the loss is " + formatNumber(loss);
  return describeNonfiniteState(model, state);
}

void mlir::amp::printNonfiniteReport(llvm::raw_ostream &os,
                                     const NonfiniteReport &report) {
  os << "find-nonfinite: step " << report.step;
  if (!report.trigger.empty())
    os << ": " << report.trigger;
  os << "\n";
  if (!report.site) {
    os << "  no op produced inf or NaN from finite operands: the state "
          "before the step already held them\n";
    return;
  }
  const NonfiniteOp &site = *report.site;
  os << "  first non-finite op: " << site.kind;
  if (!site.name.empty())
    os << " '" << site.name << "'";
  os << " at " << site.location << "\n"
     << "  precision: " << site.precision << "\n"
     << "  operands: finite, min " << llvm::format("%g", site.operandMin)
     << ", max " << llvm::format("%g", site.operandMax) << "\n"
     << "  in f32: "
     << (!site.finiteInF32 ? "not evaluated (no f32 form)"
         : *site.finiteInF32
             ? "finite (the low precision overflowed: pin it to f32)"
             : "also inf or NaN (not a precision problem)")
     << "\n";
}

namespace {
/// The report's fields in the documented order (docs/Debugging.md).
void writeJSON(llvm::json::OStream &json, const NonfiniteReport &report) {
  json.object([&] {
    json.attribute("step", report.step);
    json.attribute("trigger", report.trigger);
    if (!report.site) {
      json.attribute("op", nullptr);
      return;
    }
    const NonfiniteOp &s = *report.site;
    json.attributeObject("op", [&] {
      json.attribute("index", s.index);
      json.attribute("kind", s.kind);
      json.attribute("name", s.name);
      json.attribute("location", s.location);
      json.attribute("precision", s.precision);
      json.attribute("operand_min", jsonNumber(s.operandMin));
      json.attribute("operand_max", jsonNumber(s.operandMax));
      json.attribute("finite_in_f32", s.finiteInF32
                                          ? llvm::json::Value(*s.finiteInF32)
                                          : llvm::json::Value(nullptr));
    });
  });
}
} // namespace

std::string mlir::amp::nonfiniteReportJSON(const NonfiniteReport &report) {
  std::string text;
  llvm::raw_string_ostream os(text);
  {
    llvm::json::OStream json(os);
    writeJSON(json, report);
  }
  os.flush();
  return text;
}

void mlir::amp::writeNonfiniteReports(llvm::raw_ostream &os,
                                      llvm::ArrayRef<NonfiniteReport> reports) {
  llvm::json::OStream json(os);
  json.object([&] {
    json.attributeArray("reports", [&] {
      for (const NonfiniteReport &report : reports)
        writeJSON(json, report);
    });
  });
  os << "\n";
}

std::optional<NonfiniteMode> mlir::amp::parseNonfiniteMode(StringRef text) {
  if (text.empty() || text == "first")
    return NonfiniteMode::First;
  if (text == "every")
    return NonfiniteMode::Every;
  return std::nullopt;
}

struct NonfiniteFinder::Impl {
  TrainedModel model;
  NonfiniteMode mode;
  InstrumentedBuilder build;
  bool reported = false;
  /// The bytes of every tensor before the step, by tensor index.
  std::vector<std::vector<char>> snapshot;
  std::unique_ptr<InstrumentedLibrary> instrumented;
  std::vector<NonfiniteReport> reports;

  bool isActive() const { return mode == NonfiniteMode::Every || !reported; }

  bool save(amp_state *state, std::string &error) {
    snapshot.resize(model.numTensors());
    for (int32_t i = 0; i < model.numTensors(); ++i) {
      const amp_tensor_info *info = model.tensor(i);
      size_t bytes = 0;
      ::amp::tensorBytes(*info, bytes);
      const char *data =
          static_cast<const char *>(model.stateTensor(state, info->name));
      if (!data) {
        error = model.lastError();
        return false;
      }
      snapshot[i].assign(data, data + bytes);
    }
    return true;
  }

  bool loadInstrumented(std::string &error) {
    if (instrumented)
      return true;
    std::string path;
    if (!build(path, error))
      return false;
    auto library = std::make_unique<InstrumentedLibrary>();
    if (!library->open(path, error))
      return false;
    instrumented = std::move(library);
    return true;
  }

  /// The instrumented library's state, as the trained one was before the
  /// step.
  amp_state *restore(std::string &error) {
    InstrumentedLibrary &lib = *instrumented;
    amp_state *state = lib.create(0);
    if (!state) {
      error = lib.lastError();
      return nullptr;
    }
    for (int32_t i = 0; i < model.numTensors(); ++i) {
      const amp_tensor_info *info = model.tensor(i);
      void *data = lib.stateTensor(state, info->name);
      int32_t index = 0;
      while (index < lib.numTensors() &&
             std::strcmp(lib.tensor(index)->name, info->name) != 0)
        ++index;
      if (!data || index == lib.numTensors() ||
          lib.tensor(index)->dtype != info->dtype ||
          lib.tensor(index)->num_elements != info->num_elements) {
        error = std::string("the instrumented library's tensor '") +
                info->name + "' differs from the trained library's";
        lib.destroy(state);
        return nullptr;
      }
      std::memcpy(data, snapshot[i].data(), snapshot[i].size());
    }
    return state;
  }

  /// The first site whose results went non-finite from finite operands;
  /// `error` says so when the records do not match the site table.
  bool findSite(amp_state *state, std::optional<NonfiniteOp> &found,
                std::string &error) {
    InstrumentedLibrary &lib = *instrumented;
    const auto *records = static_cast<const float *>(
        lib.stateTensor(state, AMP_NONFINITE_STATS_NAME));
    if (!records) {
      error = lib.lastError();
      return false;
    }
    Records rows{records, lib.countRecords()};
    llvm::SmallVector<StringRef> lines;
    StringRef(lib.sites()).split(lines, '\n', -1, /*KeepEmpty=*/false);
    for (auto [index, line] : llvm::enumerate(lines)) {
      llvm::SmallVector<StringRef> fields;
      line.split(fields, '\t');
      fields.resize(7);
      std::optional<bool> resultsFinite =
          fields[4].empty() ? std::nullopt : rows.finite(fields[4]);
      std::optional<bool> operandsFinite = rows.finite(fields[5]);
      if (!resultsFinite || !operandsFinite) {
        error = "the instrumented library's site table does not match its "
                "records";
        return false;
      }
      if (*resultsFinite || !*operandsFinite)
        continue;
      NonfiniteOp site{int64_t(index), fields[0].str(), fields[1].str(),
                       fields[2].str(), fields[3].str()};
      rows.range(fields[5], site.operandMin, site.operandMax);
      if (!fields[6].empty())
        site.finiteInF32 = rows.finite(fields[6]);
      found = site;
      return true;
    }
    return true;
  }

  /// Re-runs the step from the snapshot; `site` is the first op that went
  /// non-finite, if one did.
  bool rerun(std::optional<NonfiniteOp> &site, std::string &error) {
    if (!loadInstrumented(error))
      return false;
    amp_state *state = restore(error);
    if (!state)
      return false;
    float loss = 0;
    int32_t skipped = 0;
    bool ok = instrumented->trainStep(state, &loss, &skipped) == 0;
    if (!ok)
      error = std::string("the instrumented step failed: ") +
              instrumented->lastError();
    else
      ok = findSite(state, site, error);
    instrumented->destroy(state);
    return ok;
  }
};

NonfiniteFinder::NonfiniteFinder(const TrainedModel &model, NonfiniteMode mode,
                                 InstrumentedBuilder build)
    : impl(new Impl{model, mode, std::move(build)}) {}
NonfiniteFinder::~NonfiniteFinder() = default;

bool NonfiniteFinder::isActive() const { return impl->isActive(); }

bool NonfiniteFinder::beforeStep(amp_state *state, std::string &error) {
  if (impl->isActive() && !impl->save(state, error)) {
    error = "cannot save the state: " + error;
    return false;
  }
  return true;
}

bool NonfiniteFinder::afterStep(int64_t step, amp_state *state, float loss,
                                std::optional<NonfiniteReport> &report,
                                std::string &error) {
  report.reset();
  if (!impl->isActive())
    return true;
  std::string trigger = nonfiniteTrigger(impl->model, state, loss);
  if (trigger.empty() && impl->mode != NonfiniteMode::Every)
    return true;
  impl->reported = true;
  std::optional<NonfiniteOp> site;
  if (!impl->rerun(site, error))
    return false;
  // Every step is checked with Every; one without inf or NaN anywhere has
  // nothing to report.
  if (site || !trigger.empty()) {
    impl->reports.push_back({step, trigger, site});
    report = impl->reports.back();
  }
  return true;
}

llvm::ArrayRef<NonfiniteReport> NonfiniteFinder::reports() const {
  return impl->reports;
}
