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
    kind = "transposed convolutions" if transposed else "convolutions"
    if value.rank == 3:
        ctx.fail("1-d %s are not supported yet" % kind)
    if value.rank != 4:
        ctx.fail("amp has 2-d %s (NCHW); this input has rank %d"
                 % (kind, value.rank))
    if transposed:
        return conv_transpose(ctx, value, weight, bias, stride, padding,
                              dilation, output_padding, groups, shape, dtype)
    operands = [value, ctx.tensor(weight)]
    if bias is not None:
        operands.append(ctx.tensor(bias))
    ph, pw = padding
    attrs = {"stride": Attr.array(stride),
             "padding": Attr.array([ph, pw, ph, pw]),
             "dilation": Attr.array(dilation),
             "groups": Attr.i64(groups)}
    return ctx.emit.op("amp.conv2d", operands, [(shape, dtype)], attrs)


def conv_transpose(ctx, value, weight, bias, stride, padding, dilation,
                   output_padding, groups, shape, dtype):
    """nn.ConvTranspose2d: the input gradient of the convolution whose
    weight it shares ([C_in, C_out / groups, KH, KW]), plus the bias.
    amp.conv2d_input_grad's result is an input of that convolution, so it
    has at most stride - 1 rows beyond the last window: more
    output_padding (PyTorch allows it up to the dilation) is taken from
    the end padding, and what the padding cannot give are rows no window
    reaches, zeros appended."""
    pads = [padding[0], padding[1], padding[0], padding[1]]
    zero_rows = [0, 0]
    for i in range(2):
        excess = output_padding[i] - (stride[i] - 1)
        if excess > 0:
            taken = min(excess, pads[2 + i])
            pads[2 + i] -= taken
            zero_rows[i] = excess - taken
    computed = (shape[0], shape[1], shape[2] - zero_rows[0],
                shape[3] - zero_rows[1])
    attrs = {"stride": Attr.array(stride), "padding": Attr.array(pads),
             "dilation": Attr.array(dilation), "groups": Attr.i64(groups)}
    result = ctx.emit.op("amp.conv2d_input_grad",
                         [value, ctx.tensor(weight)], [(computed, dtype)],
                         attrs)
    for i in range(2):
        if zero_rows[i]:
            zeros_shape = list(result.shape)
            zeros_shape[2 + i] = zero_rows[i]
            joined = list(result.shape)
            joined[2 + i] += zero_rows[i]
            zeros = ctx.broadcast(ctx.tensor(0.0, dtype=dtype), zeros_shape)
            result = ctx.emit.op("amp.concat", [result, zeros],
                                 [(tuple(joined), dtype)],
                                 {"axis": Attr.i64(2 + i)})
    if bias is None:
        return result
    channels = ctx.reshape(ctx.tensor(bias), (1, shape[1], 1, 1))
    return ctx.emit.op("amp.add", [result, ctx.broadcast(channels, shape)],
                       [(shape, dtype)])
