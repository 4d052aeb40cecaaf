"""Reference for gradients_dropout.mlir (see the test for the identities).

Tolerances, in f32 (u = 2^-24): dx * x and y * r are each the product of
the same three numbers (x, r and 1 / (1 - p), itself rounded) associated
differently, so they differ by at most about 4 u |x r| / (1 - p); the kept
gradient r * (1 / (1 - p)) is computed from a constant rounded like the
lowering's scale, within 2 u |r| / (1 - p); the loss and sum(y * r) are two
sums of the same 256 rounded products, each within gamma_256 sum |y r|.
The number of kept elements is Binomial(256, 0.75) for a good random
stream: mean 192, standard deviation 6.9; we allow 4 standard deviations.
"""

import math

import torch

U = 2.0 ** -24
P = 0.25


def reference(c):
    x, r = c["x"].double(), c["r"].double()
    scale = 1 / (1 - P)
    n = x.numel()
    product = (x * r).abs() * scale
    sum_bound = 2 * (n * U / (1 - n * U)) * float(product.sum())
    return [
        ("dx * x - y * r", torch.zeros_like(x), {"atol": 4 * U * product}),
        ("dropped get 0, kept get r / (1 - p)", torch.zeros_like(x),
         {"atol": 2 * U * r.abs() * scale}),
        ("loss - sum(y * r)", torch.tensor(0.0), {"atol": sum_bound}),
        ("kept elements", torch.tensor(n * (1 - P)),
         {"atol": 4 * math.sqrt(n * P * (1 - P))}),
    ]
