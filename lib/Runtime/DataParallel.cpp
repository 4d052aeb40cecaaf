//===- DataParallel.cpp - data-parallel runtime on MPI --------------------===//
//
// The collectives of compiled steps (amp_dp_bucket_*, amp_dp_any) and the
// hooks the model runtime calls (amp_dp_hooks_get), on non-blocking MPI
// collectives (docs/DataParallel.md). Linked into libraries built with
// amp-compile --data-parallel, with the launcher's MPI (mpirun).
//
// Every wait is bounded (AMP_DP_TIMEOUT seconds): a rank that stopped or
// hangs makes the others fail with an error naming the collective, instead
// of waiting forever. After such an error MPI is left without
// MPI_Finalize, which would wait for the missing rank too.
//
//===----------------------------------------------------------------------===//

#include "amp/Runtime/DataParallel.h"
#include "amp/Runtime/ModelABI.h"
#include "amp/Runtime/Numerics.h"
#include "amp/Host/LibraryChecksum.h"

// MPI's C API only: its C++ bindings would need libmpi_cxx.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

/// One bucket's f32 buffer and its all-reduce in flight. Buckets are reused
/// step after step in the order the step begins them.
struct Bucket {
  std::vector<float> data;
  int32_t kind = 0;
  bool active = false;
  bool busy = false;
  /// Started by the step (to communicate); in flight in MPI.
  bool pending = false;
  bool inFlight = false;
  MPI_Request request = MPI_REQUEST_NULL;
};

struct Runtime {
  bool initialized = false;
  /// A wait timed out or MPI failed: the other ranks cannot be trusted to
  /// take part in anything, MPI_Finalize included.
  bool broken = false;
  int rank = 0;
  int size = 1;
  MPI_Comm comm = MPI_COMM_NULL;
  double timeoutSeconds = 300;
  std::vector<Bucket> buckets;
  std::string stepError;
  std::string error;
  /// AMP_DP_OVERLAP=0 starts each all-reduce at its wait (for measuring
  /// what the overlap hides); AMP_DP_PROFILE=1 reports the time spent
  /// waiting when the process ends.
  bool overlap = true;
  bool profile = false;
  bool checkReplicas = false;
  double waitSeconds = 0;
  int64_t reductions = 0;
  int64_t reducedBytes = 0;

  ~Runtime() {
    if (profile && rank == 0)
      std::fprintf(stderr,
                   "amp-dp: %lld all-reduces of %.3f MiB in all, %.6f s "
                   "waiting for them (overlap %s)\n",
                   (long long)reductions, double(reducedBytes) / (1 << 20),
                   waitSeconds, overlap ? "on" : "off");
    if (initialized && !broken) {
      int finalized = 0;
      MPI_Finalized(&finalized);
      if (!finalized)
        MPI_Finalize();
    }
  }
};

Runtime &runtime() {
  static Runtime instance;
  return instance;
}

std::string rankPrefix() {
  return "rank " + std::to_string(runtime().rank) + " of " +
         std::to_string(runtime().size) + ": ";
}

/// Waits for `request` for at most the timeout, polling so that MPI
/// progresses the other requests in flight too. Fails naming `what`.
bool waitBounded(MPI_Request &request, const char *what, std::string &error) {
  Runtime &rt = runtime();
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::duration<double>(rt.timeoutSeconds);
  for (unsigned polls = 0;; ++polls) {
    int done = 0;
    if (MPI_Test(&request, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
      rt.broken = true;
      error = rankPrefix() + "MPI failed during " + what;
      return false;
    }
    if (done)
      return true;
    if (std::chrono::steady_clock::now() > deadline) {
      rt.broken = true;
      char seconds[32];
      std::snprintf(seconds, sizeof(seconds), "%g", rt.timeoutSeconds);
      error = rankPrefix() + what + " did not complete within " + seconds +
              " s (AMP_DP_TIMEOUT): another rank stopped, failed or is "
              "stuck";
      return false;
    }
    // Busy polling keeps latency low; yield once the wait is long.
    if (polls > 1000)
      std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

/// Progress for the all-reduces in flight (MPI moves non-blocking
/// collectives forward inside MPI calls).
void progress() {
  for (Bucket &bucket : runtime().buckets) {
    if (bucket.request == MPI_REQUEST_NULL)
      continue;
    int done = 0;
    MPI_Test(&bucket.request, &done, MPI_STATUS_IGNORE);
  }
}

void startAllReduce(Bucket &bucket) {
  Runtime &rt = runtime();
  MPI_Iallreduce(MPI_IN_PLACE, bucket.data.data(), int(bucket.data.size()),
                 MPI_FLOAT, MPI_SUM, rt.comm, &bucket.request);
  bucket.inFlight = true;
}

bool communicates(bool active) {
  Runtime &rt = runtime();
  return active && rt.size > 1 && rt.stepError.empty();
}

//===----------------------------------------------------------------------===//
// Start-up
//===----------------------------------------------------------------------===//

/// MPI's components are plugins that need libmpi's symbols global; the
/// model library was opened RTLD_LOCAL (with libmpi as its dependency).
void promoteMPISymbols() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void *>(&MPI_Init), &info) && info.dli_fname)
    dlopen(info.dli_fname, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);
}

