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
import platform
import subprocess
import sys
import tempfile
import time

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def compile_model(build, workdir):
    library = os.path.join(workdir, "mlp.so")
    subprocess.run([os.path.join(build, "bin", "amp-compile"),
                    os.path.join(ROOT, "examples", "mlp_train_step.mlir"),
                    "--target=cpu", "--lr=0.05", "-o", library], check=True)
    return library


def time_amp(library, steps):
    lib = ctypes.CDLL(library)
    lib.amp_state_create.restype = ctypes.c_void_p
    lib.amp_state_create.argtypes = [ctypes.c_uint64]
    lib.amp_train_step.argtypes = [ctypes.c_void_p,
                                   ctypes.POINTER(ctypes.c_float),
                                   ctypes.POINTER(ctypes.c_int32)]
    lib.amp_state_tensor.restype = ctypes.c_void_p
    lib.amp_state_tensor.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    state = lib.amp_state_create(0)
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
    for _ in range(steps // 10):  # warm up
        lib.amp_train_step(state, ctypes.byref(loss), ctypes.byref(skipped))
    start = time.perf_counter()
    for _ in range(steps):
        lib.amp_train_step(state, ctypes.byref(loss), ctypes.byref(skipped))
    return steps / (time.perf_counter() - start)


def time_torch(steps, threads):
    torch.set_num_threads(threads)
    model = torch.nn.Sequential(torch.nn.LayerNorm(64),
                                torch.nn.Linear(64, 128), torch.nn.GELU(),
                                torch.nn.Linear(128, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    x, labels = torch.randn(32, 64), torch.arange(32) % 10

    def step():
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(model(x), labels).backward()
        optimizer.step()

    for _ in range(steps // 10):
        step()
    start = time.perf_counter()
    for _ in range(steps):
        step()
    return steps / (time.perf_counter() - start)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--steps", type=int, default=2000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as workdir:
        amp = time_amp(compile_model(args.build, workdir), args.steps)
    cores = os.cpu_count()
    torch1 = time_torch(args.steps, 1)
    torchn = time_torch(args.steps, cores)
    print("machine: %s, %d cores, %s; torch %s" %
          (platform.processor() or platform.machine(), cores,
           platform.platform(), torch.__version__))
    print("amp (1 thread)        %9.1f steps/s" % amp)
    print("torch eager, 1 thread %9.1f steps/s   amp/torch = %.2f" %
          (torch1, amp / torch1))
    print("torch eager, %d threads %8.1f steps/s   amp/torch = %.2f" %
          (cores, torchn, amp / torchn))


if __name__ == "__main__":
    sys.exit(main())
