#!/usr/bin/env python3
"""Overflow injection into fp16 training with dynamic loss scaling.

    loss_scaling_inject.py MLP.mlir --opt AMP_OPT --compile AMP_COMPILE
        --work DIR

MLP.mlir is examples/mlp_forward.mlir, built with cross-entropy and

    adamw           optimizer=adamw (weight decay 0.01), lr 1e-3
    sgd-dampening   momentum 0.9, dampening 0.5, lr 0.05

then --amp-pipeline="opt-level=O1 precision=fp16" (dynamic loss scaling).
30 steps over four seeded batches in turn; at the overflow steps one input
element is inf or NaN, which makes every gradient NaN. At an overflow step
the step must report skipped, every parameter, buffer and optimizer-state
tensor must be bit-identical to before the step, the scale must halve (from
the fresh scaler's 2^16 on a first step) and the growth tracker restart at
0. Every other step must be taken, and the optimizer's step counter must
count the taken steps only. Training must go on: the last loss below the
loss before the first injection, which is below the first loss.
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from loss_scaling_harness import (F32, Model, parse_arguments,  # noqa: E402
                                  exit_with_verdict,
                                  bit_identical, build, fail, mlp_batch,
                                  mlp_parameters)

VARIANTS = [
    ("adamw", "optimizer=adamw weight-decay=0.01", 1e-3,
     {10: "inf", 20: "nan"}),
    ("sgd-dampening", "momentum=0.9 dampening=0.5", 0.05,
     {0: "nan", 10: "inf", 20: "nan"}),
]
STEPS = 30


def run(label, library, lr, overflow):
    model = Model(library)
    for name, value in mlp_parameters(11).items():
        model[name] = value
    model["lr"] = lr
    batches = [mlp_batch(200 + k) for k in range(4)]
    losses, taken = [], 0
    ok = True
    for step in range(STEPS):
        x, labels = batches[step % 4]
        x = x.copy()
        kind = overflow.get(step)
        if kind:
            x[3, 5] = np.inf if kind == "inf" else np.nan
        model["x"] = x
        model["labels"] = labels
        before = model.snapshot(("parameter", "buffer", "optimizer_state"))
        scale_before = float(model["loss_scale"])
        loss, skipped = model.step()
        scale = float(model["loss_scale"])
        growth = int(model["loss_scale.growth_tracker"])
        if not kind:
            if skipped:
                fail(f"{label} step {step}: skipped without an overflow "
                     f"(scale {scale_before:g})")
            taken += 1
            losses.append(loss)
            continue
        changed = bit_identical(before, model.snapshot(
            ("parameter", "buffer", "optimizer_state")))
        expected = F32(65536 if scale_before == 0 else scale_before) * F32(0.5)
        good = skipped and not changed and scale == expected and growth == 0
        ok &= good
        state = "bit-identical" if not changed else f"CHANGED: {changed}"
        old = "fresh" if scale_before == 0 else f"{scale_before:g}"
        print(f"{'PASS' if good else 'FAIL'} {label}: step {step} ({kind}) "
              f"{'skipped' if skipped else 'NOT SKIPPED'}, state {state}, "
              f"scale {old} -> {scale:g}" +
              ("" if growth == 0 else f" (growth tracker {growth})"))
    counter = int(model["step"])
    first = min(overflow)
    before_injection = losses[first - 1] if first > 0 else losses[0]
    falls = losses[-1] < before_injection <= losses[0]
    good = counter == taken and falls and all(np.isfinite(losses))
    ok &= good
    print(f"{'PASS' if good else 'FAIL'} {label}: {taken} of {STEPS} steps "
          f"taken (step counter {counter}), loss {losses[0]:.4f} -> "
          f"{before_injection:.4f} -> {losses[-1]:.4f} "
          f"{'falls' if falls else 'DOES NOT FALL'} after the overflows")
    return ok


def main():
    args = parse_arguments()
    ok = True
    for label, options, lr, overflow in VARIANTS:
        library = build(args, args.model,
                        [f"--amp-autodiff=loss=cross_entropy {options}",
                         "--amp-pipeline=opt-level=O1 precision=fp16"],
                        args.work, label)
        ok &= run(label, library, lr, overflow)
    exit_with_verdict(ok)


if __name__ == "__main__":
    main()
