"""Compiles each model for the CPU and for CUDA at fp32, bf16 and fp16,
trains both builds for the same steps from the same seed, and compares the
loss curves with gpu_matches_cpu.py (which states the tolerance).

--case "MODEL PRECISION [AMP-COMPILE OPTION...]" compiles one model at one
precision with the given options (optimizer, opt level, loss, clipping...)
for both targets instead; it may be repeated.

With --strict-fp32 REL (the emulated device), an fp32 GPU curve must also
match the CPU's within REL relative to the CPU's loss at every step: the
emulated device computes with the host's own libm and f32 arithmetic, so
fp32 differs only by the order of summation in reductions and GEMMs."""
import argparse
import json
import os
import shlex
import subprocess
import sys

parser = argparse.ArgumentParser()
parser.add_argument("--amp-compile", required=True)
parser.add_argument("--amp-run", required=True)
parser.add_argument("--dir", required=True)
parser.add_argument("--steps", type=int, default=20)
# cuda-emulator: the same GPU code on the emulated CUDA device.
parser.add_argument("--gpu-target", default="cuda")
parser.add_argument("--case", action="append", default=[])
parser.add_argument("--strict-fp32", type=float)
parser.add_argument("models", nargs="*")
args = parser.parse_args()

cases = [(model, precision, [])
         for model in args.models for precision in ("fp32", "bf16", "fp16")]
for case in args.case:
    words = shlex.split(case)
    cases.append((words[0], words[1], words[2:]))


def curve(path):
    return [json.loads(line)["loss"] for line in open(path)]


def per_step_deviation(cpu_path, gpu_path):
    return max(abs(a - b) / abs(a)
               for a, b in zip(curve(cpu_path), curve(gpu_path)))


here = os.path.dirname(os.path.abspath(__file__))
failed = False
for number, (model, precision, options) in enumerate(cases):
    name = os.path.splitext(os.path.basename(model))[0]
    metrics = {}
    for target in ("cpu", args.gpu_target):
        stem = os.path.join(args.dir, "%s-%d-%s-%s" % (name, number,
                                                       precision, target))
        lr = [] if any(o.startswith("--lr") for o in options) else \
            ["--lr=0.05"]
        subprocess.run([args.amp_compile, model, "--target=" + target,
                        "--precision=" + precision] + lr + options +
                       ["-o", stem + ".so"], check=True)
        subprocess.run([args.amp_run, stem + ".so", "--steps",
                        str(args.steps), "--seed", "1", "--metrics",
                        stem + ".jsonl"], check=True,
                       stdout=subprocess.DEVNULL)
        metrics[target] = stem + ".jsonl"
    result = subprocess.run([sys.executable,
                             os.path.join(here, "gpu_matches_cpu.py"),
                             precision, metrics["cpu"],
                             metrics[args.gpu_target]],
                            capture_output=True, text=True)
    label = " ".join([name] + options)
    print(label + ": " + result.stdout.strip())
    failed |= result.returncode != 0
    if args.strict_fp32 is not None and precision == "fp32":
        deviation = per_step_deviation(metrics["cpu"],
                                       metrics[args.gpu_target])
        ok = deviation <= args.strict_fp32
        print("%s: fp32 per step: %s (max %.1e relative, limit %.1e)" %
              (label, "yes" if ok else "NO", deviation, args.strict_fp32))
        failed |= not ok
sys.exit(1 if failed else 0)
