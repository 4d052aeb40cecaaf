#!/usr/bin/env python3
"""20 training steps of the MLP, CNN and transformer models with the steps
--amp-autodiff generates, against PyTorch 1.13's optimizers: test generator
and reference in one place.

The models are the architectures of examples/mlp_forward.mlir,
examples/cnn.mlir and examples/transformer_block.mlir at smaller sizes (so
that their initial weights and data fit in the test as constants):

  mlp:         LayerNorm(16) -> Linear(16, 32) -> GELU -> Linear(32, 4),
               logits; loss=cross_entropy appends the loss and `labels`
  cnn:         conv 3->4 (no bias), BatchNorm (training, running statistics
               as buffers), ReLU, max pool 2, conv 4->8, GroupNorm(4), ReLU,
               avg pool 2, global average pool, Linear(8, 3), cross-entropy
  transformer: pre-LN block, d_model 8, 2 heads of 4, MLP 8->16->8 with
               tanh GELU, residuals, mse_loss against a target

The test's @main runs the generated @<model>_train_step 20 times on the
same batch (the state of each step feeding the next), then prints
the 20 losses, the final parameters, the final optimizer state and the
buffers. The reference does the same in float64 with torch.nn.functional
and torch.optim.SGD / torch.optim.AdamW on the same initial values.

Tolerances (see `expectations`): the compiled step runs in f32. One
step's error is a few f32 roundings per value (see gradient_cases.py),
about 1e-6 relative; training then propagates it: with these learning
rates each step is a contraction or a mild expansion, except where AdamW's
normalized update m / (sqrt(v) + eps) amplifies the relative error of
gradients that are tiny or cancel. We allow 3e-5 times each tensor's
largest magnitude plus eight times the widest deviation of PyTorch float32
runs (its own, and from starts one ulp away) from the float64 one. A wrong rule or optimizer formula changes the
trajectory by orders of magnitude more (a sign or factor error in any
gradient shows up in the first loss values already).
"""

import os
import sys
import zlib

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gradient_cases import (format_values, tensor_type as tt,  # noqa: E402
                            test_preamble)

STEPS = 20


def rnd(name, shape, low=-1.0, high=1.0):
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    return np.round(rng.uniform(low, high, shape), 3)


def ssa(name):
    return name.replace(".", "_")


class Model:
    """A forward model: parameters, buffers, inputs and labels (name,
    shape, element, values), its MLIR body, and its PyTorch twin."""

    def __init__(self, name, params, buffers, inputs, labels, body, results,
                 torch_fn, loss_option="none"):
        self.name, self.params, self.buffers = name, params, buffers
        self.inputs, self.labels, self.body = inputs, labels, body
        self.results, self.torch_fn, self.loss_option = results, torch_fn, loss_option

    def forward_mlir(self):
        args = []
        for role, group in (("input", self.inputs), ("label", self.labels),
                            ("parameter", self.params), ("buffer", self.buffers)):
            for n, s, e, _ in group:
                args.append(f"    %{ssa(n)}: {tt(s, e)} {{amp.role = #amp.role<{role}>, amp.name = \"{n}\"}}")
        results = ", ".join(f"{t} {{amp.role = #amp.role<{r}>, amp.name = \"{n}\"}}"
                            for _, t, r, n in self.results)
        lines = [f"func.func @{self.name}(", ",\n".join(args) + ")",
                 f"    -> ({results})",
                 "    attributes {amp.graph = #amp.graph<forward>} {"]
        lines += ["  " + l.strip() for l in self.body.strip().splitlines()]
        lines.append(f"  return {', '.join(v for v, _, _, _ in self.results)} : "
                     f"{', '.join(t for _, t, _, _ in self.results)}")
        lines.append("}")
        return "\n".join(lines)


