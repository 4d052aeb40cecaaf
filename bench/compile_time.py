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

With --zoo NAMES it times the model zoo's models instead
(test/python/Inputs/zoo_models.py, at the tests' sizes) through the front
door as amp.compile compiles them, in a process of --python (Debian's
PyTorch 1.13: ONNX capture; the torch 2.x venv: torch.export): the seconds
of capture and import, and of the compile of the step for --target (fp32,
SGD with momentum, the zoo's loss). The library is built, not loaded, so
--target=cuda runs on a machine without a GPU (the CUDA toolkit is needed).
Issue 35 asks for under 60 s per model for --target=cuda on 2 cores.

Usage: /usr/bin/python3 bench/compile_time.py [--build build]
           [--models mlp1,mlp4,mlp16,resnet10,resnet18,resnet34]
           [--threads 1,2] [--repeat 1] [--target cpu|cuda]
           [--precision fp32|bf16|fp16]
       /usr/bin/python3 bench/compile_time.py --zoo resnet50,vit,...
           [--python PYTHON] [--target cpu|cuda]
"""
import argparse
import hashlib
import json
import time
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


def zoo_measure(name, target):
    """In the --python process: {"capture": s, "compile": s} of zoo model
    `name` for `target`, through amp.compile's own compiler objects (the
    library is built, not loaded)."""
    entry = _common.zoo_entry(name)
    import torch

    from amp import trainer

    torch.manual_seed(0)
    model = entry.make().train()
    inputs = list(entry.inputs(torch.Generator().manual_seed(1)))
    shapes = [x.shape for x in inputs]
    names = trainer._input_names(model, len(inputs))
    options = trainer._pipeline_options(dict(
        trainer._DEFAULTS, loss=entry.loss, optimizer="sgd", lr=0.01,
        momentum=0.9, target=target))
    start = time.perf_counter()
    if trainer._use_torch_export(None):
        compiler = trainer._ExportCompiler(model, inputs, options, None,
                                           "c++", names)
        compiler._import(shapes)
    else:
        onnx = trainer._export(model, inputs, names, 17, False)
        compiler = trainer._Compiler(
            onnx, options, None, "c++", type(model).__name__, names,
            trainer._onnx_rules(model), trainer._counters(model))
    captured = time.perf_counter()
    with tempfile.TemporaryDirectory() as directory:
        compiler.build(shapes, directory)
    return {"capture": captured - start,
            "compile": time.perf_counter() - captured,
            "torch": torch.__version__}


def zoo_main(args):
    print(f"amp.compile --target={args.target} of the zoo's models; machine: "
          f"{machine()}, load average {load_average()}; python "
          f"{args.python}", flush=True)
    print(f"{'model':>24} {'capture s':>9} {'compile s':>9}")
    failed = False
    for name in args.zoo.split(","):
        run = subprocess.run([args.python, os.path.abspath(__file__),
                              "--target", args.target, "--zoo-measure", name],
                             capture_output=True, text=True)
        if run.returncode != 0:
            print(f"{name:>24} failed:\n{run.stderr[-2000:]}")
            failed = True
            continue
        out = json.loads(run.stdout.strip().splitlines()[-1])
        print(f"{name:>24} {out['capture']:>9.1f} {out['compile']:>9.1f}",
              flush=True)
    print(f"load average after: {load_average()}")
    return 1 if failed else 0


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
    parser.add_argument("--zoo", help="zoo models to time instead")
    parser.add_argument("--python", default=sys.executable,
                        help="the interpreter that runs --zoo's models")
    parser.add_argument("--zoo-measure", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.zoo_measure:
        print(json.dumps(zoo_measure(args.zoo_measure, args.target)))
        return 0
    if args.zoo:
        return zoo_main(args)
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
