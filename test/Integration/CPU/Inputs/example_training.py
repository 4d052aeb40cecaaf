#!/usr/bin/env python3
"""20 training steps of the bundled examples themselves
(examples/mlp_forward.mlir, examples/cnn.mlir, examples/transformer_block.mlir)
with the steps --amp-autodiff generates, against PyTorch 1.13's optimizers:
test generator and reference in one place.

The test holds only the driver: autodiff_harness.py --model prepends the
example file, unchanged. The driver builds the initial weights and the
data from three literal blocks of 64, 61 and 59 values: each tensor is

    base + scale * (tile(b64)[o1 : o1 + n] + tile(b61)[o2 : o2 + n]
                    + tile(b59)[o3 : o3 + n])        reshaped to its shape

with per-tensor offsets. The periods are coprime, so the values do not
repeat over any of these tensors (a weight matrix built this way has full
rank), and the construction uses only f32 additions and multiplications,
which PyTorch reproduces bit for bit: both sides start from exactly the
same weights and data. Scales are powers of two near PyTorch's default
initialization (1 / sqrt(fan_in)); norm weights start near 1, biases near
0, running statistics at PyTorch's 0 and 1.

The test prints the 20 losses, the final parameters and the buffers. The
reference runs torch.nn.functional and torch.optim in float64; the
tolerances are those of training_cases.py (`expectations`: 3e-5 times
each tensor's largest magnitude plus eight times the widest deviation of
PyTorch float32 runs, its own and from starts one ulp away).

Regenerate a test: python3 example_training.py MODEL OPTIMIZER >
    ../gradients_train_example_MODEL_OPTIMIZER.mlir
"""

import math
import os
import re
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gradient_cases import (format_values, tensor_type as tt,  # noqa: E402
                            test_preamble)
from training_cases import (OPTIMIZERS, STEPS, cnn_torch,  # noqa: E402
                            expectations, rnd, ssa, transformer_torch)

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "..", "..", "..", "..", "examples")
PERIODS = (64, 61, 59)
ARG = re.compile(r"%(\w+): tensor<([^>]*)> \{amp\.role = #amp\.role<(\w+)>, "
                 r"amp\.name = \"([^\"]+)\"\}")


def parse_shape(text):
    *dims, element = text.split("x")
    return tuple(int(d) for d in dims), element


class Example:
    def __init__(self, name, file, function, torch_fn, loss_option="none",
                 labels=None):
        self.name, self.file, self.function = name, file, function
        self.torch_fn, self.loss_option = torch_fn, loss_option
        self.labels_values = labels
        with open(os.path.join(EXAMPLES, file)) as f:
            header = f.read().split("attributes")[0]
        self.args = [(ssa_name, *parse_shape(t), role, n)
                     for ssa_name, t, role, n in ARG.findall(header)]

    def group(self, role):
        return [(n, s, e) for _, s, e, r, n in self.args if r == role]


def init_spec(name, shape, index):
    """(base, scale, offsets) of a generated tensor."""
    fan_in = math.prod(shape[1:]) if len(shape) > 1 else 1
    if name.endswith("running_mean"):
        return 0.0, 0.0, None
    if name.endswith("running_var"):
        return 1.0, 0.0, None
    if len(shape) == 1 and name.endswith("weight"):   # norm scales
        base, scale = 1.0, 0.0625
    elif name.endswith("bias"):
        base, scale = 0.0, 0.0625
    elif len(shape) >= 2 and "." in name:             # weight matrices
        base, scale = 0.0, 2.0 ** round(math.log2(0.5 / math.sqrt(fan_in)))
    else:                                             # data
        base, scale = 0.0, 1.0
    offsets = tuple((index * m + 3) % p for m, p in zip((7, 13, 29), PERIODS))
    return base, scale, offsets


