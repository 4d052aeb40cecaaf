//===- ModelDataParallel.cpp - the state's side of data parallelism -------===//
//
// What the model runtime does for data parallelism (docs/DataParallel.md)
// through the hooks of the data-parallel runtime (DataParallel.h), which
// only libraries built with --data-parallel link: joining the other ranks
// from rank 0's state, averaging the loss, broadcasting buffers and
// checking the replicas after each step. Without the hooks every function
// does nothing, except that one replica of several refuses to train alone.
//
//===----------------------------------------------------------------------===//

#include "ModelState.h"

#include <cstring>

// Defined only in libraries built with --data-parallel (amp_dp_runtime).
extern "C" __attribute__((weak)) const amp_dp_hooks *amp_dp_hooks_get(void);
// Defined only in GPU libraries (CUDACollectives.cpp).
extern "C" __attribute__((weak)) int32_t
amp_gpu_dp_synchronize(const char **error);

using namespace amp::runtime;

const amp_dp_hooks *amp::runtime::dataParallel() {
  return amp_dp_hooks_get ? amp_dp_hooks_get() : nullptr;
}

namespace {
/// The number of processes a launcher started this one among (mpirun,
/// srun's PMI, torchrun), or 1.
int64_t launcherWorldSize(const char *&variable) {
  for (const char *name :
       {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "WORLD_SIZE"}) {
    const char *text = std::getenv(name);
    if (!text)
      continue;
    char *end = nullptr;
    long long size = std::strtoll(text, &end, 10);
    if (end != text && !*end && size > 1) {
      variable = name;
      return size;
    }
  }
  return 1;
}

/// Without data parallelism: fails when a launcher started several
/// processes, each of which would train alone.
int32_t refuseLoneReplica() {
  const char *variable = nullptr;
  int64_t size = launcherWorldSize(variable);
  if (size > 1)
    return fail("this library was built without data parallelism but "
                "runs as one of " +
                std::to_string(size) + " processes (" + variable + "=" +
                std::to_string(size) +
                "): each would train alone; build it with amp-compile "
                "--data-parallel, or run one process");
  return 0;
}

/// A launcher without MPI (torchrun) leaves MPI a world of one: every
/// process would train alone.
int32_t checkLauncherWorld(const amp_dp_hooks &hooks) {
  const char *variable = nullptr;
  int64_t launched = launcherWorldSize(variable);
  if (launched > 1 && launched != hooks.world_size())
    return fail("this process is one of " + std::to_string(launched) + " (" +
                variable + "=" + std::to_string(launched) +
                ") but MPI sees a world of " +
                std::to_string(hooks.world_size()) +
                ": data-parallel libraries meet through MPI, so start them "
                "with mpirun -np " +
                std::to_string(launched) +
                " (a launch without MPI, such as torchrun, is not supported)");
  return 0;
}

/// Gradient accumulators (amp-accumulate-gradients: "<name>.grad_accum",
/// "<name>.grad_accumN") hold each rank's own sums between the all-reduces
/// of the last micro-step; every other state tensor is replicated.
bool isRankLocal(const amp_tensor_info &info) {
  return info.role == AMP_ROLE_OPTIMIZER_STATE &&
         std::strstr(info.name, ".grad_accum") != nullptr;
}
} // namespace

int32_t amp::runtime::startDataParallel(amp_state &state) {
  const amp_dp_hooks *hooks = dataParallel();
  if (!hooks)
    return refuseLoneReplica();
  const char *error = nullptr;
  if (hooks->init(&error))
    return fail(error);
  if (checkLauncherWorld(*hooks))
    return 1;
  // Before the first step the state is on the host (HostNewer): what is
  // broadcast there is what the first step uploads.
  for (int32_t i = 0; i < model().num_tensors; ++i) {
    int32_t role = model().tensors[i].role;
    if (role == AMP_ROLE_INPUT || role == AMP_ROLE_LABEL)
      continue;
    if (hooks->broadcast(state.tensors[i].data.get(), state.tensors[i].size,
                         &error))
      return fail(error);
  }
  return 0;
}

/// Waits at most AMP_DP_TIMEOUT seconds: a rank that stopped fails the step
/// instead of hanging it.
int32_t amp::runtime::waitForDataParallelStep() {
  if (!model().device || !dataParallel() || !amp_gpu_dp_synchronize)
    return 0;
  const char *error = nullptr;
  if (amp_gpu_dp_synchronize(&error))
    return fail(error ? error : "the data-parallel GPU step failed");
  return 0;
}

/// The error without a loss is that of a rank that stopped.
int32_t amp::runtime::finishDataParallelStep(float *loss) {
  const amp_dp_hooks *hooks = dataParallel();
  if (!hooks)
    return 0;
  const char *error = nullptr;
  if (!loss) {
    if (const char *stepError = hooks->take_step_error())
      return fail(stepError);
    return 0;
  }
  if (hooks->mean(loss, &error))
    return fail(error);
  return 0;
}

/// Buffers (batch-norm running statistics) come from each rank's own
/// batch; rank 0's are broadcast after every step, as DDP's default
/// broadcast_buffers, so that the replicas stay identical.
int32_t amp::runtime::broadcastBuffers(amp_state &state) {
  const amp_dp_hooks *hooks = dataParallel();
  if (!hooks || hooks->world_size() == 1)
    return 0;
  const char *error = nullptr;
  for (int32_t i = 0; i < model().num_tensors; ++i) {
    if (model().tensors[i].role != AMP_ROLE_BUFFER)
      continue;
    // On a GPU: downloaded, broadcast, uploaded by the next step.
    void *data = state.hostTensorForWriting(i);
    if (!data)
      return 1;
    if (hooks->broadcast(data, state.tensors[i].size, &error))
      return fail(error);
  }
  return 0;
}

/// The state of every replica must stay bit-identical; a check for tests
/// and debugging (rank 0's AMP_DP_CHECK_REPLICAS=1) compares every state
/// tensor after each step.
int32_t amp::runtime::checkReplicas(amp_state &state) {
  const amp_dp_hooks *hooks = dataParallel();
  if (!hooks || !hooks->check_replicas())
    return 0;
  const char *error = nullptr;
  for (int32_t i = 0; i < model().num_tensors; ++i) {
    const amp_tensor_info &info = model().tensors[i];
    if (info.role == AMP_ROLE_INPUT || info.role == AMP_ROLE_LABEL ||
        isRankLocal(info))
      continue;
    if (state.syncToHost(i) ||
        hooks->check_same(state.tensors[i].data.get(), state.tensors[i].size,
                          info.name, &error))
      return fail(error);
  }
  return 0;
}
