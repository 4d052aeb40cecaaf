#!/usr/bin/env python3
"""Modeled GPU training-step time of amp, PyTorch eager AMP and the ideal
bound under one device model (issue 17). Every figure is MODELED from
counts, not measured on a GPU.

  bench/gpu_model.py [--device h200] [--json FILE] [--sizes issue|small]
      [--workloads mlp_stack,gpt2_block,gpt2_124m]

For mlp_stack and gpt2_block (bench/make_gpu_models.py, issue sizes by
default) and gpt2_124m (nanoGPT's GPT-2 124M, bench/gpu_train_step.py's
GPT2LM: vocabulary 50304, sequence 1024, batch 8) in bf16, fp16 and fp8
(issue 39: amp-fp8 with its default per-GEMM choice on the cost model;
PyTorch eager has no FP8, so an fp8 record's eager and eager_sdpa peers
are the bf16 ones, and amp_bf16_ms / fp8_vs_bf16 give amp's own bf16
step and its ratio to the fp8 step):

- amp: the step compiled like bench/gpu_train_step.py compiles it
  (amp-compile --precision=P --optimizer=adamw; gpt2_124m as a user
  compiles the torch module: amp.compile(target="cuda", loss=
  "cross_entropy", cost_report=FILE)), lowered by the GPU
  pipeline and counted by amp-gpu-cost-report (bench/amp_cost.py) with the
  device model of data/devices.json: per launch max(bytes / bandwidth,
  FLOPs / fp32 peak) + launch overhead, per GEMM max(bytes / bandwidth,
  FLOPs / (tensor peak * efficiency(FLOPs))) + overhead, per host sync its
  cost (docs/CostModel.md).
  A cuDNN fused attention call: max(bytes / bandwidth, FLOPs / (tensor
  peak * attention_efficiency)) + its launches' overhead.
- eager: bench/eager_trace.py's kernels of torch's step (autocast,
  GradScaler for fp16, AdamW foreach) under the same formulas, attention
  materialized as the model writes it (scores, mask, softmax, product).
- eager_sdpa: the same step with the attention written as
  F.scaled_dot_product_attention(is_causal=True): PyTorch's fused
  attention kernels (eager_trace.py says which and what is assumed),
  modeled like amp's cuDNN attention calls, same efficiency.
- ideal: the GEMM and attention FLOPs at the tensor peak plus the step's
  arguments and results (parameters, optimizer state, batch) moved once at
  full bandwidth; no overheads.

Prints a table (ratios as N.NNx) and with --json writes a list of records
with the keys workload, precision, amp_ms, eager_ms, eager_sdpa_ms,
ideal_ms, amp_graph_ms (amp's step replayed from a CUDA graph, the
runtime's default: graph_node_s per launch instead of launch_overhead_s,
plus one graph launch), amp_launches, eager_launches, eager_sdpa_launches,
amp_bytes,
eager_bytes, eager_sdpa_bytes, amp_peak_bytes, eager_peak_bytes,
eager_sdpa_peak_bytes (plus syncs, the device and "modeled": true); fp8
records also have eager_precision ("bf16"), amp_bf16_ms and fp8_vs_bf16
(amp_bf16_ms / amp_ms).
"""
import argparse
import datetime
import json
import os
import sys
import tempfile

import amp_cost
import eager_trace
import gpu_train_step
import make_gpu_models
from _common import ROOT, amp_compile, default_build, ratio, tool

WORKLOADS = ("mlp_stack", "gpt2_block")
PRECISIONS = ("bf16", "fp16", "fp8")
# PyTorch eager has no FP8 training step: an fp8 record's eager peers are
# those of this precision.
EAGER_PRECISION = {"fp8": "bf16"}
TENSOR_PEAK = {"bf16": "peak_bf16_flops", "fp16": "peak_fp16_flops",
               "f16": "peak_fp16_flops", "torch.bfloat16": "peak_bf16_flops",
               "torch.float16": "peak_fp16_flops",
               "f8E4M3FN": "peak_fp8_flops", "f8E5M2": "peak_fp8_flops"}


def load_device(path, key):
    with open(path) as f:
        devices = json.load(f)["devices"]
    if key not in devices:
        sys.exit("gpu_model.py: --device %s: not in %s (it has: %s)"
                 % (key, path, ", ".join(devices)))
    return devices[key]


