"""Normalizations, softmax and reductions: amp keeps their statistics in
f32 whatever the precision of their inputs."""
import numpy as np

from ..emitter import Attr
from ..registry import handles


def _axis(axis, rank):
    return axis + rank if axis < 0 else axis


def _ones_or(ctx, value, size, fill):
    if value is not None:
        return ctx.tensor(value)
    return ctx.emit.constant(np.full((size,), fill, dtype=np.float32), "f32")


@handles("aten.native_layer_norm.default")
def layer_norm(ctx, x, normalized_shape, weight, bias, eps):
    value = ctx.tensor(x)
    if len(normalized_shape) != 1:
        ctx.fail("layer norm over %d trailing dimensions is not supported "
                 "(amp normalizes over the last one)" % len(normalized_shape))
    size = value.shape[-1]
    w = _ones_or(ctx, weight, size, 1.0)
    b = _ones_or(ctx, bias, size, 0.0)
    rows = value.shape[:-1]
    y, mean, rstd = ctx.emit.op(
        "amp.layer_norm", [value, w, b],
        [(value.shape, value.dtype), (rows, "f32"), (rows, "f32")],
        {"axis": Attr.i64(-1), "epsilon": Attr.f64(eps)})
    # torch's saved statistics keep a trailing 1.
    return (y, ctx.reshape(mean, rows + (1,)), ctx.reshape(rstd, rows + (1,)))


@handles("aten.native_group_norm.default")
def group_norm(ctx, x, weight, bias, n, channels, hw, group, eps):
    value = ctx.tensor(x)
    w = _ones_or(ctx, weight, channels, 1.0)
    b = _ones_or(ctx, bias, channels, 0.0)
    stats = (value.shape[0], group)
    # torch's saved statistics are [N, group], as amp's.
    return tuple(ctx.emit.op(
        "amp.group_norm", [value, w, b],
        [(value.shape, value.dtype), (stats, "f32"), (stats, "f32")],
        {"num_groups": Attr.i64(group), "epsilon": Attr.f64(eps)}))


@handles("aten.rms_norm.default")
def rms_norm(ctx, x, normalized_shape, weight=None, eps=None):
    value = ctx.tensor(x)
    if len(normalized_shape) != 1:
        ctx.fail("RMS norm over %d trailing dimensions is not supported" %
                 len(normalized_shape))
    if eps is None:
        eps = float(np.finfo(np.float32).eps)  # torch's default for f32
    w = _ones_or(ctx, weight, value.shape[-1], 1.0)
    y, _ = ctx.emit.op("amp.rms_norm", [value, w],
                       [(value.shape, value.dtype),
                        (value.shape[:-1], "f32")],
                       {"axis": Attr.i64(-1), "epsilon": Attr.f64(eps)})
    return y


def _batch_norm(ctx, x, weight, bias, mean, var, training, momentum, eps):
    value = ctx.tensor(x)
    channels = value.shape[1]
    w = _ones_or(ctx, weight, channels, 1.0)
    b = _ones_or(ctx, bias, channels, 0.0)
    if mean is None or var is None:
        ctx.fail("batch norm without running statistics "
                 "(track_running_stats=False) is not supported")
    if not isinstance(momentum, (int, float)):
        ctx.fail("batch norm with momentum=None (a cumulative average) is "
                 "not supported; give momentum a value")
    stats = (channels,)
    return ctx.emit.op(
        "amp.batch_norm", [value, w, b, ctx.tensor(mean), ctx.tensor(var)],
        [(value.shape, value.dtype), (stats, "f32"), (stats, "f32"),
         (stats, "f32"), (stats, "f32")],
        {"epsilon": Attr.f64(eps), "momentum": Attr.f64(momentum),
         "training": Attr.boolean(training)})


@handles("aten._native_batch_norm_legit_functional.default")
def batch_norm_functional(ctx, x, weight, bias, mean, var, training,
                          momentum, eps):
    return _batch_norm(ctx, x, weight, bias, mean, var, training, momentum,
                       eps)


@handles("aten._native_batch_norm_legit_no_training.default")
def batch_norm_eval(ctx, x, weight, bias, mean, var, momentum, eps):
    y, saved_mean, saved_rstd, _, _ = _batch_norm(
        ctx, x, weight, bias, mean, var, False, momentum, eps)
    return (y, saved_mean, saved_rstd)


@handles("aten._softmax.default", "aten.softmax.int")
def softmax(ctx, x, dim, half_to_float=False, dtype=None):
    shape, out_dtype = ctx.result()
    value = ctx.tensor(x)
    return ctx.emit.op("amp.softmax", [value], [(shape, out_dtype)],
                       {"axis": Attr.i64(dim)})


@handles("aten._log_softmax.default", "aten.log_softmax.int")
def log_softmax(ctx, x, dim, half_to_float=False, dtype=None):
    shape, out_dtype = ctx.result()
    value = ctx.tensor(x)
    return ctx.emit.op("amp.log_softmax", [value], [(shape, out_dtype)],
                       {"axis": Attr.i64(dim)})


