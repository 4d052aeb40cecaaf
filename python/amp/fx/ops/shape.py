"""Data movement: views, permutations, broadcasting, slicing,
concatenation and conversions. amp's tensors are values, so a view is a
reshape and a copy is the value itself."""
from ..emitter import Attr
from ..registry import handles


@handles("aten.view.default", "aten.reshape.default",
         "aten._unsafe_view.default", "aten.unsqueeze.default",
         "aten.squeeze.dim", "aten.squeeze.dims", "aten.squeeze.default",
         "aten.flatten.using_ints", "aten.view_copy.default")
def reshape(ctx, x, *_, **__):
    shape, _ = ctx.result()
    return ctx.reshape(ctx.tensor(x), shape)


@handles("aten.clone.default", "aten.alias.default", "aten.contiguous.default",
         "aten.lift_fresh_copy.default")
def identity(ctx, x, **_):
    return ctx.tensor(x)


@handles("aten.copy.default")
def copy(ctx, destination, source, non_blocking=False):
    shape, dtype = ctx.result()
    return ctx.broadcast(ctx.cast(ctx.tensor(source), dtype), shape)


@handles("aten.detach.default")
def detach(ctx, x):
    ctx.fail("detach (no gradient through a value) is not supported inside "
             "a compiled step")


@handles("aten.permute.default")
def permute(ctx, x, dims):
    shape, _ = ctx.result()
    value = ctx.tensor(x)
    dims = [d + value.rank if d < 0 else d for d in dims]
    if dims == list(range(value.rank)):
        return value
    return ctx.emit.op("amp.transpose", [value], [(shape, value.dtype)],
                       {"permutation": Attr.array(dims)})


@handles("aten.t.default")
def t(ctx, x):
    value = ctx.tensor(x)
    if value.rank < 2:
        return value
    return permute(ctx, value, [1, 0])


@handles("aten.transpose.int")
def transpose(ctx, x, dim0, dim1):
    value = ctx.tensor(x)
    dims = list(range(value.rank))
    a, b = dim0 % value.rank, dim1 % value.rank
    dims[a], dims[b] = dims[b], dims[a]
    return permute(ctx, value, dims)


@handles("aten.expand.default", "aten.expand_copy.default")
def expand(ctx, x, size, implicit=False):
    shape, _ = ctx.result()
    value = ctx.tensor(x)
    return ctx.broadcast(value, shape)


def _slice(ctx, value, dim, start, end, step, shape):
    starts = [0] * value.rank
    limits = list(value.shape)
    strides = [1] * value.rank
    starts[dim], limits[dim], strides[dim] = start, end, step
    if tuple(shape) == value.shape:
        return value
    return ctx.emit.op("amp.slice", [value], [(tuple(shape), value.dtype)],
                       {"starts": Attr.array(starts),
                        "limits": Attr.array(limits),
                        "strides": Attr.array(strides)})


def _bounds(size, start, end):
    start = 0 if start is None else start
    end = size if end is None else end
    if start < 0:
        start += size
    if end < 0:
        end += size
    return max(0, min(start, size)), max(0, min(end, size))


@handles("aten.slice.Tensor", "aten.slice_copy.Tensor")
def slice_(ctx, x, dim=0, start=None, end=None, step=1):
    shape, _ = ctx.result()
    value = ctx.tensor(x)
    dim %= value.rank
    start, end = _bounds(value.shape[dim], start, end)
    return _slice(ctx, value, dim, start, max(start, end), step, shape)


@handles("aten.select.int", "aten.select_copy.int")
def select(ctx, x, dim, index):
    shape, _ = ctx.result()
    value = ctx.tensor(x)
    dim %= value.rank
    index %= value.shape[dim]
    kept = list(value.shape)
    kept[dim] = 1
    part = _slice(ctx, value, dim, index, index + 1, 1, kept)
    return ctx.reshape(part, shape)


@handles("aten.split_with_sizes.default", "aten.split.Tensor",
         "aten.split_with_sizes_copy.default", "aten.split_copy.Tensor")
def split(ctx, x, sizes, dim=0):
    value = ctx.tensor(x)
    dim %= value.rank
    total = value.shape[dim]
    if isinstance(sizes, int):
        sizes = [min(sizes, total - s) for s in range(0, total, sizes)]
    parts, start = [], 0
    for size in sizes:
        shape = list(value.shape)
        shape[dim] = size
        parts.append(_slice(ctx, value, dim, start, start + size, 1, shape))
        start += size
    return parts


@handles("aten.unbind.int")
def unbind(ctx, x, dim=0):
    value = ctx.tensor(x)
    dim %= value.rank
    shape = value.shape[:dim] + value.shape[dim + 1:]
    return [ctx.reshape(part, shape) for part in
            split(ctx, value, [1] * value.shape[dim], dim)]


