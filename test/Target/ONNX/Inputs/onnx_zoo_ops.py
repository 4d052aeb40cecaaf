#!/usr/bin/env python3
"""Small ONNX graphs of the ops the model zoo brought (issue 35), one per
op and variant, in the form of onnx_ops.py (whose Case, runner and
command line they share):

    onnx_zoo_ops.py DIR CASE... [--run] [--list] [--all]

Cases without a reference are error cases: their tests check the
importer's message.
"""

import math

import numpy as np
from onnx import helper, numpy_helper

import onnx_ops
from onnx_ops import CASES, Case, F, I64, const, ints, normal, out, x_in


def conv_transpose_ref(x, w, b=None, stride=(1, 1), pads=(0, 0, 0, 0),
                       dilation=(1, 1), groups=1, output_padding=(0, 0)):
    """The transposed convolution by its definition: every input element
    adds its weighted kernel at (i * stride + k * dilation) of the
    unpadded output, which is then cropped by pads [top, left, bottom,
    right]."""
    n, c, h, wd = x.shape
    _, mg, kh, kw = w.shape
    cg = c // groups
    full = [stride[0] * (h - 1) + output_padding[0] + (kh - 1) * dilation[0]
            + 1,
            stride[1] * (wd - 1) + output_padding[1] + (kw - 1) * dilation[1]
            + 1]
    y = np.zeros((n, mg * groups, full[0], full[1]))
    x64, w64 = x.astype(np.float64), w.astype(np.float64)
    for g in range(groups):
        xs = x64[:, g * cg:(g + 1) * cg]
        ws = w64[g * cg:(g + 1) * cg]
        for i in range(kh):
            for j in range(kw):
                contribution = np.einsum("nchw,cm->nmhw", xs, ws[:, :, i, j])
                r, s = i * dilation[0], j * dilation[1]
                y[:, g * mg:(g + 1) * mg,
                  r:r + stride[0] * (h - 1) + 1:stride[0],
                  s:s + stride[1] * (wd - 1) + 1:stride[1]] += contribution
    y = y[:, :, pads[0]:full[0] - pads[2], pads[1]:full[1] - pads[3]]
    if b is not None:
        y = y + b[None, :, None, None]
    return y


def conv_transpose(name, x_shape, w_shape, ref_args, bias=True, opset=13,
                   **attrs):
    inits = {"w": normal(*w_shape)}
    inputs = ["x", "w"]
    if bias:
        inits["b"] = normal(w_shape[1] * attrs.get("group", 1))
        inputs.append("b")
    CASES[name] = Case(
        [helper.make_node("ConvTranspose", inputs, ["y"], **attrs)],
        {"x": x_in(x_shape)}, {"y": out()},
        None if ref_args is None else lambda v: [conv_transpose_ref(
            v["x"], v["w"], v.get("b"), **ref_args)],
        inits=inits, opset=opset)


# ConvTranspose: as PyTorch exports nn.ConvTranspose2d (explicit pads,
# output_padding), and the attributes other exporters use (output_shape,
# auto_pad).
conv_transpose("conv_transpose_unet", (2, 4, 3, 4), (4, 3, 3, 3),
               dict(stride=(2, 2), pads=(1, 1, 1, 1), output_padding=(1, 1)),
               strides=[2, 2], pads=[1, 1, 1, 1], output_padding=[1, 1],
               kernel_shape=[3, 3])
conv_transpose("conv_transpose_groups_dilation", (1, 4, 4, 5), (4, 2, 3, 2),
               dict(pads=(1, 0, 2, 1), dilation=(2, 3), groups=2),
               bias=False, pads=[1, 0, 2, 1], dilations=[2, 3], group=2,
               opset=17)
# output_padding 2 at stride 1 (below the dilation 3, as PyTorch allows):
# taken from the end padding.
conv_transpose("conv_transpose_padding_from_end", (1, 2, 4, 4), (2, 2, 3, 3),
               dict(pads=(2, 2, 2, 2), dilation=(3, 3),
                    output_padding=(2, 2)),
               pads=[2, 2, 2, 2], dilations=[3, 3], output_padding=[2, 2])
