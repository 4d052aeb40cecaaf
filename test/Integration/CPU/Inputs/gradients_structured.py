#!/usr/bin/env python3
"""Gradient checks of contractions, reductions, softmax and data movement
(see gradient_cases.py).

Regenerate the test: python3 gradients_structured.py > ../gradients_structured.mlir
"""

import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gradient_cases import (Case, reference_of, rnd,  # noqa: E402
                            tensor_type as tt, write_test)


def t(x, transpose):
    return x.transpose(-1, -2) if transpose else x


def matmul(name, lhs, rhs, out, tl=False, tr=False):
    flags = [f for f, on in (("transpose_lhs", tl), ("transpose_rhs", tr)) if on]
    attrs = f" {{{', '.join(flags)}}}" if flags else ""
    return Case(name, [("a", lhs, rnd(name + "a", lhs)), ("b", rhs, rnd(name + "b", rhs))],
                f"%c = amp.matmul %a, %b{attrs} : {tt(lhs)}, {tt(rhs)} -> {tt(out)}",
                "%c", out, lambda v: torch.matmul(t(v["a"], tl), t(v["b"], tr)))


def linear(name, x, out_features, bias=True):
    inf = x[-1]
    out = tuple(x[:-1]) + (out_features,)
    params = [("x", x, rnd(name + "x", x)), ("w", (out_features, inf), rnd(name + "w", (out_features, inf)))]
    operands, types = "%x, %w", f"{tt(x)}, {tt((out_features, inf))}"
    if bias:
        params.append(("b", (out_features,), rnd(name + "b", (out_features,))))
        operands += ", %b"
        types += f", {tt((out_features,))}"
    return Case(name, params, f"%y = amp.linear {operands} : ({types}) -> {tt(out)}",
                "%y", out, lambda v: F.linear(v["x"], v["w"], v.get("b")))


def reduce(name, op, shape, axes, keep, fn):
    out = [d for i, d in enumerate(shape) if i not in [a % len(shape) for a in axes]] if not keep \
        else [1 if i in [a % len(shape) for a in axes] else d for i, d in enumerate(shape)]
    attrs = f"axes = array<i64: {', '.join(map(str, axes))}>" + (", keep_dims" if keep else "")
    return Case(name, [("x", shape, rnd(name + "x", shape))],
                f"%y = amp.{op} %x {{{attrs}}} : {tt(shape)} -> {tt(out)}", "%y", out,
                lambda v: fn(v["x"], dim=tuple(axes), keepdim=keep))


# reduce_max: element [0][2][1] ties with [0][0][1] (the maximum over
# axis 1); amax shares the gradient evenly, as do finite differences.
max_x = rnd("maxx", (2, 3, 4))
max_x[0][0][1] = 1.7
max_x[0][2][1] = 1.7

gather_table = (5, 3)
indices = np.array([[4, 0, 2], [2, 2, 1]], dtype=np.int64)

