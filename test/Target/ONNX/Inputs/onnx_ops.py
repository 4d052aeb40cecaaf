#!/usr/bin/env python3
"""Small ONNX graphs, one per op and opset variant, for the importer tests.

    onnx_ops.py DIR CASE... [--run] [--list] [--all]

writes DIR/CASE.onnx for every CASE (built with onnx.helper; --all: for
every case), and with --run imports each with amp-translate, runs its
forward on the CPU backend (onnx_harness.run_forward) on seeded inputs and
the initial values from the checkpoint, and compares every float output
with the NumPy reference of the case (onnx_harness.compare, default
tolerance). Prints `PASS CASE` per case and `ALL N CASES PASS`, or FAIL
lines and exits non-zero.

Each case is: nodes, graph inputs (name, ONNX type, shape, how to draw the
values), initializers, outputs, the opset, and the reference (a function of
the named inputs and initializers returning the outputs in order, or None
when the output is random or not a float tensor).
"""

import math
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

F, H, B16, I64, I32, BOOL = (TensorProto.FLOAT, TensorProto.FLOAT16,
                             TensorProto.BFLOAT16, TensorProto.INT64,
                             TensorProto.INT32, TensorProto.BOOL)
rng = np.random.default_rng(0)
erf = np.vectorize(math.erf)


def normal(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def const(name, value, dtype=None):
    value = np.asarray(value, dtype=dtype)
    return helper.make_node("Constant", [], [name],
                            value=numpy_helper.from_array(value, name))


def ints(name, values):
    return const(name, values, np.int64)


class Case:
    def __init__(self, nodes, inputs, outputs, ref=None, inits=None,
                 opset=13, value_info=None):
        self.nodes = nodes
        # name -> (elem type, shape, draw: "normal" | "positive" | "int" |
        #          "index:N" | ndarray)
        self.inputs = inputs
        self.outputs = outputs  # name -> (elem type, shape or None)
        self.ref = ref
        self.inits = inits or {}
        self.opset = opset

    def model(self):
        graph = helper.make_graph(
            self.nodes, "case",
            [helper.make_tensor_value_info(n, t, s)
             for n, (t, s, _) in self.inputs.items()],
            [helper.make_tensor_value_info(n, t, s)
             for n, (t, s) in self.outputs.items()],
            initializer=[numpy_helper.from_array(np.asarray(v), n)
                         for n, v in self.inits.items()])
        model = helper.make_model(
            graph, opset_imports=[helper.make_opsetid("", self.opset)])
        model.ir_version = 8
        return model

    def draw(self):
        values = {}
        for name, (elem, shape, how) in self.inputs.items():
            if isinstance(how, np.ndarray):
                values[name] = how
            elif how == "positive":
                values[name] = rng.uniform(0.5, 2.0, shape).astype(np.float32)
            elif how == "int":
                values[name] = rng.integers(-2, 3, shape).astype(np.float32)
            elif how.startswith("index:"):
                values[name] = rng.integers(0, int(how[6:]), shape).astype(
                    np.int64)
            else:
                values[name] = normal(*shape)
            if elem == H:
                values[name] = values[name].astype(np.float16)
        return values


def x_in(shape, how="normal", elem=F):
    return (elem, list(shape), how)


def out(shape=None, elem=F):
    return (elem, shape)


def unary(op, fn, how="normal", **attrs):
    return Case([helper.make_node(op, ["x"], ["y"], **attrs)],
                {"x": x_in((2, 3, 4), how)}, {"y": out()},
                lambda v: [fn(v["x"])])


def softmax_ref(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def conv_ref(x, w, b=None, stride=(1, 1), pads=(0, 0, 0, 0), dilation=(1, 1),
             groups=1):
    x = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pads[0], pads[2]),
                                      (pads[1], pads[3])))
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    oh = (h - ((kh - 1) * dilation[0] + 1)) // stride[0] + 1
    ow = (wd - ((kw - 1) * dilation[1] + 1)) // stride[1] + 1
    y = np.zeros((n, o, oh, ow))
    og = o // groups
    for g in range(groups):
        xs = x[:, g * cg:(g + 1) * cg]
        for i in range(kh):
            for j in range(kw):
                patch = xs[:, :, i * dilation[0]:i * dilation[0] +
                           stride[0] * oh:stride[0],
                           j * dilation[1]:j * dilation[1] +
                           stride[1] * ow:stride[1]]
                y[:, g * og:(g + 1) * og] += np.einsum(
                    "nchw,oc->nohw", patch, w[g * og:(g + 1) * og, :, i, j])
    if b is not None:
        y += b[None, :, None, None]
    return y


def pool_ref(x, k, s, pads, kind, include_pad=False, ceil=False):
    n, c, h, w = x.shape
    fill = -np.inf if kind == "max" else 0.0
    def size(i, d):
        span = i + pads[d] + pads[d + 2] - k[d]
        o = (-(-span // s[d]) if ceil else span // s[d]) + 1
        if ceil and (o - 1) * s[d] >= i + pads[d]:
            o -= 1
        return o
    oh, ow = size(h, 0), size(w, 1)
    extra_h = max(0, (oh - 1) * s[0] + k[0] - (h + pads[0] + pads[2]))
    extra_w = max(0, (ow - 1) * s[1] + k[1] - (w + pads[1] + pads[3]))
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0),
                                       (pads[0], pads[2] + extra_h),
                                       (pads[1], pads[3] + extra_w)),
                constant_values=fill)
    mask = np.pad(np.ones((h, w)), ((pads[0], pads[2] + extra_h),
                                    (pads[1], pads[3] + extra_w)))
    inbounds = np.pad(np.ones((h + pads[0] + pads[2], w + pads[1] + pads[3])),
                      ((0, extra_h), (0, extra_w)))
    y = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            win = xp[:, :, i * s[0]:i * s[0] + k[0], j * s[1]:j * s[1] + k[1]]
            if kind == "max":
                y[:, :, i, j] = win.max(axis=(2, 3))
            else:
                m = (inbounds if include_pad else mask)[
                    i * s[0]:i * s[0] + k[0], j * s[1]:j * s[1] + k[1]]
                y[:, :, i, j] = win.sum(axis=(2, 3)) / m.sum()
    return y


