//===- CUDACollectives.cpp - amp_gpu_dp_* on NCCL -------------------------===//
//
// The GPU's data-parallel collectives (include/amp/Runtime/DataParallel.h):
// NCCL calls on the step's stream. NCCL is opened with dlopen at the first
// collective, like cuBLASLt, so libraries load where it is missing (the
// emulator build opens the emulated NCCL, lib/Runtime/Emulator/NCCL.cpp).
// The ranks meet through the data-parallel runtime's MPI (amp_dp_hooks):
// rank 0's ncclUniqueId is broadcast, then every rank joins with
// ncclCommInitRank. Errors become the CUDA runtime's sticky error.
//
//===----------------------------------------------------------------------===//

#include "CUDADriver.h"

#include "amp/Runtime/DataParallel.h"
#include "amp/Runtime/ModelABI.h"

#include <nccl.h>

#include <dlfcn.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

using namespace amp::cuda;

// The library opened as NCCL (the emulated one in an emulator build).
#ifndef AMP_NCCL_LIBRARY
#define AMP_NCCL_LIBRARY "libnccl.so.2"
#endif
// Where NCCL is looked for after the default search path ("": not).
#ifndef AMP_NCCL_FALLBACK_DIR
#define AMP_NCCL_FALLBACK_DIR ""
#endif

// Defined only in libraries built with --data-parallel (amp_dp_runtime).
extern "C" __attribute__((weak)) const amp_dp_hooks *amp_dp_hooks_get(void);

