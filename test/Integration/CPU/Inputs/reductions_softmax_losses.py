"""PyTorch reference for reductions_softmax_losses.mlir.

f32 cases compare with PyTorch's f32 result; both implementations obey the
bounds below, so the allowed difference is twice one side's bound. f16/bf16
cases compare with PyTorch in float64 on the rounded inputs (effectively
exact), so one side's bound applies, plus half an ulp of the result type
when the result is rounded to it. The harness adds the printout's
quantization (six significant digits). u = 2^-24, gamma_n = n u / (1 - n u)
bounds the error of an n-term f32 sum relative to the sum of |terms|.
"""

import torch
import torch.nn.functional as F

U = 2.0 ** -24
F32_TINY = 2.0 ** -149  # f32 subnormal spacing: exp(-99.5) is subnormal


def gamma(n):
    return n * U / (1 - n * U)


def sum_bound(x, axes, n):
    # sum: gamma_n sum|x|; mean: one more rounding (the division).
    return gamma(n + 1) * x.double().abs().sum(axes)


def finite_or_zero(t):
    # Masked (-inf) entries: the result is exactly 0 (softmax) or -inf
    # (log_softmax), NaN rows are NaN; the harness matches those exactly.
    return torch.where(torch.isfinite(t), t, torch.zeros_like(t))


def softmax_bound(x, axis):
    # s = exp(d) / S with d = x - max (max is exact). Rounding d costs
    # |d| u relative after exp, exp itself <= 2u, the division u. S is a sum
    # of positive terms exp(d_j) (1 + |d_j| u + 2u); as |d| exp(d) <= 1/e
    # and S >= 1, S is off by at most 4 n u relative. The result can be an
    # f32 subnormal (exp(-99.5)): one subnormal spacing more.
    x = x.double()
    d = finite_or_zero((x - x.amax(axis, keepdim=True)).abs())
    n = x.shape[axis]
    return U * (d + 4 * n + 4) * torch.softmax(x, axis) + F32_TINY


def log_softmax_bound(x, axis):
    # r = d - log S: u |d| for d, 4 n u + u |log S| for log S (see above),
    # u |r| for the subtraction.
    x = x.double()
    d = (x - x.amax(axis, keepdim=True)).abs()
    log_sum = torch.logsumexp(x, axis, keepdim=True) - x.amax(axis, True)
    n = x.shape[axis]
    r = torch.log_softmax(x, axis).abs()
    # Only finite results are compared with a bound.
    return finite_or_zero(U * (d + r + log_sum.abs() + 4 * n + 2))


def cross_entropy_bound(logits, labels):
    # Per row: lse = max + log S, loss = lse - logit[label] (the lowering),
    # or -(logit[label] - max - log S) (PyTorch, through log_softmax): a few
    # roundings of quantities no larger than |max|, |logit[label]|, |lse|,
    # plus log S's 4 n u; then a mean of N rows (gamma_N relative).
    x = logits.double()
    n_rows, n = x.shape
    lse = torch.logsumexp(x, 1)
    picked = x[torch.arange(n_rows), labels]
    rows = (lse - picked).abs()
    per_row = U * (x.amax(1).abs() + picked.abs() + lse.abs() + rows
                   + 4 * n + 2)
    return per_row.mean() + gamma(n_rows + 1) * rows.mean()


def mse_bound(pred, target):
    # (p - t)^2 summed and divided: all terms positive, so the relative
    # error is at most gamma_{n+4} (subtraction, square, n-sum, division).
    n = pred.numel()
    return gamma(n + 4) * F.mse_loss(pred.double(), target.double())


def reference(c):
    x3, logits, labels = c["x3"], c["logits"], c["labels"]
    pred, target = c["pred"], c["target"]

    def both(bound):  # two f32 implementations, each within `bound`
        return {"atol": 2 * bound}

    out = [
        ("reduce_sum axis 1", x3.sum(1), both(sum_bound(x3, 1, 4))),
        ("reduce_sum axes 0,-1 keep_dims", x3.sum((0, 2), keepdim=True),
         both(sum_bound(x3, (0, 2), 15).reshape(1, 4, 1))),
        ("reduce_mean axis 2 keep_dims", x3.mean(2, keepdim=True),
         both(sum_bound(x3, 2, 5).unsqueeze(2) / 5)),
        ("reduce_mean all axes", x3.mean(),
         both(sum_bound(x3, (0, 1, 2), 60) / 60)),
        # max is exact.
        ("reduce_max axis 0", x3.amax(0), {}),
        ("reduce_max axis -1 keep_dims", x3.amax(-1, keepdim=True), {}),
        ("softmax axis -1", torch.softmax(x3, -1),
         both(softmax_bound(x3, -1))),
        ("softmax axis 1", torch.softmax(x3, 1), both(softmax_bound(x3, 1))),
        ("log_softmax axis -1", torch.log_softmax(x3, -1),
         both(log_softmax_bound(x3, -1))),
        ("log_softmax axis 0", torch.log_softmax(x3, 0),
         both(log_softmax_bound(x3, 0))),
        ("softmax large logits", torch.softmax(logits, 1),
         both(softmax_bound(logits, 1))),
        ("log_softmax large logits", torch.log_softmax(logits, 1),
         both(log_softmax_bound(logits, 1))),
        ("cross_entropy", F.cross_entropy(logits, labels),
         both(cross_entropy_bound(logits, labels))),
        # The backward seed of any loss is 1: seed * loss is the loss.
        ("seed times cross_entropy", F.cross_entropy(logits, labels),
         both(cross_entropy_bound(logits, labels))),
        ("mse_loss", F.mse_loss(pred, target), both(mse_bound(pred, target))),
    ]

    # Masking: -inf entries get probability 0 and log-probability -inf, a
    # fully masked row is NaN (-inf - -inf) in PyTorch as in the lowering,
    # and a NaN propagates through softmax, max and sum.
    masked = logits + c["mask_num"] / c["mask_den"]
    out += [
        ("softmax masked", torch.softmax(masked, 1),
         both(softmax_bound(masked, 1))),
        ("log_softmax masked", torch.log_softmax(masked, 1),
         both(log_softmax_bound(masked, 1))),
        ("reduce_max masked", masked.amax(1), {}),
        ("reduce_sum masked", masked.sum(1),
         both(finite_or_zero(sum_bound(masked, 1, 6)))),
    ]

    for name, low in [("f16", torch.float16), ("bf16", torch.bfloat16)]:
        xl = x3.to(low).double()
        ll = logits.to(low).double()
        pl, tl = pred.to(low).double(), target.to(low).double()
        rounded = {"ulp": 0.5, "ulp_type": low}
        out += [
            (f"reduce_sum {name} -> f32", xl.sum(1),
             {"atol": sum_bound(xl, 1, 4)}),
            (f"reduce_mean {name} -> {name}", xl.mean(2),
             {"atol": sum_bound(xl, 2, 5) / 5, **rounded}),
            (f"softmax {name}", torch.softmax(ll, 1),
             {"atol": softmax_bound(ll, 1), **rounded}),
            (f"log_softmax {name}", torch.log_softmax(ll, 1),
             {"atol": log_softmax_bound(ll, 1), **rounded}),
            (f"cross_entropy {name}", F.cross_entropy(ll, labels),
             {"atol": cross_entropy_bound(ll, labels)}),
            (f"mse_loss {name}", F.mse_loss(pl, tl),
             {"atol": mse_bound(pl, tl)}),
        ]
    return out