def bn_ref(x, g, b, rm, rv, eps=1e-5, momentum=0.1):
    axes = (0,) + tuple(range(2, x.ndim))
    mean = x.mean(axis=axes)
    var = x.var(axis=axes)
    n = x.size / x.shape[1]
    shape = (1, -1) + (1,) * (x.ndim - 2)
    y = (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps)
    y = y * g.reshape(shape) + b.reshape(shape)
    return y, (1 - momentum) * rm + momentum * mean, \
        (1 - momentum) * rv + momentum * var * n / (n - 1)


def ln_ref(x, axis, g=None, b=None, eps=1e-5):
    axes = tuple(range(axis, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    y = (x - mean) / np.sqrt(var + eps)
    if g is not None:
        y = y * g
    if b is not None:
        y = y + b
    return y, mean, 1 / np.sqrt(var + eps)


def gn_ref(x, groups, g, b, eps=1e-5):
    n, c = x.shape[:2]
    xg = x.reshape(n, groups, -1)
    mean = xg.mean(axis=2, keepdims=True)
    var = xg.var(axis=2, keepdims=True)
    y = ((xg - mean) / np.sqrt(var + eps)).reshape(x.shape)
    shape = (1, c) + (1,) * (x.ndim - 2)
    return y * g.reshape(shape) + b.reshape(shape)


def gelu_ref(x):
    return x * 0.5 * (1 + erf(x / math.sqrt(2)))


W = normal(5, 4)
CASES = {}

# --- Elementwise ------------------------------------------------------------
CASES["add_broadcast"] = Case(
    [helper.make_node("Add", ["x", "b"], ["y"])],
    {"x": x_in((2, 3, 4))}, {"y": out([2, 3, 4])},
    lambda v: [v["x"] + v["b"]], inits={"b": normal(4)})
CASES["sub_scalar_constant"] = Case(
    [const("c", np.float32(1.5)), helper.make_node("Sub", ["c", "x"], ["y"])],
    {"x": x_in((3, 4))}, {"y": out()}, lambda v: [1.5 - v["x"]])
CASES["mul_bidirectional"] = Case(
    [helper.make_node("Mul", ["x", "z"], ["y"])],
    {"x": x_in((3, 1)), "z": x_in((1, 4))}, {"y": out()},
    lambda v: [v["x"] * v["z"]])
CASES["div"] = Case(
    [helper.make_node("Div", ["x", "z"], ["y"])],
    {"x": x_in((2, 3)), "z": x_in((2, 3), "positive")}, {"y": out()},
    lambda v: [v["x"] / v["z"]])
CASES["pow_int_exponent"] = Case(
    [const("e", np.int64(3)), helper.make_node("Pow", ["x", "e"], ["y"])],
    {"x": x_in((2, 3))}, {"y": out()}, lambda v: [v["x"] ** 3], opset=15)
CASES["pow_tensor"] = Case(
    [helper.make_node("Pow", ["x", "z"], ["y"])],
    {"x": x_in((2, 3), "positive"), "z": x_in((3,))}, {"y": out()},
    lambda v: [v["x"] ** v["z"]])
CASES["relu"] = unary("Relu", lambda x: np.maximum(x, 0))
CASES["erf"] = unary("Erf", erf)
CASES["tanh"] = unary("Tanh", np.tanh)
CASES["sin"] = unary("Sin", np.sin)
CASES["cos"] = unary("Cos", np.cos)
CASES["sigmoid"] = unary("Sigmoid", lambda x: 1 / (1 + np.exp(-x)))
CASES["softplus"] = unary("Softplus", lambda x: np.logaddexp(x, 0))
CASES["sqrt"] = unary("Sqrt", np.sqrt, "positive")
CASES["neg"] = unary("Neg", np.negative)
CASES["exp"] = unary("Exp", np.exp)
CASES["log"] = unary("Log", np.log, "positive")
CASES["reciprocal"] = unary("Reciprocal", lambda x: 1 / x, "positive")
CASES["abs"] = unary("Abs", np.abs)
CASES["max_min_variadic"] = Case(
    [helper.make_node("Max", ["x", "z", "c"], ["y0"]),
     helper.make_node("Min", ["x", "z"], ["y1"])],
    {"x": x_in((2, 3)), "z": x_in((3,))}, {"y0": out(), "y1": out()},
    lambda v: [np.maximum(np.maximum(v["x"], v["z"]), 0.25),
               np.minimum(v["x"], v["z"])],
    inits={"c": np.float32(0.25)})
CASES["clip_relu6"] = Case(
    [const("lo", np.float32(0)), const("hi", np.float32(6)),
     helper.make_node("Clip", ["x", "lo", "hi"], ["y"])],
    {"x": x_in((2, 8), np.linspace(-3, 9, 16, dtype=np.float32).reshape(2, 8))},
    {"y": out()}, lambda v: [np.clip(v["x"], 0, 6)])
CASES["clip_min_only"] = Case(
    [const("lo", np.float32(-0.5)),
     helper.make_node("Clip", ["x", "lo"], ["y"])],
    {"x": x_in((2, 3))}, {"y": out()}, lambda v: [np.maximum(v["x"], -0.5)])
CASES["where_equal"] = Case(
    [const("one", np.float32(1)),
     helper.make_node("Equal", ["x", "one"], ["m"]),
     helper.make_node("Where", ["m", "x", "z"], ["y"])],
    {"x": x_in((2, 5), "int"), "z": x_in((5,))}, {"y": out()},
    lambda v: [np.where(v["x"] == 1, v["x"], v["z"])])
CASES["where_logical"] = Case(
    [const("zero", np.float32(0)), const("one", np.float32(1)),
     helper.make_node("Greater", ["x", "zero"], ["p"]),
     helper.make_node("Less", ["x", "one"], ["q"]),
     helper.make_node("And", ["p", "q"], ["a"]),
     helper.make_node("Not", ["a"], ["na"]),
     helper.make_node("Or", ["na", "p"], ["o"]),
     helper.make_node("Where", ["o", "x", "zero"], ["y"]),
     helper.make_node("GreaterOrEqual", ["x", "one"], ["ge"]),
     helper.make_node("LessOrEqual", ["x", "zero"], ["le"]),
     helper.make_node("Cast", ["ge"], ["y1"], to=F),
     helper.make_node("Cast", ["le"], ["y2"], to=F)],
    {"x": x_in((3, 4))}, {"y": out(), "y1": out(), "y2": out()},
    lambda v: [np.where(~((v["x"] > 0) & (v["x"] < 1)) | (v["x"] > 0),
                        v["x"], 0),
               (v["x"] >= 1).astype(np.float32),
               (v["x"] <= 0).astype(np.float32)])
CASES["cast_float"] = Case(
    [helper.make_node("Cast", ["x"], ["h"], to=H),
     helper.make_node("Cast", ["h"], ["y"], to=F),
     helper.make_node("Cast", ["x"], ["b"], to=BOOL),
     helper.make_node("Cast", ["b"], ["y1"], to=F)],
    {"x": x_in((2, 3), "int")}, {"y": out(), "y1": out()},
    lambda v: [v["x"].astype(np.float16).astype(np.float32),
               (v["x"] != 0).astype(np.float32)])
CASES["castlike"] = Case(
    [helper.make_node("CastLike", ["x", "t"], ["y"])],
    {"x": x_in((2, 3)), "t": x_in((1,), elem=H)}, {"y": out(elem=H)},
    lambda v: [v["x"].astype(np.float16)], opset=15)
CASES["f16_add"] = Case(
    [helper.make_node("Add", ["x", "b"], ["y"])],
    {"x": x_in((2, 4), elem=H)}, {"y": out(elem=H)},
    lambda v: [(v["x"] + v["b"]).astype(np.float16)],
    inits={"b": normal(4).astype(np.float16)})

# --- Reductions, softmax ------------------------------------------------------
CASES["reduce_mean_keepdims"] = Case(
    [helper.make_node("ReduceMean", ["x"], ["y"], axes=[-1])],
    {"x": x_in((2, 3, 4))}, {"y": out([2, 3, 1])},
    lambda v: [v["x"].mean(axis=-1, keepdims=True)])
CASES["reduce_mean_axes"] = Case(
    [helper.make_node("ReduceMean", ["x"], ["y"], axes=[1, 2], keepdims=0)],
    {"x": x_in((2, 3, 4))}, {"y": out()}, lambda v: [v["x"].mean(axis=(1, 2))])
CASES["reduce_sum_axes_input"] = Case(
    [ints("axes", [0, -1]),
     helper.make_node("ReduceSum", ["x", "axes"], ["y"], keepdims=0)],
    {"x": x_in((2, 3, 4))}, {"y": out()}, lambda v: [v["x"].sum(axis=(0, 2))])
CASES["reduce_sum_all"] = Case(
    [helper.make_node("ReduceSum", ["x"], ["y"], keepdims=0)],
    {"x": x_in((2, 3))}, {"y": out([])}, lambda v: [v["x"].sum()])
CASES["reduce_sum_noop"] = Case(
    [helper.make_node("ReduceSum", ["x"], ["y"], noop_with_empty_axes=1)],
    {"x": x_in((2, 3))}, {"y": out()}, lambda v: [v["x"]])
CASES["reduce_max"] = Case(
    [helper.make_node("ReduceMax", ["x"], ["y"], axes=[1])],
    {"x": x_in((2, 3, 4))}, {"y": out()},
    lambda v: [v["x"].max(axis=1, keepdims=True)])
CASES["softmax"] = Case(
    [helper.make_node("Softmax", ["x"], ["y"], axis=1)],
    {"x": x_in((2, 3, 4))}, {"y": out()}, lambda v: [softmax_ref(v["x"], 1)])
CASES["log_softmax"] = Case(
    [helper.make_node("LogSoftmax", ["x"], ["y"])],
    {"x": x_in((2, 5))}, {"y": out()},
    lambda v: [np.log(softmax_ref(v["x"], -1))])

# --- Contractions ------------------------------------------------------------
CASES["matmul_2d"] = Case(
    [helper.make_node("MatMul", ["x", "w"], ["y"])],
    {"x": x_in((3, 4))}, {"y": out([3, 5])}, lambda v: [v["x"] @ v["w"]],
    inits={"w": normal(4, 5)})
CASES["matmul_batch_broadcast"] = Case(
    [helper.make_node("MatMul", ["x", "z"], ["y"])],
    {"x": x_in((2, 1, 3, 4)), "z": x_in((5, 4, 6))}, {"y": out([2, 5, 3, 6])},
    lambda v: [v["x"] @ v["z"]])
CASES["matmul_vectors"] = Case(
    [helper.make_node("MatMul", ["v", "w"], ["y0"]),
     helper.make_node("MatMul", ["x", "v"], ["y1"])],
    {"v": x_in((4,)), "x": x_in((2, 3, 4))}, {"y0": out([5]), "y1": out([2, 3])},
    lambda v: [v["v"] @ v["w"], v["x"] @ v["v"]], inits={"w": normal(4, 5)})
CASES["matmul_transposed_weight"] = Case(
    [helper.make_node("Transpose", ["w"], ["wt"], perm=[1, 0]),
     helper.make_node("MatMul", ["x", "wt"], ["m"]),
     helper.make_node("Add", ["b", "m"], ["y"])],
    {"x": x_in((2, 3, 4))}, {"y": out()},
    lambda v: [v["x"] @ v["w"].T + v["b"]], inits={"w": W, "b": normal(5)})
CASES["gemm_linear"] = Case(
    [helper.make_node("Gemm", ["x", "w", "b"], ["y"], transB=1)],
    {"x": x_in((3, 4))}, {"y": out([3, 5])},
    lambda v: [v["x"] @ v["w"].T + v["b"]], inits={"w": W, "b": normal(5)})
CASES["gemm_general"] = Case(
    [helper.make_node("Gemm", ["a", "w", "c"], ["y"], transA=1, alpha=0.5,
                      beta=2.0)],
    {"a": x_in((4, 3))}, {"y": out([3, 5])},
    lambda v: [0.5 * v["a"].T @ v["w"] + 2 * v["c"]],
    inits={"w": normal(4, 5), "c": normal(3, 5)})
CASES["gemm_no_bias"] = Case(
    [helper.make_node("Gemm", ["x", "w"], ["y"])],
    {"x": x_in((3, 4))}, {"y": out()}, lambda v: [v["x"] @ v["w"]],
    inits={"w": normal(4, 5)})

# --- Convolution and pooling -------------------------------------------------
CONV_W = normal(6, 4, 3, 3)
CASES["conv_stride_pad_bias"] = Case(
    [helper.make_node("Conv", ["x", "w", "b"], ["y"], kernel_shape=[3, 3],
                      pads=[1, 1, 1, 1], strides=[2, 2])],
    {"x": x_in((2, 4, 7, 7))}, {"y": out([2, 6, 4, 4])},
    lambda v: [conv_ref(v["x"], v["w"], v["b"], (2, 2), (1, 1, 1, 1))],
    inits={"w": CONV_W, "b": normal(6)})
CASES["conv_groups_dilation"] = Case(
    [helper.make_node("Conv", ["x", "w"], ["y"], group=2, dilations=[2, 2],
                      pads=[2, 1, 2, 1])],
    {"x": x_in((1, 4, 8, 8))}, {"y": out()},
    lambda v: [conv_ref(v["x"], v["w"], None, (1, 1), (2, 1, 2, 1), (2, 2),
                        2)],
    inits={"w": normal(6, 2, 3, 3)})
CASES["conv_depthwise_same"] = Case(
    [helper.make_node("Conv", ["x", "w"], ["y"], group=4,
                      auto_pad="SAME_UPPER", strides=[2, 2])],
    {"x": x_in((1, 4, 6, 6))}, {"y": out([1, 4, 3, 3])},
    lambda v: [conv_ref(v["x"], v["w"], None, (2, 2), (0, 0, 1, 1), (1, 1),
                        4)],
    inits={"w": normal(4, 1, 3, 3)})
CASES["maxpool_resnet_stem"] = Case(
    [helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[3, 3],
                      strides=[2, 2], pads=[1, 1, 1, 1])],
    {"x": x_in((1, 2, 8, 8))}, {"y": out([1, 2, 4, 4])},
    lambda v: [pool_ref(v["x"], (3, 3), (2, 2), (1, 1, 1, 1), "max")])
CASES["maxpool_ceil"] = Case(
    [helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[2, 2],
                      strides=[2, 2], ceil_mode=1)],
    {"x": x_in((1, 2, 5, 5))}, {"y": out([1, 2, 3, 3])},
    lambda v: [pool_ref(v["x"], (2, 2), (2, 2), (0, 0, 0, 0), "max",
                        ceil=True)])
