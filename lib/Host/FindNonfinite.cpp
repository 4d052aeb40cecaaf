//===- FindNonfinite.cpp - amp-run --find-nonfinite -----------------------===//
//
// The instrumented library is built on demand, once: the library records
// the amp-compile arguments that made it (amp_build_argument), and amp-run
// runs the amp-compile next to it with them and --instrument-nonfinite into
// LIB.nonfinite.so beside the library, reused while its recorded arguments
// match.
//
//===----------------------------------------------------------------------===//

#include "amp/Host/FindNonfinite.h"

#include "amp/Host/LoadedModel.h"
#include "amp/Runtime/NonfiniteABI.h"
#include "amp/Support/OutputFile.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <vector>

using llvm::StringRef;
using BuildArgumentFn = decltype(&amp_build_argument);

namespace {
/// The amp-compile arguments a library records, read through its
/// amp_build_argument (`get`); none when it records none (null `get`).
std::vector<std::string> buildArguments(BuildArgumentFn get) {
  std::vector<std::string> arguments;
  for (int32_t i = 0; get && get(i); ++i)
    arguments.push_back(get(i));
  return arguments;
}

/// Builds the instrumented library of a trained one with amp-compile and
/// caches it beside it.
class InstrumentedBuild {
public:
  InstrumentedBuild(const std::string &libraryPath,
                    BuildArgumentFn trainedBuildArgument)
      : libraryPath(libraryPath), trainedBuildArgument(trainedBuildArgument) {}

  /// The instrumented library, built once and reused while it records the
  /// same arguments as the trained one.
  bool operator()(std::string &path, std::string &error) const {
    std::vector<std::string> arguments;
    if (!trainedBuildArguments(arguments, error))
      return false;
    path = cachePath();
    if (isFresh(path) && cachedBuildArguments(path) == arguments)
      return true;
    return compile(arguments, path, error);
  }

private:
  std::string libraryPath;
  /// The loaded trained library's amp_build_argument (null in a library
  /// that records nothing).
  BuildArgumentFn trainedBuildArgument;

  std::string absoluteLibraryPath() const {
    llvm::SmallString<256> path(libraryPath);
    llvm::sys::fs::make_absolute(path);
    return path.str().str();
  }

  std::string cachePath() const {
    llvm::SmallString<256> path(absoluteLibraryPath());
    llvm::sys::path::replace_extension(path, "nonfinite.so");
    return path.str().str();
  }

  /// What the cached instrumented library records, loaded through the one
  /// loader (its checksum verified; RTLD_DEEPBIND: a second copy of the
  /// model runtime in this process); none when it cannot be loaded (a
  /// damaged or foreign file is rebuilt, never mapped).
  static std::vector<std::string>
  cachedBuildArguments(const std::string &path) {
    std::string message;
    std::unique_ptr<mlir::amp::LoadedModel> cached =
        mlir::amp::LoadedModel::open(path, message, /*deepBind=*/true);
    if (!cached)
      return {};
    return buildArguments(reinterpret_cast<BuildArgumentFn>(
        cached->symbol("amp_build_argument")));
  }

  /// The arguments that made the trained library, with its model checked
  /// to be the one it was compiled from.
  bool trainedBuildArguments(std::vector<std::string> &arguments,
                             std::string &error) const {
    arguments = buildArguments(trainedBuildArgument);
    if (arguments.empty()) {
      error = "'" + libraryPath +
              "' does not record how it was compiled; compile it again with "
              "this amp-compile";
      return false;
    }
    if (arguments.size() < 2) {
      error = "'" + libraryPath + "' records no model";
      return false;
    }
    const std::string &modelPath = arguments[1];
    auto contents = llvm::MemoryBuffer::getFile(
        modelPath, /*IsText=*/false, /*RequiresNullTerminator=*/false);
    if (!contents) {
      error = "cannot read the model '" + modelPath + "' that '" + libraryPath +
              "' was compiled from: " + contents.getError().message();
      return false;
    }
    if (llvm::utohexstr(llvm::xxh3_64bits(llvm::arrayRefFromStringRef(
            (*contents)->getBuffer()))) != arguments[0]) {
      error = "the model '" + modelPath + "' changed since '" + libraryPath +
              "' was compiled from it; compile it again";
      return false;
    }
    return true;
  }

  /// The amp-compile beside the running program (amp-run).
  static std::string compilerPath() {
    std::string self = llvm::sys::fs::getMainExecutable(
        nullptr, reinterpret_cast<void *>(&amp::createNonfiniteFinder));
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
    for (const std::string &other : {libraryPath, compilerPath()}) {
      llvm::sys::fs::file_status otherStatus;
      if (!llvm::sys::fs::status(other, otherStatus) &&
          otherStatus.getLastModificationTime() >
              status.getLastModificationTime())
        return false;
    }
    return true;
  }

  /// Runs amp-compile (beside amp-run) to build the instrumented library.
  static bool compile(const std::vector<std::string> &arguments,
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
};
} // namespace

std::string amp::NonfiniteSettings::setting() const {
  if (!mode)
    return "";
  return mode->empty() ? std::string("first") : *mode;
}

std::unique_ptr<mlir::amp::NonfiniteFinder>
amp::createNonfiniteFinder(const NonfiniteSettings &settings,
                           const std::string &libraryPath,
                           const mlir::amp::TrainedModel &model,
                           BuildArgumentFn buildArgument, std::string &error) {
  const std::string &reportPath = settings.reportPath;
  if (!settings.mode) {
    if (!reportPath.empty())
      error = "--find-nonfinite-report needs --find-nonfinite";
    return nullptr;
  }
  std::optional<mlir::amp::NonfiniteMode> mode =
      mlir::amp::parseNonfiniteMode(*settings.mode);
  if (!mode) {
    error =
        "--find-nonfinite=" + *settings.mode + " is not one of first, every";
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
  return std::make_unique<mlir::amp::NonfiniteFinder>(
      model, *mode, InstrumentedBuild(libraryPath, buildArgument));
}

bool amp::checkNonfiniteStep(mlir::amp::NonfiniteFinder &finder, int64_t step,
                             amp_state *state, float loss, std::string &error) {
  std::optional<mlir::amp::NonfiniteReport> report;
  if (!finder.afterStep(step, state, loss, report, error)) {
    error = "--find-nonfinite: " + error;
    return false;
  }
  if (report)
    mlir::amp::printNonfiniteReport(llvm::outs(), *report);
  return true;
}

bool amp::writeNonfiniteReport(const mlir::amp::NonfiniteFinder &finder,
                               const std::string &reportPath,
                               std::string &error) {
  if (reportPath.empty())
    return true;
  amp::OutputFile file;
  if (!file.open(reportPath, error)) {
    error = "--find-nonfinite-report: " + error;
    return false;
  }
  std::error_code ec;
  {
    llvm::raw_fd_ostream os(file.openForWriting(ec), /*shouldClose=*/true);
    if (!ec) {
      mlir::amp::writeNonfiniteReports(os, finder.reports());
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
