#!/usr/bin/env python3
"""One scale per loss, executed: a step with an auxiliary and a main loss.

    loss_scaling_multiple_losses.py STEP.mlir --opt AMP_OPT
        --compile AMP_COMPILE --work DIR

STEP.mlir (../loss-scaling-multiple-losses.mlir) is a hand-written f32
training step with two amp.seed ops. It is built as it is (the baseline) and
after --amp-loss-scaling="growth-interval=3". Twelve steps on seeded data;
an inf in the auxiliary target overflows only the auxiliary loss's
gradients, an inf in the main target only the main loss's. After every
step each scaler (`loss_scale` for the auxiliary loss, the first seed;
`loss1.loss_scale` for the main loss) must equal ScalerRef updated with its
own loss's overflow, the step must be skipped exactly when one of them
overflowed, a skipped step must leave the weights bit-identical, and after a
clean step the weights must equal, bit for bit, the baseline's run on the
clean steps only (both scales are powers of two, exact in f32).
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from loss_scaling_harness import (F32, Model, ScalerRef,  # noqa: E402
                                  parse_arguments, bit_identical, build,
                                  fail)

OVERFLOW = {2: {"main"}, 4: {"aux"}, 6: {"aux", "main"}}
STEPS = 12


def main():
    args = parse_arguments("step")
    baseline = Model(build(args, args.step, [], args.work, "baseline"))
    model = Model(build(args, args.step,
                        ["--amp-loss-scaling=growth-interval=3"], args.work,
                        "scaled"))
    refs = {"aux": ScalerRef(growth_interval=3),
            "main": ScalerRef(growth_interval=3)}
    names = {"aux": "loss_scale", "main": "loss1.loss_scale"}
    rng = np.random.default_rng(5)
    w1 = rng.uniform(-0.3, 0.3, (16, 8)).astype(F32)
    w2 = rng.uniform(-0.3, 0.3, (4, 16)).astype(F32)
    for m in (model, baseline):
        m["w1"] = w1
        m["w2"] = w2
        m["lr"] = 0.05
    data = np.random.default_rng(6)
    skipped_count = 0
    for step in range(STEPS):
        x = data.standard_normal((32, 8)).astype(F32)
        aux = data.standard_normal((32, 16)).astype(F32)
        target = data.standard_normal((32, 4)).astype(F32)
        which = OVERFLOW.get(step, set())
        model["x"] = x
        model["aux_target"] = aux
        model["target"] = target
        if "aux" in which:
            model["aux_target"][1, 2] = np.inf
        if "main" in which:
            model["target"][3, 1] = np.inf
        before = model.snapshot()
        scales_before = {k: float(model[n]) for k, n in names.items()}
        _, skipped = model.step()
        for key, ref in refs.items():
            ref.update(key in which)
            scale = model[names[key]]
            if (scale.tobytes() != np.array(ref.scale, F32).tobytes() or
                    int(model[names[key] + ".growth_tracker"]) !=
                    ref.growth_tracker or
                    int(model[names[key] + ".hysteresis_tracker"]) !=
                    ref.hysteresis_tracker):
                fail(f"step {step}: {names[key]} = {float(scale)}, "
                     f"reference {float(ref.scale)}")
        if skipped != bool(which):
            fail(f"step {step}: skipped={skipped} with overflows {which}")
        if skipped:
            skipped_count += 1
            changed = bit_identical(before, model.snapshot())
            if changed:
                fail(f"step {step}: the skipped step changed {changed}")
            after = {k: float(model[n]) for k, n in names.items()}
            if which == {"aux", "main"}:
                detail = "both scales backed off"
            else:
                hit = "aux" if "aux" in which else "main"
                other = "main" if hit == "aux" else "aux"
                detail = (f"{names[hit]} {scales_before[hit]:g} -> "
                          f"{after[hit]:g}, {names[other]} "
                          f"{scales_before[other]:g} -> {after[other]:g}")
            label = {frozenset({"main"}): "main loss overflowed",
                     frozenset({"aux"}): "auxiliary loss overflowed",
                     frozenset({"aux", "main"}): "both overflowed"}
            print(f"PASS step {step}: {label[frozenset(which)]}: skipped, "
                  f"{detail}")
            continue
        baseline["x"] = x
        baseline["aux_target"] = aux
        baseline["target"] = target
        baseline.step()
        for name in ("w1", "w2"):
            if model[name].tobytes() != baseline[name].tobytes():
                fail(f"step {step}: '{name}' differs from the unscaled step")
    print(f"PASS {STEPS} steps: both scalers follow the reference, "
          f"{skipped_count} skipped, clean steps bit-identical to the "
          "unscaled step")
    print("ALL PASS")


if __name__ == "__main__":
    main()