CASES["avgpool"] = Case(
    [helper.make_node("AveragePool", ["x"], ["y"], kernel_shape=[2, 2],
                      strides=[2, 2])],
    {"x": x_in((1, 3, 4, 6))}, {"y": out([1, 3, 2, 3])},
    lambda v: [pool_ref(v["x"], (2, 2), (2, 2), (0, 0, 0, 0), "avg")])
CASES["avgpool_pad_exclude"] = Case(
    [helper.make_node("AveragePool", ["x"], ["y"], kernel_shape=[3, 3],
                      pads=[1, 1, 1, 1])],
    {"x": x_in((1, 2, 4, 4))}, {"y": out()},
    lambda v: [pool_ref(v["x"], (3, 3), (1, 1), (1, 1, 1, 1), "avg")])
CASES["avgpool_pad_include"] = Case(
    [helper.make_node("AveragePool", ["x"], ["y"], kernel_shape=[3, 3],
                      pads=[1, 1, 1, 1], count_include_pad=1)],
    {"x": x_in((1, 2, 4, 4))}, {"y": out()},
    lambda v: [pool_ref(v["x"], (3, 3), (1, 1), (1, 1, 1, 1), "avg",
                        include_pad=True)])
CASES["global_average_pool"] = Case(
    [helper.make_node("GlobalAveragePool", ["x"], ["y"])],
    {"x": x_in((2, 3, 4, 5))}, {"y": out([2, 3, 1, 1])},
    lambda v: [v["x"].mean(axis=(2, 3), keepdims=True)])

