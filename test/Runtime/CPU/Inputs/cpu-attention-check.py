"""Checks amp_cpu_attention_fwd/bwd (include/amp/Runtime/Attention.h) against
PyTorch in float64: the forward (out, lse) against softmax of the masked,
scaled scores, and dq/dk/dv against autograd of that computation, on the
inputs rounded to the kernel's dtype. Also: thread-count independence
(bitwise, 1, 2 and 3 threads) and fully masked rows (out 0, lse -inf, zero
gradients, no NaN).

Usage: cpu-attention-check.py <libamp_runner_runtime.so>
Prints one line per case; exits 1 on the first mismatch.
"""

import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "lib", "python"))
from amp_testing import (attention_base, attention_layout,  # noqa: E402
                         load_attention_runtime)

AMP_DTYPE = {torch.float32: 0, torch.float16: 1, torch.bfloat16: 2}
MASK_NONE, MASK_KEEP, MASK_ADD = 0, 1, 2

# Error bounds, as max |kernel - reference| / max |reference| per tensor.
# fp32: every sum is in f32 over at most a few hundred terms (unit roundoff
#   6e-8; measured up to 1e-6 here): 5e-6 leaves room for the gradients'
#   cancellation in ds = p * (dp - D).
# bf16: out is rounded once (2^-9 = 2e-3 relative) and so are the
#   probabilities before p.v; the gradients use the rounded out in D and are
#   rounded once: a few units of 2^-9 (measured up to 4), so 8 units. f16
#   (unit 2^-11 = 4.9e-4, measured up to 2): 6 units. lse is f32 always.
# A wrong causal rule, head mapping, mask broadcast or dropout mask moves
# whole rows of probability mass: errors of order 1 (self_check_catches_bugs
# below shows the comparison sees them).
TOLERANCE = {torch.float32: 5e-6, torch.bfloat16: 1.6e-2, torch.float16: 3e-3}




