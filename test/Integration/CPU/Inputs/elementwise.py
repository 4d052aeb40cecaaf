"""PyTorch reference for elementwise.mlir (see compare_with_torch.py).

Tolerances are what the two f32 implementations may legitimately differ by;
the harness adds the printout's six-significant-digit quantization (up to a
relative 5e-6) on top, so in f32 the check resolves about 40 ulps at worst
and the bounds below document intent more than they bind. In f16/bf16 the
printout is exact enough (an f16 ulp is at least a relative 4.9e-4).
"""

import torch
import torch.nn.functional as F

EPS = 2.0 ** -23  # f32 ulp at 1.0

# IEEE add/sub/mul/div/neg, max/min, selects and narrowing casts are exact or
# correctly rounded in both implementations: the results must be identical.
EXACT = {}
# glibc (the lowering calls expf, logf, powf, tanhf, erff) and PyTorch's
# SLEEF/std kernels are each within 1 ulp of the true value, so they are
# within 2 ulps of each other. (amp.rsqrt is not tested: its lowering calls
# rsqrtf, which libm does not provide.)
LIBM = {"ulp": 2}
# x * 0.5 * (1 + erf(x / sqrt 2)) (or tanh): for negative x the erf (tanh)
# term is close to -1, so its 1-ulp error (2^-24 absolute) is not relative
# to the result but is scaled by 0.5 |x|: 2 EPS |x| covers both sides.
# Plus a few roundings relative to the result.


def gelu_tolerance(x):
    return {"ulp": 6, "atol": 2 * EPS * x.abs()}


# Gradients: dy times a derivative that contains a cancelling difference
# (1 - s, 1 - y^2, cdf + x pdf, 1 + x (1 - s)) whose absolute error is a few
# ulp(1), scaled by |x| where x multiplies it: 8 EPS |dy| (1 + |x|), plus
# the relative error of a handful of roundings and one libm call.
def grad_tolerance(dy, x):
    return {"ulp": 8, "atol": 8 * EPS * dy.abs() * (1 + x.abs())}


# f16/bf16 results: the lowering widens the inputs to f32, computes, and
# rounds once. The reference is PyTorch in float64 on the same (rounded)
# inputs, not rounded: the rounding then contributes at most half an ulp of
# the low type, and the lowering's f32 evaluation error comes on top (a few
# f32 ulps, 2^-11 of an f16 ulp; for gelu also the erf cancellation of the
# f32 case, here EPS |x|). A result rounded twice, or computed in the low
# type, is off by up to an ulp and fails. Comparing with torch's f32 result
# rounded to f16 instead is fragile: the two f32 values may straddle a
# rounding midpoint, and F.gelu's vectorized f32 kernel (its erf is good to
# about 1e-7 absolute) makes gelu(-3.7988) round to a different f16 than
# the exact value (and the lowering) does.
# (For add, rounding the f32 sum of two f16/bf16 values is the correctly
# rounded f16/bf16 sum: f32's 24 bits are >= 2p + 2 for p = 11 and 8.)
def low_tolerance(low, atol=0.0):
    return {"ulp": 0.5, "ulp_type": low, "rtol": 4 * EPS, "atol": atol}


def grad_of(fn, x, dy):
    x = x.detach().clone().requires_grad_(True)
    (g,) = torch.autograd.grad(fn(x), x, dy)
    return g


