#!/usr/bin/env python3
"""Small ONNX graphs of the ops the model zoo brought (issue 35), one per
op and variant, in the form of onnx_ops.py (whose Case, runner and
command line they share):

    onnx_zoo_ops.py DIR CASE... [--run] [--list] [--all]

Cases without a reference are error cases: their tests check the
importer's message.
"""

import numpy as np
from onnx import helper

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


if __name__ == "__main__":
    onnx_ops.main()
