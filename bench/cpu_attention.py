"""Attention training (forward + backward) on the CPU: amp's fused kernel
(amp_cpu_attention_fwd/bwd, lib/Runtime/CPUAttention.cpp, called through
libamp_runner_runtime.so) against PyTorch 2.x's CPU
F.scaled_dot_product_attention (its flash kernel) and against the
materialized computation (matmul, softmax, matmul in eager PyTorch: the
seq x seq scores that amp's unfused lowering also builds), in one run, at
the same thread count, in alternated rounds.

Run with a PyTorch 2.x Python (the venv of bench/cpu_bench.py --torch2):
  /root/.cache/amp/torch2-venv/bin/python bench/cpu_attention.py
Options: --seq, --batch, --heads, --dim, --threads, --rounds, --iters,
--dtype (float32 or bfloat16), --no-causal. amp's tile products run in its
own AVX-512 loop where the CPU has AVX-512, else (or with
AMP_CPU_ATTENTION_BLAS=1) on OpenBLAS; the report says which, and the
OpenBLAS kernels in use (OPENBLAS_CORETYPE picks them).
"""
import argparse
import os
import statistics
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import (default_build, load_average, machine,  # noqa: E402
                     openblas_core, ratio)
from amp_testing import load_attention_runtime  # noqa: E402

AMP_DTYPE = {torch.float32: 0, torch.float16: 1, torch.bfloat16: 2}


def load_runtime(build):
    path = os.path.join(build, "lib", "libamp_runner_runtime.so")
    if not os.path.exists(path):
        sys.exit(f"cpu_attention.py: {path} is missing: build it with "
                 f"./scripts/build.sh amp_runner_runtime")
    return load_attention_runtime(path)


def tile_products():
    """Which code amp's kernel uses for its tile products (see
    useAVX512Gemm in lib/Runtime/CPUAttention.cpp)."""
    blas = os.environ.get("AMP_CPU_ATTENTION_BLAS", "")
    try:
        with open("/proc/cpuinfo") as f:
            avx512 = " avx512f" in f.read()
    except OSError:
        avx512 = False
    if avx512 and blas in ("", "0"):
        return "amp's AVX-512 loop"
    core = openblas_core()
    return f"the BLAS (OpenBLAS core {core})"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seq", type=int, default=2048)
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--heads", type=int, default=12)
    parser.add_argument("--dim", type=int, default=64)
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--iters", type=int, default=3)
    parser.add_argument("--dtype", default="float32",
                        choices=["float32", "bfloat16"])
    parser.add_argument("--no-causal", action="store_true")
    parser.add_argument("--build", default=default_build())
    args = parser.parse_args()

    dtype = getattr(torch, args.dtype)
    causal = not args.no_causal
    b, h, n, d = args.batch, args.heads, args.seq, args.dim
    scale = d ** -0.5
    lib = load_runtime(args.build)
    assert lib.amp_set_num_threads(args.threads) == 0
    torch.set_num_threads(args.threads)

    g = torch.Generator().manual_seed(0)
    q, k, v, dout = (torch.randn(b, h, n, d, generator=g).to(dtype)
                     for _ in range(4))
    out = torch.empty_like(q)
    lse = torch.empty(b, h, n)
    dq, dk, dv = (torch.empty_like(q) for _ in range(3))
    common = (AMP_DTYPE[dtype], b, h, h, n, n, d, d)
    # Dense [B, H, S, D] tensors (Attention.h, "Layouts").
    dense = (0, h * n * d, n * d, d)

    def amp_step():
        lib.amp_cpu_attention_fwd(*common, q.data_ptr(), k.data_ptr(),
                                  v.data_ptr(), 0, None, 1, 1, scale,
                                  int(causal), 0.0, 0, out.data_ptr(),
                                  lse.data_ptr(), *dense * 4)
        lib.amp_cpu_attention_bwd(*common, q.data_ptr(), k.data_ptr(),
                                  v.data_ptr(), out.data_ptr(),
                                  dout.data_ptr(), lse.data_ptr(), 0, None,
                                  1, 1, scale, int(causal), 0.0, 0,
                                  dq.data_ptr(), dk.data_ptr(), dv.data_ptr(),
                                  *dense * 8)

    tq, tk, tv = (t.clone().requires_grad_() for t in (q, k, v))

    def sdpa_step():
        o = F.scaled_dot_product_attention(tq, tk, tv, is_causal=causal)
        o.backward(dout)
        tq.grad = tk.grad = tv.grad = None

    hidden = torch.ones(n, n, dtype=torch.bool).triu(1)

    def materialized_step():
        s = (tq @ tk.transpose(-1, -2)) * scale
        if causal:
            s = s.masked_fill(hidden, float("-inf"))
        o = torch.softmax(s, -1) @ tv
        o.backward(dout)
        tq.grad = tk.grad = tv.grad = None

    # The fused kernels agree with PyTorch's before being timed.
    sdpa_out = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    amp_step()
    err = (out.float() - sdpa_out.float()).abs().max().item()
    if err > (1e-4 if dtype == torch.float32 else 5e-2):
        sys.exit(f"cpu_attention.py: amp's out differs from SDPA's by {err}")

    runners = {"amp fused": amp_step, "torch SDPA": sdpa_step,
               "torch materialized": materialized_step}
    times = {name: [] for name in runners}
    for step in runners.values():
        step()  # warm-up
    for _ in range(args.rounds):
        for name, step in runners.items():
            start = time.perf_counter()
            for _ in range(args.iters):
                step()
            times[name].append((time.perf_counter() - start) / args.iters)

    flops = 2 * b * h * n * n * (2 * d + 5 * d) // (2 if causal else 1)
    print(f"# {machine()}; torch {torch.__version__}; load {load_average()}")
    print(f"# attention fwd+bwd, batch {b}, heads {h}, seq {n}, dim {d}, "
          f"{args.dtype}, {'causal' if causal else 'not causal'}, "
          f"{args.threads} threads, median of {args.rounds} rounds x "
          f"{args.iters}; amp's tile products on {tile_products()}")
    for name, ts in times.items():
        med = statistics.median(ts)
        print(f"{name:20s} {med * 1e3:9.1f} ms  {flops / med / 1e9:7.1f} "
              f"GFLOP/s  rounds " + " ".join(f"{t * 1e3:.1f}" for t in ts))
    amp = statistics.median(times["amp fused"])
    print(f"torch SDPA / amp: "
          f"{ratio(statistics.median(times['torch SDPA']), amp)}  "
          f"materialized / amp: "
          f"{ratio(statistics.median(times['torch materialized']), amp)}")


if __name__ == "__main__":
    main()