class Optimizer:
    def __init__(self, kind, options, lr, clip=None, **hyper):
        self.kind, self.options, self.lr, self.hyper = kind, options, lr, hyper
        self.clip = clip  # max-grad-norm: the step also returns grad_norm

    def state(self, params):
        """The optimizer_state arguments in the pass's canonical order."""
        state = []
        for n, s, e, _ in params:
            if self.kind == "sgd":
                state.append((n + ".momentum_buffer", s, "f32"))
            else:
                state.append((n + ".exp_avg", s, "f32"))
                state.append((n + ".exp_avg_sq", s, "f32"))
        # AdamW's bias correction and SGD's first-step buffer (with
        # dampening) need the step count.
        if self.kind == "adamw" or self.hyper.get("dampening", 0):
            state.append(("step", (), "i64"))
        return state


def emit(model, opt, title):
    state = opt.state(model.params)
    options = opt.options
    if model.loss_option != "none":
        options += f" loss={model.loss_option}"
    labels = list(model.labels)
    if model.loss_option == "cross_entropy":
        # The `labels` argument the pass appends.
        labels.append(("labels", (len(model.appended_labels),), "i64",
                       model.appended_labels))
    # The canonical signature: parameters, buffers, optimizer state, inputs,
    # labels, hyper-parameters; results: parameters, buffers, state, loss.
    args = ([(n, s, e) for n, s, e, _ in model.params] +
            [(n, s, e) for n, s, e, _ in model.buffers] + state +
            [(n, s, e) for n, s, e, _ in model.inputs] +
            [(n, s, e) for n, s, e, _ in labels] + [("lr", (), "f32")])
    carried = ([(n, s, e) for n, s, e, _ in model.params] +
               [(n, s, e) for n, s, e, _ in model.buffers] + state)
    arg_types = [tt(s, e) for _, s, e in args]
    loss_index = len(carried)
    result_types = [tt(s, e) for _, s, e in carried] + ["tensor<f32>"]
    if opt.clip:
        result_types.append("tensor<f32>")  # grad_norm, after the loss

    printed = [("losses", f"tensor<{STEPS}xf32>")]
    if opt.clip:
        printed.append(("grad_norms", f"tensor<{STEPS}xf32>"))
    printed += [(n, tt(s, e)) for n, s, e in carried if e == "f32"]
    lines = test_preamble(
        [title,
         "Generated by Inputs/training_cases.py (see there for the models, "
         "the method",
         "and the tolerances); the reference is Inputs/<this test's name>.py."],
        options, [n for n, _ in printed])
    lines += [model.forward_mlir(), "",
              "// Generated by --amp-autodiff.",
              f"func.func private @{model.name}_train_step({', '.join(arg_types)})",
              f"    -> ({', '.join(result_types)})", "",
              "func.func @main() {"]
    values = {n: v for n, _, _, v in model.params + model.buffers + model.inputs + labels}
    for n, s, e in args:
        if n == "lr":
            lines.append(f"  %lr = amp.constant dense<{opt.lr}> : tensor<f32>")
        elif n in values:
            lines.append(f"  %{ssa(n)} = amp.constant dense<{format_values(values[n])}> : {tt(s, e)}")
        else:
            zero = "0" if e == "i64" else "0.0"
            lines.append(f"  %{ssa(n)} = amp.constant dense<{zero}> : {tt(s, e)}")
    # The steps are unrolled: an scf.for carrying the state would need
    # one-shot bufferization to allow returning allocations from loops,
    # which --amp-cpu-pipeline does not enable.
    carried_names = [c[0] for c in carried]
    current = {n: f"%{ssa(n)}" for n in carried_names}
    losses, norms = [], []
    for step in range(STEPS):
        call_args = [current.get(n, f"%{ssa(n)}") for n, _, _ in args]
        lines.append(f"  %s{step}:{len(result_types)} = func.call @{model.name}_train_step("
                     f"{', '.join(call_args)})")
        lines.append(f"      : ({', '.join(arg_types)}) -> ({', '.join(result_types)})")
        for i, n in enumerate(carried_names):
            current[n] = f"%s{step}#{i}"
        lines.append(f"  %l{step} = amp.reshape %s{step}#{loss_index} : tensor<f32> -> tensor<1xf32>")
        losses.append(f"%l{step}")
        if opt.clip:
            lines.append(f"  %n{step} = amp.reshape %s{step}#{loss_index + 1} : tensor<f32> -> tensor<1xf32>")
            norms.append(f"%n{step}")
    final = dict(current)
    for name, values in (("losses", losses), ("grad_norms", norms)):
        if values:
            lines.append(f"  %{name} = amp.concat {', '.join(values)} {{axis = 0 : i64}} : "
                         f"({', '.join(['tensor<1xf32>'] * STEPS)}) -> tensor<{STEPS}xf32>")
            final[name] = f"%{name}"
    for i, (n, t) in enumerate(printed):
        lines.append(f"  %print{i} = tensor.cast {final[n]} : {t} to tensor<*xf32>")
        lines.append(f"  call @printMemrefF32(%print{i}) : (tensor<*xf32>) -> ()")
    lines += ["  return", "}"]
    return "\n".join(lines) + "\n"


