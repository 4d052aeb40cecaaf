//===- step-pipeline-check.cpp - overlapped steps against plain ones ------===//
//
// amp-step-pipeline-check LIB STEPS SEED: trains the model library LIB
// twice from the same seed on a new synthetic batch every step, once with
// amp_train_step and once with amp_train_step_begin/finish as a data
// loader would drive them (batch k+1 written and begun before step k is
// finished, so that on a GPU its upload overlaps step k). The same kernels
// on the same data give the same bits: the losses, skipped flags, loss
// scales (amp_train_step_finished_scales against the state after each
// plain step) and every state tensor afterwards must be identical. A batch
// uploaded into buffers a running step still reads, or a loss read from the
// wrong step, shows as a difference. Then the API's misuse: a finish with no
// step begun, the scales before any finish and a begin with two steps in flight
// are errors.
//
// Loads the library through lib/Host (amp::loadModel) and needs no installed
// LLVM: scripts/gpu-machine.sh runs it on GPUs.
//
//===----------------------------------------------------------------------===//

#include "amp/Host/Model.h"
#include "amp/Runtime/Numerics.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace {

using Library = amp::Model;

/// The library at `path`, with the overlapped-step functions.
std::optional<Library> load(const char *path) {
  std::string error;
  std::optional<Library> lib = amp::loadModel(path, error);
  if (!lib)
    std::printf("error: %s\n", error.c_str());
  else if (!lib->beginStep || !lib->finishStep || !lib->finishedScales)
    std::printf("error: the library lacks amp_train_step_begin, "
                "amp_train_step_finish or amp_train_step_finished_scales\n");
  else
    return lib;
  return std::nullopt;
}

bool isStreamed(const amp_tensor_info &info) {
  return info.role == AMP_ROLE_INPUT || info.role == AMP_ROLE_LABEL;
}

/// Batch `step`'s inputs and labels: N(0, 1) floats, integer labels in
/// their range, from a generator seeded by (seed, step).
bool fillBatch(const Library &lib, amp_state *state, uint64_t seed,
               int64_t step) {
  amp::Random random{seed * 1000003u + uint64_t(step)};
  for (int32_t i = 0; i < lib.numTensors(); ++i) {
    const amp_tensor_info &info = *lib.tensor(i);
    if (!isStreamed(info))
      continue;
    void *data = lib.stateTensor(state, info.name);
    if (!data)
      return false;
    for (int64_t e = 0; e < info.num_elements; ++e) {
      if (amp::isFloatDtype(info.dtype)) {
        amp::storeValue(data, info.dtype, e, random.normal());
        continue;
      }
      int64_t range = info.label_range > 0 ? info.label_range : 2;
      amp::storeValue(data, info.dtype, e, double(random.next() % range));
    }
  }
  return true;
}

struct Outcome {
  std::vector<float> losses;
  std::vector<int32_t> skipped;
  /// Each step's loss scales (scaler state named "...scale").
  std::vector<std::vector<float>> scales;
  /// Every state tensor after the last step, by index (inputs empty).
  std::vector<std::vector<char>> state;
};

bool readState(const Library &lib, amp_state *state, Outcome &outcome) {
  for (int32_t i = 0; i < lib.numTensors(); ++i) {
    const amp_tensor_info &info = *lib.tensor(i);
    std::vector<char> bytes;
    size_t size = 0;
    if (!isStreamed(info) && amp::tensorBytes(info, size)) {
      const char *data =
          static_cast<const char *>(lib.stateTensor(state, info.name));
      if (!data)
        return false;
      bytes.assign(data, data + size);
    }
    outcome.state.push_back(std::move(bytes));
  }
  return true;
}

bool trainPlain(const Library &lib, amp_state *state, uint64_t seed,
                int64_t steps, Outcome &outcome) {
  for (int64_t k = 0; k < steps; ++k) {
    float loss = 0;
    int32_t skipped = 0;
    if (!fillBatch(lib, state, seed, k) ||
        lib.trainStep(state, &loss, &skipped))
      return false;
    outcome.losses.push_back(loss);
    outcome.skipped.push_back(skipped);
    llvm::SmallVector<float> scales;
    if (!amp::readLossScales(lib, state, scales))
      return false;
    outcome.scales.emplace_back(scales.begin(), scales.end());
  }
  return readState(lib, state, outcome);
}

bool finishOne(const Library &lib, amp_state *state, Outcome &outcome) {
  float loss = 0;
  int32_t skipped = 0;
  if (lib.finishStep(state, &loss, &skipped))
    return false;
  outcome.losses.push_back(loss);
  outcome.skipped.push_back(skipped);
  int32_t count = lib.finishedScales(state, nullptr, 0);
  if (count < 0)
    return false;
  std::vector<float> scales(count);
  if (lib.finishedScales(state, scales.data(), count) != count)
    return false;
  outcome.scales.push_back(std::move(scales));
  return true;
}

