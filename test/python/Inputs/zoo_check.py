"""Runs one model of the zoo (zoo_models.ZOO) as the zoo tests check it:

- fp32 on the CPU: each of STEPS SGD-with-momentum steps against PyTorch
  fp32 on the same batches. Tolerance per step: 1e-5 relative, or three
  times the spread of valid fp32 runs at that step where that is larger:
  PyTorch's fp32-to-fp64 difference, or its fp32 run against one from
  weights nudged by one ulp (EfficientNet-B0 under 1.13 at step 1:
  fp32-to-fp64 5e-6, the nudged run 6e-5, amp 6e-5, while amp's
  gradients after one step are within 1.5e-5 of float64, as PyTorch's
  are within 1.4e-5). Deep batch-norm networks at test sizes are chaotic (ResNet-50 on
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
  CPU). The emulator runs one step past the horizon (its losses need only
  be finite from there, as the CPU backend's).
- bf16 and fp16: amp's drift from PyTorch fp32 at most three times
  PyTorch's own CPU autocast drift at that dtype on the same batches (at
  least 1e-3), the issue's criterion (fp16 under PyTorch 2.x only: 1.13's
  CPU autocast takes bfloat16 only; with a GradScaler, as amp's fp16 step
  scales its loss: both skip a step whose gradients overflow the initial
  scale of 2^16, which moves the losses far more than rounding does).
  Where PyTorch's autocast itself
  fails (1.13's CPU autocast on ConvNeXt's LayerNorm2d and on the UNet:
  "expected scalar type BFloat16 but found Float"), amp's losses need only
  be finite there, and the criterion is checked under PyTorch 2.x.
- eval: the compiled eval step on the initial weights against PyTorch's
  eval mode.
"""
import copy
import math
import sys
import time

import torch
import torch.nn.functional as F

import amp
from zoo_models import ZOO

torch.set_num_threads(1)
STEPS = 5
OPTIMIZER = dict(optimizer="sgd", lr=0.01, momentum=0.9)
LOSSES = {"cross_entropy": F.cross_entropy, "mse": F.mse_loss}


def torch_losses(model, batches, loss_fn, dtype=torch.float32,
                 autocast=None):
    """PyTorch's losses in `dtype`, or under CPU autocast to the dtype
    `autocast`; float16 with a GradScaler (amp's defaults: initial scale
    2^16, skipping a step whose gradients overflow), as amp's fp16 step."""
    model = copy.deepcopy(model).train().to(dtype)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0 ** 16) \
        if autocast == torch.float16 else None
    losses = []
    for inputs, labels in batches:
        inputs = [x.to(dtype) if x.is_floating_point() else x
                  for x in inputs]
        if labels.is_floating_point():
            labels = labels.to(dtype)
        optimizer.zero_grad()
        with torch.autocast("cpu", dtype=autocast or torch.bfloat16,
                            enabled=autocast is not None):
            loss = loss_fn(model(*inputs), labels)
        if scaler:
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        else:
            loss.backward()
            optimizer.step()
        losses.append(loss.item())
    return losses, model


def nudged(model):
    """The model with every parameter moved by one ulp up or down (seeded
    signs): a run of it is another valid fp32 computation of the same
    training, as amp's different rounding order is."""
    model = copy.deepcopy(model)
    generator = torch.Generator().manual_seed(2)
    with torch.no_grad():
        for p in model.parameters():
            up = torch.randint(0, 2, p.shape, generator=generator).bool()
            p.copy_(torch.where(up, torch.nextafter(p, torch.tensor(math.inf)),
                                torch.nextafter(p, torch.tensor(-math.inf))))
    return model


def relative(a, b):
    return abs(a - b) / max(abs(b), 1e-12)


def timed_compile(name, model, example, **options):
    start = time.perf_counter()
    trainer = amp.compile(model, example_inputs=example, **options)
    print("%s: compiled for %s (%s) in %.1f s" % (
        name, options.get("target", "cpu"), options.get("precision", "fp32"),
        time.perf_counter() - start))
    return trainer