# Beyond what the end padding gives: rows no window reaches, zeros.
conv_transpose("conv_transpose_zero_rows", (1, 2, 3, 3), (2, 2, 3, 3),
               dict(pads=(1, 0, 0, 0), dilation=(3, 3), output_padding=(2, 1)),
               pads=[1, 0, 0, 0], dilations=[3, 3], output_padding=[2, 1])
# output_shape [6, 8] at stride 2 on 3x4 with kernel 3 (7x9 unpadded):
# total padding 1 in each dimension, at the start (auto_pad NOTSET).
conv_transpose("conv_transpose_output_shape", (1, 2, 3, 4), (2, 3, 3, 3),
               dict(stride=(2, 2), pads=(1, 1, 0, 0)),
               strides=[2, 2], output_shape=[6, 8])
conv_transpose("conv_transpose_same_upper", (1, 2, 3, 3), (2, 2, 4, 3),
               dict(stride=(2, 2), pads=(1, 0, 1, 1)),
               strides=[2, 2], auto_pad="SAME_UPPER")
conv_transpose("conv_transpose_same_lower", (1, 2, 3, 3), (2, 2, 4, 3),
               dict(stride=(2, 2), pads=(1, 1, 1, 0)),
               strides=[2, 2], auto_pad="SAME_LOWER")
conv_transpose("conv_transpose_valid", (1, 2, 3, 3), (2, 2, 2, 2),
               dict(stride=(3, 3)), strides=[3, 3], pads=[1, 1, 1, 1],
               auto_pad="VALID")
# Errors.
conv_transpose("conv_transpose_bad_group", (1, 4, 3, 3), (4, 2, 3, 3), None,
               group=3)
conv_transpose("conv_transpose_kernel_mismatch", (1, 2, 3, 3), (2, 2, 3, 3),
               None, kernel_shape=[2, 2])
conv_transpose("conv_transpose_negative_output_padding", (1, 2, 3, 3),
               (2, 2, 3, 3), None, strides=[2, 2], output_padding=[0, -1])
conv_transpose("conv_transpose_output_shape_too_large", (1, 2, 3, 3),
               (2, 2, 3, 3), None, strides=[2, 2], output_shape=[8, 7])
conv_transpose("conv_transpose_bad_auto_pad", (1, 2, 3, 3), (2, 2, 3, 3),
               None, auto_pad="SAME")
conv_transpose("conv_transpose_3d", (1, 2, 3, 3, 3), (2, 2, 3, 3, 3), None)
conv_transpose("conv_transpose_too_much_padding", (1, 2, 2, 2), (2, 2, 2, 2),
               None, pads=[2, 0, 2, 0])
CASES["conv_transpose_bias_shape"] = Case(
    [helper.make_node("ConvTranspose", ["x", "w", "b"], ["y"])],
    {"x": x_in((1, 2, 3, 3))}, {"y": out()},
    inits={"w": normal(2, 3, 2, 2), "b": normal(2)})


# HardSigmoid, HardSwish (opset 14), IsNaN, IsInf.
def hard_sigmoid_ref(x, alpha=0.2, beta=0.5):
    return np.clip(alpha * x.astype(np.float64) + beta, 0, 1)


CASES["hard_sigmoid_default"] = Case(
    [helper.make_node("HardSigmoid", ["x"], ["y"])],
    {"x": x_in((2, 3, 4), "int")}, {"y": out()},
    lambda v: [hard_sigmoid_ref(v["x"] * 1.0)])
CASES["hard_sigmoid_attrs"] = Case(
    [helper.make_node("Mul", ["x", "four"], ["x4"]),
     helper.make_node("HardSigmoid", ["x4"], ["y"], alpha=0.3, beta=0.4)],
    {"x": x_in((2, 3, 4))}, {"y": out()},
    lambda v: [hard_sigmoid_ref(v["x"] * 4, 0.3, 0.4)],
    inits={"four": np.float32(4)})
CASES["hard_swish"] = Case(
    [helper.make_node("Mul", ["x", "four"], ["x4"]),
     helper.make_node("HardSwish", ["x4"], ["y"])],
    {"x": x_in((2, 3, 4))}, {"y": out()},
    lambda v: [v["x"] * 4.0 * hard_sigmoid_ref(v["x"] * 4, 1 / 6, 0.5)],
    inits={"four": np.float32(4)}, opset=14)
