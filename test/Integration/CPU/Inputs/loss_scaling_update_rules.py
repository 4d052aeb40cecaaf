#!/usr/bin/env python3
"""Dynamic loss scaling, step by step, against GradScaler and Megatron.

    loss_scaling_update_rules.py MODEL.mlir --opt AMP_OPT --compile AMP_COMPILE
        --work DIR

MODEL.mlir (../loss-scaling-update-rules.mlir) is a linear regression. Each
scenario builds its training step with

    amp-opt --amp-autodiff="loss=mse momentum=0.9" --amp-loss-scaling="mode=dynamic ..."

and the model runtime, then runs it step by step on seeded data. At the
scenario's overflow steps one input element is inf or NaN, so every gradient
is NaN and the step must overflow; no other step may (the data keep the
scaled gradients far from the f32 range). After every step:

* the scaler state equals the reference's: the scale bit for bit, the
  growth tracker, the hysteresis tracker, the sticky stuck_at_min flag;
  `ScalerRef` (amp's rule) always, and GradScalerRef / MegatronRef in the
  scenarios where their rules apply (their agreement is what the scenario
  is about);
* the step reports skipped exactly on overflow steps, and a skipped step
  leaves the parameters and momentum buffers bit-identical;
* (gradscaler, megatron-hysteresis) the parameters and momentum buffers
  equal, bit for bit, those of the step built without loss scaling run on
  the clean steps only: a power-of-two scale is exact in f32, so scaling
  and unscaling change nothing, and skipped steps are as if they never ran.

The scaler state starts as amp_state_create leaves it (zeros: a fresh
scaler, see docs/LossScaling.md) except in `resumed`, which writes a state
as a checkpoint would.
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from loss_scaling_harness import (F32, GradScalerRef, MegatronRef, Model,  # noqa: E402
                                  ScalerRef, parse_arguments,
                                  bit_identical, build, fail)

AUTODIFF = "--amp-autodiff=loss=mse momentum=0.9"
STATE = ["w", "b", "w.momentum_buffer", "b.momentum_buffer"]
TWO_126 = 2.0 ** 126

SCENARIOS = [
    dict(name="gradscaler", steps=40,
         options="init-scale=65536 growth-interval=3 min-scale=1e-30 "
                 "max-scale=1e300",
         scaler=dict(init_scale=65536.0, growth_interval=3, min_scale=1e-30,
                     max_scale=1e300),
         gradscaler=dict(init_scale=65536.0, growth_interval=3),
         overflow={4: "inf", 5: "nan", 11: "inf", 20: "nan", 21: "inf",
                   22: "inf", 33: "nan"},
         unscaled=True),
    dict(name="megatron-hysteresis", steps=40,
         options="init-scale=1024 hysteresis=2 growth-interval=4 "
                 "min-scale=1 max-scale=1e300",
         scaler=dict(init_scale=1024.0, hysteresis=2, growth_interval=4,
                     min_scale=1.0, max_scale=1e300),
         megatron=dict(initial_scale=1024.0, min_scale=1.0,
                       growth_factor=2.0, backoff_factor=0.5,
                       growth_interval=4, hysteresis=2),
         # One overflow (held by the hysteresis), growth (resets it), two
         # and three in a row (back off once, then on every further one),
         # alternating overflows.
         overflow={2: "inf", 8: "nan", 9: "inf", 10: "inf", 16: "nan",
                   17: "nan", 23: "inf", 25: "inf", 27: "nan", 35: "inf"},
         unscaled=True),
    dict(name="clamps", steps=20,
         options="init-scale=65536 growth-interval=1 min-scale=16384 "
                 "max-scale=262144",
         scaler=dict(init_scale=65536.0, growth_interval=1,
                     min_scale=16384.0, max_scale=262144.0),
         overflow={k: "inf" for k in range(5, 11)}),
    dict(name="no-infinity", steps=12, lr=0.0, small=True,
         options=f"init-scale={TWO_126!r} growth-factor=4 growth-interval=1 "
                 "max-scale=1e300",
         scaler=dict(init_scale=TWO_126, growth_factor=4.0,
                     growth_interval=1, max_scale=1e300),
         gradscaler=dict(init_scale=TWO_126, growth_factor=4.0,
                         growth_interval=1),
         overflow={3: "inf"}),
    dict(name="error-at-min", steps=10,
         options="init-scale=4 min-scale=1 growth-interval=100 "
                 "error-at-min=true",
         scaler=dict(init_scale=4.0, min_scale=1.0, growth_interval=100,
                     error_at_min=True),
         overflow={3: "inf", 4: "nan", 5: "inf", 7: "inf"}),
    dict(name="error-at-min-hysteresis", steps=11,
         options="init-scale=4 min-scale=1 hysteresis=2 growth-interval=100 "
                 "error-at-min=true",
         scaler=dict(init_scale=4.0, min_scale=1.0, hysteresis=2,
                     growth_interval=100, error_at_min=True),
         overflow={3: "inf", 4: "inf", 6: "nan", 8: "inf"}),
    dict(name="resumed", steps=12,
         options="hysteresis=2 growth-interval=3",
         scaler=dict(hysteresis=2, growth_interval=3),
         initial=dict(scale=1024.0, growth=2, hysteresis=1),
         overflow={1: "inf", 5: "inf", 6: "nan"}),
]


def data(rng, small):
    x = rng.standard_normal((16, 8)).astype(F32)
    w_true = rng.uniform(-1, 1, (4, 8)).astype(F32)
    target = (x @ w_true.T + 0.1 * rng.standard_normal((16, 4))).astype(F32)
    if small:
        # Scaled gradients below 2^127 * 4: inputs 0.1, residuals 0.01.
        x = (0.1 * np.sign(x)).astype(F32)
        target = np.zeros((16, 4), F32) + F32(0.01)
    return x, target


def initialize(model, rng, small):
    w = rng.uniform(-0.3, 0.3, (4, 8)).astype(F32)
    b = rng.uniform(-0.1, 0.1, (4,)).astype(F32)
    if small:
        w[...] = 0
        b[...] = 0
    model["w"] = w
    model["b"] = b


def run_scenario(tools, model_path, work, scenario, unscaled_lib):
    name = scenario["name"]
    library = build(tools, model_path,
                    [AUTODIFF, "--amp-loss-scaling=mode=dynamic " +
                     scenario["options"]], work, name)
    model = Model(library)
    small = scenario.get("small", False)
    initialize(model, np.random.default_rng(1), small)
    model["lr"] = scenario.get("lr", 0.01)
    ref = ScalerRef(**scenario["scaler"])
    if "initial" in scenario:
        initial = scenario["initial"]
        model["loss_scale"] = initial["scale"]
        model["loss_scale.growth_tracker"] = initial["growth"]
        model["loss_scale.hysteresis_tracker"] = initial["hysteresis"]
        ref.scale = F32(initial["scale"])
        ref.growth_tracker = initial["growth"]
        ref.hysteresis_tracker = initial["hysteresis"]
    gradscaler = (GradScalerRef(**scenario["gradscaler"])
                  if "gradscaler" in scenario else None)
    megatron = (MegatronRef(**scenario["megatron"])
                if "megatron" in scenario else None)
    baseline = None
    if scenario.get("unscaled"):
        baseline = Model(unscaled_lib)
        initialize(baseline, np.random.default_rng(1), small)
        baseline["lr"] = scenario.get("lr", 0.01)
        if baseline.names("scaler_state"):
            fail("the unscaled step has scaler state")

    has_stuck = "loss_scale.stuck_at_min" in model.arrays
    rng = np.random.default_rng(2)
    scales, skipped_steps, stuck_from, reached = [], 0, None, set()
    for step in range(scenario["steps"]):
        x, target = data(rng, small)
        clean_x = x.copy()
        overflow = scenario["overflow"].get(step)
        if overflow:
            x[step % 16, step % 8] = np.inf if overflow == "inf" else np.nan
        model["x"] = x
        model["target"] = target
        before = model.snapshot()
        loss, skipped = model.step()
        found = overflow is not None
        ref.update(found)
        for other in (gradscaler, megatron):
            if other:
                other.update(found)

        where = f"{name} step {step}"
        if skipped != found:
            fail(f"{where}: skipped={skipped}, expected {found} "
                 f"(scale {float(model['loss_scale'])})")
        if skipped:
            skipped_steps += 1
            changed = bit_identical(before, model.snapshot())
            if changed:
                fail(f"{where}: a skipped step changed {changed}")
            if np.isfinite(loss):
                fail(f"{where}: the injected {overflow} left loss {loss}")
        scale = model["loss_scale"].copy()
        if scale.tobytes() != np.array(ref.scale, F32).tobytes():
            fail(f"{where}: scale {float(scale)!r}, reference "
                 f"{float(ref.scale)!r}")
        growth = int(model["loss_scale.growth_tracker"])
        hysteresis = int(model["loss_scale.hysteresis_tracker"])
        if (growth, hysteresis) != (ref.growth_tracker,
                                    ref.hysteresis_tracker):
            fail(f"{where}: trackers (growth {growth}, hysteresis "
                 f"{hysteresis}), reference ({ref.growth_tracker}, "
                 f"{ref.hysteresis_tracker})")
        if gradscaler and (F32(gradscaler.scale) != ref.scale or
                           gradscaler.growth_tracker != ref.growth_tracker):
            fail(f"{where}: amp's rule and GradScaler's disagree "
                 f"({ref.scale} vs {gradscaler.scale})")
        if megatron and (megatron.scale != ref.scale or
                         megatron.growth_tracker != ref.growth_tracker or
                         megatron.hysteresis_tracker !=
                         ref.hysteresis_tracker):
            fail(f"{where}: amp's rule and Megatron's disagree")
        if has_stuck:
            stuck = bool(model["loss_scale.stuck_at_min"])
            if stuck != ref.stuck:
                fail(f"{where}: stuck_at_min={stuck}, reference {ref.stuck}")
            if stuck and stuck_from is None:
                stuck_from = step
            if stuck != bool(getattr(model, "stuck_error", None)):
                fail(f"{where}: stuck_at_min={stuck} but the runtime "
                     f"reported {getattr(model, 'stuck_error', None)!r}")
        elif ref.stuck:
            fail(f"{where}: no stuck_at_min state")
        scales.append(float(scale))
        if scale == ref.max_scale:
            reached.add("max")
        if scale == ref.min_scale:
            reached.add("min")

        if baseline is not None and not found:
            baseline["x"] = clean_x
            baseline["target"] = target
            baseline.step()
            for tensor in STATE:
                if model[tensor].tobytes() != baseline[tensor].tobytes():
                    error = np.max(np.abs(model[tensor].astype(np.float64) -
                                          baseline[tensor]))
                    fail(f"{where}: '{tensor}' differs from the unscaled "
                         f"step (max error {error:.3g})")

    summary = (f"{scenario['steps']} steps, {skipped_steps} skipped, scale "
               f"{scales[0]:g} -> {scales[-1]:g}")
    if gradscaler:
        summary += ", agrees with GradScaler"
    if megatron:
        summary += ", agrees with Megatron"
    if name == "clamps":
        if reached != {"max", "min"}:
            fail(f"{name}: clamps reached: {sorted(reached)}")
        summary += (f", max {scenario['scaler']['max_scale']:g} reached, "
                    f"min {scenario['scaler']['min_scale']:g} reached")
    if name == "no-infinity" and not all(np.isfinite(scales)):
        fail(f"{name}: the scale became infinite")
    if name.startswith("error-at-min"):
        if stuck_from is None:
            fail(f"{name}: never stuck")
        summary = f"stuck from step {stuck_from}; " + summary
    print(f"PASS {name}: {summary}")
    return baseline is not None


def main():
    args = parse_arguments()
    unscaled = build(args, args.model, [AUTODIFF], args.work, "unscaled")
    compared = 0
    for scenario in SCENARIOS:
        compared += run_scenario(args, args.model, args.work, scenario,
                                 unscaled)
    if compared:
        print("PASS scaled step equals unscaled step bit for bit")
    print("ALL PASS")


if __name__ == "__main__":
    main()
