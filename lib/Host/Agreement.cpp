//===- Agreement.cpp - the ranks' start-up agreement check ----------------===//

#include "amp/Host/Agreement.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <functional>

using namespace amp;
using llvm::StringRef;

uint64_t amp::hashBytes(const void *data, size_t bytes, uint64_t seed) {
  auto step = [](uint64_t h, uint64_t word) {
    // Each of xor, multiplication by an odd number and rotation is a
    // bijection: a changed word changes every later state.
    h ^= word * 0x9E3779B97F4A7C15ull;
    h = (h << 29) | (h >> 35);
    return h * 0xBF58476D1CE4E5B9ull;
  };
  const auto *bytesAt = static_cast<const unsigned char *>(data);
  uint64_t h = step(seed, bytes);
  size_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    uint64_t word;
    std::memcpy(&word, bytesAt + i, 8);
    h = step(h, word);
  }
  uint64_t tail = 0;
  std::memcpy(&tail, bytesAt + i, bytes - i);
  h = step(h, tail);
  h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ull;
  h = (h ^ (h >> 27)) * 0x94D049BB133111EBull;
  return h ^ (h >> 31);
}

void RecordText::set(StringRef value) {
  hash = hashBytes(value.data(), value.size(), 0x7E57);
  std::memset(text, 0, sizeof(text));
  if (value.size() < kTextBytes) {
    std::memcpy(text, value.data(), value.size());
    return;
  }
  std::memcpy(text, value.data(), kTextBytes - 4);
  std::memcpy(text + kTextBytes - 4, "...", 3);
}

void RunRecord::clear(RunRecord &record) {
  std::memset(static_cast<void *>(&record), 0, sizeof(RunRecord));
  record.version = kVersion;
}

