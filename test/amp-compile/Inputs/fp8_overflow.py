"""The FP8 overflow checks of fp8-overflow.test.

fp8_overflow.py data DIR: a batch (x 32 x 32, target 32 x 16) as
DIR/x.npy and DIR/target.npy, and DIR/x_inf.npy, the same x with one
element 3.4e38: finite in f32 (so amp-run takes it), infinite once rounded
to bf16 (its largest finite value is 3.3895e38), as the fp8 step does
before quantizing it.

fp8_overflow.py skipped BEFORE AFTER: the checkpoints before and after
one step on x_inf: the step was skipped (the loss scale halved, the
parameters and optimizer state unchanged bit for bit); with an FP8 scaling state, the non-finite amax is recorded as 0 and
the scales stay finite.

fp8_overflow.py continued METRICS: the steps after it train (not skipped,
finite losses that fall)."""
import json
import math
import os
import sys

import numpy as np

import amp_checkpoint

if sys.argv[1] == "data":
    directory = sys.argv[2]
    rng = np.random.RandomState(0)
    x = rng.randn(32, 32).astype(np.float32)
    target = rng.randn(32, 16).astype(np.float32)
    np.save(os.path.join(directory, "x.npy"), x)
    np.save(os.path.join(directory, "target.npy"), target)
    x[5, 7] = np.float32(3.4e38)
    np.save(os.path.join(directory, "x_inf.npy"), x)
elif sys.argv[1] == "skipped":
    before = amp_checkpoint.read(sys.argv[2])
    after = amp_checkpoint.read(sys.argv[3])
    halved = after["loss_scale"] * 2 == before["loss_scale"]
    print("loss scale backed off: %s (%g -> %g)" % (
        "yes" if halved else "NO", before["loss_scale"], after["loss_scale"]))
    changed = [name for name in before
               if not name.startswith(("loss_scale", "fp8.")) and
               not np.array_equal(before[name], after[name])]
    print("parameters and optimizer state unchanged: %s" % (
        "yes" if not changed else "NO, " + ", ".join(changed)))
    if "fp8.scale" in after:
        newest = after["fp8.amax_history"][0]
        print("fp8: the input's amax recorded as %g, scales finite: %s" % (
            newest[0], "yes" if np.all(np.isfinite(after["fp8.scale"])) and
            np.all(after["fp8.scale"] > 0) else "NO"))
elif sys.argv[1] == "continued":
    rows = [json.loads(line) for line in open(sys.argv[2])]
    losses = [row["loss"] for row in rows]
    ok = not any(row["skipped"] for row in rows) and \
        all(math.isfinite(v) for v in losses) and losses[-1] < losses[0]
    print("training continues: %s (%s)" % (
        "yes" if ok else "NO", ", ".join("%.6g" % v for v in losses)))
