"""Gathers: embedding lookups, index_select and torch.gather."""
from ..emitter import Attr
from ..registry import handles


@handles("aten.embedding.default")
def embedding(ctx, weight, indices, padding_idx=-1, scale_grad_by_freq=False,
              sparse=False):
    shape, dtype = ctx.result()
    if scale_grad_by_freq:
        ctx.fail("nn.Embedding(scale_grad_by_freq=True) is not supported")
    table = ctx.tensor(weight)
    ids = ctx.tensor(indices)
    # PyTorch raises for a negative id (amp-check-indices reports it).
    attrs = {"axis": Attr.i64(0), "non_negative": Attr.unit}
    if padding_idx is not None and padding_idx >= 0:
        # PyTorch: the padding row is read but gets no gradient.
        attrs["padding_idx"] = Attr.i64(padding_idx)
    return ctx.emit.op("amp.gather", [table, ids], [(shape, dtype)], attrs)


@handles("aten.index_select.default")
def index_select(ctx, x, dim, index):
    shape, dtype = ctx.result()
    value = ctx.tensor(x)
    return ctx.emit.op("amp.gather", [value, ctx.tensor(index)],
                       [(shape, dtype)],
                       {"axis": Attr.i64(dim % value.rank),
                        "non_negative": Attr.unit})


@handles("aten.gather.default")
def gather(ctx, x, dim, index, sparse_grad=False):
    """torch.gather: amp.gather_elements (its gradient is a scatter-add)."""
    shape, dtype = ctx.result()
    value = ctx.tensor(x)
    if value.rank == 0:
        ctx.fail("torch.gather of a 0-d tensor is not supported")
    return ctx.emit.op("amp.gather_elements", [value, ctx.tensor(index)],
                       [(shape, dtype)],
                       {"axis": Attr.i64(dim % value.rank),
                        "non_negative": Attr.unit})


@handles("aten.index.Tensor")
def index(ctx, x, indices):
    """`x[..., idx]` with one integer index tensor (Swin's relative position
    bias table[index]): amp.gather along that dimension. PyTorch counts
    negative indices from the end, as amp.gather does without
    non_negative."""
    shape, dtype = ctx.result()
    value = ctx.tensor(x)
    given = [d for d, i in enumerate(indices) if i is not None]
    if len(given) != 1:
        ctx.fail("indexing with %d index tensors is not supported (one "
                 "integer tensor is; index one dimension at a time)" %
                 len(given))
    axis = given[0]
    ids = ctx.tensor(indices[axis])
    if ids.dtype not in ("i64", "i32"):
        ctx.fail("indexing with a %s tensor is not supported (boolean masks "
                 "give data-dependent shapes; integer indices are)" %
                 ids.dtype)
    return ctx.emit.op("amp.gather", [value, ids], [(shape, dtype)],
                       {"axis": Attr.i64(axis)})
