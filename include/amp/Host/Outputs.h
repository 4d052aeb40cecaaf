//===- Outputs.h - what a run writes besides the checkpoint -----*- C++ -*-===//
//
// The per-step metrics (amp-run --metrics: a JSON line per step) and the
// results of the forward model (amp-run --eval-output: DIR/NAME.npy). Each
// goes through amp::OutputFile: a run that fails replaces none of them.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_HOST_OUTPUTS_H
#define AMP_HOST_OUTPUTS_H

#include "amp/Host/Model.h"
#include "amp/Support/OutputFile.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace amp {

/// The --metrics output: one JSON line per step, written through
/// amp::OutputFile (a regular file appears only when the run succeeds).
class Metrics {
public:
  /// Opens the output at `outputPath` ("-": standard output); false with
  /// a message naming the file on failure.
  bool open(const std::string &outputPath, std::string &error);

  void write(int64_t step, float loss, llvm::ArrayRef<float> scales,
             bool skipped, double seconds, std::optional<double> lr);

  /// Flushes what was written; false with a message naming the file when a
  /// write failed (a full disk), instead of LLVM's fatal "IO failure".
  bool close(std::string &error);

  /// A run that fails before close() still must not end in LLVM's fatal
  /// "IO failure" for a write error nobody reports.
  ~Metrics();

  /// Makes the metrics the output (a regular file replaces the old one).
  bool commit(std::string &error) { return file.commit(error); }

private:
  std::string path;
  OutputFile file;
  std::unique_ptr<llvm::raw_fd_ostream> os;
};

/// The --eval-output files: DIR/NAME.npy for every result of the forward
/// model, holding the results of every step: concatenated along the first
/// (batch) axis, and a scalar (the loss) as one element per step. bf16,
/// which .npy cannot hold, is written as f32.
class EvalOutputs {
public:
  /// Opens the files in `directory` for `steps` steps and writes their
  /// headers; false with `error` naming the file or the result on failure.
  bool open(const Model &model, const std::string &directory, int64_t steps,
            std::string &error);

  /// Appends the results of the last amp_eval.
  bool write(const Model &model, const amp_state *state, std::string &error);

  /// Closes the files; false with `error` naming the file on a write error.
  bool close(std::string &error);

  bool commit(std::string &error);

private:
  struct Result {
    const amp_tensor_info *info = nullptr;
    int32_t index = 0;
    OutputFile file;
    std::unique_ptr<llvm::raw_fd_ostream> os;
    ~Result() {
      if (os) // a failed run: no fatal "IO failure" for an unreported error
        os->clear_error();
    }
  };

  std::vector<std::unique_ptr<Result>> results;
};

} // namespace amp

#endif // AMP_HOST_OUTPUTS_H
