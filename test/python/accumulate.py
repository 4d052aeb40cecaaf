# Gradient accumulation compiled into the step (accumulate=N): each call of
# step() is one micro-batch, the gradients of N are averaged inside the
# step and the optimizer (and the loss scaler) acts once per N.
# RUN: %amp_python %s | FileCheck %s
# RUN: %if torch2 %{ %amp_python2 %s | FileCheck %s %}
# CHECK: accumulate fp32 adamw cosine: 24 losses within 1e-05
# CHECK: accumulate counts: 12 updates of 2 micro-batches
# CHECK: accumulate 2x8 == 1x16: parameters within 1e-06
# CHECK: accumulate fp16: an inf in one micro-batch skips its update and halves the scale to 32768
# CHECK: accumulate fp16: the next update trains
# CHECK: accumulate errors: 3 raised
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "Inputs"))
import amp_testing as T  # noqa: E402
import amp  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402

model = T.mlp()
data = T.mlp_data
x0, _ = next(iter(data()))

# fp32 AdamW with a cosine schedule per optimizer step, accumulating 2
# batches, against PyTorch's accumulation loop (loss / 2 per batch, one
# optimizer.step() per 2): the same arithmetic up to summation order, so
# the losses agree within 1e-5 relative as the unaccumulated fp32 test
# (test/python/mlp.py); a sum that is not averaged, an update on every
# micro-batch or a schedule per micro-batch is off by far more.
schedule = amp.schedules.cosine(1e-2, 12)
trainer = amp.compile(model, example_inputs=(x0,), optimizer="adamw",
                      lr=1e-2, weight_decay=0.01, accumulate=2,
                      lr_schedule=schedule)
ours = T.amp_losses(trainer, data(), epochs=3)
theirs, _ = T.torch_losses(model, data(), 3,
                           lambda p: torch.optim.AdamW(p, lr=1e-2,
                                                       weight_decay=0.01),
                           schedule=schedule, accumulate=2)
T.check_close("accumulate fp32 adamw cosine", ours, theirs, 1e-5)
assert trainer.steps == 12 and trainer.micro_steps == 24, \
    (trainer.steps, trainer.micro_steps)
assert trainer.accumulate == 2
print("accumulate counts: %d updates of %d micro-batches" %
      (trainer.steps, trainer.accumulate))


# Two micro-batches of 8 make the update of their batch of 16: the mean of
# the two means is the mean over 16 (LayerNorm normalises per sample, so
# nothing else depends on the batch). Only the summation order differs:
# 1e-6 absolute on parameters of order 0.1 after 4 SGD updates.
def sgd(accumulate, batch):
    trainer = amp.compile(model, example_inputs=(x0[:batch],),
                          optimizer="sgd", lr=0.1, momentum=0.9,
                          accumulate=accumulate)
    for x, y in T.loader((32,), 10, batches=4, batch_size=16,
                         shuffle=False, batch=batch):
        trainer.step(x, y)
    return trainer.state_dict()


halves, whole = sgd(2, 8), sgd(1, 16)
worst = max((halves[k] - whole[k]).abs().max().item() for k in whole)
assert worst <= 1e-6, worst
print("accumulate 2x8 == 1x16: parameters within 1e-06")

# fp16 with dynamic loss scaling: the scaled gradients are summed, so an
# overflow in the first micro-batch of an update is found when the update
# completes; the update is skipped (parameters unchanged), the scale backs
# off once (GradScaler with accumulation), and the next update trains.
half = amp.compile(model, example_inputs=(x0,), optimizer="sgd", lr=0.1,
                   precision="fp16", accumulate=2)
batches = [(x, y) for x, y in data()]
before = half.state_dict()
bad = batches[0][0].clone()
bad[0, 0] = float("inf")  # its row of the gradients is NaN
half.step(bad, batches[0][1])
assert not half.updated and half.skipped_steps == 0
half.step(*batches[1])
after = half.state_dict()
assert half.updated and half.skipped_steps == 1, half.skipped_steps
assert all(torch.equal(before[k], after[k]) for k in before)
assert half.scaler.scale == 32768.0, half.scaler.scale
print("accumulate fp16: an inf in one micro-batch skips its update and "
      "halves the scale to %d" % half.scaler.scale)
for x, y in batches[2:4]:
    loss = half.step(x, y)
assert half.updated and half.skipped_steps == 1 and np.isfinite(loss)
assert any(not torch.equal(after[k], v) for k, v in half.state_dict().items())
print("accumulate fp16: the next update trains")

# Bad use: accumulate=0, a non-integer count, and setting a count on a step
# compiled without accumulation.
raised = 0
try:
    amp.compile(model, example_inputs=(x0,), accumulate=0)
except amp.CompileError as error:
    assert "accumulate=0" in str(error), error
    raised += 1
try:
    trainer.accumulate = 1.5
except ValueError as error:
    assert "accumulate must be an integer >= 1" in str(error), error
    raised += 1
plain = amp.compile(model, example_inputs=(x0,))
try:
    plain.accumulate = 4
except amp.AmpError as error:
    assert "compiled without gradient accumulation" in str(error), error
    raised += 1
print("accumulate errors: %d raised" % raised)
