"""PyTorch reference for softplus.mlir (see compare_with_torch.py).

f32: both sides evaluate softplus in f32 with one exp and one log1p (PyTorch:
log1p(exp(x)) below its threshold of 20, x above it; amp: max(x, 0) +
log1p(exp(-|x|))), each libm call within 1 ulp; the forms differ by a few
roundings, so 4 ulps. For x = 20 PyTorch returns x itself, and amp adds
log1p(exp(-20)) = 2e-9, below half an ulp of 20. bf16: amp widens to f32,
computes and rounds once, so the result is within half a bf16 ulp of the f32
value (plus the f32 error).
"""

import torch
import torch.nn.functional as F

EPS = 2.0 ** -23


def reference(c):
    x = c["x"]
    x_bf16 = x.to(torch.bfloat16).to(torch.float32)
    return [
        ("softplus f32", F.softplus(x), {"ulp": 4}),
        ("softplus bf16", F.softplus(x_bf16),
         {"ulp": 0.5, "ulp_type": torch.bfloat16, "rtol": 8 * EPS}),
    ]