NONFINITE = np.array([[1.0, np.inf, -np.inf, np.nan], [-2.0, 0.0, np.inf, 3.5]],
                     np.float32)


def nonfinite_case(op, ref, **attrs):
    # The Where turns the bool result into a float output the harness reads.
    return Case(
        [helper.make_node(op, ["x"], ["m"], **attrs),
         helper.make_node("Cast", ["m"], ["y"], to=F)],
        {"x": (F, [2, 4], NONFINITE)}, {"y": out()},
        None if ref is None else lambda v: [ref(v["x"]).astype(np.float32)])


CASES["isnan"] = nonfinite_case("IsNaN", np.isnan)
CASES["isinf"] = nonfinite_case("IsInf", np.isinf)
CASES["isinf_positive"] = nonfinite_case(
    "IsInf", lambda x: np.isposinf(x), detect_negative=0)
CASES["isinf_negative"] = nonfinite_case(
    "IsInf", lambda x: np.isneginf(x), detect_positive=0)
CASES["isinf_neither"] = nonfinite_case(
    "IsInf", lambda x: np.zeros_like(x, bool), detect_negative=0,
    detect_positive=0)
CASES["isinf_bad_attr"] = nonfinite_case("IsInf", None, detect_negative=2)
CASES["hard_sigmoid_int_alpha"] = Case(
    [helper.make_node("HardSigmoid", ["x"], ["y"], alpha=1)],
    {"x": x_in((2, 3))}, {"y": out()})


# CumSum: inclusive or exclusive, forward or reversed, along any axis.
def cumsum_ref(x, axis, exclusive=0, reverse=0):
    x = x.astype(np.float64)
    if reverse:
        x = np.flip(x, axis)
    y = np.cumsum(x, axis)
    if exclusive:
        y = y - x
    return np.flip(y, axis) if reverse else y


def cumsum_case(axis, opset=14, **attrs):
    return Case(
        [ints("axis", axis), helper.make_node("CumSum", ["x", "axis"], ["y"],
                                              **attrs)],
        {"x": x_in((2, 3, 4))}, {"y": out()},
        lambda v: [cumsum_ref(v["x"], axis, **attrs)], opset=opset)


CASES["cumsum"] = cumsum_case(1, opset=13)
CASES["cumsum_exclusive"] = cumsum_case(-1, exclusive=1)
CASES["cumsum_reverse"] = cumsum_case(0, reverse=1)
CASES["cumsum_exclusive_reverse"] = cumsum_case(2, exclusive=1, reverse=1)
# Known at import time (position ids of a constant mask): folded.
CASES["cumsum_folded"] = Case(
    [ints("ids", [[1, 1, 0, 1]]), ints("axis", 1),
     helper.make_node("CumSum", ["ids", "axis"], ["pos"]),
     helper.make_node("Cast", ["pos"], ["posf"], to=F),
     helper.make_node("Add", ["x", "posf"], ["y"])],
    {"x": x_in((2, 4))}, {"y": out()},
    lambda v: [v["x"] + np.array([[1, 2, 2, 3]], np.float32)])
CASES["cumsum_runtime_axis"] = Case(
    [helper.make_node("CumSum", ["x", "axis"], ["y"])],
    {"x": x_in((2, 3)), "axis": (I64, [], "index:2")}, {"y": out()})
CASES["cumsum_bad_exclusive"] = Case(
    [ints("axis", 0),
     helper.make_node("CumSum", ["x", "axis"], ["y"], exclusive=2)],
    {"x": x_in((2, 3))}, {"y": out()})


# Einsum: the contractions of attention code, and one-operand sums and
# transposes.
def einsum_case(equation, *shapes, opset=13):
    names = ["a", "b"][:len(shapes)]
    return Case(
        [helper.make_node("Einsum", names, ["y"], equation=equation)],
        {n: x_in(s) for n, s in zip(names, shapes)}, {"y": out()},
        lambda v: [np.einsum(equation, *[v[n].astype(np.float64)
                                         for n in names])], opset=opset)


CASES["einsum_attention_scores"] = einsum_case(
    "bhid,bhjd->bhij", (2, 3, 4, 5), (2, 3, 6, 5))