# --- Normalization -----------------------------------------------------------
BN_INITS = {"g": normal(3), "b": normal(3), "rm": normal(3),
            "rv": rng.uniform(0.5, 2, 3).astype(np.float32)}
CASES["batchnorm_training_opset13"] = Case(
    [helper.make_node("BatchNormalization", ["x", "g", "b", "rm", "rv"],
                      ["y", "rm1", "rv1", "sm", "sv"], momentum=0.9)],
    {"x": x_in((4, 3, 2, 2))}, {"y": out()},
    lambda v: [bn_ref(v["x"], v["g"], v["b"], v["rm"], v["rv"])[0]],
    inits=BN_INITS)
CASES["batchnorm_training_opset15"] = Case(
    [helper.make_node("BatchNormalization", ["x", "g", "b", "rm", "rv"],
                      ["y", "rm1", "rv1"], training_mode=1, momentum=0.8,
                      epsilon=1e-3),
     helper.make_node("Identity", ["rm1"], ["running_mean"]),
     helper.make_node("Identity", ["rv1"], ["running_var"])],
    {"x": x_in((4, 3, 5))},
    {"y": out(), "running_mean": out(), "running_var": out()},
    lambda v: list(bn_ref(v["x"], v["g"], v["b"], v["rm"], v["rv"], 1e-3,
                          0.2)),
    inits=BN_INITS, opset=15)
