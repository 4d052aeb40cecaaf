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

/* What the model runtime (ModelRuntime.cpp) calls; it finds them through
   amp_dp_hooks_get, which only libraries with data parallelism define. All
   return 0 on success, else 1 with the reason in *error. */
typedef struct amp_dp_hooks {
  /* Initialises MPI from the launcher's environment (once) and checks that
     every rank loaded the same library (a hash of its file). */
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
} amp_dp_hooks;

const amp_dp_hooks *amp_dp_hooks_get(void);

#ifdef __cplusplus
}

/* The symbols compiled steps call. */
constexpr const char kDPBucketBegin[] = "amp_dp_bucket_begin";
constexpr const char kDPBucketPack[] = "amp_dp_bucket_pack";
constexpr const char kDPBucketStart[] = "amp_dp_bucket_start";
constexpr const char kDPBucketWait[] = "amp_dp_bucket_wait";
constexpr const char kDPBucketUnpack[] = "amp_dp_bucket_unpack";
constexpr const char kDPAny[] = "amp_dp_any";
#endif

#endif /* AMP_RUNTIME_DATAPARALLEL_H */
