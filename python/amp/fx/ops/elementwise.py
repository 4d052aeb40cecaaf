"""Elementwise aten ops: arithmetic (with PyTorch's broadcasting and
Python-number operands), activations, comparisons and selects."""
from ..emitter import Attr
from ..registry import handles

_BINARY = {"add": "amp.add", "sub": "amp.sub", "mul": "amp.mul",
           "div": "amp.div", "pow": "amp.pow", "maximum": "amp.maximum",
           "minimum": "amp.minimum"}


def binary(ctx, op, lhs, rhs):
    shape, dtype = ctx.result()
    if dtype != "f32":
        ctx.fail("amp computes %s on float tensors only (this one gives %s)"
                 % (op, dtype))
    a, b = ctx.operands([lhs, rhs], shape, dtype)
    return ctx.emit.op(op, [a, b], [(shape, dtype)])


def _scaled(ctx, value, alpha):
    if alpha is None or alpha == 1:
        return value
    if not isinstance(alpha, (int, float)):
        ctx.fail("alpha must be a number")
    return binary(ctx, "amp.mul", value, alpha)


@handles("aten.add.Tensor", "aten.add.Scalar")
def add(ctx, lhs, rhs, alpha=None):
    return binary(ctx, "amp.add", lhs, _scaled(ctx, rhs, alpha))


@handles("aten.sub.Tensor", "aten.sub.Scalar")
def sub(ctx, lhs, rhs, alpha=None):
    return binary(ctx, "amp.sub", lhs, _scaled(ctx, rhs, alpha))


@handles("aten.rsub.Scalar", "aten.rsub.Tensor")
def rsub(ctx, lhs, rhs, alpha=None):
    return binary(ctx, "amp.sub", rhs, _scaled(ctx, lhs, alpha))


@handles("aten.mul.Tensor", "aten.mul.Scalar")
def mul(ctx, lhs, rhs):
    return binary(ctx, "amp.mul", lhs, rhs)


@handles("aten.div.Tensor", "aten.div.Scalar", "aten.div.Tensor_mode")
def div(ctx, lhs, rhs, rounding_mode=None):
    if rounding_mode is not None:
        ctx.fail("division with rounding_mode=%r is not supported" %
                 rounding_mode)
    return binary(ctx, "amp.div", lhs, rhs)


@handles("aten.pow.Tensor_Scalar", "aten.pow.Tensor_Tensor",
         "aten.pow.Scalar")
def pow_(ctx, lhs, rhs):
    if isinstance(rhs, (int, float)) and rhs == 2:
        return binary(ctx, "amp.mul", lhs, lhs)
    return binary(ctx, "amp.pow", lhs, rhs)


@handles("aten.maximum.default")
def maximum(ctx, lhs, rhs):
    return binary(ctx, "amp.maximum", lhs, rhs)


@handles("aten.minimum.default")
def minimum(ctx, lhs, rhs):
    return binary(ctx, "amp.minimum", lhs, rhs)


@handles("aten.reciprocal.default")
def reciprocal(ctx, x):
    return binary(ctx, "amp.div", 1.0, x)


@handles("aten.clamp.default", "aten.clamp_min.default",
         "aten.clamp_max.default")
def clamp(ctx, x, min=None, max=None):
    out = x
    if min is not None:
        out = binary(ctx, "amp.maximum", out, min)
    if max is not None:
        out = binary(ctx, "amp.minimum", out, max)
    return out


@handles("aten.hardtanh.default")
def hardtanh(ctx, x, min_val=-1.0, max_val=1.0):
    """nn.Hardtanh and nn.ReLU6 (MobileNetV2, EfficientNet-Lite; export
    turns relu6 into hardtanh): a clamp,
    whose gradient passes where the input is inside the bounds, as
    PyTorch's."""
    return clamp(ctx, x, min_val, max_val)


