//===- Checkpoint.h - saving and loading a model's state --------*- C++ -*-===//
//
// Internal to amp_model_runtime: the checkpoint format (docs/Driver.md,
// "Checkpoints") of amp_state_save and amp_state_load. A checkpoint holds
// every state tensor but the inputs and labels, each with its name, dtype
// and shape; version 2 ends with the CRC-32 of everything before it.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_RUNTIME_CHECKPOINT_H
#define AMP_LIB_RUNTIME_CHECKPOINT_H

#include "ModelState.h"

#pragma GCC visibility push(hidden)

namespace amp::runtime {

/// Writes the state's checkpointed tensors to `path` ("-" is standard
/// output), replacing a regular file only once the new one is complete and
/// durable.
int32_t saveCheckpoint(amp_state &state, const char *path);

/// Reads the checkpoint at `path` into the state, checking the whole file
/// against the model first: a bad file changes nothing.
int32_t loadCheckpoint(amp_state &state, const char *path);

} // namespace amp::runtime

#pragma GCC visibility pop

#endif // AMP_LIB_RUNTIME_CHECKPOINT_H
