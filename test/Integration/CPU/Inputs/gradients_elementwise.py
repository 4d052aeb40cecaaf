#!/usr/bin/env python3
"""Gradient checks of the elementwise ops (see gradient_cases.py).

Regenerate the test: python3 gradients_elementwise.py > ../gradients_elementwise.mlir
"""

import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gradient_cases import (Case, away_from, reference_of, rnd,  # noqa: E402
                            write_test)

S = (2, 3)
T = "tensor<2x3xf32>"


def unary(name, op, fn, low=-1.5, high=1.5, kinks=(), attrs=""):
    x = away_from(rnd(name + "x", S, low, high), kinks)
    return Case(name, [("x", S, x)], f"%y = amp.{op} %x{attrs} : {T}", "%y", S,
                lambda v: fn(v["x"]))


def binary(name, op, fn, x, y):
    return Case(name, [("x", S, x), ("y", S, y)],
                f"%z = amp.{op} %x, %y : {T}", "%z", S,
                lambda v: fn(v["x"], v["y"]))


def tanh_gelu(x):
    return F.gelu(x, approximate="tanh")


# maximum/minimum: element [0][1] is a tie; PyTorch (and central finite
# differences) split the gradient evenly there.
tie_x = rnd("tiex", S)
tie_y = rnd("tiey", S)
tie_y[0][1] = tie_x[0][1]
# pow: positive bases, one zero base with a positive exponent (the exponent
# gradient is 0 there, not NaN) and one zero exponent.
pow_x = rnd("powx", S, 0.3, 2.0)
pow_y = rnd("powy", S, -1.5, 2.5)
pow_x[1][2], pow_y[1][2] = 0.0, 2.0
pow_y[0][0] = 0.0

CASES = [
    binary("add", "add", torch.add, rnd("addx", S), rnd("addy", S)),
    binary("sub", "sub", torch.sub, rnd("subx", S), rnd("suby", S)),
    binary("mul", "mul", torch.mul, rnd("mulx", S), rnd("muly", S)),
    binary("div", "div", torch.div, rnd("divx", S),
           away_from(rnd("divy", S), [0.0], 0.3)),
    binary("pow", "pow", torch.pow, pow_x, pow_y),
    binary("maximum", "maximum", torch.maximum, tie_x, tie_y),
    binary("minimum", "minimum", torch.minimum, tie_x, tie_y),
    unary("neg", "neg", torch.neg),
    unary("exp", "exp", torch.exp),
    unary("log", "log", torch.log, 0.2, 3.0),
    unary("sqrt", "sqrt", torch.sqrt, 0.2, 3.0),
    unary("rsqrt", "rsqrt", torch.rsqrt, 0.2, 3.0),
    unary("tanh", "tanh", torch.tanh),
    unary("sigmoid", "sigmoid", torch.sigmoid),
    unary("relu", "relu", torch.relu, kinks=[0.0]),
    unary("silu", "silu", F.silu),
    unary("erf", "erf", torch.erf),
    unary("sin", "sin", torch.sin, -4.0, 4.0),
    unary("cos", "cos", torch.cos, -4.0, 4.0),
    unary("gelu", "gelu", F.gelu),
    unary("gelu_tanh", "gelu", tanh_gelu, attrs=" approximate = tanh"),
    Case("where",
         [("x", S, rnd("wherex", S)), ("y", S, rnd("wherey", S))],
         f"%z = amp.where %c, %x, %y : tensor<2x3xi1>, {T}", "%z", S,
         lambda v: torch.where(v["c"], v["x"], v["y"]),
         inputs=[("c", S, "i1",
                  np.array([[True, False, True], [False, False, True]]))]),
    # f32 -> f16 -> (f16 multiply) -> f32: the gradient is cast back at each
    # cast. Compared with PyTorch running the same f16 ops in float32/16
    # (finite differences of a rounding step are meaningless): each f16
    # rounding is within half an f16 ulp, and there is one per value.
    Case("cast",
         [("x", S, rnd("castx", S)), ("y", S, rnd("casty", S))],
         f"""%x16 = amp.cast %x : {T} to tensor<2x3xf16>
             %y16 = amp.cast %y : {T} to tensor<2x3xf16>
             %p16 = amp.mul %x16, %y16 : tensor<2x3xf16>
             %p = amp.cast %p16 : tensor<2x3xf16> to {T}""",
         "%p", S, lambda v: (v["x"].half() * v["y"].half()).float(),
         finite_differences=False, dtype=torch.float32, ulp=1.0),
]


reference = reference_of(CASES)

if __name__ == "__main__":
    write_test(CASES,
               "Gradients of the elementwise ops, executed on the CPU and checked "
               "against PyTorch autograd and finite differences.")
