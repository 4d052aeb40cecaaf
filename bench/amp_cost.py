#!/usr/bin/env python3
"""The static cost report of an amp training step on the GPU (issue 17),
until `amp-compile --target=cuda --cost-report=FILE` exists.

amp-gpu-cost-report needs the GPU pipeline's IR while kernels are still
gpu.func bodies: this runs `amp-gpu-pipeline` up to
`amp-gemm-calls-on-stream`, right after `gpu-async-region` (the pipeline as amp-opt itself prints it with --dump-pass-pipeline, so
nothing here repeats its steps) and then the report pass.

Usage:
  bench/amp_cost.py --amp-opt build/bin/amp-opt STEP.mlir [--device h200]
      [-o REPORT.json] [--summary]
      STEP.mlir: a training step in the amp dialect (amp-compile --emit=mlir)
  bench/amp_cost.py ... STEP.mlir --compare-profile PROFILE.jsonl
      compares the report's launches and GEMMs, in order, with the emulated
      device's profile of one step (AMP_EMULATOR_PROFILE or amp-run
      --profile) and prints the totals and their ratio.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

# The last pass before the kernels are lowered: the GEMM calls on the
# step's stream (after gpu-async-region), as amp-compile --cost-report counts.
CUT_AFTER = "func.func(amp-gemm-calls-on-stream)"


def pipeline_prefix(amp_opt, options="format=isa model-abi=true"):
    """The GPU pipeline's passes up to amp-gemm-calls-on-stream, as a
    --pass-pipeline string."""
    with tempfile.TemporaryDirectory() as tmp:
        empty = os.path.join(tmp, "empty.mlir")
        with open(empty, "w") as f:
            f.write("module {}\n")
        run = subprocess.run(
            [amp_opt, empty, "--amp-gpu-pipeline=" + options,
             "--dump-pass-pipeline", "-o", os.path.join(tmp, "out.mlir")],
            capture_output=True, text=True, check=True)
    lines = run.stderr.splitlines()
    start = next(i for i, l in enumerate(lines)
                 if l.strip().startswith("builtin.module("))
    text = "".join(l.strip() for l in lines[start:])
    cut = text.find(CUT_AFTER)
    if cut < 0:
        sys.exit("amp_cost.py: the GPU pipeline has no %s" % CUT_AFTER)
    return text[:cut + len(CUT_AFTER)] + ")"


def cost_report(amp_opt, step, device="", summary=False):
    """Runs the pipeline prefix and amp-gpu-cost-report on `step`; returns
    the report (a dict) and the summary table (or "")."""
    prefix = pipeline_prefix(amp_opt)
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "cost.json")
        table = os.path.join(tmp, "summary.txt") if summary else ""
        options = "output=%s summary=%s device=%s" % (report, table, device)
        pipeline = prefix[:-1] + ",amp-gpu-cost-report{%s})" % options
        subprocess.run([amp_opt, step, "--pass-pipeline=" + pipeline,
                        "-o", os.path.join(tmp, "out.mlir")], check=True)
        with open(report) as f:
            result = json.load(f)
        text = open(table).read() if summary else ""
    return result, text


def train_step(report):
    """The report of the training step (the function amp-compile names
    *_train_step), or the only function."""
    functions = report["functions"]
    steps = [f for f in functions if f["name"].endswith("_train_step")]
    return (steps or functions)[-1]


def compare(step, profile_path):
    """Static vs emulated totals: grids, accessed bytes, GEMM FLOPs, and
    kernel FLOPs when the profile has them."""
    profile = [json.loads(l) for l in open(profile_path) if l.strip()]
    launches = [e for e in step["entries"] if e["kind"] == "launch"]
    gemms = [e for e in step["entries"] if e["kind"] == "gemm"]
    emu_launches = [p for p in profile if p["kind"] == "launch"]
    emu_gemms = [p for p in profile if p["kind"] == "gemm"]
    if len(launches) != len(emu_launches) or len(gemms) != len(emu_gemms):
        print("launches: static %d emulated %d; gemms: static %d emulated %d"
              % (len(launches), len(emu_launches), len(gemms),
                 len(emu_gemms)))
        return False
    rows = [
        ("launch grids", sum(e["grid"] == p["grid"] and e["block"] == p["block"]
                             for e, p in zip(launches, emu_launches)),
         len(launches)),
        ("bytes loaded", sum(e["accessed_bytes_read"] for e in launches),
         sum(p["loaded_bytes"] for p in emu_launches)),
        ("bytes stored", sum(e["accessed_bytes_written"] for e in launches),
         sum(p["stored_bytes"] for p in emu_launches)),
        ("gemm flops", sum(e["flops"] for e in gemms),
         sum(p["flops"] for p in emu_gemms)),
    ]
    # Kernel FLOPs where the emulated device counts them (a build with the
    # emulator target's FLOP counters; docs/CostModel.md).
    if all("flops" in p for p in emu_launches):
        rows.insert(3, ("kernel flops", sum(e["flops"] for e in launches),
                        sum(p["flops"] for p in emu_launches)))
    ok = True
    print("launches: %d  gemms: %d" % (len(launches), len(gemms)))
    for name, static, emulated in rows:
        ratio = static / emulated if emulated else float("inf")
        within = abs(ratio - 1.0) <= 0.10
        ok = ok and within
        print("%s: static %d emulated %d ratio %.3f within 10%%: %s"
              % (name, static, emulated, ratio, "yes" if within else "no"))
    return ok


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step")
    parser.add_argument("--amp-opt", default="amp-opt")
    parser.add_argument("--device", default="")
    parser.add_argument("-o", "--output")
    parser.add_argument("--summary", action="store_true")
    parser.add_argument("--compare-profile")
    args = parser.parse_args()
    report, table = cost_report(args.amp_opt, args.step, args.device,
                                args.summary)
    if args.output:
        with open(args.output, "w") as f:
            json.dump(report, f, indent=1)
    if table:
        sys.stdout.write(table)
    if args.compare_profile:
        return 0 if compare(train_step(report), args.compare_profile) else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