def unary(ctx, op, x, attrs=None):
    shape, dtype = ctx.result()
    value = ctx.tensor(x)
    if value.dtype != "f32":
        ctx.fail("amp computes %s on float tensors only" % op)
    return ctx.emit.op(op, [value], [(shape, dtype)], attrs)


for _aten, _amp in [("neg", "neg"), ("exp", "exp"), ("log", "log"),
                    ("sqrt", "sqrt"), ("rsqrt", "rsqrt"), ("tanh", "tanh"),
                    ("sigmoid", "sigmoid"), ("relu", "relu"),
                    ("silu", "silu"), ("erf", "erf"), ("sin", "sin"),
                    ("cos", "cos")]:
    handles("aten.%s.default" % _aten)(
        lambda ctx, x, _op="amp." + _amp: unary(ctx, _op, x))


@handles("aten.gelu.default")
def gelu(ctx, x, approximate="none"):
    if approximate not in ("none", "tanh"):
        ctx.fail("unknown GELU approximation %r" % approximate)
    attrs = {"approximate": "1 : i32"} if approximate == "tanh" else None
    return unary(ctx, "amp.gelu", x, attrs)


@handles("aten.softplus.default")
def softplus(ctx, x, beta=1, threshold=20):
    if beta != 1:
        ctx.fail("softplus with beta=%r is not supported" % beta)
    # amp.softplus is log(1 + exp(x)); PyTorch returns x above threshold,
    # where the two agree to f32 precision (exp(-20) < 2^-28).
    return unary(ctx, "amp.softplus", x)


@handles("aten.mish.default")
def mish(ctx, x):
    # x * tanh(softplus(x)), amp.softplus being the overflow-free form.
    shape, dtype = ctx.result()
    soft = unary(ctx, "amp.softplus", x)
    return binary(ctx, "amp.mul", x,
                  ctx.emit.op("amp.tanh", [soft], [(shape, dtype)]))


@handles("aten.hardsigmoid.default")
def hardsigmoid(ctx, x):
    # relu6(x + 3) / 6 = min(max(x + 3, 0), 6) / 6
    shifted = binary(ctx, "amp.add", x, 3.0)
    clipped = clamp(ctx, shifted, 0.0, 6.0)
    return binary(ctx, "amp.div", clipped, 6.0)


@handles("aten.hardswish.default")
def hardswish(ctx, x):
    return binary(ctx, "amp.mul", x, hardsigmoid(ctx, x))


# Comparisons: amp.compare direction codes (AMPBase.td).
_DIRECTIONS = {"eq": 0, "ne": 1, "lt": 2, "le": 3, "gt": 4, "ge": 5}


def compare(ctx, direction, lhs, rhs):
    shape, _ = ctx.result()
    a = lhs if not isinstance(lhs, (int, float)) else None
    like = ctx.tensor(a if a is not None else rhs)
    dtype = like.dtype
    if dtype == "i1":
        ctx.fail("comparing bool tensors is not supported")
    a, b = ctx.operands([lhs, rhs], shape, dtype)
    return ctx.emit.op("amp.compare", [a, b], [(shape, "i1")],
                       {"direction": "%d : i32" % _DIRECTIONS[direction]})


for _direction in _DIRECTIONS:
    for _overload in ("Tensor", "Scalar"):
        handles("aten.%s.%s" % (_direction, _overload))(
            lambda ctx, lhs, rhs, _d=_direction: compare(ctx, _d, lhs, rhs))


@handles("aten.where.self", "aten.where.ScalarSelf", "aten.where.ScalarOther",
         "aten.where.Scalar")
def where(ctx, condition, true_value, false_value):
    shape, dtype = ctx.result()
    cond = ctx.broadcast(ctx.tensor(condition), shape)
    a, b = ctx.operands([true_value, false_value], shape, dtype)
    return ctx.emit.op("amp.where", [cond, a, b], [(shape, dtype)])