def init_mlir(name, shape, index):
    base, scale, offsets = init_spec(name, shape, index)
    v = ssa(name)
    if offsets is None:
        return [f"%{v} = amp.constant dense<{base:.1f}> : {tt(shape)}"]
    n = math.prod(shape)
    flat = tt((n,))
    lines, parts = [], []
    for p, off in zip(PERIODS, offsets):
        k = -(-(n + off) // p)
        lines += [f"%{v}_t{p} = amp.broadcast %block{p} : {tt((p,))} -> {tt((k, p))}",
                  f"%{v}_f{p} = amp.reshape %{v}_t{p} : {tt((k, p))} -> {tt((k * p,))}",
                  f"%{v}_s{p} = amp.slice %{v}_f{p} {{starts = array<i64: {off}>, "
                  f"limits = array<i64: {off + n}>, strides = array<i64: 1>}} : "
                  f"{tt((k * p,))} -> {flat}"]
        parts.append(f"%{v}_s{p}")
    lines += [f"%{v}_a = amp.add {parts[0]}, {parts[1]} : {flat}",
              f"%{v}_b = amp.add %{v}_a, {parts[2]} : {flat}",
              f"%{v}_scale = amp.constant dense<{scale!r}> : {flat}",
              f"%{v}_c = amp.mul %{v}_b, %{v}_scale : {flat}"]
    last = f"%{v}_c"
    if base:
        lines += [f"%{v}_base = amp.constant dense<{base!r}> : {flat}",
                  f"%{v}_d = amp.add %{v}_c, %{v}_base : {flat}"]
        last = f"%{v}_d"
    lines.append(f"%{v} = amp.reshape {last} : {flat} -> {tt(shape)}")
    return lines


def init_torch(consts, name, shape, index):
    base, scale, offsets = init_spec(name, shape, index)
    if offsets is None:
        return torch.full(shape, base, dtype=torch.float32)
    n = math.prod(shape)
    total = None
    for p, off in zip(PERIODS, offsets):
        block = consts[f"block{p}"]
        k = -(-(n + off) // p)
        part = block.repeat(k)[off:off + n]
        total = part if total is None else total + part   # f32, same order
    value = total * torch.tensor(scale, dtype=torch.float32)
    if base:
        value = value + torch.tensor(base, dtype=torch.float32)
    return value.reshape(shape)


def emit(example, opt_name):
    opt = OPTIMIZERS[opt_name]
    params = example.group("parameter")
    buffers = example.group("buffer")
    inputs = example.group("input")
    labels = example.group("label")
    options = opt.options
    if example.loss_option != "none":
        options += f" loss={example.loss_option}"
        labels = labels + [("labels", (len(example.labels_values),), "i64")]
    state = [(n, s, e) for n, s, e in opt.state([(n, s, e, None) for n, s, e in params])]
    args = params + buffers + state + inputs + labels + [("lr", (), "f32")]
    carried = params + buffers + state
    arg_types = [tt(s, e) for _, s, e in args]
    result_types = [tt(s, e) for _, s, e in carried] + ["tensor<f32>"]
    printed = [("losses", f"tensor<{STEPS}xf32>")]
    printed += [(n, tt(s, e)) for n, s, e in params + buffers]

    lines = test_preamble(
        [f"20 training steps of {example.file} itself with {opt_name} "
         f"({opt.options})",
         "against PyTorch's torch.optim. Generated by "
         "Inputs/example_training.py (see",
         "there for the initialization, the method and the tolerances); the "
         "reference",
         "is Inputs/<this test's name>.py. The harness prepends the example "
         "to this",
         "driver."],
        options, [n for n, _ in printed], model=example.file)
    lines += ["// Generated by --amp-autodiff from the example.",
              f"func.func private @{example.function}_train_step({', '.join(arg_types)})",
              f"    -> ({', '.join(result_types)})", "",
              "func.func @main() {"]
    for p in PERIODS:
        lines.append(f"  %block{p} = amp.constant dense<{format_values(rnd(f'block{p}', (p,)))}> "
                     f": {tt((p,))}")
    lines.append(f"  %lr = amp.constant dense<{opt.lr}> : tensor<f32>")
    for index, (n, s, e) in enumerate(params + buffers + inputs + labels):
        if e == "i64":
            values = example.labels_values
            lines.append(f"  %{ssa(n)} = amp.constant dense<{format_values(values)}> : {tt(s, e)}")
        else:
            lines += ["  " + l for l in init_mlir(n, s, index)]
    for n, s, e in state:
        zero = "0" if e == "i64" else "0.0"
        lines.append(f"  %{ssa(n)} = amp.constant dense<{zero}> : {tt(s, e)}")
    current = {n: f"%{ssa(n)}" for n, _, _ in carried}
    losses = []
    for step in range(STEPS):
        call_args = [current.get(n, f"%{ssa(n)}") for n, _, _ in args]
        lines.append(f"  %s{step}:{len(result_types)} = func.call "
                     f"@{example.function}_train_step({', '.join(call_args)})")
        lines.append(f"      : ({', '.join(arg_types)}) -> ({', '.join(result_types)})")
        for i, (n, _, _) in enumerate(carried):
            current[n] = f"%s{step}#{i}"
        lines.append(f"  %l{step} = amp.reshape %s{step}#{len(carried)} : "
                     "tensor<f32> -> tensor<1xf32>")
        losses.append(f"%l{step}")
    lines.append(f"  %losses = amp.concat {', '.join(losses)} {{axis = 0 : i64}} : "
                 f"({', '.join(['tensor<1xf32>'] * STEPS)}) -> tensor<{STEPS}xf32>")
    current["losses"] = "%losses"
    for i, (n, t) in enumerate(printed):
        lines.append(f"  %print{i} = tensor.cast {current[n]} : {t} to tensor<*xf32>")
        lines.append(f"  call @printMemrefF32(%print{i}) : (tensor<*xf32>) -> ()")
    lines += ["  return", "}"]
    return "\n".join(lines) + "\n"


def reference(consts, example, opt_name):
    opt = OPTIMIZERS[opt_name]
    params = example.group("parameter")
    buffers = example.group("buffer")
    inputs = example.group("input")
    labels = example.group("label")
    initial = {}
    for index, (n, s, e) in enumerate(params + buffers + inputs + labels):
        initial[n] = (consts[ssa(n)] if e == "i64"
                      else init_torch(consts, n, s, index))
    if example.loss_option == "cross_entropy":
        initial["labels"] = consts["labels"]
    trainable = [n for n, _, _ in params]
    names = ["losses"] + trainable + [n for n, _, _ in buffers]
    return expectations(names, initial, trainable, example.torch_fn, opt,
                        float(consts["lr"]))


# --- The examples' PyTorch twins ---------------------------------------------

def mlp_torch(v):
    h0 = F.layer_norm(v["x"], v["ln.weight"].shape, v["ln.weight"], v["ln.bias"], 1e-5)
    h2 = F.gelu(F.linear(h0, v["fc1.weight"], v["fc1.bias"]))
    return F.cross_entropy(F.linear(h2, v["fc2.weight"], v["fc2.bias"]), v["labels"])


# The names examples/transformer_block.mlir gives the block's linear layers.
EXAMPLE_LINEARS = {"q": "attn.q_proj", "k": "attn.k_proj", "v": "attn.v_proj",
                   "o": "attn.out_proj", "fc1": "mlp.fc1", "fc2": "mlp.fc2"}


EXAMPLE_MODELS = {
    "mlp": Example("mlp", "mlp_forward.mlir", "mlp", mlp_torch, "cross_entropy",
                   labels=np.array([i * 7 % 10 for i in range(32)], dtype=np.int64)),
    "cnn": Example("cnn", "cnn.mlir", "cnn",
                   lambda v: cnn_torch(v, groups=8),
                   labels=np.array([3, 1, 4, 1, 5, 9, 2, 6], dtype=np.int64)),
    "transformer": Example("transformer", "transformer_block.mlir",
                           "transformer_block",
                           lambda v: transformer_torch(
                               v, heads=4, linear=EXAMPLE_LINEARS.get)),
}


def make_reference(model, opt_name):
    def ref(consts):
        return reference(consts, EXAMPLE_MODELS[model], opt_name)
    return ref


if __name__ == "__main__":
    sys.stdout.write(emit(EXAMPLE_MODELS[sys.argv[1]], sys.argv[2]))
