//===- dp-replica-check.cpp - the replica check across MPI ranks ----------===//
//
// amp-dp-replica-check LIB same|differ: on every rank of an mpirun job,
// calls the replica check of the data-parallel runtime in the model library
// LIB (amp_dp_hooks::check_same, what AMP_DP_CHECK_REPLICAS=1 runs on every
// state tensor after each step) on 1 MiB of bytes that are the same on
// every rank ("same") or of which the last rank flips one bit in the middle
// ("differ"). Prints "rank R of N: the replicas agree", or the check's
// error, and then exits 1 as amp-run does.
//
// amp-run cannot make replicas diverge any more (the start-up agreement
// check stops ranks given different options, state or data before the
// first step), so this drives the check's failure directly.
//
//===----------------------------------------------------------------------===//

#include "amp/Host/LoadedModel.h"
#include "amp/Runtime/DataParallel.h"

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

int main(int argc, char **argv) {
  bool differ = argc == 3 && std::strcmp(argv[2], "differ") == 0;
  if (argc != 3 || (!differ && std::strcmp(argv[2], "same") != 0)) {
    std::fprintf(stderr, "usage: amp-dp-replica-check LIB same|differ\n");
    return 2;
  }
  std::string error;
  // Kept loaded to the end, as amp-run keeps its library: the runtime
  // finalizes MPI when the process exits.
  mlir::amp::LoadedModel *library =
      mlir::amp::LoadedModel::open(argv[1], error).release();
  if (!library) {
    std::fprintf(stderr, "error: %s\n", error.c_str());
    return 1;
  }
  auto getHooks = reinterpret_cast<decltype(&amp_dp_hooks_get)>(
      library->symbol("amp_dp_hooks_get"));
  if (!getHooks) {
    std::fprintf(stderr,
                 "error: '%s' has no data-parallel runtime (build it with "
                 "amp-compile --data-parallel)\n",
                 argv[1]);
    return 1;
  }
  const amp_dp_hooks *hooks = getHooks();
  const char *message = nullptr;
  if (hooks->init(&message)) {
    std::fprintf(stderr, "error: %s\n", message);
    return 1;
  }
  int rank = hooks->rank(), size = hooks->world_size();
  std::vector<unsigned char> bytes(size_t(1) << 20);
  for (size_t i = 0; i < bytes.size(); ++i)
    bytes[i] = static_cast<unsigned char>(i * 131 + 7);
  if (differ && rank == size - 1)
    bytes[bytes.size() / 2] ^= 1;
  if (hooks->check_same(bytes.data(), bytes.size(), "layer.weight", &message)) {
    std::fprintf(stderr, "error: %s\n", message);
    return 1;
  }
  std::printf("rank %d of %d: the replicas agree\n", rank, size);
  return 0;
}
