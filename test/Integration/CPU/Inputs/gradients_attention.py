#!/usr/bin/env python3
"""Gradient checks of amp.attention (see gradient_cases.py): the CPU
lowering (convert-amp-attention-to-runtime: the runtime's flash kernel,
lib/Runtime/CPUAttention.cpp) against PyTorch autograd in float64 and
finite differences, for the forms the op takes: causal with more queries
than keys and fewer, grouped-query heads, a value head dimension unlike the
query's, a boolean keep mask broadcast over heads with a row that hides
every key (its output and gradients are 0), and an additive mask broadcast
over the batch.

The reference is the definition in include/amp/Runtime/Attention.h written
with PyTorch 1.13 ops (which has no scaled_dot_product_attention):
softmax(scale q k^T + mask) v with hidden keys at -inf and a hidden row
giving 0. Tolerances: the flash kernel sums a row's exponentials over key
tiles with an online maximum and products of at most 16 terms, so each
element is a chain as short as the other contraction cases' (C = 64 u).

The test runs twice: through the flash kernel, and through the unfused amp
ops the GPU falls back to (convert-amp-attention-to-runtime=decompose).

Regenerate the test: python3 gradients_attention.py > ../gradients_attention.mlir
"""

import math
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gradient_cases import (Case, emit, reference_of, rnd,  # noqa: E402
                            tensor_type as tt)


def attention(q, k, v, scale, causal=False, keep=None, add=None):
    """Attention.h's definition in float64 autograd ops."""
    group = q.shape[1] // k.shape[1]
    k = k.repeat_interleave(group, dim=1)
    v = v.repeat_interleave(group, dim=1)
    s = scale * q @ k.transpose(-1, -2)
    if add is not None:
        s = s + add
    hidden = torch.zeros(s.shape, dtype=torch.bool)
    if keep is not None:
        hidden = hidden | ~keep.bool()
    if causal:
        rows, cols = s.shape[-2:]
        hidden = hidden | torch.ones(rows, cols).triu(1).bool()
    s = s.masked_fill(hidden, -math.inf)
    m = s.amax(-1, keepdim=True)
    m = torch.where(torch.isinf(m), torch.zeros_like(m), m).detach()
    e = torch.exp(s - m)
    total = e.sum(-1, keepdim=True)
    p = e / torch.where(total == 0, torch.ones_like(total), total)
    return p @ v


def case(name, q, k, v, scale, causal=False, mask=None, inputs=(),
         torch_mask=None):
    """A Case of amp.attention over parameters q, k, v ([B, H, S, D])."""
    out = (q[0], q[1], q[2], v[3])
    operands = "%q, %k, %v" + (f" mask {mask[0]}" if mask else "")
    types = ", ".join(tt(s) for s in (q, k, v)) + (f", {mask[1]}" if mask else "")
    attrs = f"scale = {scale!r} : f64" + (", causal" if causal else "")
    body = (f"%o, %lse = amp.attention {operands} {{{attrs}}} : ({types}) -> "
            f"({tt(out)}, {tt(out[:-1])})")
    params = [(n, s, rnd(name + n, s)) for n, s in (("q", q), ("k", k), ("v", v))]

    def fn(values):
        extra = torch_mask(values) if torch_mask else {}
        return attention(values["q"], values["k"], values["v"], scale,
                         causal, **extra)
    return Case(name, params, body, "%o", out, fn, inputs=inputs)


keep = np.array(np.random.RandomState(7).rand(2, 1, 5, 7) > 0.3)
keep[1, 0, 2, :] = False  # a row with every key hidden
add = rnd("additive", (1, 2, 5, 7), low=-2.0, high=1.0)

CASES = [
    case("plain", (1, 2, 5, 8), (1, 2, 5, 8), (1, 2, 5, 8), 0.35),
    case("causal_longer_queries", (1, 1, 6, 4), (1, 1, 4, 4), (1, 1, 4, 4),
         0.5, causal=True),
    case("causal_longer_keys", (2, 1, 3, 4), (2, 1, 5, 4), (2, 1, 5, 4),
         0.5, causal=True),
    case("grouped_heads", (1, 4, 4, 16), (1, 2, 6, 16), (1, 2, 6, 16), 0.25),
    case("value_dim", (1, 2, 4, 8), (1, 2, 5, 8), (1, 2, 5, 3), 0.35,
         causal=True),
    case("keep_mask", (2, 2, 5, 4), (2, 2, 7, 4), (2, 2, 7, 4), 0.5,
         mask=("%keep", tt((2, 1, 5, 7), "i1")),
         inputs=[("keep", (2, 1, 5, 7), "i1", keep)],
         torch_mask=lambda v: {"keep": v["keep"]}),
    case("additive_mask", (2, 2, 5, 4), (2, 2, 7, 4), (2, 2, 7, 4), 0.5,
         mask=("%add", tt((1, 2, 5, 7))),
         inputs=[("add", (1, 2, 5, 7), "f32", add)],
         torch_mask=lambda v: {"add": v["add"].double()}),
]

reference = reference_of(CASES)

DECOMPOSED = ("// RUN: %python %S/Inputs/autodiff_harness.py %s "
              "--autodiff=\"optimizer=none\" \\\n"
              "// RUN:   --passes=--convert-amp-attention-to-runtime=decompose=true "
              "\\\n"
              "// RUN:   --opt amp-opt --shared-libs=%mlir_runner_utils,"
              "%mlir_c_runner_utils | FileCheck %s\n")

if __name__ == "__main__":
    text = emit(CASES,
                "Gradients of amp.attention (the CPU flash kernel and the "
                "unfused amp ops), executed on the CPU and checked against "
                "PyTorch autograd and finite differences.", "optimizer=none")
    first_check = text.index("// CHECK:")
    sys.stdout.write(text[:first_check] + DECOMPOSED + "\n" +
                     text[first_check:])
