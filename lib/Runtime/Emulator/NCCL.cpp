//===- NCCL.cpp - the NCCL subset of the emulated device, over MPI --------===//
//
// libamp_nccl_emulator.so: what lib/Runtime/CUDACollectives.cpp resolves
// from libnccl.so.2, by the same names, for libraries that run on the
// emulated device (docs/GPURuntime.md, docs/DataParallel.md). Its streams
// run work when it is issued, so each all-reduce runs when it is called:
// a blocking all-reduce on the launcher's MPI (which the data-parallel
// runtime initialized), bounded by AMP_DP_TIMEOUT like every wait of the
// CPU's collectives. Device memory is host memory here. f16 and bf16 are
// reduced in f32 and rounded once (NCCL reduces in their own precision);
// ncclAvg is the f32 sum divided by the number of ranks.
//
//===----------------------------------------------------------------------===//

#include "Export.h"

#include "amp/Runtime/ModelABI.h"
#include "amp/Runtime/Numerics.h"

// MPI's C API only: its C++ bindings would need libmpi_cxx.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#include <nccl.h>

#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace {

constexpr char kIdMagic[] = "amp emulated NCCL";

struct Communicator {
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0;
  int size = 1;
  ncclResult_t asyncError = ncclSuccess;
};

std::string lastError;

ncclResult_t failWith(ncclResult_t result, std::string message) {
  lastError = std::move(message);
  return result;
}

double timeoutSeconds() {
  const char *text = std::getenv("AMP_DP_TIMEOUT");
  char *end = nullptr;
  double seconds = text ? std::strtod(text, &end) : 0;
  // The data-parallel runtime rejects bad values before any step runs.
  return text && end != text && seconds > 0 ? seconds : 300;
}

std::string formatSeconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", seconds);
  return text;
}

/// Waits for `request` at most AMP_DP_TIMEOUT seconds.
ncclResult_t waitBounded(Communicator &c, MPI_Request &request,
                         const char *what) {
  double seconds = timeoutSeconds();
  auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  for (;;) {
    int done = 0;
    if (MPI_Test(&request, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
      return c.asyncError = failWith(ncclSystemError,
                                     std::string("MPI failed during ") + what);
    if (done)
      return ncclSuccess;
    if (std::chrono::steady_clock::now() > deadline)
      return c.asyncError = failWith(
                 ncclRemoteError,
                 std::string(what) + " did not complete within " +
                     formatSeconds(seconds) +
                     " s (AMP_DP_TIMEOUT): another rank stopped, failed or "
                     "is stuck");
  }
}

bool ampDtype(ncclDataType_t type, int32_t &dtype) {
  switch (type) {
  case ncclFloat32:
    dtype = AMP_DTYPE_F32;
    return true;
  case ncclFloat16:
    dtype = AMP_DTYPE_F16;
    return true;
  case ncclBfloat16:
    dtype = AMP_DTYPE_BF16;
    return true;
  default:
    return false;
  }
}

} // namespace

AMP_EMU_EXPORT const char *ncclGetErrorString(ncclResult_t result) {
  switch (result) {
  case ncclSuccess:
    return "no error";
  case ncclInvalidArgument:
    return "invalid argument";
  case ncclInvalidUsage:
    return "invalid usage";
  case ncclSystemError:
    return "unhandled system error";
  case ncclRemoteError:
    return "remote process exited or there was a network error";
  default:
    return "unhandled error";
  }
}

AMP_EMU_EXPORT const char *ncclGetLastError(ncclComm_t) {
  return lastError.c_str();
}

AMP_EMU_EXPORT ncclResult_t ncclGetUniqueId(ncclUniqueId *id) {
  std::memset(id, 0, sizeof(*id));
  std::memcpy(id->internal, kIdMagic, sizeof(kIdMagic));
  return ncclSuccess;
}

/// The ranks of the communicator are MPI_COMM_WORLD's: the emulated device
/// only runs under mpirun (or as a world of one).
AMP_EMU_EXPORT ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks,
                                             ncclUniqueId id, int rank) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized)
    return failWith(ncclInvalidUsage, "the emulated NCCL needs MPI, which "
                                      "the data-parallel runtime initializes");
  if (std::memcmp(id.internal, kIdMagic, sizeof(kIdMagic)) != 0)
    return failWith(ncclInvalidArgument,
                    "the unique id was not made by the emulated NCCL");
  auto c = std::make_unique<Communicator>();
  MPI_Comm_rank(MPI_COMM_WORLD, &c->rank);
  MPI_Comm_size(MPI_COMM_WORLD, &c->size);
  if (c->rank != rank || c->size != nranks)
    return failWith(
        ncclInvalidArgument,
        "rank " + std::to_string(rank) + " of " + std::to_string(nranks) +
            " is not this process's MPI rank " + std::to_string(c->rank) +
            " of " + std::to_string(c->size));
  MPI_Request request;
  MPI_Comm_idup(MPI_COMM_WORLD, &c->comm, &request);
  if (ncclResult_t result =
          waitBounded(*c, request, "joining the communicator")) {
    // MPI may still write the new communicator's handle: left allocated.
    (void)c.release();
    return result;
  }
  *comm = reinterpret_cast<ncclComm_t>(c.release());
  return ncclSuccess;
}

