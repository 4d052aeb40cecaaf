//===- OverlappedSteps.cpp - training steps queued on a device ------------===//
//
// amp_train_step_begin on a device with a second stream: the next step's
// inputs are uploaded into a spare set of buffers while the step before
// runs, and each step's loss, skipped flag, loss scales and index ranges are
// copied into a page-locked slot that amp_train_step_finish reads once the
// step's event has fired (ModelABI.h).
//
//===----------------------------------------------------------------------===//

#include "ModelState.h"

#include <cstring>

using namespace amp::runtime;

StepPipeline::StepPipeline(const amp_device_ops *device, size_t numScales,
                           size_t rangesBytes)
    : device(device), rangesOffset((kScalesOffset + 4 * numScales + 7) / 8 * 8),
      slotBytes((rangesOffset + rangesBytes + 63) / 64 * 64),
      slots(kMaxStepsInFlight * slotBytes) {}

StepPipeline::~StepPipeline() {
  device->synchronize();
  for (void *event : {uploaded, spareFree, done[0], done[1]})
    if (event)
      device->event_destroy(event);
  if (slotsPinned)
    device->unpin_host(slots.data.get());
}

bool amp_state::canOverlapSteps() const {
  return device && device->event_create && device->copy_async &&
         device->stream_wait_event && device->event_synchronize;
}

int32_t amp_state::preparePipeline() {
  if (pipeline)
    return 0;
  const amp_entry_descriptor &entry = model().train_step;
  int32_t ranges = indexRangesResult(entry);
  auto p = std::make_unique<StepPipeline>(
      device, lossScaleTensors().size(),
      ranges >= 0 ? stepResults.host[ranges].size : 0);
  for (int32_t i = 0; i < entry.num_args; ++i) {
    int32_t index = entry.args[i];
    // Hyper-parameters too: a copy from pageable memory on the step
    // stream may wait for the step before.
    if (!isUploadedEveryStep(model().tensors[index]))
      continue;
    p->spare.emplace_back(index, DeviceBuffer(device, tensors[index].size));
    if (!p->spare.back().second.data)
      return deviceError("cannot allocate a second buffer for '" +
                         std::string(model().tensors[index].name) +
                         "' on the GPU (asynchronous steps)");
  }
  for (void **event : {&p->uploaded, &p->spareFree, &p->done[0], &p->done[1]})
    if (!(*event = device->event_create()))
      return deviceError("cannot create a GPU event");
  if (!p->slots.data)
    return fail("out of memory for the step results' slots");
  // A pageable slot still works: its copy then waits for the step.
  p->slotsPinned = device->pin_host &&
                   device->pin_host(p->slots.data.get(), p->slots.size) == 0;
  pipeline = std::move(p);
  return 0;
}

/// Uploads inputs, labels and hyper-parameters into the spare set on the
/// upload stream once every reader of that set has run, and makes it the
/// current set; returns when the host copies may be written again.
int32_t amp_state::uploadNextInputs() {
  StepPipeline &p = *pipeline;
  if (p.spareFreeRecorded &&
      device->stream_wait_event(AMP_DEVICE_UPLOAD_STREAM, p.spareFree))
    return deviceError("cannot order the upload after the step before");
  for (auto &[index, buffer] : p.spare)
    if (device->copy_async(buffer.data, tensors[index].data.get(),
                           tensors[index].size, 1, AMP_DEVICE_UPLOAD_STREAM))
      return deviceError(std::string("cannot copy '") +
                         model().tensors[index].name + "' to the GPU");
  if (device->event_record(p.uploaded, AMP_DEVICE_UPLOAD_STREAM) ||
      device->event_synchronize(p.uploaded) ||
      device->stream_wait_event(AMP_DEVICE_STEP_STREAM, p.uploaded))
    return deviceError("cannot upload the step's inputs");
  for (auto &[index, buffer] : p.spare)
    std::swap(deviceTensors[index].data, buffer.data);
  // What the step stream holds so far read the set that is now spare.
  if (device->event_record(p.spareFree, AMP_DEVICE_STEP_STREAM))
    return deviceError("cannot record a GPU event");
  p.spareFreeRecorded = true;
  return 0;
}