def gemm_efficiency(device, flops):
    """The curve of data/devices.json, interpolated in log(flops) (the same
    as DeviceModel::gemmEfficiencyAt)."""
    import math
    curve = device["gemm_efficiency"]
    if flops <= curve[0][0]:
        return curve[0][1]
    for (x0, y0), (x1, y1) in zip(curve, curve[1:]):
        if flops <= x1:
            t = (math.log(flops) - math.log(x0)) / (math.log(x1) - math.log(x0))
            return y0 + t * (y1 - y0)
    return curve[-1][1]


def gemm_peak(device, dtype):
    key = TENSOR_PEAK.get(dtype)
    return device[key] if key else device["peak_fp32_flops"]


def attention_peak(device, dtype, direction):
    """The tensor peak of `dtype` times the attention efficiency (the same
    as DeviceModel::attentionPeak)."""
    return gemm_peak(device, dtype) * device["attention_efficiency"][direction]


def eager_seconds(device, kernels, syncs):
    bw, overhead = device["hbm_bytes_per_s"], device["launch_overhead_s"]
    total = syncs * device["sync_s"]
    for k in kernels:
        if k.attention:
            peak = attention_peak(device, *k.attention)
        elif k.gemm:
            peak = gemm_peak(device, k.gemm[0]) * gemm_efficiency(device,
                                                                  k.flops)
        else:
            peak = device["peak_fp32_flops"]
        # A multi-launch op splits its work; each launch pays the overhead.
        total += max((k.read + k.written) / bw, k.flops / peak) + \
            k.launches * overhead
    return total


def compile_step(build, model, precision, out, lr, weight_decay):
    amp_compile(build, model, out, [
        "--emit=mlir", "--precision=" + precision, "--optimizer=adamw",
        "--lr=%g" % lr, "--weight-decay=%g" % weight_decay])


def model_report(build, workload, sizes, precision, lr, weight_decay, path):
    """The cost report amp.compile(target="cuda", cost_report=path) writes
    for the torch model of `workload`, as a user compiles it (amp's Python
    package of `build`). Without a GPU the compiled library cannot be
    loaded, but the report is written before that."""
    sys.path.insert(0, os.path.join(build, "python_packages"))
    import amp
    import torch
    model = gpu_train_step.torch_model(workload, sizes)
    shape, _ = gpu_train_step.workload_shapes(workload, sizes)
    try:
        amp.compile(model, (torch.zeros(shape, dtype=torch.long),),
                    target="cuda", precision=precision, optimizer="adamw",
                    lr=lr, weight_decay=weight_decay, loss="cross_entropy",
                    cost_report=path)
    except Exception as error:  # no GPU here: _amp.AmpError from the state
        if "cannot use the GPU" not in str(error) or not os.path.exists(path):
            raise
    with open(path) as f:
        return json.load(f)


def amp_row(report, device):
    step = amp_cost.train_step(report)
    gemms = [e for e in step["entries"] if e["kind"] == "gemm"]
    attentions = [e for e in step["entries"] if e["kind"] == "attention"]
    ideal = sum(e["flops"] / gemm_peak(device, e["a_dtype"]) for e in gemms)
    ideal += sum(e["flops"] / gemm_peak(device, e["dtype"])
                 for e in attentions)
    # State updated in place is read and written: moved twice.
    ideal += (step["argument_bytes"] + step.get("updated_in_place_bytes", 0)) \
        / device["hbm_bytes_per_s"]
    bd = breakdown(step, device)
    launches = step["launches"] + step["gemms"] + \
        sum(e["kernels"] for e in attentions)
    # Replayed from a CUDA graph (the runtime's default): each launch costs
    # graph_node_s instead of launch_overhead_s, plus one graph launch.
    graph_ms = step["modeled_ms"] + 1e3 * (
        device["launch_overhead_s"] -
        launches * (device["launch_overhead_s"] - device["graph_node_s"]))
    return dict(amp_ms=step["modeled_ms"], amp_graph_ms=graph_ms,
                amp_gemm_ms=bd["gemm"], amp_attention_ms=bd["attention"],
                amp_sync_ms=bd["sync"],
                amp_low_occupancy_ms=bd["low_occupancy"],
                amp_full_occupancy_ms=step["modeled_ms"] - bd["low_occupancy"]
                + bd["low_occupancy_at_full_bandwidth"],
                amp_launches=launches,
                amp_syncs=step["syncs"], amp_bytes=int(step["bytes"]),
                amp_peak_bytes=step["peak_bytes"], ideal_ms=ideal * 1e3)


