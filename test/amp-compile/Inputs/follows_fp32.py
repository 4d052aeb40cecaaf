"""Compares 50-step loss curves of bf16 and fp16 builds of a model with its
fp32 build (same seed: same initial weights and data).

Tolerance: the mixed-precision step keeps master weights, statistics,
reductions and the loss in f32, so each step's loss carries a few roundings
of the low type averaged over many elements, and the updates feed those
back. We allow 2u of the low type relative to the first loss at every step
(u = 2^-9 for bf16, 2^-12 for fp16's 11-bit significand: 3.9e-3 and 4.9e-4);
measured deviations on the bundled examples are about ten times smaller.
The low-precision curve must also differ from fp32 (by more than 1e-7 of
the first loss), so a build whose casts were dropped cannot pass.
"""
import json
import sys

LIMITS = {"bf16": 2 * 2.0**-9, "fp16": 2 * 2.0**-12}


def curve(path):
    return [json.loads(line)["loss"] for line in open(path)]


reference = curve(sys.argv[1])
failed = False
for spec in sys.argv[2:]:
    precision, path = spec.split("=")
    losses = curve(path)
    assert len(losses) == len(reference) == 50, "expected 50 steps"
    deviation = max(abs(a - b) for a, b in zip(losses, reference))
    deviation /= abs(reference[0])
    ok = 1e-7 < deviation <= LIMITS[precision]
    failed |= not ok
    print("%s follows fp32: %s (max deviation %.1e of the first loss, "
          "limit %.1e; loss %.4f -> %.4f, fp32 %.4f -> %.4f)" %
          (precision, "yes" if ok else "NO", deviation, LIMITS[precision],
           losses[0], losses[-1], reference[0], reference[-1]))
sys.exit(1 if failed else 0)
