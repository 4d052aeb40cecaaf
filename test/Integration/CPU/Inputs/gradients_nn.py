#!/usr/bin/env python3
"""Gradient checks of convolution, normalization, pooling and the losses
(see gradient_cases.py).

Regenerate the test: python3 gradients_nn.py > ../gradients_nn.mlir
"""

import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gradient_cases import (Case, reference_of, rnd,  # noqa: E402
                            tensor_type as tt, write_test)

# Normalizations subtract means of products in the input gradient: allow
# more cancellation (see gradient_cases.py).
NORM_TOL = 256


def conv(name, x, w, out, stride=(1, 1), padding=(0, 0, 0, 0),
         dilation=(1, 1), groups=1, bias=True):
    params = [("x", x, rnd(name + "x", x)), ("w", w, rnd(name + "w", w, -0.8, 0.8))]
    operands, types = "%x, %w", f"{tt(x)}, {tt(w)}"
    if bias:
        params.append(("b", (w[0],), rnd(name + "b", (w[0],))))
        operands += ", %b"
        types += f", {tt((w[0],))}"
    attrs = (f"stride = array<i64: {stride[0]}, {stride[1]}>, "
             f"padding = array<i64: {', '.join(map(str, padding))}>, "
             f"dilation = array<i64: {dilation[0]}, {dilation[1]}>, "
             f"groups = {groups} : i64")
    top, left, bottom, right = padding

    def fn(v):
        padded = F.pad(v["x"], (left, right, top, bottom))
        return F.conv2d(padded, v["w"], v.get("b"), stride, 0, dilation, groups)
    return Case(name, params,
                f"%y = amp.conv2d {operands} {{{attrs}}} : ({types}) -> {tt(out)}",
                "%y", out, fn)


def pool(name, op, x, out, kernel, stride, padding=0, exclude=False):
    attrs = (f"kernel_size = array<i64: {kernel}, {kernel}>, "
             f"stride = array<i64: {stride}, {stride}>, "
             f"padding = array<i64: {padding}, {padding}, {padding}, {padding}>")
    if exclude:
        attrs += ", exclude_padding"
    if op == "max_pool2d":
        def fn(v):
            return F.max_pool2d(v["x"], kernel, stride, padding)
    else:
        def fn(v):
            return F.avg_pool2d(v["x"], kernel, stride, padding,
                                count_include_pad=not exclude)
    return Case(name, [("x", x, rnd(name + "x", x))],
                f"%y = amp.{op} %x {{{attrs}}} : {tt(x)} -> {tt(out)}",
                "%y", out, fn)


def layer_norm(name, x, axis):
    normalized = x[axis:]
    params = [("x", x, rnd(name + "x", x, -2, 2)),
              ("w", normalized, rnd(name + "w", normalized, 0.5, 1.5)),
              ("b", normalized, rnd(name + "b", normalized))]
    stats = x[:axis]
    body = (f"%y, %mean, %rstd = amp.layer_norm %x, %w, %b {{axis = {axis} : i64, epsilon = 1.0e-5 : f64}}"
            f" : ({tt(x)}, {tt(normalized)}, {tt(normalized)}) -> ({tt(x)}, {tt(stats)}, {tt(stats)})")
    return Case(name, params, body, "%y", x,
                lambda v: F.layer_norm(v["x"], normalized, v["w"], v["b"], 1e-5),
                tol=NORM_TOL)


def rms_norm(v):
    x = v["x"]
    rstd = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)
    return x * rstd * v["w"]


def batch_norm(name, training):
    x, c = (4, 3, 2, 2), (3,)
    params = [("x", x, rnd(name + "x", x, -2, 2)),
              ("w", c, rnd(name + "w", c, 0.5, 1.5)),
              ("b", c, rnd(name + "b", c))]
    buffers = [("rm", c, rnd(name + "rm", c, -0.5, 0.5)),
               ("rv", c, rnd(name + "rv", c, 0.5, 2.0))]
    mode = "true" if training else "false"
    body = (f"%y, %sm, %sr, %nm, %nv = amp.batch_norm %x, %w, %b, %rm, %rv "
            f"{{epsilon = 1.0e-5 : f64, momentum = 0.1 : f64, training = {mode}}} "
            f": ({tt(x)}, {tt(c)}, {tt(c)}, {tt(c)}, {tt(c)}) -> "
            f"({tt(x)}, {tt(c)}, {tt(c)}, {tt(c)}, {tt(c)})")

    def fn(v):
        rm, rv = v["rm"], v["rv"]
        y = F.batch_norm(v["x"], rm, rv, v["w"], v["b"], training, 0.1, 1e-5)
        return y, [rm, rv]
    return Case(name, params, body, "%y", x, fn, buffers=buffers,
                buffer_outs=["%nm", "%nv"], tol=NORM_TOL)


