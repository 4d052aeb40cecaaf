//===- FindNonfinite.cpp - amp-run --find-nonfinite -----------------------===//
//
// The instrumented library is built on demand, once: the library records
// the amp-compile arguments that made it (amp_build_argument), and the
// finder runs the amp-compile next to amp-run with them and
// --instrument-nonfinite into LIB.nonfinite.so beside the library, reused
// while its recorded arguments match. It is loaded with RTLD_DEEPBIND so
// that its copy of the runtime, not the trained library's, serves it.
//
//===----------------------------------------------------------------------===//

#include "FindNonfinite.h"

#include "amp/Runtime/NonfiniteABI.h"
#include "amp/Runtime/Numerics.h"
#include "amp/Support/OutputFile.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <cmath>
#include <cstring>
#include <dlfcn.h>
#include <vector>

namespace cl = llvm::cl;
using llvm::StringRef;

llvm::cl::OptionCategory &amp::nonfiniteOptionCategory() {
  static cl::OptionCategory category("amp-run precision debugging");
  return category;
}

namespace {
cl::opt<std::string> findNonfinite(
    "find-nonfinite", cl::ValueOptional,
    cl::desc("When a step makes the loss or the state inf or NaN, re-run it "
             "checking every op and name the first op that produced inf or "
             "NaN from finite operands (=every: check every step)"),
    cl::value_desc("first|every"), cl::cat(amp::nonfiniteOptionCategory()));
cl::opt<std::string> reportPath(
    "find-nonfinite-report",
    cl::desc("Also write the --find-nonfinite reports to FILE as JSON"),
    cl::value_desc("FILE"), cl::cat(amp::nonfiniteOptionCategory()));

/// The model ABI of a library opened with dlopen.
struct Library {
  void *handle = nullptr;
  decltype(&amp_last_error) lastError = nullptr;
  decltype(&amp_num_tensors) numTensors = nullptr;
  decltype(&amp_tensor) tensor = nullptr;
  decltype(&amp_state_create) create = nullptr;
  decltype(&amp_state_destroy) destroy = nullptr;
  decltype(&amp_state_tensor) stateTensor = nullptr;
  decltype(&amp_train_step) trainStep = nullptr;
  decltype(&amp_nonfinite_sites) sites = nullptr;
  decltype(&amp_build_argument) buildArgument = nullptr;

  template <typename T> bool resolve(const char *name, T &fn) {
    fn = reinterpret_cast<T>(dlsym(handle, name));
    return fn != nullptr;
  }

  /// Opens an instrumented library; false with `error` otherwise.
  bool open(const std::string &path, std::string &error) {
    handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    if (!handle) {
      error = dlerror();
      return false;
    }
    if (resolve("amp_last_error", lastError) &&
        resolve("amp_num_tensors", numTensors) &&
        resolve("amp_tensor", tensor) && resolve("amp_state_create", create) &&
        resolve("amp_state_destroy", destroy) &&
        resolve("amp_state_tensor", stateTensor) &&
        resolve("amp_train_step", trainStep) &&
        resolve("amp_nonfinite_sites", sites) &&
        resolve("amp_build_argument", buildArgument))
      return true;
    error = "it is not an instrumented library (amp-compile "
            "--instrument-nonfinite)";
    return false;
  }

  ~Library() {
    if (handle)
      dlclose(handle);
  }
};

std::vector<std::string> buildArguments(decltype(&amp_build_argument) get) {
  std::vector<std::string> arguments;
  for (int32_t i = 0; const char *argument = get(i); ++i)
    arguments.push_back(argument);
  return arguments;
}

/// One checked op and what the instrumented step recorded for it.
struct Site {
  int64_t index = -1;
  std::string kind, name, location, precision;
  float operandMin = 0, operandMax = 0;
  /// Whether the op computed in f32 stays finite; unknown without an f32
  /// form.
  std::optional<bool> finiteInF32;
};

struct Report {
  int64_t step;
  std::string trigger;
  std::optional<Site> site;
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

struct amp::NonfiniteFinder::Impl {
  TrainedModel model;
  bool every = false;
  bool reported = false;
  /// The bytes of every tensor before the step, by tensor index.
  std::vector<std::vector<char>> snapshot;
  std::unique_ptr<Library> instrumented;
  std::vector<Report> reports;

  bool isActive() const { return every || !reported; }