def train(initial, trainable, torch_fn, opt, lr, dtype):
    """Runs STEPS PyTorch steps in `dtype` from `initial` (name -> tensor;
    floating-point ones are converted); returns the printed tensors by
    name: losses, [grad_norms], parameters, buffers (updated in place by
    torch_fn) and the optimizer state ("<param>.momentum_buffer", ...)."""
    env = {n: (t.to(dtype).clone() if t.is_floating_point() else t)
           for n, t in initial.items()}
    for n in trainable:
        env[n].requires_grad_()
    ordered = [env[n] for n in trainable]
    if opt.kind == "sgd":
        torch_opt = torch.optim.SGD(ordered, lr=lr, **opt.hyper)
    else:
        torch_opt = torch.optim.AdamW(ordered, lr=lr, **opt.hyper)
    losses, norms = [], []
    for _ in range(STEPS):
        torch_opt.zero_grad()
        loss = torch_fn(env)
        loss.backward()
        if opt.clip:
            norms.append(float(torch.nn.utils.clip_grad_norm_(ordered, opt.clip)))
        torch_opt.step()
        losses.append(float(loss))
    out = {"losses": torch.tensor(losses, dtype=torch.float64)}
    if opt.clip:
        out["grad_norms"] = torch.tensor(norms, dtype=torch.float64)
    for n, t in env.items():
        if t.is_floating_point():
            out[n] = t.detach().double()
    for n in trainable:
        for key, value in torch_opt.state[env[n]].items():
            if key != "step":
                out[f"{n}.{key}"] = value.double()
    return out


F32_SAMPLES = 4


def ulp_perturbed(initial, sample):
    """`initial` with every nonzero float moved one f32 ulp up or down (signs
    drawn from `sample`): the start of another float32 trajectory, as valid
    as the unperturbed one."""
    gen = torch.Generator().manual_seed(sample)
    out = {}
    for n, t in initial.items():
        if t.is_floating_point():
            t = t.to(torch.float32)
            up = torch.rand(t.shape, generator=gen) < 0.5
            toward = torch.where(up, float("inf"), float("-inf"))
            t = torch.where(t == 0, t, torch.nextafter(t, toward))
        out[n] = t
    return out