def breakdown(step, device):
    """Where amp's modeled time goes (ms): GEMMs, attention calls, host
    syncs, and launches with too few threads to use the bandwidth (one
    thread per column of a column reduction); and those launches' time at
    full bandwidth."""
    result = dict(gemm=0.0, attention=0.0, sync=0.0, low_occupancy=0.0,
                  low_occupancy_at_full_bandwidth=0.0)
    for e in step["entries"]:
        ms = e.get("modeled_us", 0.0) / 1e3
        if e["kind"] == "gemm":
            result["gemm"] += ms
        elif e["kind"] == "attention":
            result["attention"] += ms
        elif e["kind"] == "sync":
            result["sync"] += ms
        elif e["kind"] == "launch":
            threads = 1
            for d in e["grid"] + e["block"]:
                threads *= d
            if threads < device["saturating_threads"]:
                full = max((e["bytes_read"] + e["bytes_written"])
                           / device["hbm_bytes_per_s"],
                           e["flops"] / device["peak_fp32_flops"]) + \
                    device["launch_overhead_s"]
                result["low_occupancy"] += ms
                result["low_occupancy_at_full_bandwidth"] += full * 1e3
    return result


def eager_row(workload, sizes, precision, device, lr, weight_decay,
              sdpa=False):
    """eager's keys, or with sdpa eager_sdpa's."""
    rec, grads = eager_trace.trace_step(workload, sizes, precision, lr,
                                        weight_decay, sdpa)
    peer = "eager_sdpa" if sdpa else "eager"
    return {
        peer + "_ms": eager_seconds(device, rec.kernels, rec.syncs) * 1e3,
        peer + "_launches": sum(k.launches for k in rec.kernels),
        peer + "_syncs": rec.syncs,
        peer + "_bytes": int(sum(k.read + k.written for k in rec.kernels)),
        peer + "_peak_bytes": eager_trace.peak_bytes(rec, grads)}


