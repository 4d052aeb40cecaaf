#!/usr/bin/env python3
"""CPU training-step time of the model zoo (test/python/Inputs/zoo_models.py,
the sizes the tests use), amp against PyTorch eager at equal thread counts,
in one run, and the seconds amp.compile takes for the CPU.

For each model and thread count a process of its own (thread_environment of
cpu_bench.py: AMP_NUM_THREADS, OMP/OpenBLAS/MKL threads and
torch.set_num_threads all N) times PyTorch's fp32 step (zero_grad, forward,
the zoo's loss, backward, SGD with momentum 0.9) and amp's compiled fp32
step on the same batch, each after the same untimed warm-up steps, in two
alternating rounds (the better of each side's two counts). Prints steps/s of both and the ratio
amp / torch per model and thread count, with the machine and the load.

Usage: PYTHON bench/zoo_step_time.py [--models resnet50,vit,...]
           [--threads 1,2] [--steps 5] [--python PYTHON]
PYTHON runs the models (default: this interpreter): /usr/bin/python3 for
Debian's PyTorch 1.13, the torch 2.x venv (scripts/torch2-venv.sh) for the
Hugging Face and timm models.
"""
import argparse
import json
import os
import subprocess
import sys
import time

from _common import load_average, machine, ratio, steps_per_second, \
    zoo_entry
from cpu_bench import thread_environment

DEFAULT_MODELS = ("resnet50,mobilenet_v3_small,efficientnet_b0,convnext_tiny,"
                  "vit,unet")


def measure(name, steps, threads):
    """Runs in the per-thread-count process: {"torch": steps/s, "amp":
    steps/s, "compile": s}."""
    entry = zoo_entry(name)
    import torch

    import amp
    from zoo_check import LOSSES

    torch.set_num_threads(threads)
    torch.manual_seed(0)
    model = entry.make().train()
    generator = torch.Generator().manual_seed(1)
    inputs, labels = entry.inputs(generator), entry.labels(generator)
    start = time.perf_counter()
    trainer = amp.compile(model, example_inputs=inputs, loss=entry.loss,
                          optimizer="sgd", lr=0.01, momentum=0.9)
    compile_seconds = time.perf_counter() - start
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = LOSSES[entry.loss]

    def torch_step():
        optimizer.zero_grad()
        loss_fn(model(*inputs), labels).backward()
        optimizer.step()

    def amp_step():
        trainer.step(*inputs, labels)

    warmup = 2
    timed = {}
    for side, step in (("torch", torch_step), ("amp", amp_step),
                       ("torch", torch_step), ("amp", amp_step)):
        rate = steps_per_second(step, steps, warmup)
        timed[side] = max(timed.get(side, 0.0), rate)
    return {"torch": timed["torch"], "amp": timed["amp"],
            "compile": compile_seconds, "version": torch.__version__}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", default=DEFAULT_MODELS)
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--measure", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        name, threads = args.measure.split(":")
        print(json.dumps(measure(name, args.steps, int(threads))))
        return 0
    print(f"zoo training steps, fp32, SGD momentum 0.9; machine: {machine()}, "
          f"load average {load_average()}; python {args.python}", flush=True)
    print(f"{'model':>24} {'threads':>7} {'torch/s':>8} {'amp/s':>8} "
          f"{'amp/torch':>9} {'compile s':>9}")
    failed = False
    for name in args.models.split(","):
        for threads in [int(t) for t in args.threads.split(",")]:
            run = subprocess.run(
                [args.python, os.path.abspath(__file__), "--steps",
                 str(args.steps), "--measure", f"{name}:{threads}"],
                capture_output=True, text=True,
                env=thread_environment(threads) | {
                    "AMP_NUM_THREADS": str(threads)})
            if run.returncode != 0:
                print(f"{name:>24} {threads:>7} failed:\n{run.stderr[-2000:]}")
                failed = True
                continue
            out = json.loads(run.stdout.strip().splitlines()[-1])
            print(f"{name:>24} {threads:>7} {out['torch']:>8.2f} "
                  f"{out['amp']:>8.2f} {ratio(out['amp'], out['torch']):>9} "
                  f"{out['compile']:>9.1f}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