def expectations(names, initial, trainable, torch_fn, opt, lr):
    """(label, expected, tolerance) for each printed tensor `names`.

    The expectation is PyTorch in float64. A compiled f32 step cannot track
    the exact trajectory more closely than f32 arithmetic allows, and how
    much that is depends on the model: AdamW's normalized update turns the
    rounding error of a gradient that is tiny or cancels (the attention key
    bias has an identically zero gradient: softmax is invariant to shifting
    a row of scores) into a step of order lr in an arbitrary direction, from
    the first step on, in whichever elements the summation order of that
    run happens to tip. Where f32 arithmetic decides the trajectory, any f32
    run (amp's BLAS sums in its own order) is as right as PyTorch's, so the
    reference measures how far float32 runs part from float64: PyTorch's own
    float32 run and F32_SAMPLES more from initial values one ulp away (each
    as valid a float32 start), and allows, per tensor,
        atol = 3e-5 max|expected| + 8 max_runs max|PyTorch f32 - expected|
    plus 2e-6 for optimizer state that is itself tiny: 3e-5 bounds the
    well-conditioned drift of 20 steps (observed below 1.2e-5), and eight
    times the widest float32 deviation covers the ill-conditioned elements.
    """
    exact = train(initial, trainable, torch_fn, opt, lr, torch.float64)
    runs = [train(start, trainable, torch_fn, opt, lr, torch.float32)
            for start in [initial] + [ulp_perturbed(initial, s)
                                      for s in range(F32_SAMPLES)]]
    out = []
    for name in names:
        expected = exact[name]
        deviation = max(float((run[name] - expected).abs().max())
                        for run in runs)
        atol = 3e-5 * float(expected.abs().max()) + 8 * deviation
        if name not in initial and name not in ("losses", "grad_norms"):
            atol += 2e-6
        out.append((name, expected, {"atol": atol}))
    return out


def reference(consts, model, opt):
    """The losses and final state of 20 PyTorch steps, in print order:
    losses, [grad norms], parameters, buffers, optimizer state (as emit
    prints them)."""
    initial = {n: consts[ssa(n)]
               for n, _, _, _ in model.params + model.buffers + model.inputs + model.labels}
    if model.loss_option == "cross_entropy":
        initial["labels"] = consts["labels"]
    trainable = [n for n, _, _, _ in model.params]
    names = ["losses"] + (["grad_norms"] if opt.clip else [])
    names += trainable + [n for n, _, _, _ in model.buffers]
    for n in trainable:
        names += ([f"{n}.momentum_buffer"] if opt.kind == "sgd"
                  else [f"{n}.exp_avg", f"{n}.exp_avg_sq"])
    return expectations(names, initial, trainable, model.torch_fn, opt,
                        float(consts["lr"]))


# --- The models ------------------------------------------------------------

def p(name, shape, low=-0.5, high=0.5):
    return (name, shape, "f32", rnd(name, shape, low, high))


MLP = Model(
    "mlp",
    params=[("ln.weight", (16,), "f32", rnd("ln.weight", (16,), 0.8, 1.2)),
            ("ln.bias", (16,), "f32", rnd("ln.bias", (16,), -0.1, 0.1)),
            p("fc1.weight", (32, 16)), p("fc1.bias", (32,), -0.1, 0.1),
            p("fc2.weight", (4, 32)), p("fc2.bias", (4,), -0.1, 0.1)],
    buffers=[],
    inputs=[("x", (8, 16), "f32", rnd("x", (8, 16), -2, 2))],
    labels=[],
    body="""
      %h0, %mean, %rstd = amp.layer_norm %x, %ln_weight, %ln_bias {axis = -1 : i64, epsilon = 1.0e-5 : f64}
          : (tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>) -> (tensor<8x16xf32>, tensor<8xf32>, tensor<8xf32>)
      %h1 = amp.linear %h0, %fc1_weight, %fc1_bias : (tensor<8x16xf32>, tensor<32x16xf32>, tensor<32xf32>) -> tensor<8x32xf32>
      %h2 = amp.gelu %h1 : tensor<8x32xf32>
      %logits = amp.linear %h2, %fc2_weight, %fc2_bias : (tensor<8x32xf32>, tensor<4x32xf32>, tensor<4xf32>) -> tensor<8x4xf32>
    """,
    results=[("%logits", "tensor<8x4xf32>", "output", "logits")],
    torch_fn=lambda v: F.cross_entropy(
        F.linear(F.gelu(F.linear(F.layer_norm(v["x"], (16,), v["ln.weight"], v["ln.bias"], 1e-5),
                                 v["fc1.weight"], v["fc1.bias"])),
                 v["fc2.weight"], v["fc2.bias"]), v["labels"]),
    loss_option="cross_entropy")