/// Batch k+1 is written and begun while step k may still run.
bool trainPipelined(const Library &lib, amp_state *state, uint64_t seed,
                    int64_t steps, Outcome &outcome) {
  for (int64_t k = 0; k < steps; ++k) {
    if (!fillBatch(lib, state, seed, k) || lib.beginStep(state))
      return false;
    if (k > 0 && !finishOne(lib, state, outcome))
      return false;
  }
  if (steps > 0 && !finishOne(lib, state, outcome))
    return false;
  return readState(lib, state, outcome);
}

int compare(const Library &lib, const Outcome &plain,
            const Outcome &pipelined) {
  int differences = 0;
  for (size_t k = 0; k < plain.losses.size(); ++k) {
    bool same = std::memcmp(&plain.losses[k], &pipelined.losses[k],
                            sizeof(float)) == 0 &&
                plain.skipped[k] == pipelined.skipped[k] &&
                plain.scales[k] == pipelined.scales[k];
    std::printf("step %zu: loss %.6f skipped %d, pipelined %.6f skipped %d",
                k + 1, plain.losses[k], plain.skipped[k], pipelined.losses[k],
                pipelined.skipped[k]);
    const std::vector<float> &a = plain.scales[k], &b = pipelined.scales[k];
    for (size_t i = 0; i < std::max(a.size(), b.size()); ++i)
      std::printf(" scale %g/%g", i < a.size() ? a[i] : NAN,
                  i < b.size() ? b[i] : NAN);
    std::printf("%s\n", same ? "" : "  DIFFERENT");
    differences += !same;
  }
  for (size_t i = 0; i < plain.state.size(); ++i)
    if (plain.state[i] != pipelined.state[i]) {
      std::printf("state tensor '%s' differs\n", lib.tensor(int32_t(i))->name);
      ++differences;
    }
  return differences;
}

/// Misuse of the API is an error naming the call, and leaves the state
/// usable.
int checkMisuse(const Library &lib, amp_state *state, uint64_t seed) {
  int failures = 0;
  float loss = 0;
  int32_t skipped = 0;
  if (lib.finishStep(state, &loss, &skipped) == 0) {
    std::printf("FAIL: a finish with no step begun succeeded\n");
    ++failures;
  } else {
    std::printf("finish with no step begun: %s\n", lib.lastError());
  }
  if (!fillBatch(lib, state, seed, 0) || lib.beginStep(state) ||
      lib.beginStep(state))
    return failures + 1;
  if (lib.beginStep(state) == 0) {
    std::printf("FAIL: a third begin succeeded\n");
    ++failures;
  } else {
    std::printf("third begin: %s\n", lib.lastError());
  }
  if (lib.finishStep(state, &loss, &skipped) ||
      lib.finishStep(state, &loss, &skipped))
    return failures + 1;
  return failures;
}

int run(const Library &lib, int64_t steps, uint64_t seed) {
  Outcome plain, pipelined;
  amp_state *a = lib.create(seed);
  amp_state *b = a ? lib.create(seed) : nullptr;
  bool ok = a && b && trainPlain(lib, a, seed, steps, plain) &&
            trainPipelined(lib, b, seed, steps, pipelined);
  int failures = 0;
  if (!ok) {
    std::printf("error: %s\n", lib.lastError());
    failures = 1;
  } else {
    failures = compare(lib, plain, pipelined);
    if (failures == 0)
      std::printf("%lld steps: pipelined steps identical to plain ones\n",
                  (long long)steps);
    failures += checkMisuse(lib, b, seed);
    // `a` has only taken plain steps: no begun step has finished.
    if (lib.finishedScales(a, nullptr, 0) != -1) {
      std::printf("FAIL: loss scales read before any finish\n");
      ++failures;
    } else {
      std::printf("scales before a finish: %s\n", lib.lastError());
    }
  }
  if (b)
    lib.destroy(b);
  if (a)
    lib.destroy(a);
  return failures == 0 ? 0 : 1;
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: amp-step-pipeline-check LIB STEPS SEED\n");
    return 2;
  }
  char *stepsEnd = nullptr, *seedEnd = nullptr;
  long long steps = std::strtoll(argv[2], &stepsEnd, 10);
  unsigned long long seed = std::strtoull(argv[3], &seedEnd, 10);
  if (*argv[2] == '\0' || *stepsEnd || steps < 1 || *argv[3] == '\0' ||
      *seedEnd) {
    std::fprintf(stderr,
                 "amp-step-pipeline-check: STEPS must be a positive integer "
                 "and SEED an integer, got '%s' and '%s'\n",
                 argv[2], argv[3]);
    return 1;
  }
  std::optional<Library> lib = load(argv[1]);
  if (!lib)
    return 1;
  return run(*lib, steps, seed);
}