@handles("aten.masked_fill.Scalar", "aten.masked_fill.Tensor")
def masked_fill(ctx, x, mask, value):
    return where(ctx, mask, value, x)


@handles("aten.logical_not.default", "aten.bitwise_not.default")
def logical_not(ctx, x):
    shape, _ = ctx.result()
    value = ctx.tensor(x)
    if value.dtype != "i1":
        ctx.fail("logical_not of a %s tensor is not supported" % value.dtype)
    t, f = ctx.operands([False, True], shape, "i1")
    return ctx.emit.op("amp.where", [value, t, f], [(shape, "i1")])


@handles("aten.logical_and.default", "aten.bitwise_and.Tensor")
def logical_and(ctx, lhs, rhs):
    shape, _ = ctx.result()
    a, b, f = ctx.operands([lhs, rhs, False], shape, "i1")
    return ctx.emit.op("amp.where", [a, b, f], [(shape, "i1")])


@handles("aten.logical_or.default", "aten.bitwise_or.Tensor")
def logical_or(ctx, lhs, rhs):
    shape, _ = ctx.result()
    a, b, t = ctx.operands([lhs, rhs, True], shape, "i1")
    return ctx.emit.op("amp.where", [a, t, b], [(shape, "i1")])


@handles("aten.native_dropout.default")
def native_dropout(ctx, x, p, train):
    """(output, mask): a forward never reads the mask (the gradient is
    amp.dropout's own)."""
    shape, dtype = ctx.result(0)
    return (_dropout(ctx, x, p, train, shape, dtype), None)


@handles("aten.dropout.default")
def dropout(ctx, x, p, train):
    shape, dtype = ctx.result()
    return _dropout(ctx, x, p, train, shape, dtype)


def _dropout(ctx, x, p, train, shape, dtype):
    value = ctx.tensor(x)
    if not train or p == 0:
        return value
    if not 0 <= p < 1:
        ctx.fail("dropout probability %r is not in [0, 1)" % p)
    # One i64 seed per dropout, an input of the step that the trainer
    # draws anew each step (amp.dropout's mask is a function of it).
    output, _ = ctx.emit.op("amp.dropout", [value, ctx.new_seed()],
                            [(shape, dtype), (shape, "i1")],
                            {"probability": Attr.f64(p)})
    return output


@handles("aten.bernoulli.p")
def bernoulli(ctx, like, p=0.5, generator=None):
    """Samples of Bernoulli(p) in the shape of `like` (stochastic depth's
    drop path: torch.empty(...).bernoulli_(survival)): amp.dropout of ones
    with probability 1 - p keeps each with probability p and scales it by
    1 / p."""
    shape, dtype = ctx.result()
    if dtype != "f32":
        ctx.fail("bernoulli samples of dtype %s are not supported" % dtype)
    if not 0 <= p <= 1:
        ctx.fail("bernoulli probability %r is not in [0, 1]" % p)
    if p in (0, 1):
        return ctx.broadcast(ctx.tensor(float(p)), shape)
    ones = ctx.broadcast(ctx.tensor(1.0), shape)
    kept, _ = ctx.emit.op("amp.dropout", [ones, ctx.new_seed()],
                          [(shape, dtype), (shape, "i1")],
                          {"probability": Attr.f64(1 - p)})
    return binary(ctx, "amp.mul", kept, float(p))


@handles("aten.isnan.default")
def isnan(ctx, x):
    value = ctx.tensor(x)
    return compare(ctx, "ne", value, value)


@handles("aten.isinf.default")
def isinf(ctx, x):
    shape, _ = ctx.result()
    value = ctx.tensor(x)
    negated = ctx.emit.op("amp.neg", [value], [(shape, value.dtype)])
    magnitude = ctx.emit.op("amp.maximum", [value, negated],
                            [(shape, value.dtype)])
    return compare(ctx, "eq", magnitude, float("inf"))