CASES["einsum_attention_values"] = einsum_case(
    "bhij,bjhd->bihd", (2, 3, 4, 6), (2, 6, 3, 5))
CASES["einsum_implicit"] = einsum_case("ij,jk", (3, 4), (4, 5))
CASES["einsum_ellipsis"] = einsum_case("...ij,...jk->...ik", (2, 3, 4, 5),
                                       (2, 3, 5, 2))
CASES["einsum_dot_and_sum"] = einsum_case("bi,bij->b", (3, 4), (3, 4, 2))
CASES["einsum_outer"] = einsum_case("i,j->ij", (3,), (4,))
CASES["einsum_transpose"] = einsum_case("bij->jbi", (2, 3, 4))
CASES["einsum_sum_all"] = einsum_case("ij->", (3, 4))
CASES["einsum_diagonal"] = einsum_case("ii->i", (3, 3))
CASES["einsum_broadcast"] = einsum_case("ij,jk->ik", (3, 4), (1, 5))
for name in ("einsum_diagonal", "einsum_broadcast"):
    CASES[name].ref = None  # errors
CASES["einsum_three"] = Case(
    [helper.make_node("Einsum", ["a", "b", "c"], ["y"],
                      equation="i,i,i->i")],
    {"a": x_in((3,)), "b": x_in((3,)), "c": x_in((3,))}, {"y": out()})


# Resize, by the ONNX formulas in float64 (the importer computes source
# coordinates in f32 as PyTorch does; the cases avoid ties that the two
# would round apart).
def resize_source(d, size, out, scale, transform):
    if transform == "asymmetric":
        return d / scale
    if transform == "align_corners":
        return 0.0 if out == 1 else d * (size - 1) / (out - 1)
    if transform == "pytorch_half_pixel" and out == 1:
        return 0.0
    return (d + 0.5) / scale - 0.5


def resize_ref(x, outs, scales, mode, transform, nearest="round_prefer_floor"):
    y = x.astype(np.float64)
    for axis, (out, scale) in enumerate(zip(outs, scales)):
        size = y.shape[axis]
        if out == size and scale == 1:
            continue
        matrix = np.zeros((out, size))
        for d in range(out):
            src = resize_source(d, size, out, scale, transform)
            if mode == "nearest":
                index = {"floor": np.floor(src), "ceil": np.ceil(src),
                         "round_prefer_ceil": np.floor(src + 0.5),
                         "round_prefer_floor": np.ceil(src - 0.5)}[nearest]
                matrix[d, int(min(max(index, 0), size - 1))] = 1
                continue
            src = min(max(src, 0), size - 1)
            low = int(np.floor(src))
            high = min(low + 1, size - 1)
            matrix[d, low] += 1 - (src - low)
            matrix[d, high] += src - low
        y = np.moveaxis(np.tensordot(matrix, y, axes=([1], [axis])), 0, axis)
    return y


def resize_case(shape, mode, transform, scales=None, sizes=None, opset=13,
                nearest="round_prefer_floor", axes=None, **attrs):
    nodes, inputs = [], ["x", ""]
    if scales is not None:
        nodes.append(const("scales", np.array(scales, np.float32)))
        inputs[1:] = ["", "scales"]
    if sizes is not None:
        nodes.append(ints("sizes", sizes))
        inputs[1:] = ["", "", "sizes"]
    if axes is not None:
        attrs["axes"] = axes
    nodes.append(helper.make_node(
        "Resize", inputs, ["y"], mode=mode,
        coordinate_transformation_mode=transform, nearest_mode=nearest,
        **attrs))
    every = list(axes) if axes is not None else list(range(len(shape)))
    full_scales, outs = [1.0] * len(shape), list(shape)
    for j, axis in enumerate(every):
        if scales is not None:
            full_scales[axis] = float(np.float32(scales[j]))
            outs[axis] = int(np.floor(shape[axis] * full_scales[axis]))
        else:
            outs[axis] = sizes[j]
            full_scales[axis] = sizes[j] / shape[axis]
    return Case(nodes, {"x": x_in(shape)}, {"y": out()},
                lambda v: [resize_ref(v["x"], outs, full_scales, mode,
                                      transform, nearest)], opset=opset)


