"""FP8 training converges like bf16 (issue 39's numerics criterion): each
model is compiled at precision=bf16 and precision=fp8 for --target, trained
for its steps by amp-run on the same per-step batches of a regression task
with a noise floor, and fp8's final loss (the mean of the last 50 steps)
must be within 1% of bf16's.

The task: x ~ N(0, 1) of the model's input shape and
    target = x + 0.5 tanh(x A) [+ 0.5 mean_over_tokens(x) C] + 0.3 noise
(the token mixing for inputs with a sequence axis, [batch, tokens, d]), with
fixed random A, C (d x d, entries N(0, 1/d)) and fresh Gaussian noise. Each
step gets a new batch (steps x batch samples, each used once), so the mse
loss cannot fall below the noise's variance 0.09: both precisions end near
that floor (about 0.10 after 1000 AdamW steps at lr 1e-3), where 1% is a
statement about FP8's extra error. The same batch every step would let bf16
drive the loss to ~0 (1.4e-5 on mlp_stack) while FP8's rounding sets a
floor (2.6e-3), where a relative criterion means nothing.

Also checked: the loss fell (the last 50 steps below 0.75 x the first 10:
the model learned the task, not only the noise floor), the fp8 curve differs
from bf16's (FP8 ran), and, with --reference-target, that the fp8 curve on
--target follows the one on the reference target: within --follow-early
over the first 5 steps (the same recipe computed on another backend, where
only the order of f32 sums differs: seen 1e-7, while bf16 is 1.7e-3 away
from fp8 there), and within --follow step by step after that (FP8's coarse
rounding amplifies the sum order's differences over the steps: seen 5e-3).

--case "MODEL STEPS" adds a model (repeatable). Prints one line per check;
exits 1 when one fails."""
import argparse
import json
import os
import re
import shlex
import subprocess
import sys

import numpy as np

parser = argparse.ArgumentParser()
parser.add_argument("--amp-compile", required=True)
parser.add_argument("--amp-run", required=True)
parser.add_argument("--dir", required=True)
parser.add_argument("--target", default="cpu")
parser.add_argument("--reference-target")
parser.add_argument("--follow", type=float, default=0.02)
parser.add_argument("--follow-early", type=float, default=5e-4)
parser.add_argument("--case", action="append", default=[])
parser.add_argument("--tolerance", type=float, default=0.01)
# Extra amp-compile options for the fp8 builds (to show that the check
# fails on a broken recipe, e.g. --fp8-margin=20).
parser.add_argument("--fp8-options", default="")
args = parser.parse_args()

NOISE, LAST, FIRST = 0.3, 50, 10


def input_shape(model):
    """The shape of the model's input %x (its first dimension the batch)."""
    text = open(model).read()
    match = re.search(r"%x: tensor<([0-9x]+)xf32>", text)
    if not match:
        sys.exit("%s: no input %%x: tensor<...xf32>" % model)
    return [int(d) for d in match.group(1).split("x")]


def make_data(model, name, steps):
    """steps batches of the task as .npy files; returns their directory."""
    shape = input_shape(model)
    directory = os.path.join(args.dir, name + "-data")
    os.makedirs(directory, exist_ok=True)
    rng = np.random.RandomState(0)
    d = shape[-1]
    x = rng.randn(steps * shape[0], *shape[1:])
    a = rng.randn(d, d) / np.sqrt(d)
    target = x + 0.5 * np.tanh(x @ a)
    if len(shape) == 3:
        c = rng.randn(d, d) / np.sqrt(d)
        target += 0.5 * (x.mean(axis=1, keepdims=True) @ c)
    target += NOISE * rng.randn(*x.shape)
    np.save(os.path.join(directory, "x.npy"), x.astype(np.float32))
    np.save(os.path.join(directory, "target.npy"), target.astype(np.float32))
    return directory


def train(model, name, precision, target, steps, data):
    stem = os.path.join(args.dir, "%s-%s-%s" % (name, precision, target))
    # --fp8-select=all: every contraction that fits runs in FP8 (the cost
    # model, the default, keeps these small GEMMs in bf16, which would make
    # fp8 the same as bf16).
    extra = (["--fp8-select=all"] + shlex.split(args.fp8_options)
             if precision == "fp8" else [])
    subprocess.run([args.amp_compile, model, "--target=" + target,
                    "--precision=" + precision, "--optimizer=adamw",
                    "--lr=1e-3"] + extra + ["-o", stem + ".so"], check=True)
    subprocess.run([args.amp_run, stem + ".so", "--steps", str(steps),
                    "--seed", "1", "--metrics", stem + ".jsonl",
                    "--data", "x=" + os.path.join(data, "x.npy"),
                    "--data", "target=" + os.path.join(data, "target.npy")],
                   check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    lines = [json.loads(line) for line in open(stem + ".jsonl")]
    if len(lines) != steps:
        sys.exit("%s: %d steps recorded, expected %d" % (stem, len(lines),
                                                         steps))
    return [line["loss"] for line in lines], sum(
        bool(line.get("skipped")) for line in lines)


def mean(values):
    return sum(values) / len(values)


failed = False


def report(what, ok, detail):
    global failed
    print("%s: %s" % (what, "yes" if ok else "NO"))
    print("  %s: %s" % (what, detail), file=sys.stderr)
    failed |= not ok


for case in args.case:
    model, steps = shlex.split(case)
    steps = int(steps)
    name = os.path.splitext(os.path.basename(model))[0]
    data = make_data(model, name, steps)
    bf16, bf16_skipped = train(model, name, "bf16", args.target, steps, data)
    fp8, fp8_skipped = train(model, name, "fp8", args.target, steps, data)
    label = "%s %s %d steps" % (name, args.target, steps)
    final_bf16, final_fp8 = mean(bf16[-LAST:]), mean(fp8[-LAST:])
    finite = all(np.isfinite(bf16)) and all(np.isfinite(fp8))
    report(label + ": loss fell", finite and
           max(final_bf16, final_fp8) < 0.75 * mean(bf16[:FIRST]),
           "first %d %.6f, last %d bf16 %.6f fp8 %.6f; skipped steps bf16 "
           "%d fp8 %d" % (FIRST, mean(bf16[:FIRST]), LAST, final_bf16,
                          final_fp8, bf16_skipped, fp8_skipped))
    relative = abs(final_fp8 - final_bf16) / final_bf16
    report(label + ": fp8 within %g%% of bf16" % (100 * args.tolerance),
           finite and relative <= args.tolerance,
           "mean of the last %d: relative difference %.3g%%" % (
               LAST, 100 * relative))
    differs = max(abs(a - b) / b for a, b in zip(fp8, bf16))
    report(label + ": fp8 differs from bf16", differs > 1e-4,
           "largest per-step relative difference %.3g" % differs)
    if args.reference_target:
        reference, _ = train(model, name, "fp8", args.reference_target,
                             steps, data)
        deviations = [abs(a - b) / b for a, b in zip(fp8, reference)]
        early, follow = max(deviations[:5]), max(deviations)
        report(label + ": fp8 follows %s" % args.reference_target,
               early <= args.follow_early and follow <= args.follow,
               "largest per-step relative difference %.3g over the first 5 "
               "steps (limit %g), %.3g over all (limit %g)" % (
                   early, args.follow_early, follow, args.follow))
sys.exit(1 if failed else 0)
