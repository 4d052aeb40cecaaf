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
  bench/amp_cost.py ... STEP.mlir --device h200 --compare-trace TRACE.json
      measured against modeled, launch by launch: TRACE.json is a Chrome
      trace of steps on a GPU (bench/gpu_train_step.py --kernel-trace writes
      one per amp library); its kernels are matched in order with the
      report's launches (by grid and block) and GEMMs (the cuBLASLt kernels
      between two of amp's). Prints the entries by measured time.
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
    """The report of the training step (the function the IR names
    *_train_step, amp-compile's library amp_train_step_impl), or the only
    function."""
    functions = report["functions"]
    steps = [f for f in functions if f["name"].endswith("_train_step")
             or f["name"] == "amp_train_step_impl"]
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


def traced_kernels(trace_path):
    """The GPU kernels of a Chrome trace in start order: (name, grid,
    block, microseconds)."""
    with open(trace_path) as f:
        trace = json.load(f)
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    kernels = [e for e in events if e.get("cat") == "kernel"]
    kernels.sort(key=lambda e: e["ts"])
    return [(e["name"], list(e.get("args", {}).get("grid", [])),
             list(e.get("args", {}).get("block", [])), float(e["dur"]))
            for e in kernels]


def compare_trace(step, trace_path, step_marker="_train_step"):
    """Matches one step's traced kernels with the report's launches and
    GEMMs and prints modeled against measured time per entry."""
    entries = [e for e in step["entries"] if e["kind"] in ("launch", "gemm")]
    kernels = traced_kernels(trace_path)
    ours = lambda k: step_marker in k[0]
    rows, at = [], 0
    for e in entries:
        if e["kind"] == "launch":
            while at < len(kernels) and not ours(kernels[at]):
                at += 1
            if at == len(kernels):
                break
            name, grid, block, us = kernels[at]
            if grid != e["grid"] or block != e["block"]:
                print("trace and report part at a launch: traced %s x %s, "
                      "report %s x %s" % (grid, block, e["grid"], e["block"]))
                return False
            at += 1
            label = "launch %s x %s" % ("x".join(map(str, grid)),
                                        "x".join(map(str, block)))
        else:
            us = 0.0
            while at < len(kernels) and not ours(kernels[at]):
                us += kernels[at][3]
                at += 1
                if e is not entries[-1]:
                    break
            label = "gemm %s->%s %dx%dx%dx%d%s" % (
                e["a_dtype"], e["c_dtype"], e["batch"], e["m"], e["n"], e["k"],
                "+" + e["epilogue"] if "epilogue" in e else "")
        rows.append((label, e.get("modeled_us", 0.0), us,
                     e.get("bytes_read", 0) + e.get("bytes_written", 0)))
    measured = sum(r[2] for r in rows)
    modeled = sum(r[1] for r in rows)
    print("one step: %d entries, measured %.1f us, modeled %.1f us "
          "(measured/modeled %.2f)" % (len(rows), measured, modeled,
                                       measured / modeled if modeled else 0))
    print("%-44s %11s %11s %7s %12s" % ("entry", "modeled us", "measured us",
                                        "ratio", "GB/s moved"))
    for label, mod, us, nbytes in sorted(rows, key=lambda r: -r[2]):
        print("%-44s %11.1f %11.1f %7.2f %12.1f" % (
            label, mod, us, us / mod if mod else 0,
            nbytes / us / 1e3 if us else 0))
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step")
    parser.add_argument("--amp-opt", default="amp-opt")
    parser.add_argument("--device", default="")
    parser.add_argument("-o", "--output")
    parser.add_argument("--summary", action="store_true")
    parser.add_argument("--compare-profile")
    parser.add_argument("--compare-trace")
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
    if args.compare_trace:
        return 0 if compare_trace(train_step(report), args.compare_trace) else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
