#!/usr/bin/env python3
"""Gradient checks of the amp ops' backward rules: test generator and the
PyTorch reference in one place.

Each Case is a tiny forward model around one op (or one form of an op):
its operands are parameters, and its loss is sum(op(...) * r) for a random
`r` of the op's output shape, so that the gradient flowing into the op is
not uniform. `--amp-autodiff=optimizer=none` turns each model @NAME into
@NAME_grad, which returns the updated buffers, the loss and one gradient
per parameter; the test's @main calls it on the constants this module wrote
and prints those tensors.

The reference (`expectations`) recomputes the model in float64 with
PyTorch 1.13 and returns, per printed tensor, the expected value:

  - the loss and the buffers from the float64 forward;
  - each gradient from torch.autograd in float64, after checking that
    autograd agrees with central finite differences of the float64 forward
    (step h = 1e-6 max(1, |x|): truncation error O(h^2) and rounding error
    O(eps / h), both below 1e-9 relative here; a disagreement beyond
    1e-6 (1 + max |grad|) fails the test). So every gradient the compiler
    computes is checked against finite differences and against autograd.

Tolerances. The compiler computes in f32 (unit roundoff u = 2^-24). A
gradient element is a short chain of f32 operations (at most a handful of
elementwise ops and one or two sums of at most 100 terms here), so its
error is bounded by about (depth + log-free sum length) u relative to the
magnitudes involved; cancellation in sums makes the bound relative to the
largest term rather than the result. We therefore allow
    atol = C u max|expected|,  rtol = C u
per tensor, with C = 64 by default (each case's terms and depth are well
below 64) and larger where a case cancels more (normalizations: the input
gradient subtracts two means of products, so C = 256) or rounds through
f16 (the cast case is compared with PyTorch computing in the same f16
precision: half an f16 ulp per rounding). The harness adds the printout's
own quantization (six significant digits).

Regenerate a test with
    python3 gradients_SUITE.py > ../gradients_SUITE.mlir
(each Inputs/gradients_SUITE.py defines CASES and is the test's reference).
"""

import sys
import zlib

import numpy as np
import torch

U = 2.0 ** -24


def tensor_type(shape, element="f32"):
    return "tensor<" + "".join(f"{d}x" for d in shape) + element + ">"