CASES["resize_nearest_floor"] = resize_case(
    (1, 2, 3, 4), "nearest", "asymmetric", scales=[1, 1, 2, 3],
    nearest="floor")
CASES["resize_nearest_round_prefer_floor"] = resize_case(
    (1, 2, 3, 4), "nearest", "asymmetric", scales=[1, 1, 2, 0.5])
CASES["resize_nearest_round_prefer_ceil"] = resize_case(
    (1, 2, 3, 4), "nearest", "asymmetric", scales=[1, 1, 2, 2],
    nearest="round_prefer_ceil")
CASES["resize_nearest_ceil_half_pixel"] = resize_case(
    (1, 2, 3, 4), "nearest", "half_pixel", sizes=[1, 2, 5, 7],
    nearest="ceil")
CASES["resize_linear_half_pixel"] = resize_case(
    (2, 2, 3, 4), "linear", "half_pixel", scales=[1, 1, 2, 2])
CASES["resize_linear_pytorch_half_pixel"] = resize_case(
    (2, 2, 3, 4), "linear", "pytorch_half_pixel", sizes=[2, 2, 1, 6])
CASES["resize_linear_align_corners"] = resize_case(
    (2, 2, 3, 4), "linear", "align_corners", sizes=[2, 2, 7, 5])
CASES["resize_linear_1d"] = resize_case(
    (2, 3, 5), "linear", "half_pixel", scales=[1, 1, 1.6])
CASES["resize_linear_axes_opset18"] = resize_case(
    (2, 2, 3, 4), "linear", "half_pixel", scales=[2, 0.5], axes=[2, 3],
    opset=18)
CASES["resize_nearest_sizes_axes_opset19"] = resize_case(
    (2, 2, 3, 4), "nearest", "asymmetric", sizes=[6, 8], axes=[-2, -1],
    nearest="floor", opset=19)
CASES["resize_cubic"] = resize_case((1, 1, 2, 2), "cubic", "half_pixel",
                                    scales=[1, 1, 2, 2])
CASES["resize_crop"] = resize_case((1, 1, 2, 2), "linear",
                                   "tf_crop_and_resize", scales=[1, 1, 2, 2])
CASES["resize_antialias_down"] = resize_case(
    (1, 1, 4, 4), "linear", "half_pixel", scales=[1, 1, 0.5, 0.5],
    antialias=1, opset=18)
CASES["resize_keep_aspect"] = resize_case(
    (1, 1, 4, 4), "nearest", "asymmetric", sizes=[1, 1, 8, 6],
    keep_aspect_ratio_policy="not_larger", opset=18)
for name in ("resize_cubic", "resize_crop", "resize_antialias_down",
             "resize_keep_aspect"):
    CASES[name].ref = None  # errors
CASES["resize_runtime_scales"] = Case(
    [helper.make_node("Resize", ["x", "", "s"], ["y"])],
    {"x": x_in((1, 1, 2, 2)), "s": x_in((4,))}, {"y": out()})
CASES["resize_no_scales"] = Case(
    [helper.make_node("Resize", ["x"], ["y"])],
    {"x": x_in((1, 1, 2, 2))}, {"y": out()})


# Opsets 18 to 21: the reductions' axes as an input, Split's num_outputs,
# Pad's axes, GroupNormalization, Gelu, Mod in shape arithmetic.
def reduce18(op, axes, keepdims, ref, noop=0):
    nodes, inputs = [], ["x"]
    if axes is not None:
        nodes.append(ints("axes", axes))
        inputs.append("axes")
    nodes.append(helper.make_node(op, inputs, ["y"], keepdims=keepdims,
                                  noop_with_empty_axes=noop))
    return Case(nodes, {"x": x_in((2, 3, 4))}, {"y": out()},
                lambda v: [ref(v["x"].astype(np.float64))], opset=18)


CASES["reduce_mean_opset18"] = reduce18(
    "ReduceMean", [0, -1], 1, lambda x: x.mean(axis=(0, 2), keepdims=True))
CASES["reduce_max_opset18"] = reduce18(
    "ReduceMax", [1], 0, lambda x: x.max(axis=1))
CASES["reduce_mean_opset18_all"] = reduce18(
    "ReduceMean", None, 0, lambda x: x.mean())
CASES["reduce_max_opset18_noop"] = reduce18(
    "ReduceMax", None, 1, lambda x: x, noop=1)