@handles("aten.cat.default", "aten.concat.default")
def cat(ctx, tensors, dim=0):
    shape, dtype = ctx.result()
    # Empty pieces (a key/value cache that starts empty) add nothing; amp
    # has no empty tensors.
    values = [ctx.tensor(t) for t in tensors
              if not (hasattr(t, "numel") and t.numel() == 0)]
    values = [v for v in values if 0 not in v.shape]
    if len(values) == 1:
        return values[0]
    return ctx.emit.op("amp.concat", values, [(shape, dtype)],
                       {"axis": Attr.i64(dim % len(shape))})


@handles("aten.constant_pad_nd.default")
def constant_pad_nd(ctx, x, pad, value=0):
    """F.pad's constant mode: `pad` holds (before, after) pairs from the
    last dimension backwards. Negative widths crop (a slice), positive ones
    concatenate constant slabs, as the ONNX importer's Pad does, so the
    gradient is the slice of the output's."""
    shape, dtype = ctx.result()
    out = ctx.tensor(x)
    if len(pad) % 2 or len(pad) // 2 > out.rank:
        ctx.fail("pad has %d entries for a tensor of rank %d" %
                 (len(pad), out.rank))
    for i in range(len(pad) // 2):
        dim = out.rank - 1 - i
        before, after = pad[2 * i], pad[2 * i + 1]
        start, end = max(-before, 0), out.shape[dim] - max(-after, 0)
        if (start, end) != (0, out.shape[dim]):
            kept = list(out.shape)
            kept[dim] = end - start
            out = _slice(ctx, out, dim, start, end, 1, kept)
        def slab(width):
            slab_shape = list(out.shape)
            slab_shape[dim] = width
            return ctx.broadcast(ctx.tensor(value, dtype=dtype), slab_shape)

        parts = ([slab(before)] if before > 0 else []) + [out] + (
            [slab(after)] if after > 0 else [])
        if len(parts) > 1:
            padded = list(out.shape)
            padded[dim] = sum(p.shape[dim] for p in parts)
            out = ctx.emit.op("amp.concat", parts, [(padded, dtype)],
                              {"axis": Attr.i64(dim)})
    if tuple(out.shape) != tuple(shape):
        ctx.fail("padding %s gave shape %s, PyTorch's is %s" %
                 (list(pad), list(out.shape), list(shape)))
    return out


@handles("aten.stack.default")
def stack(ctx, tensors, dim=0):
    shape, dtype = ctx.result()
    dim %= len(shape)
    parts = []
    for t in tensors:
        value = ctx.tensor(t)
        expanded = list(value.shape)
        expanded.insert(dim, 1)
        parts.append(ctx.reshape(value, expanded))
    return ctx.emit.op("amp.concat", parts, [(shape, dtype)],
                       {"axis": Attr.i64(dim)})


@handles("aten._to_copy.default", "aten.to.dtype")
def to_copy(ctx, x, *args, dtype=None, **kwargs):
    shape, out_dtype = ctx.result()
    return ctx.cast(ctx.tensor(x), out_dtype)


@handles("aten._assert_tensor_metadata.default",
         "aten._assert_scalar.default", "aten.sym_constrain_range_for_size.default")
def assertion(ctx, *args, **kwargs):
    return None


@handles("aten.full_like.default")
def full_like(ctx, x, fill_value, **_):
    shape, dtype = ctx.result()
    return ctx.broadcast(ctx.tensor(fill_value, dtype=dtype), shape)


@handles("aten.zeros_like.default")
def zeros_like(ctx, x, **kwargs):
    return full_like(ctx, x, 0)


@handles("aten.ones_like.default")
def ones_like(ctx, x, **kwargs):
    return full_like(ctx, x, 1)


@handles("aten.as_strided.default", "aten.as_strided_copy.default")
def as_strided(ctx, x, size, stride, storage_offset=0):
    """Only the view that is a reshape of a contiguous tensor (what
    decompositions produce for, e.g., adaptive pooling to the input's own
    size)."""
    shape, _ = ctx.result()
    value = ctx.tensor(x)
    contiguous, step = [], 1
    for dim in reversed(list(size)):
        contiguous.insert(0, step)
        step *= dim
    count = 1
    for dim in value.shape:
        count *= dim
    if (storage_offset or 0) != 0 or step != count or any(
            s != c for s, c, d in zip(stride, contiguous, size) if d != 1):
        ctx.fail("as_strided views other than reshapes are not supported")
    return ctx.reshape(value, shape)


@handles("aten.flip.default")
def flip(ctx, x, dims):
    """A gather of the reversed positions along each dim (a bidirectional
    RNN's backward direction; its gradient scatters them back)."""
    import numpy as np

    value = ctx.tensor(x)
    for dim in dims:
        dim %= value.rank
        size = value.shape[dim]
        if size == 1:
            continue
        index = ctx.emit.constant(np.arange(size - 1, -1, -1, dtype=np.int64),
                                  "i64")
        value = ctx.emit.op("amp.gather", [value, index],
                            [(value.shape, value.dtype)],
                            {"axis": Attr.i64(dim)})
    return value