/// The file the loader knows as `name`: the loader opens model libraries
/// as /proc/self/fd/N (amp/Host/LoadedModel.h), a name that tells the user nothing.
std::string realPath(const std::string &name) {
  char target[4096];
  ssize_t length = readlink(name.c_str(), target, sizeof(target) - 1);
  if (length <= 0)
    return name;
  return std::string(target, size_t(length));
}

/// This library's checksum (the BLAKE3 digest amp-compile appended to it,
/// which the loader verified): ranks that loaded different libraries
/// (another model, other options) would train garbage together. `path` is
/// the library's file.
bool libraryChecksum(mlir::amp::LibraryChecksum &checksum, std::string &path,
                     std::string &error) {
  Dl_info info;
  if (!dladdr(reinterpret_cast<void *>(&amp_dp_hooks_get), &info) ||
      !info.dli_fname) {
    error = "cannot find the file of the model library";
    return false;
  }
  path = realPath(info.dli_fname);
  int fd = open(info.dli_fname, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error =
        "cannot read the model library '" + path + "': " + std::strerror(errno);
    return false;
  }
  bool read = mlir::amp::readLibraryChecksum(fd, checksum);
  int readError = errno;
  close(fd);
  if (!read) {
    error = "cannot read the checksum of the model library '" + path + "': " +
            (readError ? std::strerror(readError)
                       : "it has none (it was not written by amp-compile, "
                         "or was cut or appended to); recompile it");
    return false;
  }
  return true;
}

std::string hex(const unsigned char *bytes, size_t count) {
  std::string text;
  char digit[3];
  for (size_t i = 0; i < count; ++i) {
    std::snprintf(digit, sizeof(digit), "%02x", bytes[i]);
    text += digit;
  }
  return text;
}

bool readTimeout(std::string &error) {
  const char *text = std::getenv("AMP_DP_TIMEOUT");
  if (!text)
    return true;
  char *end = nullptr;
  double seconds = std::strtod(text, &end);
  if (end == text || *end || !(seconds > 0) || seconds > 1e6) {
    error = std::string("AMP_DP_TIMEOUT must be a number of seconds in "
                        "(0, 1e6], got '") +
            text + "'";
    return false;
  }
  runtime().timeoutSeconds = seconds;
  return true;
}

bool checkSameLibrary(std::string &error) {
  Runtime &rt = runtime();
  mlir::amp::LibraryChecksum checksum;
  std::string path;
  if (!libraryChecksum(checksum, path, error))
    return false;
  constexpr int kDigest = sizeof(checksum.digest);
  std::vector<unsigned char> digests(size_t(rt.size) * kDigest);
  MPI_Request request;
  MPI_Iallgather(checksum.digest, kDigest, MPI_BYTE, digests.data(), kDigest,
                 MPI_BYTE, rt.comm, &request);
  if (!waitBounded(request, "the start-up check of the model libraries", error))
    return false;
  for (int r = 1; r < rt.size; ++r)
    if (std::memcmp(&digests[size_t(r) * kDigest], digests.data(), kDigest) !=
        0) {
      // 64 bits of each digest tell them apart in the message.
      error = rankPrefix() + "rank " + std::to_string(r) +
              " loaded a different model library than rank 0 (checksum " +
              hex(&digests[size_t(r) * kDigest], 8) + "..., rank 0 " +
              hex(digests.data(), 8) + "...; this rank: '" + path +
              "'): every rank must run the same library";
      return false;
    }
  return true;
}

/// Settings that decide which collectives a step runs come from rank 0
/// (mpirun may give ranks different environments): AMP_DP_CHECK_REPLICAS.
bool shareSettings(std::string &error) {
  Runtime &rt = runtime();
  const char *check = std::getenv("AMP_DP_CHECK_REPLICAS");
  int32_t settings = check && std::strcmp(check, "1") == 0;
  if (rt.size > 1) {
    MPI_Request request;
    MPI_Ibcast(&settings, 1, MPI_INT32_T, 0, rt.comm, &request);
    if (!waitBounded(request, "the broadcast of rank 0's settings", error))
      return false;
  }
  rt.checkReplicas = settings != 0;
  return true;
}