def reference(c):
    x, y, p, dy, mask = c["x"], c["y"], c["p"], c["dy"], c["mask"]
    gelu_t = lambda v: F.gelu(v, approximate="tanh")
    out = [
        ("add f32", x + y, EXACT),
        ("sub f32", x - y, EXACT),
        ("mul f32", x * y, EXACT),
        ("div f32", x / p, EXACT),
        ("pow f32", torch.pow(p, y), LIBM),
        ("maximum f32", torch.maximum(x, y), EXACT),
        ("minimum f32", torch.minimum(x, y), EXACT),
        ("neg f32", -x, EXACT),
        ("exp f32", torch.exp(x), LIBM),
        ("log f32", torch.log(p), LIBM),
        ("sqrt f32", torch.sqrt(p), EXACT),  # correctly rounded (IEEE)
        ("tanh f32", torch.tanh(x), LIBM),
        # 1 / (1 + exp(-x)) on both sides: exp's ulp plus three roundings.
        ("sigmoid f32", torch.sigmoid(x), {"ulp": 4}),
        ("relu f32", F.relu(x), EXACT),
        ("silu f32", F.silu(x), {"ulp": 6}),  # x * sigmoid(x)
        ("erf f32", torch.erf(x), LIBM),
        ("gelu f32", F.gelu(x), gelu_tolerance(x)),
        ("gelu tanh f32", gelu_t(x), gelu_tolerance(x)),
        # relu's gradient is dy where x > 0 (0 at x = 0): a select, exact.
        # (Not among the special values: at x = NaN amp.relu_grad gives 0,
        # as documented, while PyTorch passes dy, testing relu(x) <= 0.)
        ("relu_grad f32", grad_of(F.relu, x, dy), EXACT),
        ("silu_grad f32", grad_of(F.silu, x, dy), grad_tolerance(dy, x)),
        # sigmoid_grad/tanh_grad take the forward output; the test feeds them
        # the lowered sigmoid/tanh, the reference is autograd at x.
        ("sigmoid_grad f32", grad_of(torch.sigmoid, x, dy),
         grad_tolerance(dy, x)),
        ("tanh_grad f32", grad_of(torch.tanh, x, dy), grad_tolerance(dy, x)),
        ("gelu_grad f32", grad_of(F.gelu, x, dy), grad_tolerance(dy, x)),
        ("gelu_grad tanh f32", grad_of(gelu_t, x, dy), grad_tolerance(dy, x)),
        ("compare gt", (x > y).float(), EXACT),
        ("compare le", (x <= y).float(), EXACT),
        ("where", torch.where(mask, x, y), EXACT),
        # PyTorch's own dropout backward: dy * mask * (1 / (1 - p)); the
        # scale may be rounded to f32 before or after the product: 1 ulp.
        ("dropout_grad f32",
         torch.ops.aten.native_dropout_backward(dy, mask, 1 / (1 - 0.25)),
         {"ulp": 1}),
    ]
    for name, low in [("f16", torch.float16), ("bf16", torch.bfloat16)]:
        # The casts round to nearest even on both sides: exact.
        xl, yl = x.to(low), y.to(low)
        out.append((f"cast f32->{name}->f32", xl.float(), EXACT))
        x64, y64 = xl.double(), yl.double()
        out += [
            (f"exp {name}", torch.exp(x64), low_tolerance(low)),
            (f"tanh {name}", torch.tanh(x64), low_tolerance(low)),
            (f"gelu {name}", F.gelu(x64),
             low_tolerance(low, EPS * x64.abs())),
            (f"add {name}", x64 + y64, low_tolerance(low)),
        ]

    # Special values (NaN, infinities, overflow, subnormals) must come out as
    # PyTorch's. The f16/bf16 exp reference is torch's f32 result rounded to
    # the low type (so that it overflows to inf as the result must), and half
    # an ulp admits only that value: no result is near a rounding midpoint
    # (the unsaturated ones are exp(0.5) = 1.6487 and exp(tiny) = 1 + 1e-6).
    s = c["num"] / c["den"]
    zero = torch.zeros_like(s)
    out += [
        ("relu special values", F.relu(s), EXACT),
        ("exp special values", torch.exp(s), LIBM),
        ("log special values", torch.log(s), LIBM),
        ("tanh special values", torch.tanh(s), LIBM),
        ("sigmoid special values", torch.sigmoid(s), {"ulp": 4}),
        ("gelu special values", F.gelu(s), gelu_tolerance(s)),
        ("maximum special values", torch.maximum(s, zero), EXACT),
        ("minimum special values", torch.minimum(s, zero), EXACT),
    ]
    for name, low in [("f16", torch.float16), ("bf16", torch.bfloat16)]:
        sl = s.to(low)
        out += [
            (f"cast f32->{name}->f32 special values", sl.float(), EXACT),
            (f"exp {name} special values", torch.exp(sl.float()).to(low),
             {"ulp": 0.5}),
        ]
    return out
