//===- CollectiveChecks.cpp - amp_gpu_dp_* on one rank --------------------===//
//
// The GPU collectives of lib/Runtime/CUDACollectives.cpp run against the
// device's NCCL (libnccl.so.2 on a GPU) as one rank: NCCL is opened, rank 0
// makes the communicator's id and joins a communicator of one, and a bucket
// (one group of out-of-place all-reduces on a stream) runs for every dtype
// and reduction the compiled steps use. On one rank the sum, the mean and
// the maximum of a tensor are the tensor itself, exactly, so every element
// is compared exactly. This is what a data-parallel step does with NCCL
// that one GPU can show; the step's wait (amp_gpu_dp_synchronize) polls the
// stream and NCCL's asynchronous error as it does between ranks.
//
// The process is its own launcher: it defines the data-parallel hooks
// (DataParallel.h) that a library built with --data-parallel gets from
// lib/Runtime/DataParallel.cpp, for a world of one rank.
//
//===----------------------------------------------------------------------===//

#include "GemmChecks.h"

#include "amp/Runtime/DataParallel.h"
#include "amp/Runtime/ModelABI.h"

#include <cstring>

extern "C" void *mgpuStreamCreate();

namespace {

int32_t rendezvousCalls = 0;

int32_t initOneRank(const char **) { return 0; }
int32_t rankZero() { return 0; }
int32_t worldOfOne() { return 1; }
int32_t broadcastToSelf(void *, size_t, const char **) {
  ++rendezvousCalls;
  return 0;
}
int32_t meanOfOne(float *, const char **) { return 0; }
int32_t sameOnOne(const void *, size_t, const char *, const char **) {
  return 0;
}
const char *noStepError() { return nullptr; }
int32_t noReplicaCheck() { return 0; }
double tenSeconds() { return 10.0; }
// No MPI to leave unfinalized.
void nothingToBreak() {}

const amp_dp_hooks kOneRank = {
    initOneRank, rankZero,    worldOfOne,     broadcastToSelf, meanOfOne,
    sameOnOne,   noStepError, noReplicaCheck, tenSeconds,      nothingToBreak};

} // namespace

extern "C" const amp_dp_hooks *amp_dp_hooks_get(void) { return &kOneRank; }

namespace amp::check {

namespace {

const char *opName(int32_t op) {
  return op == AMP_GPU_DP_SUM ? "sum" : op == AMP_GPU_DP_MEAN ? "mean" : "max";
}

struct Reduction {
  int32_t dtype;
  int32_t op;
  int64_t count;
  void *send = nullptr;
  void *recv = nullptr;
  std::vector<float> values;
};

} // namespace

int checkCollectives() {
  // Sizes: a handful of elements, one that is not a multiple of NCCL's
  // vector width, and 1 MiB of f32 (NCCL splits it into chunks).
  std::vector<Reduction> bucket;
  uint32_t seed = 1;
  for (int32_t dtype : {AMP_DTYPE_F32, AMP_DTYPE_F16, AMP_DTYPE_BF16})
    for (int32_t op : {AMP_GPU_DP_SUM, AMP_GPU_DP_MEAN, AMP_GPU_DP_MAX})
      for (int64_t count : {int64_t(5), int64_t(1027)})
        bucket.push_back({dtype, op, count});
  bucket.push_back({AMP_DTYPE_F32, AMP_GPU_DP_MEAN, int64_t(1) << 18});
  for (Reduction &r : bucket) {
    r.values = dyadic(size_t(r.count), seed++);
    r.send = upload(r.dtype, r.values);
    r.recv = upload(r.dtype, std::vector<float>(size_t(r.count), 99.0f));
  }
  void *stream = mgpuStreamCreate();
  amp_gpu_dp_group_begin(stream);
  for (Reduction &r : bucket)
    amp_gpu_dp_all_reduce(r.send, r.recv, r.count, r.dtype, r.op, stream);
  amp_gpu_dp_group_end(stream);
  const char *error = nullptr;
  if (amp_gpu_dp_synchronize(&error) != 0 || ops().synchronize() != 0) {
    std::printf("error: %s\n", error ? error : ops().last_error());
    return 1;
  }
  expect(rendezvousCalls == 1, "rank 0's id broadcast once");
  for (const Reduction &r : bucket) {
    std::vector<float> got = download(r.dtype, r.recv, size_t(r.count));
    std::vector<float> sent = download(r.dtype, r.send, size_t(r.count));
    bool same = got == r.values && sent == r.values;
    expect(same, std::string("all-reduce ") + dtypeName(r.dtype) + " " +
                     opName(r.op) + " x" + std::to_string(r.count) +
                     " on one rank");
  }
  if (failures == 0)
    std::printf("collective checks passed\n");
  return failures == 0 ? 0 : 1;
}

} // namespace amp::check