namespace {

#define AMP_NCCL_FUNCTIONS(X)                                                  \
  X(ncclGetErrorString)                                                        \
  X(ncclGetLastError)                                                          \
  X(ncclGetUniqueId)                                                           \
  X(ncclCommInitRank)                                                          \
  X(ncclCommAbort)                                                             \
  X(ncclCommGetAsyncError)                                                     \
  X(ncclAllReduce)                                                             \
  X(ncclGroupStart)                                                            \
  X(ncclGroupEnd)

/// Exact prototypes from nccl.h; nothing links against libnccl.
struct NCCLAPI {
#define AMP_NCCL_DECLARE(name) decltype(&::name) name = nullptr;
  AMP_NCCL_FUNCTIONS(AMP_NCCL_DECLARE)
#undef AMP_NCCL_DECLARE
};

struct Collectives {
  bool attempted = false;
  bool ready = false;
  void *library = nullptr;
  NCCLAPI nccl;
  const amp_dp_hooks *hooks = nullptr;
  ncclComm_t comm = nullptr;
  /// Between a successful ncclGroupStart and its ncclGroupEnd.
  bool groupOpen = false;
};

Collectives &collectives() {
  static Collectives instance;
  return instance;
}

std::string rankPrefix(const Collectives &c) {
  return "rank " + std::to_string(c.hooks->rank()) + " of " +
         std::to_string(c.hooks->world_size()) + ": ";
}

/// Records "NCCL: <what> failed: <NCCL's name> (<its last error>)". The
/// ranks then disagree on which collectives ran: MPI is marked broken, so
/// that the process ends without waiting for the others in MPI_Finalize.
bool checkNCCL(Collectives &c, ncclResult_t result, const std::string &what) {
  if (result == ncclSuccess)
    return true;
  c.hooks->mark_broken();
  std::string text = rankPrefix(c) + "NCCL: " + what +
                     " failed: " + c.nccl.ncclGetErrorString(result);
  if (const char *last = c.nccl.ncclGetLastError(c.comm); last && *last)
    text += std::string(" (") + last + ")";
  return fail(text);
}

bool load(Collectives &c) {
  std::string reason;
  c.library = openLibrary(AMP_NCCL_LIBRARY, AMP_NCCL_FALLBACK_DIR, reason);
  if (!c.library)
    return fail(
        "data-parallel training on the GPU needs NCCL: " AMP_NCCL_LIBRARY
        " cannot be loaded (" +
        reason + "); install NCCL or add its directory to LD_LIBRARY_PATH");
#define AMP_NCCL_RESOLVE(name)                                                 \
  c.nccl.name =                                                                \
      reinterpret_cast<decltype(c.nccl.name)>(dlsym(c.library, #name));        \
  if (!c.nccl.name)                                                            \
    return fail(AMP_NCCL_LIBRARY " lacks " #name                               \
                                 ", which amp needs (NCCL 2.13 or newer)");
  AMP_NCCL_FUNCTIONS(AMP_NCCL_RESOLVE)
#undef AMP_NCCL_RESOLVE
  return true;
}

/// Rank 0's unique id, and whether rank 0 could make one, as one broadcast:
/// a rank 0 that failed still takes part, so the others fail too instead of
/// waiting.
struct Rendezvous {
  int32_t ok = 0;
  ncclUniqueId id = {};
};

/// Whether every rank loaded NCCL: a collective every rank takes part in,
/// whatever its own outcome, so that one rank's failure fails all of them
/// (within AMP_DP_TIMEOUT) instead of leaving the others waiting in the
/// rendezvous.
bool everyRankLoaded(Collectives &c, bool loaded) {
  float share = loaded ? 1.0f : 0.0f;
  const char *error = nullptr;
  if (c.hooks->mean(&share, &error))
    return fail(error);
  if (share == 1.0f)
    return true;
  return loaded ? fail(rankPrefix(c) + "another rank could not load NCCL")
                : false;
}

bool joinCommunicator(Collectives &c, bool loaded) {
  if (!everyRankLoaded(c, loaded))
    return false;
  int rank = c.hooks->rank(), size = c.hooks->world_size();
  Rendezvous rendezvous;
  if (rank == 0)
    rendezvous.ok = c.nccl.ncclGetUniqueId(&rendezvous.id) == ncclSuccess;
  const char *error = nullptr;
  if (c.hooks->broadcast(&rendezvous, sizeof(rendezvous), &error))
    return fail(error);
  if (!rendezvous.ok)
    return fail(rankPrefix(c) + "NCCL: rank 0 could not create the "
                                "communicator's id (ncclGetUniqueId)");
  return checkNCCL(c,
                   c.nccl.ncclCommInitRank(&c.comm, size, rendezvous.id, rank),
                   "joining the communicator of " + std::to_string(size) +
                       " ranks (ncclCommInitRank)");
}

/// Loads NCCL and joins the other ranks at the first call; false once
/// anything failed.
bool prepared() {
  Collectives &c = collectives();
  if (!c.attempted) {
    c.attempted = true;
    c.hooks = amp_dp_hooks_get ? amp_dp_hooks_get() : nullptr;
    if (!c.hooks)
      return fail("a data-parallel collective was called in a library "
                  "without the data-parallel runtime (build it with "
                  "amp-compile --data-parallel)");
    bool loaded = ready() && load(c);
    c.ready = joinCommunicator(c, loaded);
  }
  return c.ready && !failed();
}

CUstream onStream(void *stream) {
  return stream ? static_cast<CUstream>(stream) : amp::cuda::stream();
}

bool ncclType(int32_t dtype, ncclDataType_t &type) {
  switch (dtype) {
  case AMP_DTYPE_F32:
    type = ncclFloat32;
    return true;
  case AMP_DTYPE_F16:
    type = ncclFloat16;
    return true;
  case AMP_DTYPE_BF16:
    type = ncclBfloat16;
    return true;
  default:
    return fail("amp_gpu_dp_all_reduce: unsupported dtype " +
                std::to_string(dtype));
  }
}

bool ncclOp(int32_t op, ncclRedOp_t &red) {
  switch (op) {
  case AMP_GPU_DP_SUM:
    red = ncclSum;
    return true;
  case AMP_GPU_DP_MEAN:
    red = ncclAvg;
    return true;
  case AMP_GPU_DP_MAX:
    red = ncclMax;
    return true;
  default:
    return fail("amp_gpu_dp_all_reduce: unknown reduction " +
                std::to_string(op));
  }
}

/// Fails the step after NCCL reported an asynchronous error or the wait
/// ran out; the communicator is aborted, so nothing waits on it again, and
/// MPI is marked broken: a rank that stopped would keep MPI_Finalize, and
/// so this process, waiting for ever.
int32_t abandon(Collectives &c, const std::string &message,
                const char **error) {
  c.hooks->mark_broken();
  c.nccl.ncclCommAbort(c.comm);
  c.comm = nullptr;
  c.ready = false;
  fail(message);
  *error = lastError();
  return 1;
}

} // namespace

extern "C" {

void amp_gpu_dp_group_begin(void *) {
  Collectives &c = collectives();
  if (prepared() && checkNCCL(c, c.nccl.ncclGroupStart(),
                              "starting a bucket's group (ncclGroupStart)"))
    c.groupOpen = true;
}

void amp_gpu_dp_all_reduce(const void *send, void *recv, int64_t count,
                           int32_t dtype, int32_t op, void *stream) {
  ncclDataType_t type = ncclFloat32;
  ncclRedOp_t red = ncclSum;
  if (!prepared() || !ncclType(dtype, type) || !ncclOp(op, red))
    return;
  if (count < 0 || !send || !recv) {
    fail("amp_gpu_dp_all_reduce: bad operands (" + std::to_string(count) +
         " elements)");
    return;
  }
  Collectives &c = collectives();
  checkNCCL(c,
            c.nccl.ncclAllReduce(send, recv, size_t(count), type, red, c.comm,
                                 onStream(stream)),
            "queueing an all-reduce of " + std::to_string(count) +
                " elements (ncclAllReduce)");
}

void amp_gpu_dp_group_end(void *) {
  // Closed even after a failure inside the group: NCCL keeps an open
  // group per thread.
  Collectives &c = collectives();
  if (!c.groupOpen)
    return;
  c.groupOpen = false;
  checkNCCL(c, c.nccl.ncclGroupEnd(),
            "queueing a bucket's all-reduces (ncclGroupEnd)");
}

int32_t amp_gpu_dp_synchronize(const char **error) {
  Collectives &c = collectives();
  auto failure = [&] {
    *error = lastError();
    return 1;
  };
  if (!c.comm) {
    // No collective was queued, or the communicator was never made (the
    // error says why).
    if (!synchronizeStream("running the data-parallel GPU step") || failed())
      return failure();
    return 0;
  }
  double seconds = c.hooks->timeout_seconds();
  auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  for (;;) {
    CUresult query = api().cuStreamQuery(amp::cuda::stream());
    if (query != CUDA_SUCCESS && query != CUDA_ERROR_NOT_READY) {
      check(query, "running the data-parallel GPU step");
      return failure();
    }
    ncclResult_t asyncError = ncclSuccess;
    c.nccl.ncclCommGetAsyncError(c.comm, &asyncError);
    if (asyncError != ncclSuccess && asyncError != ncclInProgress)
      return abandon(c,
                     rankPrefix(c) + "NCCL failed during the step: " +
                         c.nccl.ncclGetErrorString(asyncError),
                     error);
    // An all-reduce that failed when it was queued fails the step: its
    // results were not reduced.
    if (query == CUDA_SUCCESS)
      return failed() ? failure() : 0;
    if (std::chrono::steady_clock::now() > deadline) {
      char text[32];
      std::snprintf(text, sizeof(text), "%g", seconds);
      return abandon(c,
                     rankPrefix(c) +
                         "the step's all-reduces did not complete within " +
                         text +
                         " s (AMP_DP_TIMEOUT): another rank stopped, failed "
                         "or is stuck",
                     error);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

} // extern "C"
