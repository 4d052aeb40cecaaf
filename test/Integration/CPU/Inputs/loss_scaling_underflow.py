#!/usr/bin/env python3
"""fp16 gradients that underflow: no loss scaling stalls, dynamic trains.

    loss_scaling_underflow.py MODEL.mlir --opt AMP_OPT --compile AMP_COMPILE
        --work DIR [--steps 30]

MODEL.mlir (../loss-scaling-underflow.mlir) is y = x W^T with the loss
1e-5 * mse(y, target), 256 x 64 outputs. The gradient of y is
2e-5 (y - target) / 16384, below 5e-9 here: under half of fp16's smallest
subnormal (2^-24 = 6e-8), so it rounds to zero when the weight gradient's
fp16 matmul reads it. Three builds, AdamW (weight decay 0, lr 0.01), the same
weights (zeros) and the same batch every step:

    fp32                 --amp-autodiff
    fp16, no scaling     + --amp-pipeline="opt-level=O1 precision=fp16 loss-scaling=none"
    fp16, dynamic        + --amp-pipeline="opt-level=O1 precision=fp16"

fp32 must train (the loss falls below a fifth of the first); fp16 without
scaling must stall: AdamW with zero gradients leaves the weights
bit-identical, so the loss never moves; fp16 with dynamic scaling (2^16 makes
the output gradient about 3e-4, a normal fp16 number) must train like fp32:
its loss within 2^-10 of the first fp32 loss at every step. AdamW
normalises each gradient element, so the fp16 roundings of the gradient
(2^-11 relative, plus the coarser steps of subnormal output gradients) change
each step's update by about that much relative; over 30 steps of a convex
problem they do not add up past twice that (measured: 7e-6).
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from loss_scaling_harness import (F32, Model, parse_arguments, build,  # noqa: E402
                                  exit_with_verdict, fail,
                                  relative_deviation)

AUTODIFF = "--amp-autodiff=optimizer=adamw weight-decay=0"


def train(library, steps):
    model = Model(library)
    rng = np.random.default_rng(3)
    x = rng.uniform(-1, 1, (256, 32)).astype(F32)
    w_true = rng.uniform(-0.5, 0.5, (64, 32)).astype(F32)
    model["x"] = x
    model["target"] = (x @ w_true.T).astype(F32)
    model["w"] = np.zeros((64, 32), F32)
    model["lr"] = 0.01
    initial = model["w"].copy()
    losses, skipped = [], 0
    for _ in range(steps):
        loss, was_skipped = model.step()
        losses.append(loss)
        skipped += was_skipped
    unchanged = initial.tobytes() == model["w"].tobytes()
    return model, losses, skipped, unchanged


def main():
    args = parse_arguments(steps=30)
    fp32 = build(args, args.model, [AUTODIFF], args.work, "fp32")
    none = build(args, args.model,
                 [AUTODIFF, "--amp-pipeline=opt-level=O1 precision=fp16 "
                  "loss-scaling=none"], args.work, "fp16_none")
    dynamic = build(args, args.model,
                    [AUTODIFF, "--amp-pipeline=opt-level=O1 precision=fp16"],
                    args.work, "fp16_dynamic")
    ok = True

    _, reference, _, _ = train(fp32, args.steps)
    good = reference[-1] < 0.2 * reference[0]
    ok &= good
    print(f"{'PASS' if good else 'FAIL'} fp32 trains: loss "
          f"{reference[0]:.4g} -> {reference[-1]:.4g}")

    model, losses, _, unchanged = train(none, args.steps)
    if "loss_scale" in model.arrays:
        fail("loss-scaling=none made a scaler")
    good = unchanged and len(set(losses)) == 1
    ok &= good
    print(f"{'PASS' if good else 'FAIL'} fp16 without loss scaling stalls: "
          f"the weights {'never changed' if unchanged else 'CHANGED'}, loss "
          f"{losses[0]:.4g} -> {losses[-1]:.4g}")

    model, losses, skipped, unchanged = train(dynamic, args.steps)
    if "loss_scale" not in model.arrays:
        fail("fp16 with loss-scaling=auto made no scaler")
    deviation = relative_deviation(losses, reference)
    good = (not unchanged and losses[-1] < 0.2 * losses[0] and
            deviation <= 2.0 ** -10 and skipped == 0)
    ok &= good
    print(f"{'PASS' if good else 'FAIL'} fp16 with dynamic loss scaling "
          f"trains: loss {losses[0]:.4g} -> {losses[-1]:.4g} follows fp32 "
          f"(max deviation {deviation:.1e} of the first loss, limit 9.8e-04; "
          f"scale {float(model['loss_scale']):g}, {skipped} skipped)")
    exit_with_verdict(ok)


if __name__ == "__main__":
    main()