def reduce(ctx, op, x, dims, keepdim):
    shape, dtype = ctx.result()
    value = ctx.tensor(x)
    if value.dtype != "f32":
        ctx.fail("amp reduces float tensors only")
    if dims is None or (isinstance(dims, (list, tuple)) and not dims):
        dims = list(range(value.rank))
    if isinstance(dims, int):
        dims = [dims]
    axes = sorted(_axis(d, value.rank) for d in dims)
    attrs = {"axes": Attr.array(axes)}
    if keepdim:
        attrs["keep_dims"] = Attr.unit
    return ctx.emit.op(op, [value], [(shape, dtype)], attrs)


@handles("aten.sum.dim_IntList", "aten.sum.default")
def sum_(ctx, x, dim=None, keepdim=False, dtype=None):
    return reduce(ctx, "amp.reduce_sum", x, dim, keepdim)


@handles("aten.mean.dim", "aten.mean.default")
def mean(ctx, x, dim=None, keepdim=False, dtype=None):
    return reduce(ctx, "amp.reduce_mean", x, dim, keepdim)


@handles("aten.amax.default")
def amax(ctx, x, dim=(), keepdim=False):
    return reduce(ctx, "amp.reduce_max", x, dim, keepdim)


def _pool_padding(padding):
    ph, pw = (padding, padding) if isinstance(padding, int) else padding
    return [ph, pw, ph, pw]


@handles("aten.max_pool2d_with_indices.default")
def max_pool2d(ctx, x, kernel_size, stride=(), padding=(0, 0),
               dilation=(1, 1), ceil_mode=False):
    shape, dtype = ctx.result(0)
    if ceil_mode or tuple(dilation) not in ((1, 1), (1,)):
        ctx.fail("max pooling with ceil_mode or dilation is not supported")
    stride = stride or kernel_size
    pooled = ctx.emit.op("amp.max_pool2d", [ctx.tensor(x)], [(shape, dtype)],
                         {"kernel_size": Attr.array(kernel_size),
                          "stride": Attr.array(stride),
                          "padding": Attr.array(_pool_padding(padding))})
    return (pooled, _NoIndices())


class _NoIndices:
    """max_pool2d_with_indices' indices: amp's max pooling gradient finds
    the maximum itself; an op that reads the indices is an error."""


def _floor_pool_shape(size, kernel, stride, padding):
    pad = _pool_padding(padding)
    kernel, stride = list(kernel), list(stride)
    kernel, stride = kernel * (2 // len(kernel)), stride * (2 // len(stride))
    return tuple((size[d] + pad[d] + pad[d + 2] - kernel[d]) // stride[d] + 1
                 for d in range(2))


@handles("aten.avg_pool2d.default")
def avg_pool2d(ctx, x, kernel_size, stride=(), padding=(0, 0),
               ceil_mode=False, count_include_pad=True, divisor_override=None):
    shape, dtype = ctx.result()
    stride = stride or kernel_size
    if divisor_override is not None:
        ctx.fail("average pooling with divisor_override is not supported")
    if ceil_mode and tuple(shape[-2:]) != _floor_pool_shape(
            ctx.tensor(x).shape[-2:], kernel_size, stride, padding):
        # Where rounding up adds a window (odd sizes), PyTorch averages it
        # over the part inside the input; amp's pooling has no such
        # window. Where it adds none (ResNet-D's 2x2 pooling of even
        # maps), ceil_mode changes nothing.
        ctx.fail("average pooling with ceil_mode that adds a window is not "
                 "supported (an input of even size, or ceil_mode=False, is)")
    attrs = {"kernel_size": Attr.array(kernel_size),
             "stride": Attr.array(stride),
             "padding": Attr.array(_pool_padding(padding))}
    if not count_include_pad:
        attrs["exclude_padding"] = Attr.unit
    return ctx.emit.op("amp.avg_pool2d", [ctx.tensor(x)], [(shape, dtype)],
                       attrs)


@handles("aten._adaptive_avg_pool2d.default",
         "aten.adaptive_avg_pool2d.default")
def adaptive_avg_pool2d(ctx, x, output_size):
    shape, dtype = ctx.result()
    value = ctx.tensor(x)
    if tuple(output_size) != (1, 1):
        ctx.fail("adaptive average pooling to %s is not supported (to 1x1 "
                 "it is)" % (tuple(output_size),))
    return ctx.emit.op("amp.global_avg_pool", [value], [(shape, dtype)])


@handles("aten.cumsum.default")
def cumsum(ctx, x, dim, dtype=None):
    """A running sum as a product with a constant upper triangle of ones
    (linear, so its gradient is the reversed running sum, as PyTorch's)."""
    shape, out_dtype = ctx.result()
    value = ctx.tensor(x)
    if value.dtype != "f32" or out_dtype != "f32":
        ctx.fail("amp computes running sums of float tensors only")
    axis = _axis(dim, value.rank)
    size = value.shape[axis]
    order = [d for d in range(value.rank) if d != axis] + [axis]
    moved = value
    if axis != value.rank - 1:
        moved = ctx.emit.op("amp.transpose", [value],
                            [(tuple(value.shape[d] for d in order), "f32")],
                            {"permutation": Attr.array(order)})
    triangle = ctx.emit.constant(np.triu(np.ones((size, size), np.float32)),
                                 "f32")
    summed = ctx.emit.op("amp.matmul", [moved, triangle],
                         [(moved.shape, "f32")])
    if axis == value.rank - 1:
        return summed
    inverse = [order.index(d) for d in range(value.rank)]
    return ctx.emit.op("amp.transpose", [summed], [(shape, "f32")],
                       {"permutation": Attr.array(inverse)})