  bool save(amp_state *state, std::string &error) {
    snapshot.resize(model.numTensors());
    for (int32_t i = 0; i < model.numTensors(); ++i) {
      const amp_tensor_info *info = model.tensor(i);
      size_t bytes = 0;
      amp::tensorBytes(*info, bytes);
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

  std::string cachePath() const {
    llvm::SmallString<256> path(model.libraryPath);
    llvm::sys::fs::make_absolute(path);
    llvm::sys::path::replace_extension(path, "nonfinite.so");
    return path.str().str();
  }

  /// The arguments that made the trained library, with its model checked
  /// to be the one it was compiled from.
  bool trainedBuildArguments(std::vector<std::string> &arguments,
                             std::string &error) {
    llvm::SmallString<256> path(model.libraryPath);
    llvm::sys::fs::make_absolute(path);
    void *handle = dlopen(path.c_str(), RTLD_LAZY | RTLD_NOLOAD);
    auto get = handle ? reinterpret_cast<decltype(&amp_build_argument)>(
                            dlsym(handle, "amp_build_argument"))
                      : nullptr;
    if (handle)
      dlclose(handle);
    if (!get) {
      error = "'" + model.libraryPath +
              "' does not record how it was compiled; compile it again with "
              "this amp-compile";
      return false;
    }
    arguments = buildArguments(get);
    if (arguments.size() < 2) {
      error = "'" + model.libraryPath + "' records no model";
      return false;
    }
    const std::string &modelPath = arguments[1];
    auto contents = llvm::MemoryBuffer::getFile(
        modelPath, /*IsText=*/false, /*RequiresNullTerminator=*/false);
    if (!contents) {
      error = "cannot read the model '" + modelPath + "' that '" +
              model.libraryPath +
              "' was compiled from: " + contents.getError().message();
      return false;
    }
    if (llvm::utohexstr(llvm::xxh3_64bits(llvm::arrayRefFromStringRef(
            (*contents)->getBuffer()))) != arguments[0]) {
      error = "the model '" + modelPath + "' changed since '" +
              model.libraryPath + "' was compiled from it; compile it again";
      return false;
    }
    return true;
  }

  /// The amp-compile beside amp-run.
  static std::string compilerPath() {
    std::string self = llvm::sys::fs::getMainExecutable(
        nullptr, reinterpret_cast<void *>(&nonfiniteOptionCategory));
    llvm::SmallString<256> compiler(llvm::sys::path::parent_path(self));
    llvm::sys::path::append(compiler, "amp-compile");
    return compiler.str().str();
  }

  /// Whether the file at `cache` is newer than the trained library and
  /// than amp-compile: one built by an older compiler or for an older
  /// library is stale even when it records the same arguments.
  bool isFresh(const std::string &cache) const {
    llvm::sys::fs::file_status status;
    if (llvm::sys::fs::status(cache, status))
      return false;
    for (const std::string &other : {model.libraryPath, compilerPath()}) {
      llvm::sys::fs::file_status otherStatus;
      if (!llvm::sys::fs::status(other, otherStatus) &&
          otherStatus.getLastModificationTime() >
              status.getLastModificationTime())
        return false;
    }
    return true;
  }

  /// Runs amp-compile (beside amp-run) to build the instrumented library.
  bool compile(const std::vector<std::string> &arguments,
               const std::string &output, std::string &error) {
    std::string compiler = compilerPath();
    llvm::SmallVector<StringRef> args = {compiler};
    for (const std::string &argument : llvm::ArrayRef(arguments).drop_front())
      args.push_back(argument);
    args.append({"--instrument-nonfinite", "-o", output});
    llvm::errs() << "amp-run: building the instrumented library '" << output
                 << "'\n";
    std::string message;
    int status = llvm::sys::ExecuteAndWait(compiler, args, std::nullopt, {}, 0,
                                           0, &message);
    if (status == 0)
      return true;
    error = "amp-compile could not build the instrumented library '" + output +
            "'" + (message.empty() ? "" : ": " + message);
    return false;
  }

  /// The instrumented library, built once and reused while it records the
  /// same arguments as the trained one.
  bool loadInstrumented(std::string &error) {
    if (instrumented)
      return true;
    std::vector<std::string> arguments;
    if (!trainedBuildArguments(arguments, error))
      return false;
    std::string cache = cachePath();
    auto library = std::make_unique<Library>();
    std::string ignored;
    if (isFresh(cache) && library->open(cache, ignored) &&
        buildArguments(library->buildArgument) == arguments) {
      instrumented = std::move(library);
      return true;
    }
    library.reset();
    if (!compile(arguments, cache, error))
      return false;
    library = std::make_unique<Library>();
    if (!library->open(cache, error)) {
      error = "cannot load '" + cache + "': " + error;
      return false;
    }
    instrumented = std::move(library);
    return true;
  }

  /// The instrumented library's state, as the trained one was before the
  /// step.
  amp_state *restore(std::string &error) {
    Library &lib = *instrumented;
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

  /// The number of record rows of the instrumented library.
  int64_t countRecords() const {
    Library &lib = *instrumented;
    for (int32_t i = 0; i < lib.numTensors(); ++i)
      if (std::strcmp(lib.tensor(i)->name, AMP_NONFINITE_STATS_NAME) == 0)
        return lib.tensor(i)->num_elements / AMP_NONFINITE_COLUMNS;
    return 0;
  }

  /// The first site whose results went non-finite from finite operands;
  /// `error` says so when the records do not match the site table.
  bool findSite(amp_state *state, std::optional<Site> &found,
                std::string &error) {
    Library &lib = *instrumented;
    const auto *records = static_cast<const float *>(
        lib.stateTensor(state, AMP_NONFINITE_STATS_NAME));
    if (!records) {
      error = lib.lastError();
      return false;
    }
    Records rows{records, countRecords()};
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
      Site site{int64_t(index), fields[0].str(), fields[1].str(),
                fields[2].str(), fields[3].str()};
      rows.range(fields[5], site.operandMin, site.operandMax);
      if (!fields[6].empty())
        site.finiteInF32 = rows.finite(fields[6]);
      found = site;
      return true;
    }
    return true;
  }

  bool analyze(int64_t step, const std::string &trigger, std::string &error) {
    if (!loadInstrumented(error))
      return false;
    amp_state *state = restore(error);
    if (!state)
      return false;
    float loss = 0;
    int32_t skipped = 0;
    std::optional<Site> site;
    bool ok = instrumented->trainStep(state, &loss, &skipped) == 0;
    if (!ok)
      error = std::string("the instrumented step failed: ") +
              instrumented->lastError();
    else
      ok = findSite(state, site, error);
    instrumented->destroy(state);
    if (!ok)
      return false;
    // Every step is checked with =every; one without inf or NaN anywhere
    // has nothing to report.
    if (site || !trigger.empty())
      report({step, trigger, site});
    return true;
  }

  void report(const Report &report) {
    llvm::raw_ostream &os = llvm::outs();
    os << "find-nonfinite: step " << report.step;
    if (!report.trigger.empty())
      os << ": " << report.trigger;
    os << "\n";
    if (!report.site) {
      os << "  no op produced inf or NaN from finite operands: the state "
            "before the step already held them\n";
    } else {
      const Site &site = *report.site;
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
    reports.push_back(report);
  }

  void writeJSON(llvm::raw_ostream &os) const {
    llvm::json::OStream json(os);
    json.object([&] {
      json.attributeArray("reports", [&] {
        for (const Report &r : reports)
          json.object([&] { writeJSON(json, r); });
      });
    });
    os << "\n";
  }

  static void writeJSON(llvm::json::OStream &json, const Report &r) {
    json.attribute("step", r.step);
    json.attribute("trigger", r.trigger);
    if (!r.site) {
      json.attribute("op", nullptr);
      return;
    }
    const Site &s = *r.site;
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
  }
};

amp::NonfiniteFinder::NonfiniteFinder(std::unique_ptr<Impl> impl)
    : impl(std::move(impl)) {}
amp::NonfiniteFinder::~NonfiniteFinder() = default;

std::unique_ptr<amp::NonfiniteFinder>
amp::NonfiniteFinder::create(const TrainedModel &model, std::string &error) {
  if (!findNonfinite.getNumOccurrences()) {
    if (!reportPath.empty())
      error = "--find-nonfinite-report needs --find-nonfinite";
    return nullptr;
  }
  if (findNonfinite != "" && findNonfinite != "first" &&
      findNonfinite != "every") {
    error = "--find-nonfinite=" + findNonfinite + " is not one of first, every";
    return nullptr;
  }
  if (reportPath == "-") {
    error = "--find-nonfinite-report: standard output has the summary; name "
            "a file";
    return nullptr;
  }
  if (!reportPath.empty()) {
    amp::OutputFile probe;
    if (!probe.open(reportPath, error)) {
      error = "--find-nonfinite-report: " + error;
      return nullptr;
    }
  }
  auto impl = std::make_unique<Impl>();
  impl->model = model;
  impl->every = findNonfinite == "every";
  return std::unique_ptr<NonfiniteFinder>(new NonfiniteFinder(std::move(impl)));
}

bool amp::NonfiniteFinder::isActive() const { return impl->isActive(); }

bool amp::NonfiniteFinder::beforeStep(amp_state *state, std::string &error) {
  if (impl->isActive() && !impl->save(state, error)) {
    error = "--find-nonfinite: cannot save the state: " + error;
    return false;
  }
  return true;
}

bool amp::NonfiniteFinder::afterStep(int64_t step, const std::string &trigger,
                                     std::string &error) {
  if (!impl->isActive() || (trigger.empty() && !impl->every))
    return true;
  impl->reported = true;
  if (impl->analyze(step, trigger, error))
    return true;
  error = "--find-nonfinite: " + error;
  return false;
}

bool amp::NonfiniteFinder::writeReport(std::string &error) {
  if (reportPath.empty())
    return true;
  amp::OutputFile file;
  if (!file.open(reportPath, error)) {
    error = "--find-nonfinite-report: " + error;
    return false;
  }
  std::error_code ec;
  {
    llvm::raw_fd_ostream os(file.writePath(), ec);
    if (!ec) {
      impl->writeJSON(os);
      os.close();
      ec = os.error();
      os.clear_error();
    }
  }
  if (ec) {
    error = "--find-nonfinite-report: cannot write '" + reportPath +
            "': " + ec.message();
    return false;
  }
  if (!file.commit(error)) {
    error = "--find-nonfinite-report: " + error;
    return false;
  }
  return true;
}