CASES["batchnorm_inference"] = Case(
    [helper.make_node("BatchNormalization", ["x", "g", "b", "rm", "rv"],
                      ["y"])],
    {"x": x_in((2, 3, 2, 2))}, {"y": out()},
    lambda v: [(v["x"] - v["rm"].reshape(1, 3, 1, 1)) /
               np.sqrt(v["rv"].reshape(1, 3, 1, 1) + 1e-5) *
               v["g"].reshape(1, 3, 1, 1) + v["b"].reshape(1, 3, 1, 1)],
    inits=BN_INITS, opset=15)
CASES["instance_norm"] = Case(
    [helper.make_node("InstanceNormalization", ["x", "g", "b"], ["y"],
                      epsilon=1e-4)],
    {"x": x_in((2, 3, 4, 4))}, {"y": out()},
    lambda v: [gn_ref(v["x"], 3, v["g"], v["b"], 1e-4)],
    inits={"g": normal(3), "b": normal(3)})
CASES["layernorm_opset17"] = Case(
    [helper.make_node("LayerNormalization", ["x", "g", "b"], ["y"],
                      axis=-1)],
    {"x": x_in((2, 3, 8))}, {"y": out()},
    lambda v: [ln_ref(v["x"], 2, v["g"], v["b"])[0]],
    inits={"g": normal(8), "b": normal(8)}, opset=17)
CASES["layernorm_opset17_stats"] = Case(
    [helper.make_node("LayerNormalization", ["x", "g"], ["y", "mean", "rstd"],
                      axis=1, epsilon=1e-3)],
    {"x": x_in((2, 3, 4))}, {"y": out(), "mean": out(), "rstd": out()},
    lambda v: list(ln_ref(v["x"], 1, v["g"], None, 1e-3)),
    inits={"g": normal(3, 4)}, opset=17)


def decomposed_layernorm(affine, opset=13):
    nodes = [helper.make_node("ReduceMean", ["x"], ["m"], axes=[-1]),
             helper.make_node("Sub", ["x", "m"], ["d"]),
             const("two", np.float32(2)),
             helper.make_node("Pow", ["d", "two"], ["d2"]),
             helper.make_node("ReduceMean", ["d2"], ["v"], axes=[-1]),
             const("eps", np.float32(1e-5)),
             helper.make_node("Add", ["v", "eps"], ["ve"]),
             helper.make_node("Sqrt", ["ve"], ["s"]),
             helper.make_node("Div", ["d", "s"], ["n" if affine else "y"])]
    inits = {}
    if affine:
        nodes += [helper.make_node("Mul", ["n", "g"], ["ng"]),
                  helper.make_node("Add", ["ng", "b"], ["y"])]
        inits = {"g": normal(8), "b": normal(8)}
    return Case(nodes, {"x": x_in((2, 3, 8))}, {"y": out()},
                lambda v: [ln_ref(v["x"], 2, v.get("g"), v.get("b"))[0]],
                inits=inits, opset=opset)


CASES["layernorm_decomposed"] = decomposed_layernorm(True)
CASES["layernorm_decomposed_no_affine"] = decomposed_layernorm(False, 16)


def decomposed_gelu(order):
    nodes = [const("sqrt2", np.float32(math.sqrt(2))),
             helper.make_node("Div", ["x", "sqrt2"], ["s"]),
             helper.make_node("Erf", ["s"], ["e"]),
             const("one", np.float32(1)),
             helper.make_node("Add", ["e", "one"], ["e1"]),
             const("half", np.float32(0.5))]
    if order == "pytorch":  # (x * (1 + erf)) * 0.5
        nodes += [helper.make_node("Mul", ["x", "e1"], ["p"]),
                  helper.make_node("Mul", ["p", "half"], ["y"])]
    else:  # (0.5 * x) * (1 + erf)
        nodes += [helper.make_node("Mul", ["half", "x"], ["p"]),
                  helper.make_node("Mul", ["p", "e1"], ["y"])]
    return Case(nodes, {"x": x_in((3, 8))}, {"y": out()},
                lambda v: [gelu_ref(v["x"])])


