//===- Inputs.h - what a run feeds the model --------------------*- C++ -*-===//
//
// The inputs and labels of a run: seeded synthetic data, a file per tensor
// (raw little-endian or .npy; amp-run --input) and a new batch per step
// from mapped .npy data sets (amp-run --data), each checked against the
// model's tensor (dtype, shape, finite values, labels within the classes).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_HOST_INPUTS_H
#define AMP_HOST_INPUTS_H

#include "amp/Host/Agreement.h"
#include "amp/Host/Diagnostics.h"
#include "amp/Host/Model.h"
#include "amp/Host/SampleOrder.h"
#include "amp/Runtime/Numerics.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <string>
#include <vector>

namespace amp {

/// Seeded synthetic data: N(0, 1) floats; integers uniform in
/// [0, label_range) (or [0, 2) when the range is unknown).
void fillSynthetic(const amp_tensor_info &info, void *data, Random &random);

/// --input NAME=FILE (`spec`): copies the file into the input or label
/// NAME of the state; 1 after an error naming the option.
int loadInput(const Model &model, amp_state *state, llvm::StringRef spec,
              const Diagnostics &diagnostics);

/// The --data sources: for each input or label, the samples of its .npy
/// files (first dimension: the sample axis), mapped rather than read, and
/// a new batch per step in an order shuffled per epoch with the seed.
class DataStreams {
public:
  /// `specs` are --data's NAME=PATH, `inputs` --input's NAME=FILE (which
  /// must not feed the same tensor); both outlive the streams.
  DataStreams(llvm::ArrayRef<std::string> specs,
              llvm::ArrayRef<std::string> inputs, uint64_t seed,
              const Diagnostics &diagnostics);

  /// Maps and checks every source; 1 after an error naming the option.
  int open(const Model &model);

  /// Data parallelism: every rank follows the same order and takes its
  /// slice of each global batch of `batch * size` samples.
  void shard(int32_t rankOfThis, int32_t size) {
    rank = rankOfThis;
    ranks = size;
  }

  /// Copies the next batch of every source into the state; 1 after an
  /// error naming the source, the file and the sample.
  int fill(const Model &model, amp_state *state);

  /// The sources for the ranks' agreement check: every rank must read the
  /// same samples (the same order indexes them all). A source's hash covers
  /// its sample count and size and its rows in order, whatever files hold
  /// them: every row up to RunRecord::kWholeDataBytes in all, else
  /// kSampledRows rows spread evenly and the last (reading a large data set
  /// whole would cost a pass over it before the first step).
  void describe(RunRecord &record) const;

private:
  struct File {
    std::string path;
    std::unique_ptr<llvm::MemoryBuffer> buffer;
    llvm::StringRef data;
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
    std::pair<const File *, int64_t> locate(int64_t index) const;
    llvm::StringRef sample(int64_t index) const;
  };

  /// The .npy files of PATH: a directory's (sorted by name), a comma
  /// list, or one file.
  int listFiles(llvm::StringRef name, llvm::StringRef path,
                std::vector<std::string> &files) const;
  int addSource(const Model &model, llvm::StringRef spec);
  int addFile(llvm::StringRef name, const std::string &path, Source &source);

  /// A new epoch: the next round keys of the order, from one amp::Random
  /// (SplitMix64) seeded with the seed ^ 0x5EEDDA7A for the whole run.
  void newEpoch() {
    started = true;
    order.reshuffle(random);
    next = 0;
  }

  llvm::ArrayRef<std::string> specs, inputs;
  const Diagnostics &diagnostics;
  std::vector<Source> sources;
  int64_t batch = 0;
  int32_t rank = 0, ranks = 1;
  /// The epoch's order, computed per position: no table of N indices.
  SampleOrder order{0};
  bool started = false;
  int64_t next = 0;
  Random random;
};

} // namespace amp

#endif // AMP_HOST_INPUTS_H
