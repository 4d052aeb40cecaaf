# Fused attention's forward and both gradients against PyTorch (issue 37),
# through amp.compile on the CPU (the flash kernel) and the emulated device
# (cuDNN's fused attention in bf16, the unfused fallback in fp32), in fp32
# and bf16: a model whose parameters are the queries, keys and values of
# three F.scaled_dot_product_attention calls (causal with grouped-query
# heads and fewer queries than keys, head dimension 16; a boolean keep mask
# per batch element that hides one query's every key, head dimension 64; an
# additive mask shared by all heads, head dimension 24 with values of 8),
# and the loss sum(out * r). One SGD step with learning rate 1 and no decay
# moves each parameter by exactly its gradient, which is compared with
# PyTorch's float64 autograd.
#
# Tolerances, relative to each gradient's largest element: fp32 1e-5 (a few
# f32 roundings per term, sums of at most 64 terms; PyTorch's own float32
# is within 2e-6 here). bf16 2e-2: amp rounds q, k, v, r and the
# probabilities to bf16 (unit roundoff 2^-8 = 3.9e-3) before products of a
# few dozen terms, and the master weights' step rounds the result once more;
# the reference takes q, k, v and r rounded to bf16, so only the rounding
# inside the attention is left (a wrong mask, head mapping or scale moves a
# gradient by its own size).
# REQUIRES: torch2
# RUN: %amp_python2 %s | FileCheck %s
# CHECK: cpu fp32: loss and 9 gradients within 1e-05
# CHECK: cpu bf16: loss and 9 gradients within 0.02
# CHECK: cuda-emulator fp32: loss and 9 gradients within 1e-05
# CHECK: cuda-emulator bf16: loss and 9 gradients within 0.02
import torch
import torch.nn as nn
import torch.nn.functional as F

import amp

SHAPES = {  # (query, key, value) shapes of each attention
    "causal": ((2, 4, 6, 16), (2, 2, 8, 16), (2, 2, 8, 16)),
    "keep": ((2, 2, 5, 64), (2, 2, 7, 64), (2, 2, 7, 64)),
    "additive": ((1, 3, 4, 24), (1, 3, 9, 24), (1, 3, 9, 8)),
}


class Attentions(nn.Module):
    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(0)
        for name, shapes in SHAPES.items():
            for part, shape in zip("qkv", shapes):
                setattr(self, name + "_" + part, nn.Parameter(
                    torch.randn(shape, generator=g)))
        keep = torch.rand(2, 1, 5, 7, generator=g) > 0.3
        keep[1, 0, 3] = False  # a query that sees no key: output 0
        self.register_buffer("keep", keep)
        self.register_buffer("additive", torch.randn(1, 1, 4, 9, generator=g))

    def outputs(self):
        p = {n: t for n, t in self.named_parameters()}
        return [
            F.scaled_dot_product_attention(
                p["causal_q"], p["causal_k"], p["causal_v"], is_causal=True,
                enable_gqa=True),
            F.scaled_dot_product_attention(
                p["keep_q"], p["keep_k"], p["keep_v"], attn_mask=self.keep),
            F.scaled_dot_product_attention(
                p["additive_q"], p["additive_k"], p["additive_v"],
                attn_mask=self.additive, scale=0.3),
        ]

    def forward(self, r0, r1, r2):
        return sum((o * r).sum() for o, r in zip(self.outputs(), (r0, r1, r2)))


def weights():
    g = torch.Generator().manual_seed(1)
    shapes = [q[:-1] + (v[-1],) for q, _, v in SHAPES.values()]
    return tuple(torch.randn(s, generator=g) for s in shapes)


def reference(model, rs, rounding):
    """PyTorch's loss and gradients in float64 from the inputs rounded as
    amp rounds them."""
    ref = Attentions().double()
    ref.load_state_dict(model.state_dict())
    with torch.no_grad():
        for p in ref.parameters():
            p.copy_(p.to(rounding).double())
    loss = ref(*(r.to(rounding).double() for r in rs))
    loss.backward()
    return loss.item(), {n: p.grad for n, p in ref.named_parameters()}


def check(model, rs, target, precision, tolerance):
    trainer = amp.compile(model, example_inputs=rs, loss="none",
                          optimizer="sgd", lr=1.0, weight_decay=0.0,
                          target=target, precision=precision)
    before = {k: v.double() for k, v in trainer.state_dict().items()}
    loss = trainer.step(*rs)
    after = trainer.state_dict()
    rounding = torch.bfloat16 if precision == "bf16" else torch.float64
    ref_loss, grads = reference(model, rs, rounding)
    worst = abs(loss - ref_loss) / max(1.0, abs(ref_loss))
    where = "loss"
    for name, grad in grads.items():
        ours = before[name] - after[name].double()
        error = float((ours - grad).abs().max() / grad.abs().max())
        if error > worst:
            worst, where = error, name
    label = "%s %s" % (target, precision)
    if worst <= tolerance:
        print("%s: loss and %d gradients within %g" % (label, len(grads),
                                                       tolerance))
    else:
        print("%s: FAIL: %s is %.3g from PyTorch's (tolerance %g)"
              % (label, where, worst, tolerance))


model = Attentions()
rs = weights()
for target in ("cpu", "cuda-emulator"):
    check(model, rs, target, "fp32", 1e-5)
    check(model, rs, target, "bf16", 2e-2)
