/*===- ModelABI.h - C ABI of libraries made by amp-compile --------*- C -*-===*\
|*                                                                            *|
|* A library compiled by amp-compile holds one training step, optionally the  *|
|* forward model for evaluation, and the description of every tensor they     *|
|* take and return. The state (parameters, buffers, optimizer and loss-scaler *|
|* state, hyper-parameters) and the input buffers live in an amp_state; the   *|
|* caller fills inputs in place through amp_state_tensor and runs steps.      *|
|*                                                                            *|
|* Every function returning int32_t returns 0 on success and non-zero on      *|
|* failure, with the reason in amp_last_error().                              *|
\*===----------------------------------------------------------------------===*/

#ifndef AMP_RUNTIME_MODELABI_H
#define AMP_RUNTIME_MODELABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define AMP_ABI_VERSION 2

/* Element types. */
typedef enum amp_dtype {
  AMP_DTYPE_F32 = 0,
  AMP_DTYPE_F16 = 1,
  AMP_DTYPE_BF16 = 2,
  AMP_DTYPE_I64 = 3,
  AMP_DTYPE_I32 = 4,
  AMP_DTYPE_I1 = 5,       /* one byte per element */
  AMP_DTYPE_F8E4M3FN = 6, /* OCP FP8 E4M3 (no infinity), one byte */
  AMP_DTYPE_F8E5M2 = 7    /* OCP FP8 E5M2, one byte */
} amp_dtype;

/* Roles, as the amp.role attribute of the training-graph contract. */
typedef enum amp_role {
  AMP_ROLE_PARAMETER = 0,
  AMP_ROLE_INPUT = 1,
  AMP_ROLE_LABEL = 2,
  AMP_ROLE_LOSS = 3,
  AMP_ROLE_OPTIMIZER_STATE = 4,
  AMP_ROLE_SCALER_STATE = 5,
  AMP_ROLE_HYPERPARAMETER = 6,
  AMP_ROLE_SKIPPED = 7,
  AMP_ROLE_OUTPUT = 8,
  AMP_ROLE_BUFFER = 9
} amp_role;

/* How a state tensor starts (amp_state_create). */
typedef enum amp_init {
  AMP_INIT_ZEROS = 0,
  AMP_INIT_ONES = 1,
  /* U(-1/sqrt(fan_in), 1/sqrt(fan_in)), fan_in = product of shape[1:], as
     PyTorch's default for Linear and Conv weights and biases. */
  AMP_INIT_UNIFORM_FAN_IN = 2,
  AMP_INIT_VALUES = 3,   /* init_values holds the contents */
  AMP_INIT_CONSTANT = 4, /* every element is init_constant */
  /* Tensor copy_of (an f32 parameter) rounded to nearest even to this
     tensor's f16/bf16: the low-precision copy of a master weight. Also
     recomputed when a checkpoint without it is loaded. */
  AMP_INIT_COPY_OF = 5
} amp_init;

typedef struct amp_tensor_info {
  const char *name;
  int32_t role;  /* amp_role */
  int32_t dtype; /* amp_dtype */
  int32_t rank;
  const int64_t *shape;
  int64_t num_elements;
  int32_t init; /* amp_init */
  double init_constant;
  int64_t fan_in;          /* for AMP_INIT_UNIFORM_FAN_IN */
  const void *init_values; /* for AMP_INIT_VALUES */
  /* For integer labels feeding a loss: labels are in [0, label_range). */
  int64_t label_range;
  int32_t copy_of; /* for AMP_INIT_COPY_OF: the tensor's index; else -1 */
} amp_tensor_info;

typedef struct amp_state amp_state;

int32_t amp_abi_version(void);
const char *amp_last_error(void);

/* The training step's arguments (state, inputs, labels, hyper-parameters). */
int32_t amp_num_tensors(void);
const amp_tensor_info *amp_tensor(int32_t index);
/* Whether the library can evaluate (run the forward model only). */
int32_t amp_has_eval(void);

/* Creates the state, initialised from the model (seeded where random).
   Null, with the reason in amp_last_error(), when the state does not fit:
   the sizes are computed without overflow and checked against the
   machine's memory (RAM and swap) before anything is allocated, and every
   allocation is checked; the error names the tensor and its bytes. */
amp_state *amp_state_create(uint64_t seed);
void amp_state_destroy(amp_state *state);
/* The buffer of the tensor named `name` (num_elements of its dtype). */
void *amp_state_tensor(amp_state *state, const char *name);
/* Fails for a value that is not finite in the hyper-parameter's dtype. */
int32_t amp_set_hyperparameter(amp_state *state, const char *name,
                               double value);

