"""Compares the loss curve of a GPU build of a model with its CPU build at
the same precision (same seed: same initial weights and data).

Tolerance: both builds compute the same graph with the same roundings per
op; they differ in the order of summation (cuBLASLt's GEMM tiling against
the CPU's sequential loops, libdevice against libm for erf/exp/tanh), which
changes results by a few units in the last place of f32 accumulators and,
where a value is then rounded to fp16/bf16, by at most one unit of the low
type in a few elements. Averaged into the loss and fed back through the
updates, that stays far below one rounding of the low type: we allow 2u of
the storage type relative to the first loss at every step (u = 2^-24 for
fp32 scaled by 1e3 for the length of the sums, 2^-9 for bf16, 2^-12 for
fp16).

fp8 (every contraction in FP8, --fp8-select=all): one unit of e4m3 is
2^-3 of the value, so a sum order that moves an operand across a rounding
boundary changes a product by up to 12.5%, and the amax-derived scales
carry such differences into later steps. The emulated device's fp8 curves
follow the CPU backend's within 0.5% per step; its test
(test/Runtime/Emulator/train-emulated-fp8.test) allows 2%, and so do we,
of the first loss.
"""
import json
import sys

LIMITS = {"fp32": 2 * 2.0**-24 * 1e3, "bf16": 2 * 2.0**-9,
          "fp16": 2 * 2.0**-12, "fp8": 0.02}


def curve(path):
    return [json.loads(line)["loss"] for line in open(path)]


precision, cpu_path, gpu_path = sys.argv[1:4]
cpu, gpu = curve(cpu_path), curve(gpu_path)
assert len(cpu) == len(gpu) > 0, "the runs have different lengths"
deviation = max(abs(a - b) for a, b in zip(cpu, gpu)) / abs(cpu[0])
ok = deviation <= LIMITS[precision] and gpu[-1] < gpu[0]
print("%s GPU matches CPU: %s (max deviation %.1e of the first loss, limit "
      "%.1e; GPU loss %.4f -> %.4f, CPU %.4f -> %.4f)" %
      (precision, "yes" if ok else "NO", deviation, LIMITS[precision],
       gpu[0], gpu[-1], cpu[0], cpu[-1]))
sys.exit(0 if ok else 1)