CASES["reduce_mean_opset18_axes_attr"] = Case(
    [helper.make_node("ReduceMean", ["x"], ["y"], axes=[1])],
    {"x": x_in((2, 3))}, {"y": out()}, opset=18)
CASES["split_num_outputs"] = Case(
    [helper.make_node("Split", ["x"], ["a", "b", "c"], axis=-1,
                      num_outputs=3)],
    {"x": x_in((2, 8))}, {"a": out(), "b": out(), "c": out()},
    lambda v: [v["x"][:, :3], v["x"][:, 3:6], v["x"][:, 6:]], opset=18)
CASES["split_opset18_sizes"] = Case(
    [ints("parts", [1, 3]),
     helper.make_node("Split", ["x", "parts"], ["a", "b"], axis=0)],
    {"x": x_in((4, 2))}, {"a": out(), "b": out()},
    lambda v: [v["x"][:1], v["x"][1:]], opset=18)
CASES["split_num_outputs_and_sizes"] = Case(
    [ints("parts", [1, 1]),
     helper.make_node("Split", ["x", "parts"], ["a", "b"], num_outputs=2)],
    {"x": x_in((2, 2))}, {"a": out(), "b": out()}, opset=18)
CASES["split_num_outputs_mismatch"] = Case(
    [helper.make_node("Split", ["x"], ["a", "b"], num_outputs=3)],
    {"x": x_in((6, 2))}, {"a": out(), "b": out()}, opset=18)
CASES["split_num_outputs_too_many"] = Case(
    [helper.make_node("Split", ["x"], ["a", "b", "c", "d"], num_outputs=4)],
    {"x": x_in((5, 2))}, {"a": out(), "b": out(), "c": out(), "d": out()},
    opset=18)
CASES["pad_axes_opset18"] = Case(
    [ints("pads", [1, 0, 2, 1]), ints("axes", [-1, 1]),
     const("v", np.float32(0.25)),
     helper.make_node("Pad", ["x", "pads", "v", "axes"], ["y"])],
    {"x": x_in((2, 3, 4))}, {"y": out()},
    lambda v: [np.pad(v["x"], ((0, 0), (0, 1), (1, 2)),
                      constant_values=0.25)], opset=18)
CASES["pad_axes_opset18_count"] = Case(
    [ints("pads", [1, 0, 2]), ints("axes", [-1, 1]),
     helper.make_node("Pad", ["x", "pads", "", "axes"], ["y"])],
    {"x": x_in((2, 3, 4))}, {"y": out()}, opset=18)


def group_norm_ref(x, groups, scale, bias, eps=1e-5):
    n, c = x.shape[:2]
    g = x.astype(np.float64).reshape(n, groups, -1)
    y = (g - g.mean(-1, keepdims=True)) / np.sqrt(g.var(-1, keepdims=True) +
                                                   eps)
    y = y.reshape(x.shape)
    shape = (1, c) + (1,) * (x.ndim - 2)
    return y * scale.reshape(shape) + bias.reshape(shape)


CASES["group_norm_opset18"] = Case(
    [helper.make_node("GroupNormalization", ["x", "s", "b"], ["y"],
                      num_groups=2, epsilon=1e-3)],
    {"x": x_in((2, 6, 3, 2))}, {"y": out()},
    lambda v: [group_norm_ref(v["x"], 2, np.repeat(v["s"], 3),
                              np.repeat(v["b"], 3), 1e-3)],
    inits={"s": normal(2), "b": normal(2)}, opset=18)
CASES["group_norm_opset21"] = Case(
    [helper.make_node("GroupNormalization", ["x", "s", "b"], ["y"],
                      num_groups=3)],
    {"x": x_in((2, 6, 5))}, {"y": out()},
    lambda v: [group_norm_ref(v["x"], 3, v["s"], v["b"])],
    inits={"s": normal(6), "b": normal(6)}, opset=21)
CASES["group_norm_bad_groups"] = Case(
    [helper.make_node("GroupNormalization", ["x", "s", "b"], ["y"],
                      num_groups=4)],
    {"x": x_in((2, 6, 5))}, {"y": out()},
    inits={"s": normal(4), "b": normal(4)}, opset=18)