CASES["gelu_decomposed"] = decomposed_gelu("pytorch")
CASES["gelu_tanh_decomposed"] = Case(
    # As PyTorch 1.13 exports F.gelu(x, approximate="tanh") before opset 20.
    [helper.make_node("Mul", ["x", "x"], ["x2"]),
     helper.make_node("Mul", ["x", "x2"], ["x3"]),
     const("c", np.float32(0.044715)),
     helper.make_node("Mul", ["c", "x3"], ["cx3"]),
     helper.make_node("Add", ["x", "cx3"], ["inner"]),
     const("k", np.float32(math.sqrt(2 / math.pi))),
     helper.make_node("Mul", ["k", "inner"], ["scaled"]),
     helper.make_node("Tanh", ["scaled"], ["t"]),
     const("one", np.float32(1)),
     helper.make_node("Add", ["one", "t"], ["t1"]),
     helper.make_node("Mul", ["x", "t1"], ["p"]),
     const("half", np.float32(0.5)),
     helper.make_node("Mul", ["half", "p"], ["y"])],
    {"x": x_in((3, 8))}, {"y": out()},
    lambda v: [0.5 * v["x"] * (1 + np.tanh(math.sqrt(2 / math.pi) *
                                           (v["x"] + 0.044715 * v["x"] ** 3)))])
CASES["gelu_decomposed_half_first"] = decomposed_gelu("half")


def decomposed_groupnorm(opset=13):
    return Case(
        [ints("grouped", [0, 2, -1]),
         helper.make_node("Reshape", ["x", "grouped"], ["r"]),
         const("ones", np.ones(2, np.float32)),
         const("zeros", np.zeros(2, np.float32)),
         helper.make_node("InstanceNormalization", ["r", "ones", "zeros"],
                          ["n"], epsilon=1e-5),
         helper.make_node("Shape", ["x"], ["shape"]),
         helper.make_node("Reshape", ["n", "shape"], ["u"]),
         ints("axes", [1, 2]),
         helper.make_node("Unsqueeze", ["g", "axes"], ["g3"]),
         helper.make_node("Unsqueeze", ["b", "axes"], ["b3"]),
         helper.make_node("Mul", ["u", "g3"], ["ug"]),
         helper.make_node("Add", ["ug", "b3"], ["y"])],
        {"x": x_in((2, 6, 3, 3))}, {"y": out()},
        lambda v: [gn_ref(v["x"], 2, v["g"], v["b"])],
        inits={"g": normal(6), "b": normal(6)}, opset=opset)


CASES["groupnorm_decomposed"] = decomposed_groupnorm()

# --- Data movement and shape arithmetic ----------------------------------------
CASES["reshape_zero_minus_one"] = Case(
    [ints("s", [0, -1]), helper.make_node("Reshape", ["x", "s"], ["y"])],
    {"x": x_in((2, 3, 4))}, {"y": out([2, 12])},
    lambda v: [v["x"].reshape(2, 12)])
CASES["reshape_allowzero"] = Case(
    [ints("s", [3, 0]), helper.make_node("Reshape", ["x", "s"], ["y"],
                                         allowzero=1)],
    {"x": x_in((0, 2))}, {"y": out([3, 0])}, None, opset=14)
CASES["flatten"] = Case(
    [helper.make_node("Flatten", ["x"], ["y"], axis=2)],
    {"x": x_in((2, 3, 4, 5))}, {"y": out([6, 20])},
    lambda v: [v["x"].reshape(6, 20)])
CASES["squeeze_unsqueeze"] = Case(
    [ints("a", [1]), ints("b", [0, -1]),
     helper.make_node("Squeeze", ["x", "a"], ["s"]),
     helper.make_node("Unsqueeze", ["s", "b"], ["y0"]),
     helper.make_node("Squeeze", ["x"], ["y1"])],
    {"x": x_in((2, 1, 3))}, {"y0": out([1, 2, 3, 1]), "y1": out([2, 3])},
    lambda v: [v["x"].reshape(1, 2, 3, 1), v["x"].reshape(2, 3)])
CASES["transpose"] = Case(
    [helper.make_node("Transpose", ["x"], ["y0"], perm=[2, 0, 1]),
     helper.make_node("Transpose", ["x"], ["y1"])],
    {"x": x_in((2, 3, 4))}, {"y0": out([4, 2, 3]), "y1": out([4, 3, 2])},
    lambda v: [v["x"].transpose(2, 0, 1), v["x"].transpose()])
CASES["concat"] = Case(
    [const("c", np.full((2, 1), 7, np.float32)),
     helper.make_node("Concat", ["x", "c", "z"], ["y"], axis=-1)],
    {"x": x_in((2, 3)), "z": x_in((2, 2))}, {"y": out([2, 6])},
    lambda v: [np.concatenate([v["x"], np.full((2, 1), 7), v["z"]], -1)])
CASES["slice"] = Case(
    [ints("starts", [1, -3]), ints("ends", [1000, -1]), ints("axes", [0, 2]),
     ints("steps", [1, 2]),
     helper.make_node("Slice", ["x", "starts", "ends", "axes", "steps"],
                      ["y"])],
    {"x": x_in((3, 4, 6))}, {"y": out([2, 4, 1])},
    lambda v: [v["x"][1:, :, -3:-1:2]])
CASES["slice_constant_negative_step"] = Case(
    [const("c", np.arange(6, dtype=np.float32)),
     ints("starts", [-1]), ints("ends", [-1000]), ints("axes", [0]),
     ints("steps", [-2]),
     helper.make_node("Slice", ["c", "starts", "ends", "axes", "steps"],
                      ["r"]),
     helper.make_node("Add", ["x", "r"], ["y"])],
    {"x": x_in((2, 3))}, {"y": out()},
    lambda v: [v["x"] + np.array([5, 3, 1], np.float32)])