MLP.appended_labels = np.array([0, 3, 1, 2, 2, 0, 1, 3], dtype=np.int64)


def cnn_torch(v, groups=4):
    """The CNN of CNN and of examples/cnn.mlir (whose group norm has
    `groups` = 8); batch_norm updates the running statistics in place."""
    c1 = F.conv2d(v["x"], v["conv1.weight"], None, 1, 1)
    n1 = F.batch_norm(c1, v["bn1.running_mean"], v["bn1.running_var"],
                      v["bn1.weight"], v["bn1.bias"], True, 0.1, 1e-5)
    p1 = F.max_pool2d(F.relu(n1), 2, 2)
    c2 = F.conv2d(p1, v["conv2.weight"], v["conv2.bias"], 1, 1)
    n2 = F.group_norm(c2, groups, v["gn2.weight"], v["gn2.bias"], 1e-5)
    p2 = F.avg_pool2d(F.relu(n2), 2, 2)
    g = p2.mean((2, 3))
    return F.cross_entropy(F.linear(g, v["fc.weight"], v["fc.bias"]), v["labels"])


CNN = Model(
    "cnn",
    params=[p("conv1.weight", (4, 3, 3, 3)),
            ("bn1.weight", (4,), "f32", rnd("bn1.weight", (4,), 0.8, 1.2)),
            ("bn1.bias", (4,), "f32", rnd("bn1.bias", (4,), -0.1, 0.1)),
            p("conv2.weight", (8, 4, 3, 3), -0.3, 0.3), p("conv2.bias", (8,), -0.1, 0.1),
            ("gn2.weight", (8,), "f32", rnd("gn2.weight", (8,), 0.8, 1.2)),
            ("gn2.bias", (8,), "f32", rnd("gn2.bias", (8,), -0.1, 0.1)),
            p("fc.weight", (3, 8)), p("fc.bias", (3,), -0.1, 0.1)],
    buffers=[("bn1.running_mean", (4,), "f32", np.zeros(4)),
             ("bn1.running_var", (4,), "f32", np.ones(4))],
    inputs=[("x", (2, 3, 8, 8), "f32", rnd("cnnx", (2, 3, 8, 8), -2, 2))],
    labels=[("labels", (2,), "i64", np.array([2, 0], dtype=np.int64))],
    body="""
      %c1 = amp.conv2d %x, %conv1_weight {padding = array<i64: 1, 1, 1, 1>}
          : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32>
      %n1, %sm, %sr, %rm1, %rv1 = amp.batch_norm %c1, %bn1_weight, %bn1_bias, %bn1_running_mean, %bn1_running_var
          {epsilon = 1.0e-5 : f64, momentum = 0.1 : f64}
          : (tensor<2x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
          -> (tensor<2x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
      %r1 = amp.relu %n1 : tensor<2x4x8x8xf32>
      %p1 = amp.max_pool2d %r1 {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>}
          : tensor<2x4x8x8xf32> -> tensor<2x4x4x4xf32>
      %c2 = amp.conv2d %p1, %conv2_weight, %conv2_bias {padding = array<i64: 1, 1, 1, 1>}
          : (tensor<2x4x4x4xf32>, tensor<8x4x3x3xf32>, tensor<8xf32>) -> tensor<2x8x4x4xf32>
      %n2, %gm, %gr = amp.group_norm %c2, %gn2_weight, %gn2_bias {num_groups = 4 : i64, epsilon = 1.0e-5 : f64}
          : (tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<2x8x4x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>)
      %r2 = amp.relu %n2 : tensor<2x8x4x4xf32>
      %p2 = amp.avg_pool2d %r2 {kernel_size = array<i64: 2, 2>, stride = array<i64: 2, 2>}
          : tensor<2x8x4x4xf32> -> tensor<2x8x2x2xf32>
      %g = amp.global_avg_pool %p2 : tensor<2x8x2x2xf32> -> tensor<2x8x1x1xf32>
      %flat = amp.reshape %g : tensor<2x8x1x1xf32> -> tensor<2x8xf32>
      %logits = amp.linear %flat, %fc_weight, %fc_bias : (tensor<2x8xf32>, tensor<3x8xf32>, tensor<3xf32>) -> tensor<2x3xf32>
      %loss = amp.cross_entropy %logits, %labels : tensor<2x3xf32>, tensor<2xi64>
    """,
    results=[("%loss", "tensor<f32>", "loss", "loss"),
             ("%rm1", "tensor<4xf32>", "buffer", "bn1.running_mean"),
             ("%rv1", "tensor<4xf32>", "buffer", "bn1.running_var")],
    torch_fn=cnn_torch)