CASES["group_norm_per_channel_at_18"] = Case(
    [helper.make_node("GroupNormalization", ["x", "s", "b"], ["y"],
                      num_groups=3)],
    {"x": x_in((2, 6, 5))}, {"y": out()},
    inits={"s": normal(6), "b": normal(6)}, opset=18)
CASES["group_norm_stash_type"] = Case(
    [helper.make_node("GroupNormalization", ["x", "s", "b"], ["y"],
                      num_groups=3, stash_type=0)],
    {"x": x_in((2, 6, 5))}, {"y": out()},
    inits={"s": normal(6), "b": normal(6)}, opset=21)
erf = np.vectorize(math.erf)
CASES["gelu_opset20"] = Case(
    [helper.make_node("Gelu", ["x"], ["y"])],
    {"x": x_in((2, 3, 4))}, {"y": out()},
    lambda v: [0.5 * v["x"] * (1 + erf(v["x"].astype(np.float64) /
                                       math.sqrt(2)))], opset=20)
CASES["gelu_tanh_opset20"] = Case(
    [helper.make_node("Gelu", ["x"], ["y"], approximate="tanh")],
    {"x": x_in((2, 3, 4))}, {"y": out()},
    lambda v: [0.5 * v["x"] * (1 + np.tanh(
        math.sqrt(2 / math.pi) * (v["x"].astype(np.float64) +
                                  0.044715 * v["x"].astype(np.float64) ** 3)))],
    opset=20)
CASES["mish_opset18"] = Case(
    [helper.make_node("Mish", ["x"], ["y"])],
    {"x": x_in((2, 3, 4))}, {"y": out()},
    lambda v: [v["x"] * np.tanh(np.logaddexp(v["x"].astype(np.float64), 0))],
    opset=18)
CASES["gelu_bad_approximate"] = Case(
    [helper.make_node("Gelu", ["x"], ["y"], approximate="fast")],
    {"x": x_in((2, 3))}, {"y": out()}, opset=20)
CASES["gelu_opset17"] = Case(
    [helper.make_node("Gelu", ["x"], ["y"])],
    {"x": x_in((2, 3))}, {"y": out()}, opset=17)
# Mod folds in shape arithmetic (x.view(-1, n % 5 ...)): [7, -7] mod -3 is
# [-2, -1] (the divisor's sign), with fmod [1, -1] (the dividend's).
CASES["mod_folded"] = Case(
    [ints("a", [7, -7]), ints("b", [-3]),
     helper.make_node("Mod", ["a", "b"], ["m"]),
     helper.make_node("Mod", ["a", "b"], ["f"], fmod=1),
     helper.make_node("Concat", ["m", "f"], ["c"], axis=0),
     helper.make_node("Cast", ["c"], ["cf"], to=F),
     helper.make_node("Add", ["x", "cf"], ["y"])],
    {"x": x_in((2, 4))}, {"y": out()},
    lambda v: [v["x"] + np.array([-2, -1, 1, -1], np.float32)], opset=18)
CASES["mod_runtime"] = Case(
    [const("b", np.float32(2)),
     helper.make_node("Mod", ["x", "b"], ["y"], fmod=1)],
    {"x": x_in((2, 3))}, {"y": out()})
CASES["relu_opset21"] = Case(
    [helper.make_node("Relu", ["x"], ["r"]),
     helper.make_node("Reshape", ["r", "s"], ["y"])],
    {"x": x_in((2, 3))}, {"y": out()},
    lambda v: [np.maximum(v["x"], 0).reshape(3, 2)],
    inits={"s": np.array([3, 2], np.int64)}, opset=21)
CASES["relu_opset22"] = Case(
    [helper.make_node("Relu", ["x"], ["y"])],
    {"x": x_in((2, 3))}, {"y": out()}, opset=22)


# Random ops: stochastic depth's drop path as PyTorch 1.x exports it, and
# rand() < p masks (Bernoulli draws; no reference, the IR is checked).
def shape_of(name, shape, value=1.0):
    return [ints(name + "_shape", shape),
            helper.make_node("ConstantOfShape", [name + "_shape"], [name],
                             value=numpy_helper.from_array(
                                 np.array([value], np.float32)))]