/// Queues copies of the step's loss and skipped flag into its slot.
int32_t amp_state::queueStepResults(const amp_entry_descriptor &entry,
                                    int32_t slot) {
  StepPipeline &p = *pipeline;
  int32_t fields[2] = {entry.loss_result, entry.skipped_result};
  for (int32_t f = 0; f < 2; ++f) {
    int32_t index = fields[f];
    if (index < 0)
      continue;
    if (stepResults.host[index].size > StepPipeline::kFieldBytes)
      return fail("a step's loss or skipped flag is larger than " +
                  std::to_string(StepPipeline::kFieldBytes) + " bytes");
    if (device->copy_async(p.slot(slot) + f * StepPipeline::kFieldBytes,
                           stepResults.device[index].data,
                           stepResults.host[index].size, 0,
                           AMP_DEVICE_STEP_STREAM))
      return deviceError("cannot read the step's loss from the GPU");
  }
  return 0;
}

/// Queues copies of the step's loss and skipped flag, new loss scales and
/// index ranges into its slot, and the slot's event after them.
int32_t amp_state::queueStepReport(const amp_entry_descriptor &entry,
                                   int32_t slot) {
  StepPipeline &p = *pipeline;
  if (queueStepResults(entry, slot))
    return 1;
  // The step's new loss scales: the state's buffers hold them once its
  // updates are applied (applyUpdates swapped them in).
  std::vector<int32_t> scales = lossScaleTensors();
  for (size_t k = 0; k < scales.size(); ++k)
    if (device->copy_async(p.slot(slot) + StepPipeline::kScalesOffset + 4 * k,
                           deviceTensors[scales[k]].data, sizeof(float), 0,
                           AMP_DEVICE_STEP_STREAM))
      return deviceError("cannot read the step's loss scale from the GPU");
  if (int32_t ranges = indexRangesResult(entry);
      ranges >= 0 && device->copy_async(p.slot(slot) + p.rangesOffset,
                                        stepResults.device[ranges].data,
                                        stepResults.host[ranges].size, 0,
                                        AMP_DEVICE_STEP_STREAM))
    return deviceError("cannot read the step's index ranges from the GPU");
  if (device->event_record(p.done[slot], AMP_DEVICE_STEP_STREAM))
    return deviceError("cannot record a GPU event");
  return 0;
}

int32_t amp_state::beginStep(BegunStep &step) {
  const amp_entry_descriptor &entry = model().train_step;
  if (checkLabels(entry) || preparePipeline() || uploadNextInputs() ||
      syncToDevice(entry, /*everyStepUploaded=*/true))
    return 1;
  callEntry(entry, stepResults);
  applyUpdates(entry, stepResults);
  step.queued = true;
  step.slot = int32_t(pipeline->begun++ % kMaxStepsInFlight);
  return queueStepReport(entry, step.slot);
}

int32_t amp_state::finishStep(const BegunStep &step, float *loss,
                              int32_t *skipped) {
  const amp_entry_descriptor &entry = model().train_step;
  if (device->event_synchronize(pipeline->done[step.slot]))
    return deviceError("the GPU step failed");
  const char *slot = pipeline->slot(step.slot);
  finishedScales.resize(lossScaleTensors().size());
  if (!finishedScales.empty()) // memcpy takes no null pointer, even for 0
    std::memcpy(finishedScales.data(), slot + StepPipeline::kScalesOffset,
                finishedScales.size() * sizeof(float));
  if (checkIndexRanges(entry, slot + pipeline->rangesOffset))
    return 1;
  return reportStep(entry.loss_result >= 0 ? slot : nullptr,
                    entry.skipped_result >= 0 ? slot + StepPipeline::kFieldBytes
                                              : nullptr,
                    loss, skipped);
}
