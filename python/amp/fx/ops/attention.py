"""Scaled dot-product attention (F.scaled_dot_product_attention), kept
whole by the capture and imported as one amp.attention: softmax(q k^T *
scale + mask) v with PyTorch's is_causal (top-left), boolean (True keeps)
or additive masks, dropout of the probabilities under dropout_p, and
grouped-query heads (enable_gqa). amp.attention never materializes the
batch x heads x seq x seq scores (docs/Attention.md)."""
import math

from ..emitter import Attr
from ..registry import handles


def _rank4(ctx, value, what):
    """q, k or v as [B, H, S, D]: leading dimensions merged into B (or a
    batch of 1 added for [H, S, D])."""
    shape = value.shape
    if len(shape) < 3:
        ctx.fail("attention %s must have at least 3 dimensions (batch or "
                 "heads, sequence, features), got %d" % (what, len(shape)))
    batch = 1
    for dim in shape[:-3]:
        batch *= dim
    return ctx.reshape(value, (batch,) + tuple(shape[-3:]))


def _mask(ctx, attn_mask, scores_shape):
    """The mask as amp.attention takes it, [1|B, 1|H, Sq, Skv] for scores
    of `scores_shape` (the query's leading dimensions, Sq, Skv): broadcast
    over the queries and keys where PyTorch broadcasts it, the leading
    dimensions merged into one batch dimension (kept at 1 when all are)."""
    mask = ctx.tensor(attn_mask)
    if mask.dtype not in ("i1", "f32"):
        ctx.fail("attention mask of type %s: amp takes bool (True keeps) or "
                 "float (added) masks" % mask.dtype)
    rank = len(scores_shape)
    shape = (1,) * (rank - len(mask.shape)) + tuple(mask.shape)
    mask = ctx.reshape(mask, shape)
    batch_dims = tuple(scores_shape[:-3])
    if any(d != 1 for d in shape[:-3]):
        shape = batch_dims + shape[-3:]
    mask = ctx.broadcast(mask, shape[:-2] + tuple(scores_shape[-2:]))
    batch = 1
    for dim in mask.shape[:-3]:
        batch *= dim
    return ctx.reshape(mask, (batch,) + tuple(mask.shape[-3:]))


@handles("aten.scaled_dot_product_attention.default")
def scaled_dot_product_attention(ctx, query, key, value, attn_mask=None,
                                 dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False):
    shape, dtype = ctx.result()
    q, k, v = ctx.tensor(query), ctx.tensor(key), ctx.tensor(value)
    if dtype != "f32" or {q.dtype, k.dtype, v.dtype} != {"f32"}:
        ctx.fail("attention of %s tensors: amp imports float32 models (its "
                 "precision passes choose the low precision)" % dtype)
    if not 0 <= dropout_p < 1:
        ctx.fail("attention dropout probability %r is not in [0, 1)" %
                 dropout_p)
    if is_causal and attn_mask is not None:
        ctx.fail("attention with both is_causal and attn_mask (PyTorch "
                 "refuses this too)")
    if q.shape[:-3] != k.shape[:-3] or k.shape[:-1] != v.shape[:-1]:
        ctx.fail("attention operands of shapes %s, %s, %s: amp needs equal "
                 "batch dimensions" % (q.shape, k.shape, v.shape))
    if q.shape[-3] % k.shape[-3] or (q.shape[-3] != k.shape[-3] and
                                     not enable_gqa):
        ctx.fail("attention with %d query heads and %d key heads (grouped "
                 "heads need enable_gqa=True and a multiple)"
                 % (q.shape[-3], k.shape[-3]))
    q4, k4, v4 = (_rank4(ctx, t, what) for t, what in
                  ((q, "query"), (k, "key"), (v, "value")))
    out_shape = q4.shape[:-1] + (v4.shape[-1],)
    operands = [q4, k4, v4]
    segments = [1, 1, 1, 0, 0]
    if attn_mask is not None:
        operands.append(_mask(ctx, attn_mask,
                              q.shape[:-1] + (k.shape[-2],)))
        segments[3] = 1
    attrs = {"scale": Attr.f64(scale if scale is not None
                               else 1.0 / math.sqrt(q.shape[-1]))}
    if is_causal:
        attrs["causal"] = Attr.unit
    if dropout_p:
        operands.append(ctx.new_seed())
        segments[4] = 1
        attrs["dropout"] = Attr.f64(dropout_p)
    attrs["operandSegmentSizes"] = "array<i32: %s>" % ", ".join(
        str(s) for s in segments)
    output, _ = ctx.emit.op(
        "amp.attention", operands,
        [(out_shape, "f32"), (out_shape[:-1], "f32")], attrs)
    return ctx.reshape(output, shape)