int32_t init(const char **error) {
  Runtime &rt = runtime();
  if (rt.initialized)
    return 0;
  auto failWith = [&](std::string message) {
    rt.error = std::move(message);
    *error = rt.error.c_str();
    return 1;
  };
  std::string message;
  if (!readTimeout(message))
    return failWith(message);
  const char *overlap = std::getenv("AMP_DP_OVERLAP");
  rt.overlap = !overlap || std::strcmp(overlap, "0") != 0;
  const char *profile = std::getenv("AMP_DP_PROFILE");
  rt.profile = profile && std::strcmp(profile, "1") == 0;
  promoteMPISymbols();
  int already = 0;
  MPI_Initialized(&already);
  if (!already) {
    int provided = 0;
    if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) !=
        MPI_SUCCESS)
      return failWith("cannot initialise MPI");
  }
  rt.initialized = true;
  MPI_Comm_dup(MPI_COMM_WORLD, &rt.comm);
  MPI_Comm_rank(rt.comm, &rt.rank);
  MPI_Comm_size(rt.comm, &rt.size);
  if (rt.size > 1 && !checkSameLibrary(message))
    return failWith(message);
  if (!shareSettings(message))
    return failWith(message);
  return 0;
}

//===----------------------------------------------------------------------===//
// Hooks of the model runtime
//===----------------------------------------------------------------------===//

int32_t rankOf() { return runtime().rank; }
int32_t worldSize() { return runtime().size; }

int32_t fail(const char **error, std::string message) {
  runtime().error = std::move(message);
  *error = runtime().error.c_str();
  return 1;
}

int32_t broadcast(void *data, size_t bytes, const char **error) {
  Runtime &rt = runtime();
  constexpr size_t kChunk = size_t(1) << 30;
  std::string message;
  for (size_t done = 0; rt.size > 1 && done < bytes; done += kChunk) {
    MPI_Request request;
    MPI_Ibcast(static_cast<char *>(data) + done,
               int(std::min(kChunk, bytes - done)), MPI_BYTE, 0, rt.comm,
               &request);
    if (!waitBounded(request, "the broadcast of rank 0's state", message))
      return fail(error, message);
  }
  return 0;
}

int32_t mean(float *value, const char **error) {
  Runtime &rt = runtime();
  if (rt.size == 1)
    return 0;
  MPI_Request request;
  MPI_Iallreduce(MPI_IN_PLACE, value, 1, MPI_FLOAT, MPI_SUM, rt.comm, &request);
  std::string message;
  if (!waitBounded(request, "the all-reduce of the loss", message))
    return fail(error, message);
  *value /= float(rt.size);
  return 0;
}

int32_t checkSame(const void *data, size_t bytes, const char *what,
                  const char **error) {
  Runtime &rt = runtime();
  if (rt.size == 1)
    return 0;
  uint64_t hash = 1469598103934665603ull;
  for (size_t i = 0; i < bytes; ++i)
    hash =
        (hash ^ static_cast<const unsigned char *>(data)[i]) * 1099511628211ull;
  uint64_t range[2] = {hash, ~hash};
  MPI_Request request;
  // max(hash) == min(hash) on every rank: one all-reduce of (h, ~h).
  MPI_Iallreduce(MPI_IN_PLACE, range, 2, MPI_UINT64_T, MPI_MAX, rt.comm,
                 &request);
  std::string message;
  if (!waitBounded(request, "the replica check", message))
    return fail(error, message);
  if (range[0] != ~range[1])
    return fail(error, rankPrefix() + "'" + what +
                           "' differs across ranks: the replicas diverged");
  return 0;
}

const char *takeStepError() {
  Runtime &rt = runtime();
  if (rt.stepError.empty())
    return nullptr;
  rt.error = rt.stepError;
  rt.stepError.clear();
  return rt.error.c_str();
}

int32_t checkReplicas() { return runtime().checkReplicas; }

double timeoutSeconds() { return runtime().timeoutSeconds; }

void markBroken() { runtime().broken = true; }

constexpr amp_dp_hooks kHooks = {
    init,      rankOf,        worldSize,     broadcast,      mean,
    checkSame, takeStepError, checkReplicas, timeoutSeconds, markBroken};

} // namespace