def dropout_keep(seed, shape, p):
    """amp.dropout's keep mask (lib/Conversion/AMPToLinalg, "Dropout"):
    SplitMix64 of seed at each element's row-major linear index, kept when
    (z >> 11) >= ceil(p * 2^53)."""
    count = int(np.prod(shape))
    with np.errstate(over="ignore"):
        z = np.uint64(seed % 2**64) + (np.arange(count, dtype=np.uint64) +
                                       np.uint64(1)) * np.uint64(
                                           0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    threshold = np.uint64(int(np.ceil(np.ldexp(p, 53))))
    return torch.from_numpy((z >> np.uint64(11)) >= threshold).reshape(shape)


def reference(c, q, k, v, dout, bug=None):
    """out, lse, dq, dk, dv in float64 from the (rounded) operands."""
    q, k, v, dout = (t.double().requires_grad_(t is not dout)
                     for t in (q, k, v, dout))
    group = c["hq"] // c["hkv"]
    # Query head h reads key-value head h // group.
    kk = k.repeat_interleave(group, dim=1)
    vv = v.repeat_interleave(group, dim=1)
    if bug == "gqa":  # the other mapping: h % heads_kv
        kk = k.repeat(1, group, 1, 1)
        vv = v.repeat(1, group, 1, 1)
    s = c["scale"] * q @ kk.transpose(-1, -2)
    sq, skv = c["sq"], c["skv"]
    visible = torch.ones(sq, skv, dtype=torch.bool)
    if c["causal"]:
        visible = torch.ones(sq, skv).tril().bool()  # key j <= query i
        if bug == "causal":  # bottom-right alignment instead of top-left
            visible = torch.ones(sq, skv).tril(skv - sq).bool()
    visible = visible.expand(s.shape)
    if c["mask"] == MASK_ADD:
        s = s + c["mask_values"].double()
    elif c["mask"] == MASK_KEEP:
        visible = visible & c["mask_values"].bool()
    s = torch.where(visible, s, torch.tensor(-float("inf"),
                                             dtype=torch.float64))
    hidden_row = ~torch.isfinite(s).any(-1, keepdim=True)
    safe = torch.where(hidden_row, torch.zeros_like(s), s)
    p = torch.softmax(safe, -1) * (~hidden_row)
    lse = torch.where(hidden_row[..., 0],
                      torch.tensor(-float("inf"), dtype=torch.float64),
                      torch.logsumexp(safe, -1))
    if c["dropout"] > 0:
        keep = dropout_keep(c["seed"], s.shape, c["dropout"])
        if bug == "dropout":  # the stream one element off
            keep = keep.roll(1, -1)
        factor = float(np.float32(1.0 / (1.0 - c["dropout"])))
        p = p * keep * factor
    out = p @ vv
    out.backward(dout)
    return (out.detach(), lse.detach(), q.grad, k.grad, v.grad)


def make_case(c, dtype):
    g = torch.Generator().manual_seed(c["data_seed"])
    b, hq, hkv, sq, skv, d, dv = (c[n] for n in ("b", "hq", "hkv", "sq",
                                                 "skv", "d", "dv"))
    q = torch.randn(b, hq, sq, d, generator=g).to(dtype)
    k = torch.randn(b, hkv, skv, d, generator=g).to(dtype)
    v = torch.randn(b, hkv, skv, dv, generator=g).to(dtype)
    dout = torch.randn(b, hq, sq, dv, generator=g).to(dtype)
    mshape = (c.get("mask_batch", 1), c.get("mask_heads", 1), sq, skv)
    if c["mask"] == MASK_KEEP:
        values = torch.rand(mshape, generator=g) > 0.3
        for (mb, mh, i) in c.get("hidden_rows", []):
            values[mb, mh, i, :] = False
        c["mask_values"] = values.to(torch.uint8).contiguous()
    elif c["mask"] == MASK_ADD:
        values = torch.randn(mshape, generator=g)
        values[torch.rand(mshape, generator=g) < 0.2] = -float("inf")
        for (mb, mh, i) in c.get("hidden_rows", []):
            values[mb, mh, i, :] = -float("inf")
        c["mask_values"] = values.float().contiguous()
    return q, k, v, dout


def run_kernel(lib, c, dtype, q, k, v, dout, threads, results=None,
               layout=attention_layout):
    """out, lse, dq, dk, dv of the kernel; `results` (out, dq, dk, dv) are
    the views it writes (new dense tensors if None); `layout` gives each 4-D
    tensor's layout arguments."""
    assert lib.amp_set_num_threads(threads) == 0
    b, hq, hkv, sq, skv, d, dv = (c[n] for n in ("b", "hq", "hkv", "sq",
                                                 "skv", "d", "dv"))
    if results is None:
        results = (torch.empty(b, hq, sq, dv, dtype=dtype),
                   torch.empty(b, hq, sq, d, dtype=dtype),
                   torch.empty(b, hkv, skv, d, dtype=dtype),
                   torch.empty(b, hkv, skv, dv, dtype=dtype))
    out, dq, dk, dvv = results
    lse = torch.empty(b, hq, sq, dtype=torch.float32)
    mask = c.get("mask_values")
    mask_ptr = mask.data_ptr() if mask is not None else None
    mb, mh = c.get("mask_batch", 1), c.get("mask_heads", 1)
    common = (AMP_DTYPE[dtype], b, hq, hkv, sq, skv, d, dv)
    ptr = attention_base
    lib.amp_cpu_attention_fwd(*common, ptr(q), ptr(k), ptr(v), c["mask"],
                              mask_ptr, mb, mh, c["scale"], int(c["causal"]),
                              c["dropout"], c["seed"], ptr(out),
                              lse.data_ptr(), *layout(q), *layout(k),
                              *layout(v), *layout(out))
    lib.amp_cpu_attention_bwd(*common, ptr(q), ptr(k), ptr(v), ptr(out),
                              ptr(dout), lse.data_ptr(), c["mask"], mask_ptr,
                              mb, mh, c["scale"], int(c["causal"]),
                              c["dropout"], c["seed"], ptr(dq), ptr(dk),
                              ptr(dvv), *layout(q), *layout(k), *layout(v),
                              *layout(out), *layout(dout), *layout(dq),
                              *layout(dk), *layout(dvv))
    return out, lse, dq, dk, dvv


def strided_operands(c, dtype, q, k, v, dout, mode):
    """q, k, v and dout copied into views of larger buffers, and the views
    out, dq, dk and dv are to be written to (their buffers filled with NaN
    first), as compiled steps pass them (Attention.h, "Layouts"):
      "bshd":  each its own [B, S, H, D] buffer seen as [B, H, S, D] (a
               projection's output split into heads, the merge before the
               output projection);
      "fused": q, k and v columns of one [B, S, Hq D + Hkv D + Hkv Dv]
               buffer (a fused QKV projection), dq, dk and dv of another
               (its gradient); out and dout [B, S, H, Dv + 8] with 8
               elements of padding after each row, at an offset of 8.
    Returns the inputs, the result views and every buffer the results are
    in."""
    b, hq, hkv, sq, skv, d, dv = (c[n] for n in ("b", "hq", "hkv", "sq",
                                                 "skv", "d", "dv"))
    nan = float("nan")

    def heads(x):  # [B, S, H * D'] -> [B, H, S, D']
        return x.transpose(1, 2)

    if mode == "bshd":
        def bshd(h, s, e, fill=None):
            t = torch.empty(b, s, h, e, dtype=dtype)
            if fill is not None:
                t.fill_(fill)
            return heads(t)
        ins = [bshd(hq, sq, d), bshd(hkv, skv, d), bshd(hkv, skv, dv),
               bshd(hq, sq, dv)]
        outs = [bshd(hq, sq, dv, nan), bshd(hq, sq, d, nan),
                bshd(hkv, skv, d, nan), bshd(hkv, skv, dv, nan)]
        buffers = outs
    else:
        widths = (hq * d, hkv * d, hkv * dv)
        qkv = torch.empty(b, max(sq, skv), sum(widths), dtype=dtype)
        grads = torch.full((b, max(sq, skv), sum(widths)), nan, dtype=dtype)

        def columns(buffer, i, h, s, e):
            start = sum(widths[:i])
            return heads(buffer[:, :s, start:start + h * e].unflatten(
                2, (h, e)))

        def padded(fill):
            t = torch.full((b * sq * hq * (dv + 8) + 8,), fill, dtype=dtype)
            return t, heads(t[8:].view(b, sq, hq, dv + 8)[..., :dv])

        _, dout_view = padded(0.0)
        out_buffer, out_view = padded(nan)
        ins = [columns(qkv, 0, hq, sq, d), columns(qkv, 1, hkv, skv, d),
               columns(qkv, 2, hkv, skv, dv), dout_view]
        outs = [out_view, columns(grads, 0, hq, sq, d),
                columns(grads, 1, hkv, skv, d), columns(grads, 2, hkv, skv,
                                                        dv)]
        buffers = [out_buffer, grads]
    for view, values in zip(ins, (q, k, v, dout)):
        view.copy_(values)
    return ins, outs, buffers


def dense_layout(t):
    """A wrong layout: t's offset with the strides of a dense tensor."""
    b, h, s, e = t.shape
    return (t.storage_offset(), h * s * e, s * e, e)


def relative_error(got, want):
    got, want = got.double(), want.double()
    finite = torch.isfinite(want)
    if not torch.equal(finite, torch.isfinite(got)) or not torch.equal(
            got[~finite], want[~finite]):
        return float("inf")
    scale = want[finite].abs().max().item() if finite.any() else 0.0
    diff = (got[finite] - want[finite]).abs().max().item() if finite.any(
    ) else 0.0
    return diff / max(scale, 1e-30)


NAMES = ("out", "lse", "dq", "dk", "dv")


def check(lib, name, c, dtype):
    c = dict(c)
    q, k, v, dout = make_case(c, dtype)
    got = run_kernel(lib, c, dtype, q, k, v, dout, threads=2)
    want = reference(c, q, k, v, dout)
    errors = [relative_error(g, w) for g, w in zip(got, want)]
    tol = TOLERANCE[dtype]
    line = "%s %s: %s" % (name, str(dtype).replace("torch.", ""), " ".join(
        "%s %.1e" % (n, e) for n, e in zip(NAMES, errors)))
    # lse is f32 in every dtype; its error is that of the f32 sums.
    bad = [n for n, e in zip(NAMES, errors)
           if e > (TOLERANCE[torch.float32] if n == "lse" else tol)]
    if bad:
        print(line + "  FAIL (" + ", ".join(bad) + ")")
        sys.exit(1)
    for (mb, mh, i) in c.get("hidden_rows", []):
        # Every (batch, head) the hidden mask row reaches.
        for bb in (range(c["b"]) if c.get("mask_batch", 1) == 1 else [mb]):
            for hh in (range(c["hq"]) if c.get("mask_heads", 1) == 1 else [mh
                                                                          ]):
                out, lse, dq = got[0][bb, hh, i], got[1][bb, hh, i], got[2][
                    bb, hh, i]
                if not (torch.all(out == 0) and lse.item() == -float("inf")
                        and torch.all(dq == 0)):
                    print(line + "  FAIL (hidden row %d,%d,%d)" % (bb, hh, i))
                    sys.exit(1)
        line += " hidden-rows ok"
    if any(torch.isnan(t.float()).any() for t in got):
        print(line + "  FAIL (NaN)")
        sys.exit(1)
    print(line + "  ok")
    return c, (q, k, v, dout), got


def check_strided(lib, name, c, dtype, mode):
    """The kernel reading and writing strided views gives the dense
    results (within the same tolerance of float64) and writes nothing
    outside its results."""
    c = dict(c)
    q, k, v, dout = make_case(c, dtype)
    ins, outs, buffers = strided_operands(c, dtype, q, k, v, dout, mode)
    # 3 threads: causal-long (two key-value heads) takes the split backward.
    got = run_kernel(lib, c, dtype, *ins, threads=3, results=outs)
    want = reference(c, q, k, v, dout)
    errors = [relative_error(g, w) for g, w in zip(got, want)]
    line = "%s %s %s: %s" % (name, mode, str(dtype).replace("torch.", ""),
                             " ".join("%s %.1e" % (n, e)
                                      for n, e in zip(NAMES, errors)))
    bad = [n for n, e in zip(NAMES, errors)
           if e > (TOLERANCE[torch.float32] if n == "lse" else TOLERANCE[dtype])]
    # Every element outside the result views still holds its NaN.
    written = sum(t.numel() for t in outs)
    untouched = sum(int(torch.isnan(t.float()).sum()) for t in buffers)
    total = sum(t.numel() for t in buffers)
    if untouched != total - written:
        bad.append("wrote %d elements outside the results" %
                   (total - written - untouched))
    if bad:
        print(line + "  FAIL (" + ", ".join(bad) + ")")
        sys.exit(1)
    print(line + "  ok")


def self_check_wrong_layout(lib, c, dtype, mode):
    """Dense strides given for strided views (the copies the layouts
    remove, forgotten) are far outside the tolerance."""
    c = dict(c)
    q, k, v, dout = make_case(c, dtype)
    ins, outs, _ = strided_operands(c, dtype, q, k, v, dout, mode)
    got = run_kernel(lib, c, dtype, *ins, threads=2, results=outs,
                     layout=dense_layout)
    want = reference(c, q, k, v, dout)
    worst = max(relative_error(g.nan_to_num(1e30), w)
                for g, w in zip(got, want))
    status = "detected" if worst > 100 * TOLERANCE[dtype] else "MISSED"
    print("bug layout %s: error %.1e %s" % (mode, worst, status))
    if status != "detected":
        sys.exit(1)


def check_threads(lib, name, c, dtype):
    """The same bits at 1, 2 and 3 threads."""
    c = dict(c)
    q, k, v, dout = make_case(c, dtype)
    runs = [run_kernel(lib, c, dtype, q, k, v, dout, t) for t in (1, 2, 3)]

    def bits(t):
        return t.view(torch.int32 if t.dtype == torch.float32 else torch.int16)

    for t, run in zip((2, 3), runs[1:]):
        for n, a, b in zip(NAMES, runs[0], run):
            if not torch.equal(bits(a), bits(b)):
                print("%s threads: %s differs at %d threads  FAIL" %
                      (name, n, t))
                sys.exit(1)
    print("%s %s threads 1 2 3: identical" %
          (name, str(dtype).replace("torch.", "")))


def self_check_catches_bugs(c, dtype, bug):
    """The reference with a deliberate bug is far outside the tolerance of
    the right one on this case: the comparison above can fail."""
    c = dict(c)
    q, k, v, dout = make_case(c, dtype)
    right = reference(c, q, k, v, dout)
    wrong = reference(c, q, k, v, dout, bug=bug)
    worst = max(relative_error(w, r) for w, r in zip(wrong, right))
    status = "detected" if worst > 100 * TOLERANCE[dtype] else "MISSED"
    print("bug %s: error %.1e %s" % (bug, worst, status))
    if status != "detected":
        sys.exit(1)


def main():
    lib = load_attention_runtime(sys.argv[1])
    base = dict(b=2, hq=4, hkv=2, sq=37, skv=53, d=16, dv=16, scale=0.25,
                causal=False, mask=MASK_NONE, dropout=0.0, seed=0,
                data_seed=1)
    cases = {
        "plain-gqa-d16": dict(base),
        "causal-d24": dict(base, sq=70, skv=45, d=24, dv=24, causal=True,
                           data_seed=2),
        "causal-long": dict(base, b=1, sq=200, skv=600, d=64, dv=64,
                            causal=True, scale=0.125, data_seed=3),
        "noncausal-long": dict(base, b=1, hq=2, hkv=2, sq=130, skv=700, d=64,
                               dv=64, scale=0.125, data_seed=4),
        "keep-mask-heads": dict(base, sq=40, skv=33, d=64, dv=64,
                                mask=MASK_KEEP, mask_batch=1, mask_heads=4,
                                hidden_rows=[(0, 1, 5)], data_seed=5),
        "add-mask-batch": dict(base, sq=29, skv=64, d=64, dv=24,
                               mask=MASK_ADD, mask_batch=2, mask_heads=1,
                               causal=True, hidden_rows=[(1, 0, 3)],
                               data_seed=6),
        "dropout-causal-keep": dict(base, sq=50, skv=70, d=24, dv=16,
                                    causal=True, mask=MASK_KEEP, mask_batch=2,
                                    mask_heads=4, dropout=0.25,
                                    seed=-1234567, data_seed=7),
        "dropout-long": dict(base, b=1, sq=150, skv=530, d=16, dv=16,
                             dropout=0.1, seed=42, data_seed=8),
        # Empty sequences: rows without keys (out 0, lse -inf, dq 0), keys
        # without queries (dk, dv 0).
        "no-keys": dict(base, sq=5, skv=0, data_seed=9),
        "no-queries": dict(base, sq=0, skv=7, data_seed=10),
    }
    for dtype in (torch.float32, torch.bfloat16, torch.float16):
        for name, c in cases.items():
            check(lib, name, c, dtype)
    # Strided views in the layouts compiled steps pass: a projection's
    # [B, S, H, D] output as heads, and a fused QKV projection's columns,
    # through both the f32 path (rows read in place) and the f16/bf16 one
    # (rows widened into tiles), the forward and both backward paths.
    for dtype in (torch.float32, torch.bfloat16, torch.float16):
        for mode in ("bshd", "fused"):
            check_strided(lib, "plain-gqa-d16", cases["plain-gqa-d16"], dtype,
                          mode)
            check_strided(lib, "add-mask-batch", cases["add-mask-batch"],
                          dtype, mode)
            check_strided(lib, "causal-long", cases["causal-long"], dtype,
                          mode)
    for mode in ("bshd", "fused"):
        self_check_wrong_layout(lib, cases["plain-gqa-d16"], torch.float32,
                                mode)
    # With fewer (batch, key-value head) pairs than threads (causal-long,
    # dropout-long: 2 at 3 threads) the backward takes its split path.
    for dtype in (torch.float32, torch.bfloat16):
        check_threads(lib, "causal-long", cases["causal-long"], dtype)
        check_threads(lib, "dropout-causal-keep",
                      cases["dropout-causal-keep"], dtype)
        check_threads(lib, "dropout-long", cases["dropout-long"], dtype)
    self_check_catches_bugs(cases["causal-d24"], torch.float32, "causal")
    self_check_catches_bugs(cases["plain-gqa-d16"], torch.float32, "gqa")
    self_check_catches_bugs(cases["dropout-long"], torch.float32, "dropout")


if __name__ == "__main__":
    main()