CASES["gather_embedding"] = Case(
    [helper.make_node("Gather", ["table", "ids"], ["y"])],
    {"ids": (I64, [2, 3], "index:10")}, {"y": out([2, 3, 4])},
    lambda v: [v["table"][v["ids"]]], inits={"table": normal(10, 4)})
CASES["gather_constant_indices"] = Case(
    [ints("i", [2, -1, 0]), ints("s", 1),
     helper.make_node("Gather", ["x", "i"], ["y0"], axis=1),
     helper.make_node("Gather", ["x", "s"], ["y1"], axis=-1)],
    {"x": x_in((2, 4, 3))}, {"y0": out([2, 3, 3]), "y1": out([2, 4])},
    lambda v: [v["x"][:, [2, 3, 0]], v["x"][:, :, 1]])
# What trains and what pads (amp-translate --onnx-trainable and
# --onnx-padding-idx, tensor-rules.test): an embedding `table`, a
# projection `w`, a constant `c` an exporter lifted into an initializer.
CASES["rules_embedding"] = Case(
    [helper.make_node("Gather", ["table", "ids"], ["e"]),
     helper.make_node("MatMul", ["e", "w"], ["p"]),
     helper.make_node("Mul", ["p", "c"], ["s"]),
     helper.make_node("ReduceSum", ["s"], ["loss"], keepdims=0)],
    {"ids": (I64, [2, 3], np.array([[0, 3, 9], [3, 3, 1]], np.int64))},
    {"loss": out([])},
    lambda v: [np.sum((v["table"][v["ids"]] @ v["w"]) * v["c"])],
    inits={"table": normal(10, 4), "w": normal(4, 2),
           "c": np.array([0.5, 2.0], np.float32)})
CASES["rules_gather_axis1"] = Case(
    [helper.make_node("Gather", ["table", "ids"], ["y"], axis=1)],
    {"ids": (I64, [3], "index:4")}, {"y": out([10, 3])},
    inits={"table": normal(10, 4)})
CASES["rules_clip_bound"] = Case(
    [helper.make_node("Clip", ["x", "lo"], ["y"])],
    {"x": x_in((2, 3))}, {"y": out([2, 3])},
    inits={"lo": np.array(-0.5, np.float32)})
# Trilu (opset 14): the upper or lower triangle of the last two dimensions.
CASES["trilu_upper_k"] = Case(
    [ints("k", 1), helper.make_node("Trilu", ["x", "k"], ["y"])],
    {"x": x_in((2, 3, 4, 5))}, {"y": out([2, 3, 4, 5])},
    lambda v: [np.triu(v["x"], 1)], opset=14)
CASES["trilu_lower_negative_k"] = Case(
    [ints("k", [-1]), helper.make_node("Trilu", ["x", "k"], ["y"], upper=0)],
    {"x": x_in((4, 6))}, {"y": out([4, 6])},
    lambda v: [np.tril(v["x"], -1)], opset=17)
CASES["trilu_lower_tall"] = Case(
    [helper.make_node("Trilu", ["x"], ["y"], upper=0)],
    {"x": x_in((6, 3))}, {"y": out([6, 3])},
    lambda v: [np.tril(v["x"])], opset=14)
CASES["trilu_upper_past_the_end"] = Case(
    [ints("k", 7), helper.make_node("Trilu", ["x", "k"], ["y"])],
    {"x": x_in((3, 4))}, {"y": out([3, 4])},
    lambda v: [np.zeros((3, 4), np.float32)], opset=14)
# A causal mask from constants (torch.triu(torch.ones(T, T), diagonal=1))
# folds at import time.
CASES["trilu_constant_mask"] = Case(
    [const("ones", np.ones((4, 4), np.float32)), ints("k", 1),
     helper.make_node("Trilu", ["ones", "k"], ["mask"]),
     helper.make_node("Add", ["x", "mask"], ["y"])],
    {"x": x_in((2, 4, 4))}, {"y": out([2, 4, 4])},
    lambda v: [v["x"] + np.triu(np.ones((4, 4), np.float32), 1)], opset=14)
# Errors (no reference): k computed at run time, a 1-d input, upper=2, a
# k of two elements.
CASES["trilu_runtime_k"] = Case(
    [helper.make_node("Trilu", ["x", "k"], ["y"])],
    {"x": x_in((3, 3)), "k": (I64, [], "index:2")}, {"y": out([3, 3])},
    opset=14)
CASES["trilu_rank1"] = Case(
    [helper.make_node("Trilu", ["x"], ["y"])],
    {"x": x_in((3,))}, {"y": out([3])}, opset=14)
CASES["trilu_bad_upper"] = Case(
    [helper.make_node("Trilu", ["x"], ["y"], upper=2)],
    {"x": x_in((3, 3))}, {"y": out([3, 3])}, opset=14)
CASES["trilu_two_k"] = Case(
    [ints("k", [0, 1]), helper.make_node("Trilu", ["x", "k"], ["y"])],
    {"x": x_in((3, 3))}, {"y": out([3, 3])}, opset=14)
CASES["trilu_opset13"] = Case(
    [helper.make_node("Trilu", ["x"], ["y"])],
    {"x": x_in((3, 3))}, {"y": out([3, 3])}, opset=13)
CASES["split"] = Case(
    [ints("parts", [1, 3]),
     helper.make_node("Split", ["x", "parts"], ["y0", "y1"], axis=1),
     helper.make_node("Split", ["x"], ["z0", "z1"], axis=2)],
    {"x": x_in((2, 4, 6))},
    {"y0": out([2, 1, 6]), "y1": out([2, 3, 6]), "z0": out([2, 4, 3]),
     "z1": out([2, 4, 3])},
    lambda v: [v["x"][:, :1], v["x"][:, 1:], v["x"][:, :, :3],
               v["x"][:, :, 3:]])
