"""Compiles each model for the CPU and for CUDA at fp32, bf16 and fp16,
trains both builds for the same steps from the same seed, and compares the
loss curves with gpu_matches_cpu.py (which states the tolerance)."""
import argparse
import os
import subprocess
import sys

parser = argparse.ArgumentParser()
parser.add_argument("--amp-compile", required=True)
parser.add_argument("--amp-run", required=True)
parser.add_argument("--dir", required=True)
parser.add_argument("--steps", type=int, default=20)
# cuda-emulator: the same GPU code on the emulated CUDA device.
parser.add_argument("--gpu-target", default="cuda")
parser.add_argument("models", nargs="+")
args = parser.parse_args()

here = os.path.dirname(os.path.abspath(__file__))
failed = False
for model in args.models:
    name = os.path.splitext(os.path.basename(model))[0]
    for precision in ("fp32", "bf16", "fp16"):
        metrics = {}
        for target in ("cpu", args.gpu_target):
            stem = os.path.join(args.dir, "%s-%s-%s" % (name, precision,
                                                        target))
            subprocess.run([args.amp_compile, model, "--target=" + target,
                            "--precision=" + precision, "--lr=0.05",
                            "-o", stem + ".so"], check=True)
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
        print(name + ": " + result.stdout.strip())
        failed |= result.returncode != 0
sys.exit(1 if failed else 0)
