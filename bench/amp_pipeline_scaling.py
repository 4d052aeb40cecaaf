#!/usr/bin/env python3
"""Time of the AMP pipeline (amp-assign-precision + amp-insert-casts, the
min-cut included) on generated training-graph-like functions of about 1k,
10k and 100k ops. Prints seconds, microseconds per op and the growth from
one size to the next (linear growth keeps us/op flat).

Usage: bench/amp_pipeline_scaling.py [--build build] [--sizes 1000,10000,100000]
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

from _common import default_build, load_average, machine, tool

T = "tensor<16x64xf32>"
W = "tensor<64x64xf32>"
V = "tensor<64xf32>"
S = "tensor<16xf32>"

# One block: a residual MLP layer with every category (ALLOW linear, INFER
# gelu/add/mul, DENY layer_norm/exp/reduce, CLEAR relu/transpose).
BLOCK = """\
  %{i}_l = amp.linear %{p}, %w, %b : ({T}, {W}, {V}) -> {T}
  %{i}_g = amp.gelu %{i}_l : {T}
  %{i}_r = amp.relu %{i}_g : {T}
  %{i}_a = amp.add %{i}_r, %{p} : {T}
  %{i}_n, %{i}_m, %{i}_s = amp.layer_norm %{i}_a, %g, %b : ({T}, {V}, {V}) -> ({T}, {S}, {S})
  %{i}_e = amp.exp %{i}_n : {T}
  %{i}_t = amp.transpose %{i}_e {{permutation = array<i64: 1, 0>}} : {T} -> tensor<64x16xf32>
  %{i}_u = amp.transpose %{i}_t {{permutation = array<i64: 1, 0>}} : tensor<64x16xf32> -> {T}
  %{i} = amp.mul %{i}_u, %{i}_a : {T}
"""
OPS_PER_BLOCK = 9


def generate(blocks):
    lines = ["func.func @graph(%x: {T}, %w: {W}, %b: {V}, %g: {V}) -> {T} {{"
             .format(T=T, W=W, V=V)]
    previous = "x"
    for i in range(blocks):
        lines.append(BLOCK.format(i="v%d" % i, p=previous, T=T, W=W, V=V,
                                  S=S))
        previous = "v%d" % i
    lines.append("  return %%%s : %s\n}" % (previous, T))
    return "\n".join(lines)


def time_pipeline(amp_opt, path):
    start = time.perf_counter()
    subprocess.run([amp_opt, path, "--amp-pipeline=opt-level=O1 precision=bf16",
                    "-o", os.devnull], check=True)
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=default_build())
    parser.add_argument("--sizes", default="1000,10000,100000")
    args = parser.parse_args()
    amp_opt = tool(args.build, "amp-opt")
    print(f"machine: {machine()}, load average {load_average()}")
    rows, previous = [], None
    with tempfile.TemporaryDirectory() as workdir:
        for size in map(int, args.sizes.split(",")):
            blocks = max(1, size // OPS_PER_BLOCK)
            path = os.path.join(workdir, "graph%d.mlir" % size)
            with open(path, "w") as f:
                f.write(generate(blocks))
            # The parse and print alone, to separate the passes' own time.
            start = time.perf_counter()
            subprocess.run([amp_opt, path, "-o", os.devnull], check=True)
            parse = time.perf_counter() - start
            total = time_pipeline(amp_opt, path)
            ops = blocks * OPS_PER_BLOCK
            growth = "" if previous is None else "%.1fx for %.0fx ops" % (
                total / previous[1], ops / previous[0])
            rows.append((ops, total, parse, growth))
            previous = (ops, total)
    print("%8s %10s %12s %10s  %s" % ("ops", "total s", "parse+print", "us/op",
                                      "growth"))
    for ops, total, parse, growth in rows:
        print("%8d %10.3f %12.3f %10.2f  %s" % (ops, total, parse,
                                                 1e6 * total / ops, growth))


if __name__ == "__main__":
    sys.exit(main())
