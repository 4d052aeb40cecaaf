#!/usr/bin/env python3
"""fp16 training of the bundled MLP with dynamic loss scaling follows fp32.

    loss_scaling_mlp.py MLP.mlir --opt AMP_OPT --compile AMP_COMPILE --work DIR
        [--steps 50]

MLP.mlir is examples/mlp_forward.mlir. Three builds of its training step
(cross-entropy, SGD with momentum 0.9, lr 0.05):

    fp32          --amp-autodiff
    fp16 O1       + --amp-pipeline="opt-level=O1 precision=fp16"
                  (loss-scaling=auto: dynamic, GradScaler's defaults)
    fp16 O2       + --amp-pipeline="opt-level=O2 precision=fp16
                  master-weights=true" (fp16 model, f32 master weights whose
                  fp16 copies the optimizer update writes)

start from the same weights and see the same batches (four seeded batches in
turn). Each fp16 loss curve must stay within 2u (u = 2^-12, fp16's unit
roundoff, as in test/amp-compile/Inputs/follows_fp32.py: master weights,
statistics, reductions and the loss are f32, so a step's loss carries a few
fp16 roundings averaged over many elements) of the first fp32 loss at every
step, must differ from the fp32 curve (the passes did make it fp16), must
fall, and no step may be skipped (the scaled gradients of this model stay
far below fp16's range at 2^16). The fp16 copies of the O2 build must equal
their master weights rounded to fp16 after every step, and the O2 build with
copies must be bit-identical to the O2 build that casts its master weights
every step (20 steps with an overflow at step 5).
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from loss_scaling_harness import (Model, parse_arguments,  # noqa: E402
                                  exit_with_verdict, relative_deviation,
                                  bit_identical, build, fail,
                                  initialize_copies, mlp_batch,
                                  mlp_parameters)

AUTODIFF = "--amp-autodiff=loss=cross_entropy momentum=0.9"
LIMIT = 2 * 2.0 ** -12
LR = 0.05


def train(library, steps, overflow=()):
    model = Model(library)
    for name, value in mlp_parameters(7).items():
        model[name] = value
    initialize_copies(model)
    model["lr"] = LR
    batches = [mlp_batch(100 + k) for k in range(4)]
    losses, skipped = [], 0
    for step in range(steps):
        x, labels = batches[step % 4]
        if step in overflow:
            x = x.copy()
            x[0, 0] = np.inf
        model["x"] = x
        model["labels"] = labels
        loss, was_skipped = model.step()
        losses.append(loss)
        skipped += was_skipped
        for name in model.names("buffer"):
            if name.endswith(".f16"):
                master = model[name[:-len(".f16")]].astype(np.float16)
                if master.tobytes() != model[name].tobytes():
                    fail(f"step {step}: '{name}' is not its master rounded "
                         "to fp16")
    return model, losses, skipped


def main():
    args = parse_arguments(steps=50)

    fp32 = build(args, args.model, [AUTODIFF], args.work, "mlp_fp32")
    variants = [
        ("fp16 O1", build(args, args.model,
                          [AUTODIFF,
                           "--amp-pipeline=opt-level=O1 precision=fp16"],
                          args.work, "mlp_fp16_o1")),
        ("fp16 O2 master weights",
         build(args, args.model,
               [AUTODIFF, "--amp-pipeline=opt-level=O2 precision=fp16 "
                "master-weights=true"], args.work, "mlp_fp16_o2")),
    ]
    _, reference, _ = train(fp32, args.steps)
    ok = True
    for label, library in variants:
        model, losses, skipped = train(library, args.steps)
        if "loss_scale" not in model.arrays:
            fail(f"{label}: the step has no loss scale")
        copies = [n for n in model.names("buffer") if n.endswith(".f16")]
        if ("master" in label) != bool(copies):
            fail(f"{label}: fp16 weight copies: {copies}")
        deviation = relative_deviation(losses, reference)
        falls = losses[-1] < 0.5 * losses[0]
        good = (1e-7 < deviation <= LIMIT and falls and skipped == 0 and
                all(np.isfinite(losses)))
        ok &= good
        print(f"{'PASS' if good else 'FAIL'} {label} follows fp32 over "
              f"{args.steps} steps: max deviation {deviation:.1e} of the "
              f"first loss (limit {LIMIT:.1e}); loss {losses[0]:.4f} -> "
              f"{losses[-1]:.4f} (fp32 {reference[0]:.4f} -> "
              f"{reference[-1]:.4f}); scale {float(model['loss_scale']):g}, "
              f"{skipped} skipped" +
              (f", {len(copies)} fp16 copies" if copies else ""))
    # The copies change where the forward reads its fp16 weights, not what
    # it computes: the same run with the casts of O2 is bit-identical, an
    # overflow (skipped step) included.
    plain = build(args, args.model,
                  [AUTODIFF, "--amp-pipeline=opt-level=O2 precision=fp16"],
                  args.work, "mlp_fp16_o2_casts")
    with_copies, copy_losses, copy_skipped = train(variants[1][1], 20, {5})
    with_casts, cast_losses, cast_skipped = train(plain, 20, {5})
    same = (copy_losses[:5] + copy_losses[6:] == cast_losses[:5] +
            cast_losses[6:] and copy_skipped == cast_skipped == 1 and
            not bit_identical(with_casts.snapshot(), {
                n: with_copies[n] for n in with_casts.snapshot()}))
    ok &= same
    print(f"{'PASS' if same else 'FAIL'} fp16 O2 with master-weight copies "
          f"is bit-identical to O2 casting the master weights (20 steps, "
          f"{copy_skipped} skipped)")
    exit_with_verdict(ok)


if __name__ == "__main__":
    main()