def main(name):
    entry = ZOO[name]
    loss_fn = LOSSES[entry.loss]
    options = dict(OPTIMIZER, loss=entry.loss)
    torch.manual_seed(0)
    model = entry.make().train()
    generator = torch.Generator().manual_seed(entry.batch_seed)
    batches = [(entry.inputs(generator), entry.labels(generator))
               for _ in range(STEPS)]
    example = batches[0][0]
    fp32, trained = torch_losses(model, batches, loss_fn)
    fp64, _ = torch_losses(model, batches, loss_fn, torch.float64)
    ulp, _ = torch_losses(nudged(model), batches, loss_fn)
    # How far two valid fp32 runs may part at each step: PyTorch's fp32
    # against fp64, or against itself from weights one ulp away (larger
    # where batch norm amplifies rounding: PyTorch's CPU batch norm sums in
    # double, so its fp32 can sit unusually close to fp64).
    spread = [max(relative(a, b), relative(c, a))
              for a, b, c in zip(fp32, fp64, ulp)]

    cpu = timed_compile(name, model, example, **options)
    with torch.no_grad():
        expected = copy.deepcopy(model).eval()(*example)
        got = cpu.eval(*example)
        difference = ((got - expected).abs().max() /
                      expected.abs().max().clamp(min=1e-12)).item()
    ours = [cpu.step(*x, y) for x, y in batches]
    # The chaos horizon: the first step on which two valid fp32 runs part
    # by more than 1e-4; from there on no two fp32 runs need agree, so only
    # finite losses are asked for.
    horizon = next((i for i, s in enumerate(spread) if s > 1e-4), STEPS)
    bad = [i for i, (a, b, s) in enumerate(zip(ours, fp32, spread))
           if not math.isfinite(a) or
           (i < horizon and relative(a, b) > max(1e-5, 3 * s))]
    print("%s: fp32 %s (%d of %d steps before two valid fp32 runs part)"
          % (name, "FAIL at steps %s: amp %s torch %s fp64 %s nudged %s" % (
              bad, ours, fp32, fp64, ulp) if bad else "like PyTorch",
             horizon, STEPS))
    # The initial weights' eval outputs (trained ones would differ past the
    # horizon).
    print("%s: eval %s" % (name, "outputs within 1e-4" if difference <= 1e-4
                          else "FAIL: outputs %g apart" % difference))

    emulated = timed_compile(name, model, example, target="cuda-emulator",
                             **options)
    gpu = [emulated.step(*x, y) for x, y in batches[:horizon + 1]]
    worst = max([relative(a, b) for a, b in zip(gpu[:horizon],
                                                ours[:horizon])] + [0.0])
    finite = all(map(math.isfinite, gpu))
    print("%s: cuda-emulator %s" % (
        name, "within 1e-4 of the CPU backend" if worst <= 1e-4 and finite
        else "FAIL: %g from the CPU backend (%s vs %s)" % (worst, gpu, ours)))

    for precision in ("bf16", "fp16"):
        check_low_precision(name, model, batches, loss_fn, options, example,
                            fp32, precision)


def check_low_precision(name, model, batches, loss_fn, options, example, fp32,
                        precision):
    """amp's drift from PyTorch fp32 at `precision` against PyTorch's own
    CPU autocast drift at that dtype."""
    if precision == "fp16" and torch.__version__ < "2":
        # PyTorch 1.13's CPU autocast takes bfloat16 only.
        print("%s: fp16 not checked under PyTorch %s (its CPU autocast has "
              "no float16)" % (name, torch.__version__))
        return
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}[precision]
    low = timed_compile(name, model, example, precision=precision, **options)
    losses = [low.step(*x, y) for x, y in batches]
    finite = all(map(math.isfinite, losses))
    ours_drift = max(relative(a, b) for a, b in zip(losses, fp32))
    try:
        autocast, _ = torch_losses(model, batches, loss_fn, autocast=dtype)
    except RuntimeError as error:
        print("%s: %s %s (PyTorch %s's autocast fails on this model: %s)"
              % (name, precision, "losses finite, drift %.3g" % ours_drift
                 if finite else "FAIL: losses %s" % losses,
                 torch.__version__, str(error).splitlines()[0]))
        return
    torch_drift = max(relative(a, b) for a, b in zip(autocast, fp32))
    allowed = 3 * max(torch_drift, 1e-3)
    print("%s: %s %s (drift %.3g, autocast's %.3g)" % (
        name, precision, "drift within 3x autocast's"
        if ours_drift <= allowed and finite else "FAIL", ours_drift,
        torch_drift))

if __name__ == "__main__":
    main(sys.argv[1])