CASES["random_drop_path"] = Case(
    shape_of("like", [4, 1]) +
    [helper.make_node("RandomUniformLike", ["like"], ["u"], seed=3.0),
     const("keep", np.float32(0.75)),
     helper.make_node("Add", ["u", "keep"], ["uk"]),
     helper.make_node("Floor", ["uk"], ["mask"], name="drop_path"),
     helper.make_node("Div", ["x", "keep"], ["xs"]),
     helper.make_node("Mul", ["xs", "mask"], ["y"])],
    {"x": x_in((4, 8))}, {"y": out()})
CASES["random_less"] = Case(
    [helper.make_node("RandomUniform", [], ["u"], shape=[4, 1]),
     const("p", np.float32(0.3)),
     helper.make_node("Less", ["u", "p"], ["m"], name="mask"),
     helper.make_node("Cast", ["m"], ["mf"], to=F),
     helper.make_node("Mul", ["x", "mf"], ["y"])],
    {"x": x_in((4, 8))}, {"y": out()})
CASES["random_scaled_greater"] = Case(
    [helper.make_node("RandomUniform", [], ["u"], shape=[4, 8], low=-1.0,
                      high=1.0),
     const("two", np.float32(2)), const("one", np.float32(1)),
     helper.make_node("Mul", ["two", "u"], ["u2"]),
     helper.make_node("Greater", ["u2", "one"], ["m"], name="mask"),
     helper.make_node("Where", ["m", "x", "zero"], ["y"])],
    {"x": x_in((4, 8))}, {"y": out()}, inits={"zero": np.float32(0)})
CASES["bernoulli_constant"] = Case(
    shape_of("p", [4, 1], 0.4) +
    [helper.make_node("Bernoulli", ["p"], ["b"], name="draw"),
     helper.make_node("Mul", ["x", "b"], ["y"])],
    {"x": x_in((4, 8))}, {"y": out()}, opset=15)
# A probability too small to change 1 - p (the fuzzer's): nothing drawn.
CASES["bernoulli_tiny_probability"] = Case(
    shape_of("p", [4, 1], 1e-30) +
    [helper.make_node("Bernoulli", ["p"], ["b"], name="draw"),
     helper.make_node("Mul", ["x", "b"], ["y"])],
    {"x": x_in((4, 8))}, {"y": out()},
    lambda v: [np.zeros((4, 8), np.float32)], opset=15)
CASES["floor_folded"] = Case(
    [const("c", np.array([1.5, -0.5], np.float32)),
     helper.make_node("Floor", ["c"], ["f"]),
     helper.make_node("Add", ["x", "f"], ["y"])],
    {"x": x_in((3, 2))}, {"y": out()},
    lambda v: [v["x"] + np.array([1, -1], np.float32)])
CASES["random_used_directly"] = Case(
    [helper.make_node("RandomUniformLike", ["x"], ["u"]),
     helper.make_node("Add", ["x", "u"], ["y"])],
    {"x": x_in((4, 8))}, {"y": out()})
CASES["random_times_input"] = Case(
    [helper.make_node("RandomUniformLike", ["x"], ["u"]),
     helper.make_node("Sigmoid", ["u"], ["y"])],
    {"x": x_in((4, 8))}, {"y": out()})
CASES["random_output"] = Case(
    [helper.make_node("RandomUniform", [], ["y"], shape=[2, 2])],
    {"x": x_in((4, 8))}, {"y": out()})
CASES["random_floor_wide"] = Case(
    [helper.make_node("RandomUniform", [], ["u"], shape=[2, 2]),
     const("four", np.float32(4)),
     helper.make_node("Mul", ["u", "four"], ["u4"]),
     helper.make_node("Floor", ["u4"], ["y"])],
    {"x": x_in((4, 8))}, {"y": out()})
CASES["bernoulli_runtime"] = Case(
    [helper.make_node("Sigmoid", ["x"], ["p"]),
     helper.make_node("Bernoulli", ["p"], ["y"])],
    {"x": x_in((4, 8))}, {"y": out()}, opset=15)
CASES["floor_runtime"] = Case(
    [helper.make_node("Floor", ["x"], ["y"])],
    {"x": x_in((4, 8))}, {"y": out()})

if __name__ == "__main__":
    onnx_ops.main()
