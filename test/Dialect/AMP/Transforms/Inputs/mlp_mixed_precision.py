#!/usr/bin/env python3
"""Runs the bundled MLP training step in fp32, bf16 and fp16 on the CPU.

    mlp_mixed_precision.py STEP.mlir --opt AMP_OPT [--runner MLIR_RUNNER]
        --shared-libs LIB[,LIB...] [--steps N]

STEP.mlir is examples/mlp_train_step.mlir. The script writes a module with
the step and a @main that runs it on seeded random data (one step, then N
steps feeding each step's parameters and momentum buffers to the next) and
prints the results. It runs that module three ways with the CPU backend
(`amp-opt --amp-cpu-pipeline | mlir-runner`):

    fp32   as written,
    bf16   after --amp-assign-precision=precision=bf16 --amp-insert-casts,
    fp16   after --amp-assign-precision=precision=fp16 --amp-insert-casts,

and compares each with PyTorch's step in float64 on the same data.

One step. Every new parameter, new momentum buffer and the loss must be
within
    |got - ref| <= (C u + n u32) M + 4 u32 (|ref| + |inputs of the update|)
where u is the unit roundoff of the run's low type (2^-8 bf16, 2^-11 fp16,
2^-24 for the fp32 run), u32 = 2^-24, n = 128 the longest f32 sum, and M the
magnitude of the quantity: the same step evaluated in float64 with the
absolute value of every factor (|x| for x, sums of |terms| for sums and
products), so that a rounding of relative size u anywhere on the way moves
the result by at most u M to first order. C = 16 counts the roundings on the
longest path (the weight, the activation and the output of each of the two
linears, GELU and its gradient, the logits gradient, the weight-gradient
matmul: 9) with a margin of almost 2. The last term covers the f32 roundings
of the update itself (momentum * m + g, lr * buffer, p - lr * buffer; the
reference uses the f32 values of lr and momentum). The printout's six
significant digits are allowed on top. This bound does not depend on the
data. A bf16 step
is also required to differ from the fp32 one by more than the fp32 bound (the
passes did make it bf16).

N steps (--steps, default 50). The bf16 and fp16 loss curves must follow
PyTorch's fp32 curve: at every step |loss - loss_ref| <= 0.02 loss_ref(0).
One step changes the loss by about 1e-3 relative in bf16 (the bound above,
~16 u |logit|); rounding errors of successive steps are independent, so
after N steps they add up to about sqrt(N) of that (~1e-2 for N=50), and SGD
with momentum on this convex-in-the-head problem does not amplify them. The
fp32 curve must stay within 1e-5 loss_ref(0).

Prints PASS/FAIL lines and, at the end, ALL PASS. With AMP_DEBUG=1 in the
environment it also prints every tensor's largest error/bound and the loss
curves.
"""

import argparse
import math
import os
import re
import subprocess
import sys
import tempfile

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "..", "Integration",
                                "CPU", "Inputs"))
import compare_with_torch as harness  # noqa: E402  (parse_printout, run)
from amp_testing import exit_with_verdict, relative_deviation  # noqa: E402

U32 = 2.0 ** -24
UNIT = {"fp32": U32, "bf16": 2.0 ** -8, "fp16": 2.0 ** -11}
C = 16
N_SUM = 128
LR = 0.1
MOMENTUM = 0.9
# The step computes with these in f32 (lr is an f32 tensor, momentum an f64
# attribute the lowering rounds to f32); so does the reference.
LR_F32 = float(torch.tensor(LR, dtype=torch.float32))
MOMENTUM_F32 = float(torch.tensor(MOMENTUM, dtype=torch.float32))

# (name, shape) of the step's parameters, in argument order.
PARAMS = [("ln_w", [64]), ("ln_b", [64]), ("fc1_w", [128, 64]),
          ("fc1_b", [128]), ("fc2_w", [10, 128]), ("fc2_b", [10])]