CASES = [
    matmul("matmul", (3, 4), (4, 5), (3, 5)),
    matmul("matmul_tl", (4, 3), (4, 5), (3, 5), tl=True),
    matmul("matmul_tr", (3, 4), (5, 4), (3, 5), tr=True),
    matmul("matmul_tlr", (4, 3), (5, 4), (3, 5), tl=True, tr=True),
    matmul("bmm", (2, 3, 4), (2, 4, 5), (2, 3, 5)),
    matmul("bmm4_tr", (2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 3, 5), tr=True),
    matmul("bmm_shared_rhs", (2, 3, 4), (4, 5), (2, 3, 5)),
    matmul("bmm_shared_rhs_tr", (2, 3, 4), (5, 4), (2, 3, 5), tr=True),
    matmul("bmm_shared_rhs_tl", (2, 4, 3), (4, 5), (2, 3, 5), tl=True),
    matmul("bmm_shared_lhs", (3, 4), (2, 4, 5), (2, 3, 5)),
    matmul("bmm_shared_lhs_tlr", (4, 3), (2, 5, 4), (2, 3, 5), tl=True, tr=True),
    linear("linear", (4, 5), 3),
    linear("linear_3d", (2, 3, 5), 4),
    linear("linear_1d", (5,), 3),
    linear("linear_no_bias", (4, 5), 3, bias=False),
    reduce("reduce_sum", "reduce_sum", (2, 3, 4), [1], False, torch.sum),
    reduce("reduce_sum_keep", "reduce_sum", (2, 3, 4), [0, -1], True, torch.sum),
    reduce("reduce_sum_all", "reduce_sum", (2, 3), [0, 1], False, torch.sum),
    reduce("reduce_mean", "reduce_mean", (2, 3, 4), [-1], False, torch.mean),
    reduce("reduce_mean_keep", "reduce_mean", (2, 3, 4), [0, 2], True, torch.mean),
    Case("reduce_max", [("x", (2, 3, 4), max_x)],
         "%y = amp.reduce_max %x {axes = array<i64: 1>} : tensor<2x3x4xf32> -> tensor<2x4xf32>",
         "%y", (2, 4), lambda v: torch.amax(v["x"], dim=1)),
    reduce("reduce_max_keep", "reduce_max", (2, 3, 4), [0, 2], True, torch.amax),
    Case("softmax", [("x", (2, 5), rnd("softmaxx", (2, 5), -3, 3))],
         "%y = amp.softmax %x {axis = -1 : i64} : tensor<2x5xf32>", "%y", (2, 5),
         lambda v: torch.softmax(v["x"], -1)),
    Case("softmax_axis0", [("x", (3, 4), rnd("softmax0x", (3, 4), -3, 3))],
         "%y = amp.softmax %x {axis = 0 : i64} : tensor<3x4xf32>", "%y", (3, 4),
         lambda v: torch.softmax(v["x"], 0)),
    Case("log_softmax", [("x", (3, 4), rnd("logsoftmaxx", (3, 4), -3, 3))],
         "%y = amp.log_softmax %x {axis = 1 : i64} : tensor<3x4xf32>", "%y", (3, 4),
         lambda v: torch.log_softmax(v["x"], 1)),
    Case("reshape", [("x", (2, 6), rnd("reshapex", (2, 6)))],
         "%y = amp.reshape %x : tensor<2x6xf32> -> tensor<3x4xf32>", "%y", (3, 4),
         lambda v: v["x"].reshape(3, 4)),
    Case("transpose", [("x", (2, 3, 4), rnd("transposex", (2, 3, 4)))],
         "%y = amp.transpose %x {permutation = array<i64: 2, 0, 1>} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>",
         "%y", (4, 2, 3), lambda v: v["x"].permute(2, 0, 1)),
    Case("broadcast", [("x", (3,), rnd("broadcastx", (3,)))],
         "%y = amp.broadcast %x : tensor<3xf32> -> tensor<2x3xf32>", "%y", (2, 3),
         lambda v: v["x"].expand(2, 3)),
    Case("broadcast_expand", [("x", (2, 1, 4), rnd("broadcastex", (2, 1, 4)))],
         "%y = amp.broadcast %x : tensor<2x1x4xf32> -> tensor<3x2x5x4xf32>", "%y", (3, 2, 5, 4),
         lambda v: v["x"].expand(3, 2, 5, 4)),
    Case("broadcast_scalar", [("x", (), np.array(0.75))],
         "%y = amp.broadcast %x : tensor<f32> -> tensor<2x3xf32>", "%y", (2, 3),
         lambda v: v["x"].expand(2, 3)),
    Case("slice", [("x", (5, 6), rnd("slicex", (5, 6)))],
         "%y = amp.slice %x {starts = array<i64: 1, 0>, limits = array<i64: 5, 6>, "
         "strides = array<i64: 2, 3>} : tensor<5x6xf32> -> tensor<2x2xf32>",
         "%y", (2, 2), lambda v: v["x"][1:5:2, 0:6:3]),
    # A fused projection split in three (q, k, v): the three slice
    # gradients become one concatenation (amp-autodiff), in slice order.
    Case("slice_three", [("x", (2, 9), rnd("slice3x", (2, 9)))],
         "%a = amp.slice %x {starts = array<i64: 0, 0>, limits = array<i64: 2, 3>, "
         "strides = array<i64: 1, 1>} : tensor<2x9xf32> -> tensor<2x3xf32>\n"
         "  %b = amp.slice %x {starts = array<i64: 0, 3>, limits = array<i64: 2, 6>, "
         "strides = array<i64: 1, 1>} : tensor<2x9xf32> -> tensor<2x3xf32>\n"
         "  %c = amp.slice %x {starts = array<i64: 0, 6>, limits = array<i64: 2, 9>, "
         "strides = array<i64: 1, 1>} : tensor<2x9xf32> -> tensor<2x3xf32>\n"
         "  %ab = amp.mul %a, %b : tensor<2x3xf32>\n"
         "  %y = amp.sub %ab, %c : tensor<2x3xf32>",
         "%y", (2, 3),
         lambda v: v["x"][:, 0:3] * v["x"][:, 3:6] - v["x"][:, 6:9]),
    Case("concat", [("x", (2, 3), rnd("concatx", (2, 3))), ("y", (2, 2), rnd("concaty", (2, 2)))],
         "%z = amp.concat %x, %y {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x2xf32>) -> tensor<2x5xf32>",
         "%z", (2, 5), lambda v: torch.cat([v["x"], v["y"]], 1)),
    # Repeated indices: the table gradient accumulates.
    Case("gather", [("table", gather_table, rnd("gathert", gather_table))],
         "%y = amp.gather %table, %ids {axis = 0 : i64} : (tensor<5x3xf32>, tensor<2x3xi64>) -> tensor<2x3x3xf32>",
         "%y", (2, 3, 3), lambda v: v["table"][v["ids"]],
         inputs=[("ids", (2, 3), "i64", indices)]),
    Case("gather_axis1", [("table", (2, 4), rnd("gather1t", (2, 4)))],
         "%y = amp.gather %table, %ids {axis = 1 : i64} : (tensor<2x4xf32>, tensor<3xi64>) -> tensor<2x3xf32>",
         "%y", (2, 3), lambda v: v["table"][:, v["ids"]],
         inputs=[("ids", (3,), "i64", np.array([3, 0, 3], dtype=np.int64))]),
]


reference = reference_of(CASES)

if __name__ == "__main__":
    write_test(CASES,
               "Gradients of contractions, reductions, softmax and data movement, "
               "executed on the CPU and checked against PyTorch autograd and finite "
               "differences.")