class Case:
    """A forward model around one op.

    params:  [(name, shape, values)]      trainable, get gradients
    buffers: [(name, shape, values)]      threaded state (batch norm)
    inputs:  [(name, shape, element, values)]   data (labels, masks, ...)
    body:    MLIR lines using %name for each of the above; defines `out`
    out:     the SSA value of the op's result, of shape out_shape
    buffer_outs: SSA values returned as the updated buffers
    torch_fn(v) -> out or (out, [buffer outs]), v: name -> tensor
    """

    def __init__(self, name, params, body, out, out_shape, torch_fn,
                 buffers=(), inputs=(), buffer_outs=(), tol=64,
                 finite_differences=True, dtype=torch.float64, ulp=None):
        self.name, self.params, self.body = name, list(params), body
        self.out, self.out_shape, self.torch_fn = out, tuple(out_shape), torch_fn
        self.buffers, self.inputs = list(buffers), list(inputs)
        self.buffer_outs = list(buffer_outs)
        self.tol, self.fd, self.dtype, self.ulp = tol, finite_differences, dtype, ulp

    # --- MLIR -------------------------------------------------------------

    def constants(self):
        """(ssa name, type, values) of every constant @main defines."""
        items = [(n, tensor_type(s), v) for n, s, v in self.params]
        items += [(n, tensor_type(s), v) for n, s, v in self.buffers]
        items += [(n, tensor_type(s, e), v) for n, s, e, v in self.inputs]
        items.append(("r", tensor_type(self.out_shape), self.r_values()))
        return items

    def r_values(self):
        rng = np.random.default_rng(zlib.crc32(("r" + self.name).encode()))
        return np.round(rng.uniform(-1, 1, self.out_shape), 3)

    def forward_mlir(self):
        args = []
        for n, s, _ in self.params:
            args.append(f"%{n}: {tensor_type(s)} {{amp.role = #amp.role<parameter>, amp.name = \"{n}\"}}")
        for n, s, _ in self.buffers:
            args.append(f"%{n}: {tensor_type(s)} {{amp.role = #amp.role<buffer>, amp.name = \"{n}\"}}")
        for n, s, e, _ in self.inputs:
            args.append(f"%{n}: {tensor_type(s, e)} {{amp.role = #amp.role<input>, amp.name = \"{n}\"}}")
        out_type = tensor_type(self.out_shape)
        args.append(f"%r: {out_type} {{amp.role = #amp.role<input>, amp.name = \"r\"}}")
        results = ["tensor<f32> {amp.role = #amp.role<loss>, amp.name = \"loss\"}"]
        for (n, s, _), _ in zip(self.buffers, self.buffer_outs):
            results.append(f"{tensor_type(s)} {{amp.role = #amp.role<buffer>, amp.name = \"{n}\"}}")
        lines = [f"func.func @{self.name}("]
        lines.append(",\n".join("    " + a for a in args) + ")")
        lines.append("    -> (" + ", ".join(results) + ")")
        lines.append("    attributes {amp.graph = #amp.graph<forward>} {")
        for line in self.body.strip().splitlines():
            lines.append("  " + line.strip())
        if self.out_shape:
            axes = ", ".join(str(i) for i in range(len(self.out_shape)))
            lines.append(f"  %weighted = amp.mul {self.out}, %r : {out_type}")
            lines.append(f"  %loss = amp.reduce_sum %weighted {{axes = array<i64: {axes}>}} : {out_type} -> tensor<f32>")
        else:
            lines.append(f"  %loss = amp.mul {self.out}, %r : tensor<f32>")
        returned = ["%loss"] + self.buffer_outs
        types = ["tensor<f32>"] + [tensor_type(s) for _, s, _ in self.buffers][:len(self.buffer_outs)]
        lines.append(f"  return {', '.join(returned)} : {', '.join(types)}")
        lines.append("}")
        return "\n".join(lines)

    def grad_signature(self):
        arg_types = [t for _, t, _ in self.constants()]
        result_types = [tensor_type(s) for _, s, _ in self.buffers]
        result_types.append("tensor<f32>")
        result_types += [tensor_type(s) for _, s, _ in self.params]
        return arg_types, result_types

    def declaration(self):
        args, results = self.grad_signature()
        return (f"func.func private @{self.name}_grad({', '.join(args)})\n"
                f"    -> ({', '.join(results)})")

    def main_lines(self):
        lines = []
        for n, t, v in self.constants():
            lines.append(f"%{self.name}_{n} = amp.constant dense<{format_values(v)}> : {t}")
        args, results = self.grad_signature()
        operands = ", ".join(f"%{self.name}_{n}" for n, _, _ in self.constants())
        lines.append(f"%{self.name}_res:{len(results)} = call @{self.name}_grad({operands})")
        lines.append(f"    : ({', '.join(args)}) -> ({', '.join(results)})")
        for i, t in enumerate(results):
            lines.append(f"%{self.name}_p{i} = tensor.cast %{self.name}_res#{i} : {t} to tensor<*xf32>")
            lines.append(f"call @printMemrefF32(%{self.name}_p{i}) : (tensor<*xf32>) -> ()")
        return lines

    # --- Reference ----------------------------------------------------------

    def expectations(self, consts):
        def get(n):
            return consts[f"{self.name}_{n}"]

        def wide(t):
            return t.to(self.dtype) if t.is_floating_point() else t

        params = [wide(get(n)).clone().requires_grad_() for n, _, _ in self.params]
        fixed = {n: wide(get(n)) for n, _, _ in self.buffers}
        fixed.update({n: wide(get(n)) for n, _, _, _ in self.inputs})
        r = wide(get("r"))

        buffer_names = {n for n, _, _ in self.buffers}

        def evaluate(values):
            # Buffers are cloned: PyTorch's batch norm updates them in place.
            env = {n: (v.clone() if n in buffer_names else v)
                   for n, v in fixed.items()}
            env.update({n: v for (n, _, _), v in zip(self.params, values)})
            result = self.torch_fn(env)
            out, buffers = result if isinstance(result, tuple) else (result, [])
            terms = out * r
            return terms.sum(), buffers, float(terms.detach().abs().sum())

        loss, buffers, loss_magnitude = evaluate(params)
        grads = torch.autograd.grad(loss, params, allow_unused=True)
        grads = [torch.zeros_like(p) if g is None else g
                 for p, g in zip(params, grads)]
        if self.fd:
            self.check_finite_differences(evaluate, params, grads)

        out = []
        for (n, _, _), value in zip(self.buffers, buffers):
            out.append((f"{self.name} {n}", value.detach(),
                        self.tolerance(value)))
        # The loss is a sum: its error is relative to the sum of |terms|.
        out.append((f"{self.name} loss", loss.detach(),
                    self.tolerance(loss, loss_magnitude)))
        for (n, _, _), g in zip(self.params, grads):
            out.append((f"{self.name} d{n}", g.detach(), self.tolerance(g)))
        return out

    def tolerance(self, expected, scale=None):
        if scale is None:
            scale = float(expected.detach().abs().max())
        if self.ulp is not None:
            return {"ulp": self.ulp, "ulp_type": torch.float16,
                    "atol": 1e-6 * scale}
        return {"atol": self.tol * U * scale, "rtol": self.tol * U}

    def check_finite_differences(self, evaluate, params, grads):
        with torch.no_grad():
            for index, (p, g) in enumerate(zip(params, grads)):
                flat = p.detach().clone().reshape(-1)
                fd = torch.zeros_like(flat)
                for i in range(flat.numel()):
                    h = 1e-6 * max(1.0, abs(float(flat[i])))
                    values = [q.detach() for q in params]
                    plus, minus = flat.clone(), flat.clone()
                    plus[i] += h
                    minus[i] -= h
                    values[index] = plus.reshape(p.shape)
                    up = evaluate(values)[0]
                    values[index] = minus.reshape(p.shape)
                    down = evaluate(values)[0]
                    fd[i] = (up - down) / (2 * h)
                error = float((fd - g.reshape(-1)).abs().max())
                bound = 1e-6 * (1 + float(g.abs().max()))
                if not error <= bound:
                    raise AssertionError(
                        f"{self.name}: autograd and finite differences "
                        f"disagree for d{self.params[index][0]} "
                        f"(max |diff| {error:.3g} > {bound:.3g})")