def make_data():
    g = torch.Generator().manual_seed(5)
    data = {
        "ln_w": 1 + 0.1 * torch.randn(64, generator=g),
        "ln_b": 0.1 * torch.randn(64, generator=g),
        "fc1_w": (torch.rand(128, 64, generator=g) * 2 - 1) / 8,
        "fc1_b": (torch.rand(128, generator=g) * 2 - 1) / 8,
        "fc2_w": (torch.rand(10, 128, generator=g) * 2 - 1) / math.sqrt(128),
        "fc2_b": (torch.rand(10, generator=g) * 2 - 1) / math.sqrt(128),
        "x": torch.randn(32, 64, generator=g),
        "labels": torch.randint(0, 10, (32,), generator=g),
    }
    for name, shape in PARAMS:
        data[name + "_m"] = 0.01 * torch.randn(*shape, generator=g)
    # Round to f32 once: the module's constants are these f32 values.
    return {k: (v.float() if v.is_floating_point() else v)
            for k, v in data.items()}


# --- The module -------------------------------------------------------------

def strip_contract(text):
    """The step without its amp.role/amp.name/amp.graph attributes, which
    the CPU pipeline does not carry through bufferization."""
    text = re.sub(r"\s*\{amp\.role = #amp\.role<\w+>, amp\.name = \"[^\"]*\"\}",
                  "", text)
    text = re.sub(r"\s*attributes \{amp\.graph = #amp\.graph<\w+>\}", "", text)
    return text


def dense(tensor):
    values = tensor.tolist()

    def fmt(v):
        if isinstance(v, list):
            return "[" + ", ".join(fmt(x) for x in v) + "]"
        return repr(float(v)) if isinstance(v, float) else str(v)
    return f"dense<{fmt(values)}>"


def ttype(shape, element):
    return "tensor<" + "x".join(str(d) for d in shape) + ("x" if shape else "") \
        + element + ">"


def make_module(step_text, data, steps):
    types = [ttype(s, "f32") for _, s in PARAMS]
    state_types = types + types  # parameters, momentum buffers
    arg_types = state_types + [ttype([32, 64], "f32"), ttype([32], "i64"),
                               ttype([], "f32")]
    result_types = state_types + [ttype([], "f32")]
    lines = ["func.func private @printMemrefF32(tensor<*xf32>)",
             "func.func @main() {"]
    names = [n for n, _ in PARAMS] + [n + "_m" for n, _ in PARAMS]
    for name in names + ["x"]:
        t = data[name]
        lines.append(f"  %{name} = amp.constant {dense(t)} : "
                     f"{ttype(list(t.shape), 'f32')}")
    lines.append(f"  %labels = amp.constant {dense(data['labels'])} : "
                 f"{ttype([32], 'i64')}")
    lines.append(f"  %lr = amp.constant dense<{LR!r}> : tensor<f32>")
    args = ", ".join("%" + n for n in names + ["x", "labels", "lr"])
    sig = f"({', '.join(arg_types)}) -> ({', '.join(result_types)})"
    # One step; print its results.
    lines.append(f"  %r:13 = func.call @mlp_train_step({args}) : {sig}")
    for i, t in enumerate(result_types):
        lines.append(f"  %u{i} = tensor.cast %r#{i} : {t} to tensor<*xf32>")
        lines.append(f"  func.call @printMemrefF32(%u{i}) : (tensor<*xf32>) -> ()")
    # N steps, one call after the other (bufferization does not carry
    # these tensors through an scf.for); print each loss.
    current = names
    for step in range(steps):
        loop_args = ", ".join("%" + n for n in current) + ", %x, %labels, %lr"
        lines.append(f"  %o{step}:13 = func.call @mlp_train_step({loop_args}) "
                     f": {sig}")
        lines.append(f"  %l{step} = tensor.cast %o{step}#12 : tensor<f32> to "
                     "tensor<*xf32>")
        lines.append(f"  func.call @printMemrefF32(%l{step}) : "
                     "(tensor<*xf32>) -> ()")
        current = [f"o{step}#{i}" for i in range(12)]
    lines.append("  return")
    lines.append("}")
    return strip_contract(step_text) + "\n" + "\n".join(lines) + "\n"


