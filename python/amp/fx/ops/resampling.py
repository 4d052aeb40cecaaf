"""Upsampling (nn.Upsample, F.interpolate): nearest as gathers of rows
and columns, bilinear as products with constant interpolation matrices
(one per spatial dimension). Both are linear in the input, so their
gradients (a scatter-add, a product with the transposed matrix) are
PyTorch's backward exactly."""
import math

import numpy as np

from ..emitter import Attr
from ..registry import handles


def _scales(ctx, x, output_size, scale_factors):
    """Per spatial dimension: (input size, output size, source step) as
    PyTorch's area_pixel_compute_scale gives it without align_corners."""
    value = ctx.tensor(x)
    sizes = value.shape[2:]
    if output_size is not None:
        outs = list(output_size)
        steps = [i / o for i, o in zip(sizes, outs)]
    else:
        outs = [int(math.floor(i * s)) for i, s in zip(sizes, scale_factors)]
        steps = [1.0 / s for s in scale_factors]
    return value, list(zip(sizes, outs, steps))


def _gather(ctx, value, axis, indices):
    shape = list(value.shape)
    shape[axis] = len(indices)
    index = ctx.emit.constant(np.asarray(indices, dtype=np.int64), "i64")
    return ctx.emit.op("amp.gather", [value, index],
                       [(tuple(shape), value.dtype)],
                       {"axis": Attr.i64(axis)})


@handles("aten.upsample_nearest2d.vec", "aten.upsample_nearest2d.default")
def upsample_nearest2d(ctx, x, output_size=None, scale_factors=None, *rest):
    value, dims = _scales(ctx, x, output_size, scale_factors)
    for axis, (size, out, step) in zip((2, 3), dims):
        # PyTorch's nearest: floor(dst * step), clamped (float32 math).
        indices = [min(int(math.floor(np.float32(d) * np.float32(step))),
                       size - 1) for d in range(out)]
        if indices != list(range(size)):
            value = _gather(ctx, value, axis, indices)
    return value


def _bilinear_matrix(size, out, step, align_corners):
    """[out, size]: row d holds the two weights of output position d."""
    matrix = np.zeros((out, size), dtype=np.float32)
    for d in range(out):
        if align_corners:
            src = d * ((size - 1) / (out - 1)) if out > 1 else 0.0
        else:
            src = max((d + 0.5) * step - 0.5, 0.0)
        src = np.float32(src)
        low = min(int(math.floor(src)), size - 1)
        high = low + 1 if low < size - 1 else low
        weight = np.float32(src - low)
        matrix[d, low] += np.float32(1) - weight
        matrix[d, high] += weight
    return matrix


@handles("aten.upsample_bilinear2d.vec", "aten.upsample_bilinear2d.default")
def upsample_bilinear2d(ctx, x, output_size, align_corners,
                        scale_factors=None, *rest):
    value, dims = _scales(ctx, x, output_size, scale_factors)
    (h, ho, sh), (w, wo, sw) = dims
    n, c = value.shape[:2]
    # Along the width: [N, C, H, W] x [W, Wo].
    cols = ctx.emit.constant(
        _bilinear_matrix(w, wo, sw, align_corners).T.copy(), "f32")
    value = ctx.emit.op("amp.matmul", [value, cols], [((n, c, h, wo), "f32")])
    # Along the height: [Ho, H] x [N, C, H, Wo] (amp.matmul shares a side
    # without batch dimensions).
    rows = ctx.emit.constant(
        _bilinear_matrix(h, ho, sh, align_corners), "f32")
    return ctx.emit.op("amp.matmul", [rows, value], [((n, c, ho, wo), "f32")])