def transformer_torch(v, heads=2, linear=lambda name: name):
    """A pre-norm transformer block with an MSE loss, as TRANSFORMER and
    examples/transformer_block.mlir compute it; `linear` maps the block's
    linear layers (q, k, v, o, fc1, fc2) to their parameter prefixes."""
    x = v["x"]
    batch, seq, d = x.shape
    a = F.layer_norm(x, (d,), v["ln1.weight"], v["ln1.bias"], 1e-5)

    def proj(name, t):
        return F.linear(t, v[linear(name) + ".weight"], v[linear(name) + ".bias"])

    def split(t):
        return t.reshape(batch, seq, heads, d // heads).permute(0, 2, 1, 3)
    q, k, vv = (split(proj(n, a)) for n in ("q", "k", "v"))
    scale = (d // heads) ** -0.5
    probs = torch.softmax(torch.matmul(q, k.transpose(-1, -2)) * scale, -1)
    ctx = torch.matmul(probs, vv).permute(0, 2, 1, 3).reshape(batch, seq, d)
    h = x + proj("o", ctx)
    b = F.layer_norm(h, (d,), v["ln2.weight"], v["ln2.bias"], 1e-5)
    m = proj("fc2", F.gelu(proj("fc1", b), approximate="tanh"))
    return F.mse_loss(h + m, v["target"])


def linear_params(prefix, out, inp):
    return [p(prefix + ".weight", (out, inp)), p(prefix + ".bias", (out,), -0.1, 0.1)]


TRANSFORMER = Model(
    "transformer",
    params=[("ln1.weight", (8,), "f32", rnd("ln1.weight", (8,), 0.8, 1.2)),
            ("ln1.bias", (8,), "f32", rnd("ln1.bias", (8,), -0.1, 0.1))]
    + linear_params("q", 8, 8) + linear_params("k", 8, 8) + linear_params("v", 8, 8)
    + linear_params("o", 8, 8)
    + [("ln2.weight", (8,), "f32", rnd("ln2.weight", (8,), 0.8, 1.2)),
       ("ln2.bias", (8,), "f32", rnd("ln2.bias", (8,), -0.1, 0.1))]
    + linear_params("fc1", 16, 8) + linear_params("fc2", 8, 16),
    buffers=[],
    inputs=[("x", (2, 4, 8), "f32", rnd("trx", (2, 4, 8), -1.5, 1.5))],
    labels=[("target", (2, 4, 8), "f32", rnd("trtarget", (2, 4, 8), -1.5, 1.5))],
    body="""
      %a, %m1, %r1 = amp.layer_norm %x, %ln1_weight, %ln1_bias {axis = -1 : i64, epsilon = 1.0e-5 : f64}
          : (tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<2x4x8xf32>, tensor<2x4xf32>, tensor<2x4xf32>)
      %q = amp.linear %a, %q_weight, %q_bias : (tensor<2x4x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
      %k = amp.linear %a, %k_weight, %k_bias : (tensor<2x4x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
      %v = amp.linear %a, %v_weight, %v_bias : (tensor<2x4x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
      %q4 = amp.reshape %q : tensor<2x4x8xf32> -> tensor<2x4x2x4xf32>
      %qh = amp.transpose %q4 {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x4x2x4xf32> -> tensor<2x2x4x4xf32>
      %k4 = amp.reshape %k : tensor<2x4x8xf32> -> tensor<2x4x2x4xf32>
      %kh = amp.transpose %k4 {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x4x2x4xf32> -> tensor<2x2x4x4xf32>
      %v4 = amp.reshape %v : tensor<2x4x8xf32> -> tensor<2x4x2x4xf32>
      %vh = amp.transpose %v4 {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x4x2x4xf32> -> tensor<2x2x4x4xf32>
      %scores = amp.matmul %qh, %kh {transpose_rhs} : tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32> -> tensor<2x2x4x4xf32>
      %scale = amp.constant dense<5.000000e-01> : tensor<f32>
      %scale_b = amp.broadcast %scale : tensor<f32> -> tensor<2x2x4x4xf32>
      %scaled = amp.mul %scores, %scale_b : tensor<2x2x4x4xf32>
      %probs = amp.softmax %scaled {axis = -1 : i64} : tensor<2x2x4x4xf32>
      %ctx = amp.matmul %probs, %vh : tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32> -> tensor<2x2x4x4xf32>
      %ctx_t = amp.transpose %ctx {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x2x4x4xf32> -> tensor<2x4x2x4xf32>
      %ctx_m = amp.reshape %ctx_t : tensor<2x4x2x4xf32> -> tensor<2x4x8xf32>
      %attn = amp.linear %ctx_m, %o_weight, %o_bias : (tensor<2x4x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
      %h = amp.add %x, %attn : tensor<2x4x8xf32>
      %b, %m2, %r2 = amp.layer_norm %h, %ln2_weight, %ln2_bias {axis = -1 : i64, epsilon = 1.0e-5 : f64}
          : (tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<2x4x8xf32>, tensor<2x4xf32>, tensor<2x4xf32>)
      %f1 = amp.linear %b, %fc1_weight, %fc1_bias : (tensor<2x4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<2x4x16xf32>
      %f2 = amp.gelu %f1 approximate = tanh : tensor<2x4x16xf32>
      %f3 = amp.linear %f2, %fc2_weight, %fc2_bias : (tensor<2x4x16xf32>, tensor<8x16xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
      %y = amp.add %h, %f3 : tensor<2x4x8xf32>
      %loss = amp.mse_loss %y, %target : tensor<2x4x8xf32>
    """,
    results=[("%loss", "tensor<f32>", "loss", "loss")],
    torch_fn=transformer_torch)

MODELS = {"mlp": MLP, "cnn": CNN, "transformer": TRANSFORMER}

# SGD with momentum, Nesterov and weight decay; AdamW with its defaults
# except the learning rate and weight decay.
OPTIMIZERS = {
    "sgd": Optimizer("sgd", "momentum=0.9 nesterov=true weight-decay=0.001", 0.05,
                     momentum=0.9, nesterov=True, weight_decay=0.001),
    "adamw": Optimizer("adamw", "optimizer=adamw weight-decay=0.01", 0.01,
                       weight_decay=0.01),
    # Dampening: PyTorch's first step sets the buffer to the gradient
    # undamped, which the generated step reproduces with its step count.
    "sgd_dampening": Optimizer("sgd", "momentum=0.9 dampening=0.5", 0.05,
                               momentum=0.9, dampening=0.5),
    # Global-norm clipping before the update (torch.nn.utils.clip_grad_norm_).
    "sgd_clip": Optimizer("sgd", "momentum=0.9 max-grad-norm=0.5", 0.05,
                          clip=0.5, momentum=0.9),
}


def test_text(model_name, opt_name):
    model, opt = MODELS[model_name], OPTIMIZERS[opt_name]
    title = (f"20 training steps of the {model_name} model with "
             f"{opt_name} ({opt.options}) against PyTorch's torch.optim.")
    return emit(model, opt, title)


def make_reference(model_name, opt_name):
    def ref(consts):
        return reference(consts, MODELS[model_name], OPTIMIZERS[opt_name])
    return ref


if __name__ == "__main__":
    sys.stdout.write(test_text(sys.argv[1], sys.argv[2]))
