/*===- ModelDescriptor.h - what amp-compile tells the runtime -----*- C -*-===*\
|*                                                                            *|
|* Internal contract between the glue amp-compile generates and the model     *|
|* runtime (lib/Runtime): the compiled entry points take one pointer per      *|
|* tensor (static shapes, bare-pointer calling convention), arguments first,  *|
|* then one out-buffer per result; host pointers for the CPU, device pointers *|
|* for a GPU target.                                                          *|
\*===----------------------------------------------------------------------===*/

#ifndef AMP_RUNTIME_MODELDESCRIPTOR_H
#define AMP_RUNTIME_MODELDESCRIPTOR_H

#include "amp/Runtime/DeviceRuntime.h"
#include "amp/Runtime/ModelABI.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*amp_packed_entry)(void **buffers);

typedef struct amp_entry_descriptor {
  amp_packed_entry entry;
  int32_t num_args;
  const int32_t *args; /* index into the model's tensors, per argument */
  int32_t num_results;
  const amp_tensor_info *results;
  /* Per result: the tensor it replaces after the call, or -1. */
  const int32_t *result_updates;
  /* Per result: 1 when the call writes it into the buffer of the tensor it
     updates (state updated in place); its pointer in the packed call is
     ignored and it has no buffer of its own. */
  const int32_t *result_in_place;
  int32_t loss_result;    /* -1 if none */
  int32_t skipped_result; /* -1 if none */
} amp_entry_descriptor;

typedef struct amp_model_descriptor {
  int32_t abi_version;
  int32_t num_tensors;
  const amp_tensor_info *tensors;
  amp_entry_descriptor train_step;
  int32_t has_eval;
  amp_entry_descriptor eval;
  /* Null for the CPU: the entries run on the host buffers. Otherwise the
     entries take device pointers and the runtime mirrors every tensor on
     the device through these operations (DeviceRuntime.h). */
  const amp_device_ops *(*device)(void);
} amp_model_descriptor;

/* Defined by the generated glue of each compiled model. */
const amp_model_descriptor *amp_model_descriptor_get(void);

#ifdef __cplusplus
}
#endif

#endif /* AMP_RUNTIME_MODELDESCRIPTOR_H */
