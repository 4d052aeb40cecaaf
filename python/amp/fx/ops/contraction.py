"""Contractions: linear layers, matrix products and convolutions (amp's
ALLOW ops, which run in the low precision with f32 accumulation)."""
from ..emitter import Attr
from ..registry import handles


@handles("aten.linear.default")
def linear(ctx, x, weight, bias=None):
    shape, dtype = ctx.result()
    operands = [ctx.tensor(x), ctx.tensor(weight)]
    if bias is not None:
        operands.append(ctx.tensor(bias))
    return ctx.emit.op("amp.linear", operands, [(shape, dtype)])


def matmul(ctx, lhs, rhs, shape):
    a, b = ctx.tensor(lhs), ctx.tensor(rhs)
    if a.rank < 2 or b.rank < 2:
        ctx.fail("matrix products of vectors are not supported")
    batch_a, batch_b = a.shape[:-2], b.shape[:-2]
    if batch_a and batch_b and batch_a != batch_b:
        # amp.matmul shares a side without batch dimensions; other batch
        # broadcasting is spelled out.
        batch = tuple(shape[:-2])
        a = ctx.broadcast(a, batch + a.shape[-2:])
        b = ctx.broadcast(b, batch + b.shape[-2:])
    return ctx.emit.op("amp.matmul", [a, b], [(tuple(shape), a.dtype)])


@handles("aten.mm.default", "aten.bmm.default", "aten.matmul.default")
def mm(ctx, lhs, rhs):
    shape, _ = ctx.result()
    return matmul(ctx, lhs, rhs, shape)


@handles("aten.addmm.default")
def addmm(ctx, bias, lhs, rhs, beta=1, alpha=1):
    shape, dtype = ctx.result()
    if beta != 1 or alpha != 1:
        ctx.fail("addmm with beta=%r, alpha=%r is not supported" %
                 (beta, alpha))
    product = matmul(ctx, lhs, rhs, shape)
    b = ctx.broadcast(ctx.tensor(bias), shape)
    return ctx.emit.op("amp.add", [product, b], [(shape, dtype)])


@handles("aten.convolution.default")
def convolution(ctx, x, weight, bias, stride, padding, dilation, transposed,
                output_padding, groups):
    shape, dtype = ctx.result()
    value = ctx.tensor(x)
    if transposed:
        ctx.fail("transposed convolutions are not supported yet")
    if value.rank == 3:
        ctx.fail("1-d convolutions are not supported yet")
    if value.rank != 4:
        ctx.fail("amp has 2-d convolutions (NCHW); this input has rank %d"
                 % value.rank)
    operands = [value, ctx.tensor(weight)]
    if bias is not None:
        operands.append(ctx.tensor(bias))
    ph, pw = padding
    attrs = {"stride": Attr.array(stride),
             "padding": Attr.array([ph, pw, ph, pw]),
             "dilation": Attr.array(dilation),
             "groups": Attr.i64(groups)}
    return ctx.emit.op("amp.conv2d", operands, [(shape, dtype)], attrs)
