//===- Agreement.h - the ranks' start-up agreement check --------*- C++ -*-===//
//
// Before the first step of a data-parallel run every rank describes what it
// is about to do in one fixed-size record (RunRecord): the mode, the
// options that decide the training, a hash of its state and of its --data
// set. The records are exchanged with one all-gather (amp_dp_allgather, in
// the library's data-parallel runtime) and every rank compares them alike:
// if any differs from rank 0's, every rank stops with the same message
// naming what differs and on which ranks (docs/DataParallel.md). A rank
// that failed while setting up takes part with a record saying so, so that
// the others stop too instead of waiting for it in a collective.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_HOST_AGREEMENT_H
#define AMP_HOST_AGREEMENT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace amp {

/// A 64-bit hash of `bytes` bytes, continuing from `seed`: a word at a time,
/// each step a bijection of the state, so that two inputs of the same
/// length that differ in one 8-byte word always hash apart.
uint64_t hashBytes(const void *data, size_t bytes, uint64_t seed = 0);

/// A text field of a record: at most kTextBytes - 1 bytes (a longer text is
/// cut with "..."), compared through the hash of the whole text.
struct RecordText {
  static constexpr size_t kTextBytes = 120;
  uint64_t hash;
  char text[kTextBytes];
  void set(llvm::StringRef value);
  llvm::StringRef str() const { return text; }
};

/// One --data source as the agreement check sees it.
struct RecordData {
  RecordText name;
  RecordText paths;
  int64_t samples;
  uint64_t contents;
  /// Whether `contents` hashes some rows of the data (above
  /// kWholeDataBytes) rather than all of it.
  uint32_t sampled;
};

/// What must agree across the ranks of a data-parallel run. Plain data,
/// zero-filled first (padding included), so that equal records are equal
/// bytes. Fields are compared in their order here; the message names the
/// first that differs.
struct RunRecord {
  static constexpr uint32_t kVersion = 1;
  /// Sources compared one by one; more are folded into `moreData`.
  static constexpr int kMaxData = 8;
  /// Data of at most this many bytes per source are hashed whole; larger
  /// ones through kSampledRows rows spread evenly over them and the last.
  static constexpr uint64_t kWholeDataBytes = uint64_t(64) << 20;
  static constexpr int64_t kSampledRows = 4096;

  uint32_t version;
  /// Set up without error; a failed rank has printed its error.
  uint32_t ready;
  uint32_t eval;
  uint32_t lrGiven;
  int64_t steps;
  uint64_t seed;
  double lr;
  RecordText lrSchedule;
  int64_t accumulate; // 0: not given
  RecordText findNonfinite;
  /// The model's tensor table (names, roles, dtypes, shapes).
  uint64_t model;
  /// Every state tensor but inputs and labels, after --load, --lr and
  /// --accumulate: what the first step starts from.
  uint64_t state;
  RecordText load;
  /// The inputs and labels --input feeds (their names; each rank's own
  /// batch, whose contents may differ).
  RecordText inputs;
  uint32_t dataCount;
  RecordData data[kMaxData];
  uint64_t moreData;

  /// A zero-filled record of this version.
  static void clear(RunRecord &record);
};

/// The message naming the first field in which a rank's record differs
/// from rank 0's, and the ranks; empty when all agree.
std::string findDisagreement(llvm::ArrayRef<RunRecord> records);

} // namespace amp

#endif // AMP_HOST_AGREEMENT_H
