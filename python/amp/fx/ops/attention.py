"""Scaled dot-product attention (F.scaled_dot_product_attention), kept
whole by the capture and written as its definition: softmax(q k^T * scale
+ mask) v (with dropout of the softmax under dropout_p), the mask's -inf entries where a bool mask is False or above the
diagonal for is_causal."""
import math

import numpy as np

from ..emitter import Attr
from ..registry import handles


@handles("aten.scaled_dot_product_attention.default")
def scaled_dot_product_attention(ctx, query, key, value, attn_mask=None,
                                 dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False):
    shape, dtype = ctx.result()
    q, k, v = ctx.tensor(query), ctx.tensor(key), ctx.tensor(value)
    if enable_gqa or q.shape[:-2] != k.shape[:-2]:
        ctx.fail("attention with grouped query heads (enable_gqa) is not "
                 "supported yet")
    if not 0 <= dropout_p < 1:
        ctx.fail("attention dropout probability %r is not in [0, 1)" %
                 dropout_p)
    rows, cols = q.shape[-2], k.shape[-2]
    scores_shape = q.shape[:-1] + (cols,)
    scores = ctx.emit.op("amp.matmul", [q, k], [(scores_shape, dtype)],
                         {"transpose_rhs": Attr.unit})
    factor = scale if scale is not None else 1.0 / math.sqrt(q.shape[-1])
    scores = ctx.emit.op("amp.mul", [scores, ctx.broadcast(
        ctx.tensor(float(factor)), scores_shape)], [(scores_shape, dtype)])
    if is_causal:
        allowed = np.tril(np.ones((rows, cols), dtype=bool))
        attn_mask = ctx.emit.constant(allowed, "i1")
    if attn_mask is not None:
        mask = ctx.tensor(attn_mask)
        if mask.dtype == "i1":
            minus_inf = ctx.broadcast(ctx.tensor(float("-inf")),
                                      scores_shape)
            scores = ctx.emit.op(
                "amp.where", [ctx.broadcast(mask, scores_shape), scores,
                              minus_inf], [(scores_shape, dtype)])
        else:
            scores = ctx.emit.op("amp.add", [scores, ctx.broadcast(
                mask, scores_shape)], [(scores_shape, dtype)])
    weights = ctx.emit.op("amp.softmax", [scores], [(scores_shape, dtype)],
                          {"axis": Attr.i64(-1)})
    if dropout_p:
        # As PyTorch's math attention: dropout of the attention weights.
        weights, _ = ctx.emit.op(
            "amp.dropout", [weights, ctx.new_seed()],
            [(scores_shape, dtype), (scores_shape, "i1")],
            {"probability": Attr.f64(dropout_p)})
    return ctx.emit.op("amp.matmul", [weights, v], [(shape, dtype)])
