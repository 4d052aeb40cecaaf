"""Runs one model of the zoo (zoo_models.ZOO) as the zoo tests check it:

- fp32 on the CPU: each of STEPS SGD-with-momentum steps against PyTorch
  fp32 on the same batches. Tolerance per step: 1e-5 relative, or three
  times PyTorch's own fp32-to-fp64 difference at that step where that is
  larger. Deep batch-norm networks at test sizes are chaotic (ResNet-50 on
  4 images of 32x32: PyTorch's fp32 and fp64 losses part by 2e-3 at step
  2 and 10% at step 3, because batch norm over 4 values of 1x1 maps
  amplifies rounding), so losses are compared up to that horizon (the
  first step where PyTorch's fp32 and fp64 runs part by 1e-4) and only
  need be finite after it; before it, a wrong gradient is orders of
  magnitude outside.
  SGD rather than AdamW: Adam turns the rounding noise of gradients that
  are exactly zero (batch norm's shift of a constant) into full steps of
  random sign, in PyTorch too (front_door.py checks AdamW on models
  without that).
- the emulated CUDA device: the same steps, against amp's CPU losses up
  to the horizon (the GPU pipeline's kernels and cuBLASLt stand-in on the
  CPU).
- bf16: amp's drift from PyTorch fp32 at most three times PyTorch's own
  CPU autocast (bf16) drift on the same batches (at least 1e-3), the
  issue's criterion.
- eval: the compiled eval step on the initial weights against PyTorch's
  eval mode.
"""
import copy
import math
import sys

import torch
import torch.nn.functional as F

import amp
from zoo_models import ZOO

torch.set_num_threads(1)
STEPS = 5
OPTIMIZER = dict(optimizer="sgd", lr=0.01, momentum=0.9)


def torch_losses(model, batches, dtype=torch.float32, autocast=False):
    model = copy.deepcopy(model).train().to(dtype)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    losses = []
    for x, y in batches:
        x = x.to(dtype) if x.is_floating_point() else x
        optimizer.zero_grad()
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=autocast):
            loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses, model


def relative(a, b):
    return abs(a - b) / max(abs(b), 1e-12)


def main(name):
    make, inputs, (classes, count) = ZOO[name]
    torch.manual_seed(0)
    model = make().train()
    generator = torch.Generator().manual_seed(1)
    batches = [(inputs(generator),
                torch.randint(0, classes, (count,), generator=generator))
               for _ in range(STEPS)]
    example = (batches[0][0],)
    fp32, trained = torch_losses(model, batches)
    fp64, _ = torch_losses(model, batches, torch.float64)
    spread = [relative(a, b) for a, b in zip(fp32, fp64)]

    cpu = amp.compile(model, example_inputs=example, **OPTIMIZER)
    x = batches[0][0]
    with torch.no_grad():
        expected = copy.deepcopy(model).eval()(x)
        got = cpu.eval(x)
        difference = ((got - expected).abs().max() /
                      expected.abs().max().clamp(min=1e-12)).item()
    ours = [cpu.step(x, y) for x, y in batches]
    # The chaos horizon: the first step whose loss PyTorch's own fp32 and
    # fp64 runs part on (by more than 1e-4); from there on no two fp32
    # runs need agree, so only finite losses are asked for.
    horizon = next((i for i, s in enumerate(spread) if s > 1e-4), STEPS)
    bad = [i for i, (a, b, s) in enumerate(zip(ours, fp32, spread))
           if not math.isfinite(a) or
           (i < horizon and relative(a, b) > max(1e-5, 3 * s))]
    print("%s: fp32 %s (%d of %d steps before PyTorch's fp32 and fp64 "
          "part)" % (name, "FAIL at steps %s: amp %s torch %s fp64 %s" % (
              bad, ours, fp32, fp64) if bad else "like PyTorch", horizon,
              STEPS))
    # The initial weights' eval outputs (trained ones would differ past the
    # horizon).
    print("%s: eval %s" % (name, "outputs within 1e-4" if difference <= 1e-4
                          else "FAIL: outputs %g apart" % difference))

    emulated = amp.compile(model, example_inputs=example,
                           target="cuda-emulator", **OPTIMIZER)
    gpu = [emulated.step(x, y) for x, y in batches]
    worst = max([relative(a, b) for a, b in zip(gpu[:horizon],
                                                ours[:horizon])] + [0.0])
    finite = all(map(math.isfinite, gpu))
    print("%s: cuda-emulator %s" % (
        name, "within 1e-4 of the CPU backend" if worst <= 1e-4 and finite
        else "FAIL: %g from the CPU backend (%s vs %s)" % (worst, gpu, ours)))

    bf16 = amp.compile(model, example_inputs=example, precision="bf16",
                       **OPTIMIZER)
    low = [bf16.step(x, y) for x, y in batches]
    autocast, _ = torch_losses(model, batches, autocast=True)
    ours_drift = max(relative(a, b) for a, b in zip(low, fp32))
    torch_drift = max(relative(a, b) for a, b in zip(autocast, fp32))
    allowed = 3 * max(torch_drift, 1e-3)
    print("%s: bf16 %s" % (name, "drift within 3x autocast's" if
                          ours_drift <= allowed and
                          all(map(math.isfinite, low)) else
                          "FAIL: drift %g, autocast's %g" % (
                              ours_drift, torch_drift)))

if __name__ == "__main__":
    main(sys.argv[1])
