/*===- DataParallel.h - the data-parallel runtime (MPI) ------------*- C -*-===*\
|*                                                                            *|
|* What compiled steps and the model runtime call in a library built with     *|
|* amp-compile --data-parallel (docs/DataParallel.md). The entry points are   *|
|* defined in lib/Runtime/DataParallel.cpp (libamp_dp_runtime.a, linked with  *|
|* MPI); convert-amp-collectives-to-runtime emits the calls.                  *|
\*===----------------------------------------------------------------------===*/

#ifndef AMP_RUNTIME_DATAPARALLEL_H
#define AMP_RUNTIME_DATAPARALLEL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Called by compiled steps, in this order for each bucket. `kind` is 0 for
   a sum and 1 for a mean (amp::ReductionKind); `dtype` an AMP_DTYPE_* float
   type; offsets and counts are elements. A bucket whose `active` flag is
   false communicates nothing: unpack returns what was packed. Errors (a
   peer that stopped, a timeout) are recorded and reported by
   amp_train_step after the step; later collectives of the step then do
   nothing. Flags are int32_t (0 or 1), which every calling convention
   passes alike. */
int64_t amp_dp_bucket_begin(int64_t elements, int32_t kind, int32_t active);
void amp_dp_bucket_pack(int64_t bucket, int64_t offset, const void *data,
                        int64_t count, int32_t dtype);
void amp_dp_bucket_start(int64_t bucket);
void amp_dp_bucket_wait(int64_t bucket);
void amp_dp_bucket_unpack(int64_t bucket, int64_t offset, void *data,
                          int64_t count, int32_t dtype);
/* Whether `flag` is set on any rank (`flag` itself when not active). */
int32_t amp_dp_any(int32_t flag, int32_t active);

/* What the model runtime (ModelState.h) calls; it finds them through
   amp_dp_hooks_get, which only libraries with data parallelism define. All
   return 0 on success, else 1 with the reason in *error. */
typedef struct amp_dp_hooks {
  /* Initialises MPI from the launcher's environment (once) and checks that
     every rank loaded the same library (the digest of its checksum trailer,
     include/amp/Host/LibraryChecksum.h). */
  int32_t (*init)(const char **error);
  int32_t (*rank)(void);
  int32_t (*world_size)(void);
  /* Broadcasts `bytes` at `data` from rank 0. */
  int32_t (*broadcast)(void *data, size_t bytes, const char **error);
  /* Replaces *value by its mean over the ranks. */
  int32_t (*mean)(float *value, const char **error);
  /* Fails if the bytes hashed differ across ranks (replicas diverged). */
  int32_t (*check_same)(const void *data, size_t bytes, const char *what,
                        const char **error);
  /* The error a collective of the last step recorded, or null; cleared. */
  const char *(*take_step_error)(void);
  /* Whether the replicas are to be compared after every step: rank 0's
     AMP_DP_CHECK_REPLICAS=1, so that every rank runs the same collectives
     whatever its own environment. */
  int32_t (*check_replicas)(void);
  /* AMP_DP_TIMEOUT: how long any wait for the other ranks may take. */
  double (*timeout_seconds)(void);
  /* Records that the ranks no longer run the same collectives (the GPU's
     NCCL calls failed or timed out, CUDACollectives.cpp), as a failed MPI
     wait does: the process then ends without MPI_Finalize, which would
     wait for a rank that stopped. */
  void (*mark_broken)(void);
} amp_dp_hooks;

const amp_dp_hooks *amp_dp_hooks_get(void);

/* What drivers call, after amp_state_create (which joins the ranks): copies
   `bytes` bytes at `data` from every rank into `all`, world size times
   `bytes`, in rank order; one all-gather, its wait bounded by
   AMP_DP_TIMEOUT. amp-run's start-up agreement check (include/amp/Host/
   Agreement.h) exchanges one fixed-size record through it before the first
   step. 0 on success, else 1 with the reason in *error. */
int32_t amp_dp_allgather(const void *data, int64_t bytes, void *all,
                         const char **error);

/* The GPU's collectives (lib/Runtime/CUDACollectives.cpp, in the CUDA
   runtime; convert-amp-collectives-to-nccl emits the calls). Each is queued
   on `stream`, the step's stream (null: the runtime's, which is the same
   one), as NCCL calls on the library's communicator, created at the first
   call from the rank and world size of amp_dp_hooks (rank 0's unique id is
   broadcast through MPI). A bucket is one NCCL group: begin, one all-reduce
   per tensor, end. `send` and `recv` are device buffers of `count` elements
   of `dtype` (an AMP_DTYPE_* float type); `op` an amp_gpu_dp_op. Failures
   become the CUDA runtime's sticky error, reported after the step. */
enum amp_gpu_dp_op { AMP_GPU_DP_SUM = 0, AMP_GPU_DP_MEAN = 1, AMP_GPU_DP_MAX = 2 };
void amp_gpu_dp_group_begin(void *stream);
void amp_gpu_dp_all_reduce(const void *send, void *recv, int64_t count,
                           int32_t dtype, int32_t op, void *stream);
void amp_gpu_dp_group_end(void *stream);
/* What the model runtime calls after queueing a data-parallel step: waits
   for the stream at most AMP_DP_TIMEOUT seconds, polling NCCL's
   asynchronous error, and aborts the communicator on a timeout (a rank that
   stopped), so that the step fails instead of hanging. 0 on success, else 1
   with the reason in *error. */
int32_t amp_gpu_dp_synchronize(const char **error);

#ifdef __cplusplus
}

/* The symbols compiled steps call. */
constexpr const char kDPBucketBegin[] = "amp_dp_bucket_begin";
constexpr const char kDPBucketPack[] = "amp_dp_bucket_pack";
constexpr const char kDPBucketStart[] = "amp_dp_bucket_start";
constexpr const char kDPBucketWait[] = "amp_dp_bucket_wait";
constexpr const char kDPBucketUnpack[] = "amp_dp_bucket_unpack";
constexpr const char kDPAny[] = "amp_dp_any";
constexpr const char kGPUDPGroupBegin[] = "amp_gpu_dp_group_begin";
constexpr const char kGPUDPAllReduce[] = "amp_gpu_dp_all_reduce";
constexpr const char kGPUDPGroupEnd[] = "amp_gpu_dp_group_end";
#endif

#endif /* AMP_RUNTIME_DATAPARALLEL_H */
