//===- checkpoint-load-fuzzer.cpp - fuzz target for amp_state_load --------===//
//
// Feeds arbitrary bytes, as a checkpoint file, to amp_state_load of a model
// library made by amp-compile (named by -model=LIB.so, loaded through
// lib/Host as amp-run loads it), as amp-run --load does. Every input must
// either load, or fail with a reason in amp_last_error() and leave the state
// exactly as it was: no crash, no sanitizer report, no hang, no half-loaded
// state.
//
// Runs under tools/fuzz/mutation-driver.cpp (amp-checkpoint-fuzz, in CI) or
// libFuzzer; seeds are checkpoints written by amp-run --save.
//
//===----------------------------------------------------------------------===//

#include "amp/Host/Model.h"
#include "amp/Runtime/Numerics.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

namespace {

/// The library and one state to load into.
std::optional<amp::Model> model;
amp_state *state = nullptr;
/// The file the input is written to (a memfd, read through /proc).
int inputFd = -1;
std::string inputPath;

[[noreturn]] void die(const std::string &message) {
  std::fprintf(stderr, "checkpoint-load-fuzzer: %s\n", message.c_str());
  std::exit(2);
}

bool isCheckpointed(const amp_tensor_info &info) {
  return info.role != AMP_ROLE_INPUT && info.role != AMP_ROLE_LABEL;
}

size_t byteSize(const amp_tensor_info &info) {
  return static_cast<size_t>(info.num_elements) * amp::elementBytes(info.dtype);
}

/// The bytes of every checkpointed tensor of the state.
std::vector<std::vector<char>> snapshot() {
  std::vector<std::vector<char>> tensors;
  for (int32_t i = 0; i < model->numTensors(); ++i) {
    const amp_tensor_info &info = *model->tensor(i);
    if (!isCheckpointed(info))
      continue;
    const char *data =
        static_cast<const char *>(model->stateTensor(state, info.name));
    if (!data)
      die(std::string("cannot read tensor '") + info.name + "'");
    tensors.emplace_back(data, data + byteSize(info));
  }
  return tensors;
}

std::vector<std::vector<char>> before;

} // namespace

extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv) {
  const char *path = nullptr;
  for (int i = 1; i < *argc; ++i)
    if (std::strncmp((*argv)[i], "-model=", 7) == 0)
      path = (*argv)[i] + 7;
  if (!path)
    die("give the model library with -model=LIB.so (made by amp-compile)");
  std::string error;
  model = amp::loadModel(path, error);
  if (!model)
    die(error);
  state = model->create(0);
  if (!state)
    die(std::string("cannot create the state: ") + model->lastError());
  inputFd = memfd_create("checkpoint", 0);
  if (inputFd < 0)
    die("memfd_create failed");
  inputPath = "/proc/self/fd/" + std::to_string(inputFd);
  before = snapshot();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (ftruncate(inputFd, 0) != 0 ||
      pwrite(inputFd, data, size, 0) != static_cast<ssize_t>(size))
    die("cannot write the input file");
  if (model->load(state, inputPath.c_str()) == 0) {
    // Loaded: this is the state the next failed load must keep.
    before = snapshot();
    return 0;
  }
  if (std::strlen(model->lastError()) == 0) {
    std::fprintf(stderr, "checkpoint-load-fuzzer: amp_state_load failed "
                         "without saying why\n");
    std::abort();
  }
  if (snapshot() != before) {
    std::fprintf(stderr,
                 "checkpoint-load-fuzzer: amp_state_load failed (%s) but "
                 "changed the state\n",
                 model->lastError());
    std::abort();
  }
  return 0;
}