//===----------------------------------------------------------------------===//
// Entry points of compiled steps
//===----------------------------------------------------------------------===//

extern "C" {

const amp_dp_hooks *amp_dp_hooks_get(void) { return &kHooks; }

int32_t amp_dp_allgather(const void *data, int64_t bytes, void *all,
                         const char **error) {
  Runtime &rt = runtime();
  if (!rt.initialized)
    return fail(error, "amp_dp_allgather: the ranks have not met yet "
                       "(amp_state_create joins them)");
  if (rt.broken)
    return fail(error, rankPrefix() + "amp_dp_allgather: an earlier "
                                      "collective failed");
  if (bytes < 0 || bytes > INT32_MAX)
    return fail(error, "amp_dp_allgather: " + std::to_string(bytes) +
                           " bytes is not a count MPI takes");
  if (rt.size == 1) {
    std::memcpy(all, data, size_t(bytes));
    return 0;
  }
  MPI_Request request;
  MPI_Iallgather(data, int(bytes), MPI_BYTE, all, int(bytes), MPI_BYTE, rt.comm,
                 &request);
  std::string message;
  if (!waitBounded(request,
                   "the start-up agreement check (every rank's options, "
                   "state and data)",
                   message))
    return fail(error, message);
  return 0;
}

int64_t amp_dp_bucket_begin(int64_t elements, int32_t kind, int32_t active) {
  std::vector<Bucket> &buckets = runtime().buckets;
  size_t index = 0;
  while (index < buckets.size() && buckets[index].busy)
    ++index;
  if (index == buckets.size())
    buckets.emplace_back();
  Bucket &bucket = buckets[index];
  bucket.data.resize(size_t(elements));
  bucket.kind = kind;
  bucket.active = active != 0;
  bucket.busy = true;
  return int64_t(index);
}

void amp_dp_bucket_pack(int64_t index, int64_t offset, const void *data,
                        int64_t count, int32_t dtype) {
  float *to = runtime().buckets[index].data.data() + offset;
  if (dtype == AMP_DTYPE_F32) {
    std::memcpy(to, data, size_t(count) * sizeof(float));
    return;
  }
  for (int64_t i = 0; i < count; ++i)
    to[i] = float(amp::loadValue(data, dtype, i));
}

void amp_dp_bucket_start(int64_t index) {
  Runtime &rt = runtime();
  Bucket &bucket = rt.buckets[index];
  progress();
  if (!communicates(bucket.active))
    return;
  bucket.pending = true;
  if (rt.overlap)
    startAllReduce(bucket);
}

void amp_dp_bucket_wait(int64_t index) {
  Runtime &rt = runtime();
  Bucket &bucket = rt.buckets[index];
  // Unpacking follows at once; the next step's buckets may reuse it.
  bucket.busy = false;
  if (!bucket.pending)
    return;
  bucket.pending = false;
  auto begin = std::chrono::steady_clock::now();
  if (!bucket.inFlight)
    startAllReduce(bucket);
  bucket.inFlight = false;
  std::string message;
  if (!waitBounded(
          bucket.request,
          ("the all-reduce of gradient bucket #" + std::to_string(index))
              .c_str(),
          message)) {
    if (rt.stepError.empty())
      rt.stepError = message;
    bucket.request = MPI_REQUEST_NULL;
    return;
  }
  rt.waitSeconds +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - begin)
          .count();
  ++rt.reductions;
  rt.reducedBytes += int64_t(bucket.data.size() * sizeof(float));
  if (bucket.kind == 1)
    for (float &value : bucket.data)
      value /= float(rt.size);
}

void amp_dp_bucket_unpack(int64_t index, int64_t offset, void *data,
                          int64_t count, int32_t dtype) {
  const float *from = runtime().buckets[index].data.data() + offset;
  if (dtype == AMP_DTYPE_F32) {
    std::memcpy(data, from, size_t(count) * sizeof(float));
    return;
  }
  for (int64_t i = 0; i < count; ++i)
    amp::storeValue(data, dtype, i, from[i]);
}

int32_t amp_dp_any(int32_t flag, int32_t active) {
  Runtime &rt = runtime();
  if (!communicates(active != 0))
    return flag != 0;
  int value = flag != 0;
  MPI_Request request;
  MPI_Iallreduce(MPI_IN_PLACE, &value, 1, MPI_INT, MPI_MAX, rt.comm, &request);
  std::string message;
  if (!waitBounded(request, "the all-reduce of found_inf", message)) {
    rt.stepError = message;
    return 1;
  }
  return value != 0;
}

} // extern "C"
