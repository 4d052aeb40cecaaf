"""Checks that a loss curve (amp-run --metrics) follows the fp32 curve
within a relative tolerance at every step, as amp-bisect measures it, and
that the curve is not fp32's itself (the policy kept the step mixed).

Usage: within_tolerance.py FP32.jsonl MIXED.jsonl TOLERANCE
"""
import json
import sys


def curve(path):
    return [json.loads(line)["loss"] for line in open(path)]


reference, run = curve(sys.argv[1]), curve(sys.argv[2])
tolerance = float(sys.argv[3])
assert len(run) == len(reference) > 0, "expected as many steps as fp32"
deviation = max(abs(a - b) / abs(b) for a, b in zip(run, reference))
ok = 0 < deviation <= tolerance
print("follows fp32 within %g: %s" % (tolerance, "yes" if ok else "NO"))
sys.exit(0 if ok else 1)