/* One training step on the current inputs; updates the state in place.
   Integer labels feeding a cross-entropy are checked first: one outside
   [0, label_range) fails the step (naming the label, the element and its
   value) and leaves the state as it was. */
int32_t amp_train_step(amp_state *state, float *loss, int32_t *skipped);
/* Asynchronous steps, so that the upload of one step's inputs overlaps the
   step before it on a GPU (a data loader's prefetch, done by the runtime).
   amp_train_step_begin checks the labels, uploads the inputs and labels as
   they are now, queues the step and returns once the host copies of the
   inputs may be written again; the step may still be running.
   amp_train_step_finish waits for the oldest begun step and gives its loss
   and skipped flag as amp_train_step does. At most two steps are begun and
   not finished (a third begin fails). The usual loop:

     fill batch 0; begin;
     for k = 1..n-1: fill batch k; begin; finish (step k-1)
     finish (step n-1)

   Every other call (amp_state_tensor, amp_eval, save, load, another
   amp_train_step) sees the state after every begun step, as if each had
   finished. Where steps cannot overlap (the CPU, data parallelism), begin
   runs the step at once and finish returns what it gave. A failure is
   returned by the call that finds it: begin for labels and uploads, finish
   for the step itself. */
int32_t amp_train_step_begin(amp_state *state);
int32_t amp_train_step_finish(amp_state *state, float *loss, int32_t *skipped);
/* The loss scales (the scaler-state tensors named "...scale", in the
   model's order; one per loss with dynamic loss scaling) after the step
   amp_train_step_finish returned last: what amp_state_tensor gives after
   amp_train_step. Writes up to `capacity` of them to `scales` and returns
   how many the model has (0 without loss scaling), or -1 before a begun
   step has finished (the reason in amp_last_error()). */
int32_t amp_train_step_finished_scales(amp_state *state, float *scales,
                                       int32_t capacity);
/* The forward model on the current inputs (no update), in evaluation mode
   as PyTorch's model.eval(): batch norm uses the running statistics,
   dropout is off. `*loss` is the loss the library trains (amp-compile
   appends it to a forward model that returns logits); a non-null `loss`
   on a forward model that computes none is an error, never a value left
   as it was. Labels are checked as by amp_train_step. */
int32_t amp_eval(amp_state *state, float *loss);

/* The forward model's results as the last amp_eval computed them (on the
   host): its outputs in order, then the loss amp-compile appended. Their
   number (0 without a forward model), descriptions, and contents (null, with
   the reason in amp_last_error(), for an index out of range). */
int32_t amp_num_eval_results(void);
const amp_tensor_info *amp_eval_result_info(int32_t index);
const void *amp_eval_result(const amp_state *state, int32_t index);

/* The whole state (every tensor but inputs and labels), in the checkpoint
   format of docs/Driver.md (version 2: with a CRC-32). `path` is written
   as amp::OutputFile writes (include/amp/Support/OutputFile.h): a regular
   file through a temporary file renamed over it only once complete and
   synced, so a failure leaves an existing file as it was; a device or FIFO
   in place; "-" to standard output. A write error (a full disk) fails
   naming `path` and the reason. */
int32_t amp_state_save(const amp_state *state, const char *path);
/* Reads and checks the whole file (structure, CRC-32 for version 2, names,
   dtypes, shapes, nothing missing, nothing extra) before changing the
   state: a truncated, corrupt or foreign checkpoint fails naming the file
   and changes nothing. Versions 1 and 2 are read. */
int32_t amp_state_load(amp_state *state, const char *path);

/* Data parallelism (docs/DataParallel.md): this process's rank and the
   number of ranks, after amp_state_create; 0 and 1 for a library built
   without --data-parallel. Drivers shard the data by rank and write
   checkpoints and metrics on rank 0 only. */
int32_t amp_dp_rank(void);
int32_t amp_dp_world_size(void);

/* Threads of the compiled step's parallel loops and matrix products on the
   CPU (lib/Runtime/ThreadPool.cpp; products are single-threaded BLAS calls
   on panels spread over these threads, CPUGemm.h): at least 1. Before the
   first call, $AMP_NUM_THREADS if it is a positive integer, else one per
   core. Results do not depend on it: a parallel loop gives each thread
   whole iterations of one parallel dimension, a product whole panels
   fixed by its shape, and every sum keeps its order. */
int32_t amp_set_num_threads(int32_t threads);
int32_t amp_get_num_threads(void);

#ifdef __cplusplus
}
#endif

#endif /* AMP_RUNTIME_MODELABI_H */