def format_values(values):
    array = np.asarray(values)
    if array.dtype == bool:
        text = repr(array.tolist())
        return text.replace("True", "true").replace("False", "false")
    if np.issubdtype(array.dtype, np.integer):
        return repr(array.tolist())
    def fmt(x):
        text = f"{float(x):.4g}"
        return text if any(c in text for c in ".einf") else text + ".0"
    def rec(a):
        if a.ndim == 0:
            return fmt(a)
        return "[" + ", ".join(rec(x) for x in a) + "]"
    return rec(array)


def test_preamble(comment, options, labels, model=None):
    """The opening of a generated autodiff test: the `comment` lines, the RUN
    lines with --amp-autodiff=`options` (and --model examples/`model`), a
    CHECK line per printed tensor (`labels`) and the declaration of
    printMemrefF32."""
    lines = [f"// {line}" for line in comment] + [
        "",
        "// RUN: %python %S/Inputs/autodiff_harness.py %s "
        f"--autodiff=\"{options}\" \\"]
    if model:
        lines.append(f"// RUN:   --model %amp_src_root/examples/{model} \\")
    lines += ["// RUN:   --opt amp-opt --shared-libs=%mlir_runner_utils,"
              "%mlir_c_runner_utils | FileCheck %s",
              ""]
    for index, label in enumerate(labels):
        prefix = "CHECK" if index == 0 else "CHECK-NEXT"
        lines.append(f"// {prefix}: PASS tensor {index} ({label}) ")
    return lines + [f"// CHECK-NEXT: ALL {len(labels)} TENSORS PASS",
                    "// CHECK-NOT: FAIL", "",
                    "func.func private @printMemrefF32(tensor<*xf32>)", ""]


def emit(cases, title, options):
    """The test file for `cases`."""
    labels = []
    for case in cases:
        labels += [f"{case.name} {n}" for n, _, _ in case.buffers]
        labels.append(f"{case.name} loss")
        labels += [f"{case.name} d{n}" for n, _, _ in case.params]
    lines = test_preamble(
        [title,
         "Generated by Inputs/gradient_cases.py (see there for the method and "
         "the",
         "tolerances); the reference is Inputs/<this test's name>.py."],
        options, labels)
    for case in cases:
        lines.append(case.forward_mlir())
        lines.append(case.declaration())
        lines.append("")
    lines.append("func.func @main() {")
    for case in cases:
        for line in case.main_lines():
            lines.append("  " + line)
    lines.append("  return")
    lines.append("}")
    return "\n".join(lines) + "\n"


def reference_of(cases):
    """The `reference(consts)` of the test generated from `cases`."""
    def reference(consts):
        for case in cases:
            yield from case.expectations(consts)
    return reference


def write_test(cases, title):
    """Writes the test of `cases` (run without an optimizer) to stdout."""
    sys.stdout.write(emit(cases, title, "optimizer=none"))


# --- Values ------------------------------------------------------------------

def rnd(name, shape, low=-1.5, high=1.5, decimals=3):
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    return np.round(rng.uniform(low, high, shape), decimals)


def away_from(values, points, margin=0.05):
    """Moves values that lie within `margin` of a kink away from it."""
    out = np.array(values, dtype=np.float64)
    for p in points:
        close = np.abs(out - p) < margin
        out[close] = p + np.where(out[close] >= p, margin, -margin) * 2
    return out