# --- PyTorch reference (float64) --------------------------------------------

def reference_step(state, x, labels):
    """One step in float64: new parameters, new buffers, loss."""
    p = [t.double().clone().requires_grad_(True) for t in state[:6]]
    ln_w, ln_b, fc1_w, fc1_b, fc2_w, fc2_b = p
    h0 = F.layer_norm(x.double(), (64,), ln_w, ln_b, eps=1e-5)
    h1 = F.linear(h0, fc1_w, fc1_b)
    h2 = F.gelu(h1)
    logits = F.linear(h2, fc2_w, fc2_b)
    loss = F.cross_entropy(logits, labels)
    grads = torch.autograd.grad(loss, p)
    new_m = [MOMENTUM_F32 * m.double() + g for m, g in zip(state[6:], grads)]
    new_p = [q.detach() - LR_F32 * m for q, m in zip(p, new_m)]
    magnitudes = magnitude_step(state, x, labels, h0.detach(), h1.detach(),
                                h2.detach(), logits.detach())
    return new_p, new_m, loss.detach(), magnitudes


def magnitude_step(state, x, labels, h0, h1, h2, logits):
    """|.|-propagated step: a bound M for each gradient and for the loss."""
    ln_w, ln_b, fc1_w, fc1_b, fc2_w, fc2_b = [t.double() for t in state[:6]]
    n = x.shape[0]
    probs = torch.softmax(logits, dim=1)
    onehot = F.one_hot(labels, 10).double()
    dlogits = (probs + onehot) / n                        # |softmax - onehot|
    m_h2 = h2.abs()
    m_logits = m_h2 @ fc2_w.abs().t() + fc2_b.abs()
    d_fc2_w = dlogits.t() @ m_h2
    d_fc2_b = dlogits.sum(0)
    dh2 = dlogits @ fc2_w.abs()
    x1 = h1.clone().requires_grad_(True)
    gelu_prime = torch.autograd.grad(F.gelu(x1).sum(), x1)[0].abs()
    dh1 = dh2 * gelu_prime
    d_fc1_w = dh1.t() @ h0.abs()
    d_fc1_b = dh1.sum(0)
    dh0 = dh1 @ fc1_w.abs()
    xhat = (h0 - ln_b) / ln_w
    d_ln_w = (dh0 * xhat.abs()).sum(0)
    d_ln_b = dh0.sum(0)
    grads = [d_ln_w, d_ln_b, d_fc1_w, d_fc1_b, d_fc2_w, d_fc2_b]
    loss = 2 * m_logits.max()
    return grads, loss


# --- Running ----------------------------------------------------------------