def print_table(rows, device_key, out=sys.stdout):
    out.write("Modeled on %s (not measured): step time in ms\n" % device_key)
    header = ("| workload | precision | amp ms | eager ms | eager_sdpa ms | "
              "ideal ms | eager/amp | amp/eager_sdpa | amp/ideal | "
              "launches amp / eager / eager_sdpa | syncs amp / eager / "
              "eager_sdpa | GB moved amp / eager / eager_sdpa | peak GB amp "
              "/ eager / eager_sdpa |\n")
    out.write(header)
    out.write("|" + "---|" * 13 + "\n")
    why = []
    for r in rows:
        out.write("| %s | %s | %.3f | %.3f | %.3f | %.3f | %s | %s | %s | "
                  "%d / %d / %d | %d / %d / %d | %.2f / %.2f / %.2f | "
                  "%.2f / %.2f / %.2f |\n" % (
                      r["workload"], r["precision"], r["amp_ms"],
                      r["eager_ms"], r["eager_sdpa_ms"], r["ideal_ms"],
                      ratio(r["eager_ms"], r["amp_ms"], "x"),
                      ratio(r["amp_ms"], r["eager_sdpa_ms"], "x"),
                      ratio(r["amp_ms"], r["ideal_ms"], "x"), r["amp_launches"],
                      r["eager_launches"], r["eager_sdpa_launches"],
                      r["amp_syncs"], r["eager_syncs"], r["eager_sdpa_syncs"],
                      r["amp_bytes"] / 1e9, r["eager_bytes"] / 1e9,
                      r["eager_sdpa_bytes"] / 1e9, r["amp_peak_bytes"] / 1e9,
                      r["eager_peak_bytes"] / 1e9,
                      r["eager_sdpa_peak_bytes"] / 1e9))
        why.append(
            "%s %s: amp's %.3f ms = GEMMs %.3f + attention calls %.3f + "
            "host syncs %.3f + low-occupancy launches %.3f (%.3f at full "
            "bandwidth: amp would be %.3f ms, eager/amp %s) + the rest %.3f; "
            "replayed from a CUDA graph (the default) %.3f ms, amp/eager_sdpa "
            "%s"
            % (
                r["workload"], r["precision"], r["amp_ms"], r["amp_gemm_ms"],
                r["amp_attention_ms"], r["amp_sync_ms"],
                r["amp_low_occupancy_ms"],
                r["amp_full_occupancy_ms"] - r["amp_ms"]
                + r["amp_low_occupancy_ms"], r["amp_full_occupancy_ms"],
                ratio(r["eager_ms"], r["amp_full_occupancy_ms"], "x"),
                r["amp_ms"] - r["amp_gemm_ms"] - r["amp_attention_ms"]
                - r["amp_sync_ms"] - r["amp_low_occupancy_ms"],
                r["amp_graph_ms"],
                ratio(r["amp_graph_ms"], r["eager_sdpa_ms"], "x")))
        if "eager_precision" in r:
            why[-1] += "; eager peers in %s" % r["eager_precision"]
        if "fp8_vs_bf16" in r:
            why[-1] += "; amp bf16 %.3f ms, fp8_vs_bf16 (bf16 / fp8) %s" % (
                r["amp_bf16_ms"], ratio(r["amp_bf16_ms"], r["amp_ms"], "x"))
    out.write("\n" + "\n".join(why) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="h200")
    parser.add_argument("--devices",
                        default=os.path.join(ROOT, "data", "devices.json"))
    parser.add_argument("--json", help="write the records to this file")
    parser.add_argument("--sizes", default="issue", choices=("issue", "small"))
    parser.add_argument("--build", default=default_build(),
                        help="amp's build directory (its bin/ holds "
                        "amp-compile and amp-opt), as the other bench "
                        "scripts take it")
    parser.add_argument("--workloads",
                        default=",".join(WORKLOADS +
                                         gpu_train_step.LM_WORKLOADS),
                        help="comma-separated: mlp_stack, gpt2_block (amp IR "
                        "from make_gpu_models.py), gpt2_124m (nanoGPT's "
                        "GPT-2 through amp.compile)")
    parser.add_argument("--precisions", default=",".join(PRECISIONS),
                        help="comma-separated, of %s (fp8's ratio to bf16 "
                        "needs bf16 too)" % ", ".join(PRECISIONS))
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--weight-decay", type=float, default=0.01)
    args = parser.parse_args()
    device = load_device(args.devices, args.device)
    sizes = make_gpu_models.SIZES[args.sizes]
    tool(args.build, "amp-compile")
    amp_opt = tool(args.build, "amp-opt")
    workloads = args.workloads.split(",")
    precisions = args.precisions.split(",")
    for precision in precisions:
        if precision not in PRECISIONS:
            parser.error("--precisions: no precision %r" % precision)
    for workload in workloads:
        if workload not in WORKLOADS + gpu_train_step.LM_WORKLOADS:
            parser.error("--workloads: no workload %r" % workload)
    rows = []
    eager_rows = {}  # (workload, precision): eager and eager_sdpa keys
    amp_ms = {}  # (workload, precision): amp's modeled step
    with tempfile.TemporaryDirectory() as tmp:
        models = make_gpu_models.write_models(
            tmp, sizes, [w for w in workloads if w in WORKLOADS])
        for workload in workloads:
            workload_sizes = gpu_train_step.LM_SIZES[args.sizes] \
                if workload in gpu_train_step.LM_WORKLOADS else sizes
            for precision in precisions:
                name = os.path.join(tmp, "%s_%s" % (workload, precision))
                if workload in models:
                    compile_step(args.build, models[workload], precision,
                                 name + ".mlir", args.lr, args.weight_decay)
                    report, _ = amp_cost.cost_report(
                        amp_opt, name + ".mlir", args.device)
                else:
                    report = model_report(args.build, workload,
                                          workload_sizes, precision, args.lr,
                                          args.weight_decay, name + ".json")
                row = dict(workload=workload, precision=precision,
                           device=args.device, modeled=True)
                row.update(amp_row(report, device))
                eager_precision = EAGER_PRECISION.get(precision, precision)
                if eager_precision != precision:
                    row["eager_precision"] = eager_precision
                key = (workload, eager_precision)
                if key not in eager_rows:
                    eager_rows[key] = {}
                    for sdpa in (False, True):
                        eager_rows[key].update(eager_row(
                            workload, workload_sizes, eager_precision, device,
                            args.lr, args.weight_decay, sdpa))
                row.update(eager_rows[key])
                amp_ms[workload, precision] = row["amp_ms"]
                if precision == "fp8" and (workload, "bf16") in amp_ms:
                    row["amp_bf16_ms"] = amp_ms[workload, "bf16"]
                    row["fp8_vs_bf16"] = row["amp_bf16_ms"] / row["amp_ms"]
                rows.append(row)
    print_table(rows, args.device)
    print("(%s; %s sizes; data/devices.json; bench/gpu_model.py)"
          % (datetime.date.today().isoformat(), args.sizes))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