CASES = [
    conv("conv2d", (2, 3, 5, 5), (4, 3, 3, 3), (2, 4, 5, 5), padding=(1, 1, 1, 1)),
    conv("conv2d_strided", (1, 2, 6, 5), (3, 2, 3, 2), (1, 3, 3, 3),
         stride=(2, 2), padding=(1, 0, 0, 1), bias=False),
    conv("conv2d_grouped", (1, 4, 7, 7), (4, 2, 3, 3), (1, 4, 3, 3),
         dilation=(2, 2), groups=2),
    layer_norm("layer_norm", (2, 3, 4), 2),
    layer_norm("layer_norm_2d", (2, 3, 4), 1),
    Case("rms_norm",
         [("x", (2, 5), rnd("rmsx", (2, 5), -2, 2)), ("w", (5,), rnd("rmsw", (5,), 0.5, 1.5))],
         "%y, %rstd = amp.rms_norm %x, %w {axis = -1 : i64, epsilon = 1.0e-6 : f64}"
         " : (tensor<2x5xf32>, tensor<5xf32>) -> (tensor<2x5xf32>, tensor<2xf32>)",
         "%y", (2, 5), rms_norm, tol=NORM_TOL),
    Case("group_norm",
         [("x", (2, 4, 3, 3), rnd("gnx", (2, 4, 3, 3), -2, 2)),
          ("w", (4,), rnd("gnw", (4,), 0.5, 1.5)), ("b", (4,), rnd("gnb", (4,)))],
         "%y, %mean, %rstd = amp.group_norm %x, %w, %b {num_groups = 2 : i64, epsilon = 1.0e-5 : f64}"
         " : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>)"
         " -> (tensor<2x4x3x3xf32>, tensor<2x2xf32>, tensor<2x2xf32>)",
         "%y", (2, 4, 3, 3), lambda v: F.group_norm(v["x"], 2, v["w"], v["b"], 1e-5),
         tol=NORM_TOL),
    batch_norm("batch_norm", training=True),
    batch_norm("batch_norm_eval", training=False),
    pool("max_pool2d", "max_pool2d", (1, 2, 4, 4), (1, 2, 2, 2), 2, 2),
    pool("max_pool2d_padded", "max_pool2d", (1, 1, 5, 5), (1, 1, 3, 3), 3, 2, 1),
    pool("avg_pool2d", "avg_pool2d", (1, 2, 4, 4), (1, 2, 2, 2), 2, 2),
    pool("avg_pool2d_padded", "avg_pool2d", (1, 1, 5, 5), (1, 1, 3, 3), 3, 2, 1),
    pool("avg_pool2d_exclude", "avg_pool2d", (1, 1, 5, 5), (1, 1, 3, 3), 3, 2, 1,
         exclude=True),
    Case("global_avg_pool", [("x", (2, 3, 4, 4), rnd("gapx", (2, 3, 4, 4)))],
         "%y = amp.global_avg_pool %x : tensor<2x3x4x4xf32> -> tensor<2x3x1x1xf32>",
         "%y", (2, 3, 1, 1), lambda v: v["x"].mean((2, 3), keepdim=True)),
    Case("cross_entropy", [("x", (4, 5), rnd("cex", (4, 5), -3, 3))],
         "%l = amp.cross_entropy %x, %labels : tensor<4x5xf32>, tensor<4xi64>",
         "%l", (), lambda v: F.cross_entropy(v["x"], v["labels"]),
         inputs=[("labels", (4,), "i64", np.array([1, 4, 0, 1], dtype=np.int64))]),
    Case("mse_loss",
         [("p", (3, 4), rnd("msep", (3, 4))), ("t", (3, 4), rnd("mset", (3, 4)))],
         "%l = amp.mse_loss %p, %t : tensor<3x4xf32>", "%l", (),
         lambda v: F.mse_loss(v["p"], v["t"])),
]


reference = reference_of(CASES)

if __name__ == "__main__":
    write_test(CASES,
               "Gradients of convolution, normalization, pooling and the losses, "
               "executed on the CPU and checked against PyTorch autograd and finite "
               "differences.")
