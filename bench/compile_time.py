#!/usr/bin/env python3
"""Compile time of amp-compile over models of growing size (issue 18, CPU:
it should grow no faster than the model, ResNet-18 <= 15 s on 2 cores;
issue 17, --target cuda: ResNet-18 <= 30 s on 2 cores).

Models:
  mlp<L>     bench/make_gpu_models.py's mlp_stack at small sizes with L
             layers (LayerNorm, Linear, GELU, Linear, residual), AdamW
  resnet<N>  torchvision basic-block ResNets (10: one block per stage, 18,
             34) on 16 images of 32x32, 10 classes, exported to ONNX in
             training mode as bench/cpu_bench.py does, SGD momentum 0.9

For each model it prints the size of the training step (amp ops, from
amp-compile --emit=mlir) and the seconds of the ONNX/MLIR -> CPU library
compile, best of --repeat runs; with --threads 1,2 once per
AMP_COMPILE_THREADS value (the library's bytes must not depend on it: the
script checks that they are identical).

Usage: /usr/bin/python3 bench/compile_time.py [--build build]
           [--models mlp1,mlp4,mlp16,resnet10,resnet18,resnet34]
           [--threads 1,2] [--repeat 1] [--target cpu|cuda]
           [--precision fp32|bf16|fp16]
"""
import argparse
import hashlib
import os
import re
import subprocess
import sys
import tempfile

import _common
import cpu_bench
from _common import ROOT, default_build, load_average, machine

RESNETS = {"resnet10": (1, 1, 1, 1), "resnet18": (2, 2, 2, 2),
           "resnet34": (3, 4, 6, 3)}
DEFAULT_MODELS = "mlp1,mlp4,mlp16,resnet10,resnet18,resnet34"


def make_model(name, workdir):
    """(source file, amp-compile options) of model `name`."""
    if name in RESNETS:
        source = os.path.join(workdir, name + ".onnx")
        cpu_bench.export_resnet18(source, RESNETS[name])
        return source, ["--loss=cross_entropy", "--momentum=0.9", "--lr=0.01"]
    if name.startswith("mlp") and name[3:].isdigit():
        directory = os.path.join(workdir, name)
        subprocess.run([sys.executable,
                        os.path.join(ROOT, "bench", "make_gpu_models.py"),
                        "--sizes", "small", "--layers", name[3:],
                        "-o", directory], check=True, capture_output=True)
        return os.path.join(directory, "mlp_stack.mlir"), ["--optimizer=adamw"]
    sys.exit(f"compile_time: unknown model '{name}' (mlp<layers>, "
             f"{', '.join(RESNETS)})")


TARGET = ["--target=cpu"]


def amp_compile(build, source, options, output, threads=None):
    """Runs amp-compile for TARGET (with AMP_COMPILE_THREADS=threads
    unless None); returns its wall-clock seconds."""
    env = dict(os.environ)
    if threads is not None:
        env["AMP_COMPILE_THREADS"] = str(threads)
    return _common.amp_compile(build, source, output, [*TARGET, *options],
                               env=env)


def step_ops(build, source, options, workdir):
    """The number of amp ops in the compiled training step."""
    path = os.path.join(workdir, "step.mlir")
    amp_compile(build, source, options + ["--emit=mlir"], path)
    op = re.compile(r"^\s*(%[^=]+=\s*)?amp\.[a-z_0-9]+ ")
    with open(path) as f:
        return sum(1 for line in f if op.match(line))


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()[:16]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default=default_build())
    parser.add_argument("--models", default=DEFAULT_MODELS)
    parser.add_argument("--threads", default="",
                        help="AMP_COMPILE_THREADS values (default: unset, "
                        "one thread per core)")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--target", choices=("cpu", "cuda"), default="cpu")
    parser.add_argument("--precision", choices=("fp32", "bf16", "fp16"),
                        help="amp-compile --precision (default: its own)")
    args = parser.parse_args()
    TARGET[:] = ["--target=" + args.target] + (
        ["--precision=" + args.precision] if args.precision else [])
    threads = [int(t) for t in args.threads.split(",")] if args.threads \
        else [None]
    print(f"amp-compile {' '.join(TARGET)}; machine: {machine()}, load "
          f"average {load_average()}", flush=True)
    print(f"{'model':>9} {'amp ops':>8} {'threads':>7} {'seconds':>8} "
          f"{'ms/op':>6} library")
    failed = False
    with tempfile.TemporaryDirectory() as workdir:
        for name in args.models.split(","):
            source, options = make_model(name, workdir)
            ops = step_ops(args.build, source, options, workdir)
            digests = set()
            for count in threads:
                library = os.path.join(workdir, f"{name}.so")
                seconds = min(amp_compile(args.build, source, options,
                                          library, count)
                              for _ in range(args.repeat))
                digests.add(digest(library))
                print(f"{name:>9} {ops:>8} {count or 'all':>7} "
                      f"{seconds:>8.1f} {1000 * seconds / ops:>6.1f} "
                      f"{digest(library)}", flush=True)
            if len(digests) != 1:
                print(f"compile_time: {name}'s library depends on the "
                      f"thread count", file=sys.stderr)
                failed = True
    print(f"load average after: {load_average()}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
