"""Compiles each model for the CPU and for CUDA at fp32, bf16 and fp16,
trains both builds for the same steps from the same seed, and compares the
loss curves with gpu_matches_cpu.py (which states the tolerance).

--case "MODEL PRECISION [AMP-COMPILE OPTION...]" compiles one model at one
precision with the given options (optimizer, opt level, loss, clipping...)
for both targets instead; it may be repeated.

With --strict-fp32 REL (the emulated device), an fp32 GPU curve must also
match the CPU's within REL relative to the CPU's loss at every step: the
emulated device computes with the host's own libm and f32 arithmetic, so
fp32 differs only by the order of summation in reductions and GEMMs.

A GPU machine has no LLVM/MLIR (so no amp-compile), so the work can be split:
--prepare compiles both builds of every case into --dir, trains the CPU
builds there (--amp-run) and writes --dir/cases.json; --check (on the GPU machine, with
--dir carried there and a copy of amp-run, which needs no LLVM) trains the
GPU builds and compares. Without either, both happen in one run."""
import argparse
import json
import os
import shlex
import subprocess
import sys

parser = argparse.ArgumentParser()
parser.add_argument("--amp-compile")
parser.add_argument("--amp-run", required=True)
parser.add_argument("--dir", required=True)
parser.add_argument("--steps", type=int, default=20)
# cuda-emulator: the same GPU code on the emulated CUDA device.
parser.add_argument("--gpu-target", default="cuda")
parser.add_argument("--case", action="append", default=[])
parser.add_argument("--strict-fp32", type=float)
mode = parser.add_mutually_exclusive_group()
mode.add_argument("--prepare", action="store_true")
mode.add_argument("--check", action="store_true")
parser.add_argument("models", nargs="*")
args = parser.parse_args()
if not args.check and not args.amp_compile:
    parser.error("--amp-compile is needed unless --check")

here = os.path.dirname(os.path.abspath(__file__))
CASES_FILE = os.path.join(args.dir, "cases.json")


def requested_cases():
    cases = [(model, precision, [])
             for model in args.models for precision in ("fp32", "bf16", "fp16")]
    for case in args.case:
        words = shlex.split(case)
        cases.append((words[0], words[1], words[2:]))
    return cases


def curve(path):
    return [json.loads(line)["loss"] for line in open(path)]


def per_step_deviation(cpu_path, gpu_path):
    return max(abs(a - b) / abs(a)
               for a, b in zip(curve(cpu_path), curve(gpu_path)))


def compile_case(number, model, precision, options, target):
    """Compiles one build; returns the path stem of its files."""
    name = os.path.splitext(os.path.basename(model))[0]
    stem = os.path.join(args.dir, "%s-%d-%s-%s" % (name, number, precision,
                                                   target))
    lr = [] if any(o.startswith("--lr") for o in options) else ["--lr=0.05"]
    subprocess.run([args.amp_compile, model, "--target=" + target,
                    "--precision=" + precision] + lr + options +
                   ["-o", stem + ".so"], check=True)
    return stem


def train(stem):
    subprocess.run([args.amp_run, stem + ".so", "--steps", str(args.steps),
                    "--seed", "1", "--metrics", stem + ".jsonl"], check=True,
                   stdout=subprocess.DEVNULL)
    return stem + ".jsonl"


def prepare():
    """Both builds of every case; the CPU ones trained."""
    entries = []
    for number, (model, precision, options) in enumerate(requested_cases()):
        cpu = compile_case(number, model, precision, options, "cpu")
        gpu = compile_case(number, model, precision, options, args.gpu_target)
        if not args.prepare:
            train(cpu)
        label = " ".join([os.path.splitext(os.path.basename(model))[0]] +
                         options)
        entries.append({"label": label, "precision": precision,
                        "cpu": os.path.basename(cpu),
                        "gpu": os.path.basename(gpu)})
    if args.prepare:
        for entry in entries:
            train(os.path.join(args.dir, entry["cpu"]))
        with open(CASES_FILE, "w") as f:
            json.dump({"steps": args.steps, "cases": entries}, f, indent=1)
    return entries


def check(entries):
    failed = False
    for entry in entries:
        cpu = os.path.join(args.dir, entry["cpu"]) + ".jsonl"
        try:
            gpu = train(os.path.join(args.dir, entry["gpu"]))
        except subprocess.CalledProcessError as error:
            print("%s: GPU run failed (exit %d)" % (entry["label"],
                                                   error.returncode))
            failed = True
            continue
        precision = entry["precision"]
        result = subprocess.run([sys.executable,
                                 os.path.join(here, "gpu_matches_cpu.py"),
                                 precision, cpu, gpu],
                                capture_output=True, text=True)
        print(entry["label"] + ": " + result.stdout.strip())
        failed |= result.returncode != 0
        if args.strict_fp32 is not None and precision == "fp32":
            deviation = per_step_deviation(cpu, gpu)
            ok = deviation <= args.strict_fp32
            print("%s: fp32 per step: %s (max %.1e relative, limit %.1e)" %
                  (entry["label"], "yes" if ok else "NO", deviation,
                   args.strict_fp32))
            failed |= not ok
    return failed


if args.check:
    with open(CASES_FILE) as f:
        saved = json.load(f)
    args.steps = saved["steps"]
    sys.exit(1 if check(saved["cases"]) else 0)
entries = prepare()
if args.prepare:
    print("prepared %d cases in %s" % (len(entries), args.dir))
    sys.exit(0)
sys.exit(1 if check(entries) else 0)
