#!/usr/bin/env python3
"""CPU training step of the bundled MLP (examples/mlp_train_step.mlir:
LayerNorm(64), Linear 64->128, GELU, Linear 128->10, cross-entropy, SGD with
momentum 0.9, batch 32): amp-compile's library against PyTorch 1.13 eager on
the same machine in the same run. Prints steps/s and the ratio.

Usage: bench/cpu_mlp_step.py [--build build] [--steps 2000]
"""
import argparse
import ctypes
import os
import sys
import tempfile

import torch

import cpu_bench
from _common import (ROOT, amp_compile, default_build, load_model_library,
                     machine, steps_per_second)


def compile_model(build, workdir):
    library = os.path.join(workdir, "mlp.so")
    amp_compile(build, os.path.join(ROOT, "examples", "mlp_train_step.mlir"),
                library, ["--target=cpu", "--lr=0.05"])
    return library


def time_amp(build, library, steps):
    """Steps/s of the library driven in this process through its C ABI (one
    call per step: what a C caller pays, without amp-run), opened by the
    build's loader."""
    lib = load_model_library(library, build)
    state = lib.amp_state_create(0)
    if not state:
        sys.exit("cpu_mlp_step: amp_state_create: "
                 + lib.amp_last_error().decode())
    x = (ctypes.c_float * (32 * 64)).from_address(
        lib.amp_state_tensor(state, b"x"))
    labels = (ctypes.c_int64 * 32).from_address(
        lib.amp_state_tensor(state, b"labels"))
    data = torch.randn(32 * 64)
    for i in range(32 * 64):
        x[i] = float(data[i])
    for i in range(32):
        labels[i] = i % 10
    loss, skipped = ctypes.c_float(), ctypes.c_int32()

    def step():
        if lib.amp_train_step(state, ctypes.byref(loss), ctypes.byref(skipped)):
            sys.exit("cpu_mlp_step: amp_train_step: "
                     + lib.amp_last_error().decode())

    rate = steps_per_second(step, steps, steps // 10)
    lib.amp_state_destroy(state)
    return rate


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=default_build())
    parser.add_argument("--steps", type=int, default=2000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as workdir:
        amp = time_amp(args.build, compile_model(args.build, workdir),
                       args.steps)
    cores = os.cpu_count()
    # The same model, optimizer and batch as cpu_bench.py's tiny workload.
    torch1 = cpu_bench.time_torch("tiny", args.steps, 1)
    torchn = cpu_bench.time_torch("tiny", args.steps, cores)
    print("machine: %s; torch %s" % (machine(), torch.__version__))
    print("amp (1 thread)        %9.1f steps/s" % amp)
    print("torch eager, 1 thread %9.1f steps/s   amp/torch = %.2f" %
          (torch1, amp / torch1))
    print("torch eager, %d threads %8.1f steps/s   amp/torch = %.2f" %
          (cores, torchn, amp / torchn))


if __name__ == "__main__":
    sys.exit(main())
