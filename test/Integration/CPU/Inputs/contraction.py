"""PyTorch reference for contraction.mlir (see compare_with_torch.py).

Error bounds are the standard ones for a sum of n terms in floating point:
|fl(sum) - sum| <= gamma_n * sum |terms|, gamma_n = n u / (1 - n u), with
u = 2^-24 for f32 (any summation order, with or without FMA). The harness
adds the printout's quantization (six significant digits) on top.
"""

import torch
import torch.nn.functional as F

U = 2.0 ** -24  # f32 unit roundoff


def gamma(n):
    return n * U / (1 - n * U)


def f32_case(expected, magnitude, terms):
    # The lowering (f32 accumulation in loop order) and PyTorch (MKL's
    # blocked f32 order) are each within gamma_n * sum|a b| of the exact
    # result, hence within twice that of each other, elementwise.
    return expected, {"atol": 2 * gamma(terms) * magnitude}


def low_case(exact, magnitude, terms, result_type):
    # f16/bf16 inputs: the reference is the float64 product of the rounded
    # inputs (exact here). Products of two f16 (11-bit) or bf16 (8-bit)
    # values are exact in f32, so the lowering's f32 accumulation is off by
    # at most gamma_n * sum|a b|. An f16/bf16 result is that sum rounded
    # once: half an ulp of the result type more. The reference is not
    # rounded, which makes the bound hold even when the f32 sum and the
    # exact one straddle a rounding midpoint. Accumulating in f16 (about
    # K/2 ulps after K = 32 additions) or rounding the products first fails.
    tolerance = {"atol": gamma(terms) * magnitude}
    if result_type != torch.float32:
        tolerance.update(ulp=0.5, ulp_type=result_type)
    return exact, tolerance


def reference(c):
    a, b, a_t, b_t = c["a"], c["b"], c["a_t"], c["b_t"]
    ba, bb, q, k = c["batch_a"], c["batch_b"], c["q"], c["k"]
    x, w, bias = c["x"], c["w"], c["bias"]

    def mm(lhs, rhs):
        # The f32 result and sum |lhs| |rhs| (in float64) for the bound.
        return (torch.matmul(lhs, rhs),
                torch.matmul(lhs.double().abs(), rhs.double().abs()))

    out = []
    for label, lhs, rhs in [
            ("matmul f32", a, b),
            ("matmul transpose_lhs f32", a_t.t(), b),
            ("matmul transpose_rhs f32", a, b_t.t()),
            ("matmul transpose_lhs transpose_rhs f32", a_t.t(), b_t.t()),
            ("batched matmul f32", ba, bb),
            ("batched matmul shared rhs f32", ba, b),
            ("batched matmul transpose_rhs f32", q, k.transpose(1, 2))]:
        out.append((label, *f32_case(*mm(lhs, rhs), terms=lhs.shape[-1])))

    magnitude = torch.matmul(x.double().abs(), w.double().abs().t())
    out.append(("linear bias f32",
                *f32_case(F.linear(x, w, bias),
                          magnitude + bias.double().abs(), terms=8)))
    out.append(("linear no bias f32",
                *f32_case(*mm(a, w.t()), terms=7)))

    for name, low in [("f16", torch.float16), ("bf16", torch.bfloat16)]:
        ha, hb = c["h_a"].to(low).double(), c["h_b"].to(low).double()
        hw, hbias = c["h_w"].to(low).double(), c["h_bias"].to(low).double()
        product = torch.matmul(ha, hb)
        magnitude = torch.matmul(ha.abs(), hb.abs())
        out.append((f"matmul {name} -> f32",
                    *low_case(product, magnitude, 32, torch.float32)))
        out.append((f"matmul {name} -> {name}",
                    *low_case(product, magnitude, 32, low)))
        linear_magnitude = torch.matmul(ha.abs(), hw.abs().t()) + hbias.abs()
        out.append((f"linear bias {name} -> {name}",
                    *low_case(F.linear(ha, hw, hbias), linear_magnitude, 33,
                              low)))
    return out
