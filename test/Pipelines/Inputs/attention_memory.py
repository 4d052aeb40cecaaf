#!/usr/bin/env python3
"""Memory of a training step with attention against sequence length
(issue 37): a GPT-2 block (bench/make_gpu_models.py; batch 1, 2 heads of
32) compiled at sequence lengths S and 2S, for the CPU and the GPU.

For each build it prints the largest buffer the bufferized step allocates
(memref.alloc after one-shot bufferization, in elements) against the
scores' size heads x S x S, and the ratio of the step's memory at 2S to S:
on the GPU the peak device memory of amp-gpu-cost-report (arguments plus
the largest set of live temporaries), on the CPU the bytes of every buffer
the step allocates (an upper bound of its peak). Linear growth doubles it;
a materialized heads x S x S tensor makes it grow about 4x at these sizes
(the scores are the largest tensor from S = 256 on). The same step with
attention decomposed into unfused ops (convert-amp-attention-to-runtime
=decompose, as the GPU's fallback) is measured too, so the test shows it
would catch the quadratic buffers.
"""
import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import amp_cost  # noqa: E402
import make_gpu_models  # noqa: E402

HEADS = 2
ALLOC = re.compile(r"memref\.alloc\(\)(?:\s*\{[^}]*\})?\s*:\s*memref<([0-9x]+)x(f32|bf16|f16|i1|i64|i32)")
BYTES = {"f32": 4, "bf16": 2, "f16": 2, "i1": 1, "i64": 8, "i32": 4}


def allocations(amp_opt, step, pipeline, extra):
    """(elements, bytes) of each memref.alloc once the step is bufferized."""
    ir = subprocess.run(
        [amp_opt, step] + extra + [pipeline,
                                   "--mlir-print-ir-after=one-shot-bufferize",
                                   "--mlir-disable-threading",
                                   "-o", os.devnull],
        check=True, capture_output=True, text=True).stderr
    result = []
    for dims, element in ALLOC.findall(ir):
        count = 1
        for d in dims.split("x"):
            count *= int(d)
        result.append((count, count * BYTES[element]))
    return result


def measure(args, seq, decompose):
    """The largest allocation (elements), the CPU's allocated bytes and the
    GPU's modeled peak bytes of the step at sequence length `seq`."""
    sizes = dict(batch=1, seq=seq, gpt_d=HEADS * 32, heads=HEADS, mlp=128)
    model = os.path.join(args.dir, "gpt2_%d.mlir" % seq)
    with open(model, "w") as f:
        f.write(make_gpu_models.gpt2_block(**sizes))
    step = os.path.join(args.dir, "step_%d.mlir" % seq)
    subprocess.run([args.amp_compile, model, "--emit=mlir", "--precision=bf16",
                    "--optimizer=adamw", "-o", step], check=True)
    extra = (["--convert-amp-attention-to-runtime=decompose=true"]
             if decompose else [])
    cpu = allocations(args.amp_opt, step, "--amp-cpu-pipeline=model-abi=true",
                      extra)
    gpu = allocations(args.amp_opt, step,
                      "--amp-gpu-pipeline=format=isa model-abi=true", extra)
    largest = max(c for c, _ in cpu + gpu)
    if decompose:
        lowered = os.path.join(args.dir, "unfused_%d.mlir" % seq)
        subprocess.run([args.amp_opt, step] + extra + ["-o", lowered],
                       check=True)
        step = lowered
    report, _ = amp_cost.cost_report(args.amp_opt, step)
    peak = amp_cost.train_step(report)["peak_bytes"]
    return largest, sum(b for _, b in cpu), peak


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--amp-compile", required=True)
    parser.add_argument("--amp-opt", required=True)
    parser.add_argument("--dir", required=True)
    parser.add_argument("--seq", type=int, default=256)
    args = parser.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    ok = True
    for name, decompose in (("fused", False), ("unfused", True)):
        small = measure(args, args.seq, decompose)
        large = measure(args, 2 * args.seq, decompose)
        scores = HEADS * (2 * args.seq) ** 2
        has_scores = large[0] >= scores
        cpu_ratio, gpu_ratio = large[1] / small[1], large[2] / small[2]
        linear = cpu_ratio < 2.2 and gpu_ratio < 2.2
        print("%s: heads x seq x seq buffer: %s (largest %d elements, "
              "scores %d)" % (name, "yes" if has_scores else "no",
                              large[0], scores))
        print("%s: memory at 2S / S: CPU %.2f, GPU peak %.2f: %s"
              % (name, cpu_ratio, gpu_ratio,
                 "linear" if linear else "superlinear"))
        ok &= (not has_scores and linear) if not decompose else has_scores
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