CASES["expand"] = Case(
    [ints("s", [2, 1, 3]), helper.make_node("Expand", ["x", "s"], ["y"])],
    {"x": x_in((4, 1))}, {"y": out([2, 4, 3])},
    lambda v: [np.broadcast_to(v["x"], (2, 4, 3))])
CASES["pad_constant"] = Case(
    [ints("pads", [0, 1, -1, 0, 2, 0]), const("v", np.float32(0.5)),
     helper.make_node("Pad", ["x", "pads", "v"], ["y"])],
    {"x": x_in((2, 3, 4))}, {"y": out([2, 6, 3])},
    lambda v: [np.pad(v["x"][:, :, 1:], ((0, 0), (1, 2), (0, 0)),
                      constant_values=0.5)])
CASES["shape_arithmetic"] = Case(
    # PyTorch's x.view(x.size(0), -1, 2): Shape -> Gather -> Unsqueeze ->
    # Concat -> Reshape, plus ConstantOfShape/Range/Cast/Size on shapes.
    [helper.make_node("Shape", ["x"], ["shape"]),
     ints("zero", 0),
     helper.make_node("Gather", ["shape", "zero"], ["n"]),
     ints("axes", [0]),
     helper.make_node("Unsqueeze", ["n", "axes"], ["n1"]),
     ints("rest", [-1, 2]),
     helper.make_node("Concat", ["n1", "rest"], ["target"], axis=0),
     helper.make_node("Reshape", ["x", "target"], ["r"]),
     helper.make_node("Shape", ["r"], ["rshape"], start=-1),
     helper.make_node("ConstantOfShape", ["rshape"], ["ones"],
                      value=numpy_helper.from_array(np.ones(1, np.float32))),
     helper.make_node("Size", ["x"], ["size"]),
     helper.make_node("Cast", ["size"], ["sizef"], to=F),
     helper.make_node("Mul", ["ones", "sizef"], ["scale"]),
     ints("start", 0), ints("limit", 2), ints("delta", 1),
     helper.make_node("Range", ["start", "limit", "delta"], ["rng"]),
     helper.make_node("Cast", ["rng"], ["rngf"], to=F),
     helper.make_node("Add", ["scale", "rngf"], ["bias"]),
     helper.make_node("Add", ["r", "bias"], ["y"])],
    {"x": x_in((3, 2, 4))}, {"y": out([3, 4, 2])},
    lambda v: [v["x"].reshape(3, 4, 2) + np.array([24, 25], np.float32)],
    opset=15)
CASES["identity_dropout_inference"] = Case(
    [helper.make_node("Identity", ["x"], ["i"]),
     helper.make_node("Dropout", ["i"], ["y", "mask"]),
     helper.make_node("Cast", ["mask"], ["y1"], to=F)],
    {"x": x_in((2, 3))}, {"y": out(), "y1": out()},
    lambda v: [v["x"], np.ones((2, 3), np.float32)])
CASES["dropout_training"] = Case(
    [const("ratio", np.float32(0.25)), const("train", np.bool_(True)),
     helper.make_node("Dropout", ["x", "ratio", "train"], ["y", "mask"],
                      name="drop")],
    {"x": x_in((4, 8))}, {"y": out(), "mask": out(elem=BOOL)}, None)
CASES["loss_output"] = Case(
    [helper.make_node("Sub", ["x", "t"], ["d"]),
     helper.make_node("Mul", ["d", "d"], ["d2"]),
     helper.make_node("ReduceMean", ["d2"], ["train_loss"], keepdims=0),
     helper.make_node("Identity", ["w"], ["w_out"])],
    {"x": x_in((4, 3)), "t": x_in((4, 3))},
    {"train_loss": out([]), "w_out": out(), "t": out()},
    lambda v: [((v["x"] - v["t"]) ** 2).mean(), v["w"], v["t"]],
    inits={"w": normal(3)})


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    flags = [a for a in sys.argv[1:] if a.startswith("--")]
    if "--list" in flags:
        print("\n".join(sorted(CASES)))
        return
    directory, names = args[0], args[1:]
    if "--all" in flags:
        names = sorted(CASES)
    os.makedirs(directory, exist_ok=True)
    run = "--run" in flags
    ok, count = True, 0
    for name in names:
        case = CASES[name]
        path = os.path.join(directory, name + ".onnx")
        with open(path, "wb") as f:
            f.write(case.model().SerializeToString())
        if not run or case.ref is None:
            continue
        import onnx_harness as H
        mlir = os.path.join(directory, name + ".mlir")
        H.import_model(path, mlir)
        feeds = dict(H.read_checkpoint(os.path.join(directory,
                                                    name + ".ckpt")))
        inputs = case.draw()
        feeds.update(inputs)
        values = dict(inputs)
        values.update({k: np.asarray(v) for k, v in case.inits.items()})
        workdir = os.path.join(directory, name + ".run")
        os.makedirs(workdir, exist_ok=True)
        got = H.run_forward(mlir, feeds, workdir)
        expected = case.ref(values)
        case_ok = True
        for (out_name, _), want in zip(case.outputs.items(), expected):
            case_ok &= H.compare(f"{name} '{out_name}'", got[out_name],
                                 np.asarray(want, np.float64))
        print(f"{'PASS' if case_ok else 'FAIL'} {name}")
        ok &= case_ok
        count += 1
    if not ok:
        sys.exit(1)
    if run:
        print(f"ALL {count} CASES PASS")


if __name__ == "__main__":
    main()