namespace {
std::string number(double value) {
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%g", value);
  return text;
}

std::string hex(uint64_t value) {
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format_hex_no_prefix(value, 16);
  return text;
}

std::string quoted(const RecordText &text, StringRef none) {
  return text.str().empty() ? none.str() : "'" + text.str().str() + "'";
}

bool sameText(const RecordText &a, const RecordText &b) {
  return a.hash == b.hash && std::strncmp(a.text, b.text, sizeof(a.text)) == 0;
}

std::string dataNames(const RunRecord &r) {
  std::string names;
  for (uint32_t i = 0; i < std::min<uint32_t>(r.dataCount, RunRecord::kMaxData);
       ++i)
    names += (names.empty() ? "" : ", ") + r.data[i].name.str().str();
  if (r.dataCount > uint32_t(RunRecord::kMaxData))
    names += ", ...";
  return names.empty() ? "(none)" : names;
}

/// A field the ranks compare: what it is called, how a rank's value reads,
/// whether two ranks agree on it, and why it must agree.
struct Field {
  std::string what;
  std::function<std::string(const RunRecord &)> show;
  std::function<bool(const RunRecord &, const RunRecord &)> same;
  std::string why;
};

std::vector<Field> fields(const RunRecord &first) {
  constexpr const char *kData = "every rank reads the same --data set, in the "
                                "same order, and takes its slice of each "
                                "global batch";
  std::vector<Field> list = {
      {"mode",
       [](const RunRecord &r) {
         return std::string(r.eval ? "--eval (the forward model only)"
                                   : "training");
       },
       [](const RunRecord &a, const RunRecord &b) { return a.eval == b.eval; },
       "every rank must run the same collectives"},
      {"--steps", [](const RunRecord &r) { return std::to_string(r.steps); },
       [](const RunRecord &a, const RunRecord &b) {
         return a.steps == b.steps;
       },
       "a rank that stops first would leave the others waiting"},
      {"--seed", [](const RunRecord &r) { return std::to_string(r.seed); },
       [](const RunRecord &a, const RunRecord &b) { return a.seed == b.seed; },
       "it decides the order of --data and the synthetic inputs"},
      {"--lr",
       [](const RunRecord &r) {
         return r.lrGiven ? number(r.lr) : std::string("(not given)");
       },
       [](const RunRecord &a, const RunRecord &b) {
         return a.lrGiven == b.lrGiven &&
                std::memcmp(&a.lr, &b.lr, sizeof(a.lr)) == 0;
       },
       "the replicas would diverge"},
      {"--lr-schedule",
       [](const RunRecord &r) { return quoted(r.lrSchedule, "(none)"); },
       [](const RunRecord &a, const RunRecord &b) {
         return sameText(a.lrSchedule, b.lrSchedule);
       },
       "the replicas would diverge"},
      {"--accumulate",
       [](const RunRecord &r) {
         return r.accumulate ? std::to_string(r.accumulate)
                             : std::string("(not given)");
       },
       [](const RunRecord &a, const RunRecord &b) {
         return a.accumulate == b.accumulate;
       },
       "every rank must run the same collectives"},
      {"--find-nonfinite",
       [](const RunRecord &r) {
         return quoted(r.findNonfinite, "(not given)");
       },
       [](const RunRecord &a, const RunRecord &b) {
         return sameText(a.findNonfinite, b.findNonfinite);
       },
       "its re-runs of a step would meet no other rank"},
      {"model",
       [](const RunRecord &r) {
         return "(tensor table hash " + hex(r.model) + ")";
       },
       [](const RunRecord &a, const RunRecord &b) {
         return a.model == b.model;
       },
       "every rank must run the same library"},
      {"state",
       [](const RunRecord &r) {
         return (r.load.str().empty() ? std::string("(initial, no --load)")
                                      : "after --load " + quoted(r.load, "")) +
                " (hash " + hex(r.state) + ")";
       },
       [](const RunRecord &a, const RunRecord &b) {
         return a.state == b.state;
       },
       "every rank must start from the same state: load the same checkpoint"},
      {"--input", [](const RunRecord &r) { return quoted(r.inputs, "(none)"); },
       [](const RunRecord &a, const RunRecord &b) {
         return sameText(a.inputs, b.inputs);
       },
       "every rank must feed the same inputs from files (each its own batch)"},
      {"--data", dataNames,
       [](const RunRecord &a, const RunRecord &b) {
         return dataNames(a) == dataNames(b);
       },
       kData},
  };
  // Sources one by one, as rank 0 lists them (the names agree by now).
  for (uint32_t i = 0;
       i < std::min<uint32_t>(first.dataCount, RunRecord::kMaxData); ++i) {
    std::string name = first.data[i].name.str().str();
    list.push_back({"--data " + name,
                    [i](const RunRecord &r) {
                      const RecordData &d = r.data[i];
                      return quoted(d.paths, "") + " (" +
                             std::to_string(d.samples) + " samples)";
                    },
                    [i](const RunRecord &a, const RunRecord &b) {
                      return a.data[i].samples == b.data[i].samples;
                    },
                    kData});
    list.push_back(
        {"--data " + name + " contents",
         [i](const RunRecord &r) {
           const RecordData &d = r.data[i];
           return quoted(d.paths, "") + " (hash " + hex(d.contents) +
                  (d.sampled
                       ? " of " + std::to_string(RunRecord::kSampledRows + 1) +
                             " rows"
                       : std::string()) +
                  ")";
         },
         [i](const RunRecord &a, const RunRecord &b) {
           return a.data[i].contents == b.data[i].contents;
         },
         kData});
  }
  list.push_back(
      {"--data beyond the first " + std::to_string(RunRecord::kMaxData),
       [](const RunRecord &r) { return "(hash " + hex(r.moreData) + ")"; },
       [](const RunRecord &a, const RunRecord &b) {
         return a.moreData == b.moreData;
       },
       kData});
  return list;
}
} // namespace

std::string amp::findDisagreement(llvm::ArrayRef<RunRecord> records) {
  const RunRecord &first = records.front();
  for (size_t r = 0; r < records.size(); ++r)
    if (records[r].version != RunRecord::kVersion)
      return "rank " + std::to_string(r) +
             " runs another version of amp-run (its start-up record is of "
             "version " +
             std::to_string(records[r].version) + ", this one's " +
             std::to_string(RunRecord::kVersion) + ")";
  std::vector<size_t> failed;
  for (size_t r = 0; r < records.size(); ++r)
    if (!records[r].ready)
      failed.push_back(r);
  if (!failed.empty()) {
    std::string ranks;
    for (size_t r : failed)
      ranks += (ranks.empty() ? "" : ", ") + std::to_string(r);
    return (failed.size() == 1 ? "rank " : "ranks ") + ranks +
           " could not set up the run (" +
           (failed.size() == 1 ? "its error is" : "their errors are") +
           " above): every rank stops";
  }
  for (const Field &field : fields(first)) {
    std::vector<size_t> differ;
    for (size_t r = 1; r < records.size(); ++r)
      if (!field.same(records[r], first))
        differ.push_back(r);
    if (differ.empty())
      continue;
    size_t r = differ.front();
    std::string message = "rank " + std::to_string(r) + "'s " + field.what +
                          " " + field.show(records[r]) +
                          " differs from rank 0's " + field.show(first);
    if (differ.size() > 1) {
      message += " (so do ranks";
      for (size_t k = 1; k < differ.size(); ++k)
        message += (k > 1 ? ", " : " ") + std::to_string(differ[k]);
      message += "'s)";
    }
    return message + ": " + field.why;
  }
  return "";
}