/// The communicator's MPI duplicate is left as it is: a rank that gave up
/// cannot take part in freeing it.
AMP_EMU_EXPORT ncclResult_t ncclCommAbort(ncclComm_t comm) {
  delete reinterpret_cast<Communicator *>(comm);
  return ncclSuccess;
}

AMP_EMU_EXPORT ncclResult_t ncclCommGetAsyncError(ncclComm_t comm,
                                                  ncclResult_t *asyncError) {
  *asyncError = reinterpret_cast<Communicator *>(comm)->asyncError;
  return ncclSuccess;
}

// Every call runs when it is issued, as the emulated streams do: a group
// only brackets them.
AMP_EMU_EXPORT ncclResult_t ncclGroupStart() { return ncclSuccess; }
AMP_EMU_EXPORT ncclResult_t ncclGroupEnd() { return ncclSuccess; }

AMP_EMU_EXPORT ncclResult_t ncclAllReduce(const void *send, void *recv,
                                          size_t count, ncclDataType_t datatype,
                                          ncclRedOp_t op, ncclComm_t comm,
                                          cudaStream_t) {
  auto &c = *reinterpret_cast<Communicator *>(comm);
  int32_t dtype;
  if (!ampDtype(datatype, dtype) ||
      (op != ncclSum && op != ncclAvg && op != ncclMax))
    return failWith(ncclInvalidArgument,
                    "the emulated NCCL reduces f32, f16 and bf16 with sum, "
                    "avg and max only");
  if (count > size_t(INT32_MAX))
    return failWith(ncclInvalidArgument,
                    "the emulated NCCL reduces at most 2^31-1 elements");
  // Heap memory that outlives a timed-out all-reduce, which MPI may still
  // write into: freed only when the reduction completed.
  auto values = std::make_unique<float[]>(count);
  for (size_t i = 0; i < count; ++i)
    values[i] = float(amp::loadValue(send, dtype, int64_t(i)));
  MPI_Request request;
  MPI_Iallreduce(MPI_IN_PLACE, values.get(), int(count), MPI_FLOAT,
                 op == ncclMax ? MPI_MAX : MPI_SUM, c.comm, &request);
  if (ncclResult_t result = waitBounded(c, request, "an all-reduce")) {
    (void)values.release();
    return result;
  }
  for (size_t i = 0; i < count; ++i) {
    float value = op == ncclAvg ? values[i] / float(c.size) : values[i];
    amp::storeValue(recv, dtype, int64_t(i), value);
  }
  return ncclSuccess;
}