def run_variant(opt, runner, libs, module_path, precision):
    with open(module_path) as f:
        text = f.read()
    if precision != "fp32":
        text = harness.run(
            [opt, "-", f"--amp-assign-precision=precision={precision}",
             "--amp-insert-casts"], text, f"amp-opt ({precision} passes)")
    lowered = harness.run([opt, "-", "--amp-cpu-pipeline"], text,
                          f"amp-opt ({precision} lowering)")
    printed = harness.run([runner, "-e", "main", "-entry-point-result=void",
                           f"-shared-libs={libs}"], lowered,
                          f"mlir-runner ({precision})")
    return [torch.from_numpy(t) for t in harness.parse_printout(printed)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("step")
    parser.add_argument("--opt", default="amp-opt")
    parser.add_argument("--runner", default="mlir-runner")
    parser.add_argument("--shared-libs", required=True)
    parser.add_argument("--steps", type=int, default=50)
    args = parser.parse_args()

    data = make_data()
    with open(args.step) as f:
        module = make_module(f.read(), data, args.steps)
    names = [n for n, _ in PARAMS]
    state = [data[n] for n in names] + [data[n + "_m"] for n in names]

    # Reference: one step with bounds, then the loss curve.
    new_p, new_m, loss, (m_grads, m_loss) = reference_step(
        state, data["x"], data["labels"])
    curve = []
    s = state
    for _ in range(args.steps):
        p1, m1, l1, _ = reference_step(s, data["x"], data["labels"])
        curve.append(float(l1))
        s = [t.float() for t in p1 + m1]

    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "mlp_step_main.mlir")
        with open(path, "w") as f:
            f.write(module)
        fp32_error = {}
        for precision in ("fp32", "bf16", "fp16"):
            tensors = run_variant(args.opt, args.runner, args.shared_libs,
                                  path, precision)
            if len(tensors) != 13 + args.steps:
                print(f"FAIL {precision}: printed {len(tensors)} tensors, "
                      f"expected {13 + args.steps}")
                ok = False
                continue
            u = UNIT[precision]
            worst = 0.0
            largest_error = 0.0
            expected = list(new_p) + list(new_m) + [loss]
            labels = [f"new {n}" for n in names] + \
                [f"new {n} momentum" for n in names] + ["loss"]
            for i, (got, ref, label) in enumerate(
                    zip(tensors[:13], expected, labels)):
                ref = ref.detach().double()
                # The gradient's error, then the f32 roundings of the update
                # (momentum * m + g, lr * buffer, p - ...).
                if i < 6:        # parameter
                    magnitude = LR * m_grads[i]
                    update = ref.abs() + state[i].double().abs() + \
                        LR * state[i + 6].double().abs()
                elif i < 12:     # momentum buffer
                    magnitude = m_grads[i - 6]
                    update = ref.abs() + state[i].double().abs()
                else:
                    magnitude = m_loss
                    update = ref.abs()
                bound = (C * u + N_SUM * U32) * magnitude + 4 * U32 * update
                got = got.reshape(ref.shape)
                error = (got - ref).abs()
                # The printout has six significant digits.
                bound = bound + torch.from_numpy(harness.print_quantum(
                    got.numpy(), ref.numpy()))
                ratio = float((error / bound).max())
                worst = max(worst, ratio)
                largest_error = max(largest_error, float(error.max()))
                if precision == "fp32":
                    fp32_error[i] = bound
                if os.environ.get("AMP_DEBUG"):
                    at = int((error / bound).argmax())
                    print(f"  {precision} {label}: error/bound {ratio:.3g} "
                          f"error {float(error.flatten()[at]):.3g} "
                          f"got {float(got.flatten()[at])!r} "
                          f"ref {float(ref.flatten()[at])!r} "
                          f"M {float(magnitude.flatten()[at]):.3g}")
                if ratio > 1:
                    ok = False
                    print(f"FAIL {precision} {label}: max error "
                          f"{float(error.max()):.3g}, error/bound {ratio:.3g}")
            differs = ""
            if precision != "fp32":
                # The low-precision run must not be the fp32 one.
                diff = max(float(((t.reshape(e.shape) - e.detach().double())
                                  .abs() - fp32_error[i]).max())
                           for i, (t, e) in enumerate(zip(tensors[:13],
                                                          expected)))
                differs = " differs-from-fp32" if diff > 0 else " SAME-AS-FP32"
                if diff <= 0:
                    ok = False
            print(f"{'PASS' if worst <= 1 else 'FAIL'} {precision} one step: "
                  f"max error/bound {worst:.3f}{differs}")
            # Loss curve.
            losses = [float(t.reshape(())) for t in tensors[13:]]
            limit = 1e-5 if precision == "fp32" else 0.02
            deviation = relative_deviation(losses, curve)
            if os.environ.get("AMP_DEBUG"):
                print("  curve", " ".join(f"{a:.4f}/{b:.4f}"
                                          for a, b in zip(losses, curve)))
            status = "PASS" if deviation <= limit else "FAIL"
            ok = ok and deviation <= limit
            print(f"{status} {precision} {args.steps} steps: loss "
                  f"{losses[0]:.4f} -> {losses[-1]:.4f} (fp32 reference "
                  f"{curve[0]:.4f} -> {curve[-1]:.4f}), max deviation "
                  f"{deviation:.2e} of the first loss")
    exit_with_verdict(ok)


if __name__ == "__main__":
    main()
