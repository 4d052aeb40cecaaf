#!/usr/bin/env python3
"""CPU training step of the mid-size MLP stack of issue 18: 1024 tokens,
Linear 256->1024, GELU, Linear 1024->256, LayerNorm(256), MSE loss, AdamW,
fp32. amp-compile's library (run by amp-run --threads N; its matrix products
call OpenBLAS) against PyTorch eager (Debian's 1.13, torch.set_num_threads(N))
on the same machine in the same run, at 1 and 2 threads. Prints steps/s and
the ratios amp / torch.

Usage: /usr/bin/python3 bench/cpu_bench.py [--build build] [--steps 20]
                                           [--threads 1,2]
"""
import argparse
import os
import platform
import re
import subprocess
import sys
import tempfile
import time

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOKENS, WIDTH, HIDDEN = 1024, 256, 1024
LR = 1e-3

MODEL = f"""
func.func @mlp(
    %x: tensor<{TOKENS}x{WIDTH}xf32> {{amp.role = #amp.role<input>, amp.name = "x"}},
    %w1: tensor<{HIDDEN}x{WIDTH}xf32> {{amp.role = #amp.role<parameter>, amp.name = "fc1.weight"}},
    %b1: tensor<{HIDDEN}xf32> {{amp.role = #amp.role<parameter>, amp.name = "fc1.bias"}},
    %w2: tensor<{WIDTH}x{HIDDEN}xf32> {{amp.role = #amp.role<parameter>, amp.name = "fc2.weight"}},
    %b2: tensor<{WIDTH}xf32> {{amp.role = #amp.role<parameter>, amp.name = "fc2.bias"}},
    %ln_w: tensor<{WIDTH}xf32> {{amp.role = #amp.role<parameter>, amp.name = "ln.weight"}},
    %ln_b: tensor<{WIDTH}xf32> {{amp.role = #amp.role<parameter>, amp.name = "ln.bias"}})
    -> (tensor<{TOKENS}x{WIDTH}xf32> {{amp.role = #amp.role<output>, amp.name = "y"}})
    attributes {{amp.graph = #amp.graph<forward>}} {{
  %h1 = amp.linear %x, %w1, %b1
      : (tensor<{TOKENS}x{WIDTH}xf32>, tensor<{HIDDEN}x{WIDTH}xf32>, tensor<{HIDDEN}xf32>) -> tensor<{TOKENS}x{HIDDEN}xf32>
  %h2 = amp.gelu %h1 : tensor<{TOKENS}x{HIDDEN}xf32>
  %h3 = amp.linear %h2, %w2, %b2
      : (tensor<{TOKENS}x{HIDDEN}xf32>, tensor<{WIDTH}x{HIDDEN}xf32>, tensor<{WIDTH}xf32>) -> tensor<{TOKENS}x{WIDTH}xf32>
  %y, %mean, %rstd = amp.layer_norm %h3, %ln_w, %ln_b
      {{axis = -1 : i64, epsilon = 1.0e-5 : f64}}
      : (tensor<{TOKENS}x{WIDTH}xf32>, tensor<{WIDTH}xf32>, tensor<{WIDTH}xf32>)
      -> (tensor<{TOKENS}x{WIDTH}xf32>, tensor<{TOKENS}xf32>, tensor<{TOKENS}xf32>)
  return %y : tensor<{TOKENS}x{WIDTH}xf32>
}}
"""


def compile_model(build, workdir):
    source = os.path.join(workdir, "mlp_stack.mlir")
    with open(source, "w") as f:
        f.write(MODEL)
    library = os.path.join(workdir, "mlp_stack.so")
    subprocess.run([os.path.join(build, "bin", "amp-compile"), source,
                    "--target=cpu", "--loss=mse", "--optimizer=adamw",
                    f"--lr={LR}", "-o", library], check=True)
    return library


def time_amp(build, library, steps, threads):
    """steps/s from amp-run's summary ("trained N steps in T s ...")."""
    run = subprocess.run([os.path.join(build, "bin", "amp-run"), library,
                          "--steps", str(steps), "--threads", str(threads)],
                         check=True, capture_output=True, text=True)
    match = re.search(r"trained ([0-9]+) steps in ([0-9.]+) s", run.stdout)
    if not match:
        sys.exit(f"cpu_bench: no timing in amp-run's output:\n{run.stdout}")
    return int(match.group(1)) / float(match.group(2))


def time_torch(steps, threads):
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(WIDTH, HIDDEN),
                                torch.nn.GELU(),
                                torch.nn.Linear(HIDDEN, WIDTH),
                                torch.nn.LayerNorm(WIDTH))
    optimizer = torch.optim.AdamW(model.parameters(), lr=LR)
    x, target = torch.randn(TOKENS, WIDTH), torch.randn(TOKENS, WIDTH)

    def step():
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), target).backward()
        optimizer.step()

    for _ in range(max(1, steps // 10)):  # warm up
        step()
    start = time.perf_counter()
    for _ in range(steps):
        step()
    return steps / (time.perf_counter() - start)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default=os.environ.get(
        "AMP_BUILD_DIR", os.path.join(ROOT, "build")))
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--threads", default="1,2")
    args = parser.parse_args()
    counts = [int(t) for t in args.threads.split(",")]
    print(f"machine: {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} CPUs; torch {torch.__version__}")
    with tempfile.TemporaryDirectory() as workdir:
        library = compile_model(args.build, workdir)
        print(f"{'threads':>7} {'amp steps/s':>12} {'torch steps/s':>14} "
              f"{'amp/torch':>10}")
        for threads in counts:
            amp = time_amp(args.build, library, args.steps, threads)
            ref = time_torch(args.steps, threads)
            print(f"{threads:>7} {amp:>12.2f} {ref:>14.2f} {amp / ref:>10.2f}")


if __name__ == "__main__":
    main()
