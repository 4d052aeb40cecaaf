#!/usr/bin/env python3
"""PyTorch eager's training step as a list of CUDA kernels, without a GPU
(issue 17): what bench/gpu_model.py puts under the same device model as
amp's cost report.

The step is bench/gpu_train_step.py's: zero_grad(set_to_none=True), the
forward under CUDA autocast, mse_loss in fp32 (cross_entropy on the fp32
logits for the language model gpt2_124m, as autocast runs log_softmax),
backward, AdamW with
foreach kernels (torch.optim.AdamW(foreach=True)), and for fp16
GradScaler's scale, unscale + inf check, the found_inf host sync and the
scale update. It runs on the meta device (shapes and dtypes, no data), so
the issue sizes trace in a second:

- CUDA autocast is applied by a TorchFunctionMode with autocast's lists of
  torch 1.13 (aten/src/ATen/autocast_mode.cpp) for the ops these models
  use: linear/matmul in the low precision, layer_norm/softmax/mse_loss
  in fp32, the rest in their inputs' type; casts go through .to(), so
  autograd records them as autocast's do.
- Every aten op of forward, backward and the optimizer is recorded by a
  TorchDispatchMode with its tensors. A view (an output that aliases an
  input in the op's schema) launches nothing; mm/addmm/bmm are cuBLAS
  GEMMs (addmm with its bias as a cuBLASLt epilogue, as 1.13 does for a
  1-d bias); _foreach_* ops launch multi_tensor_apply kernels (at most 110,
  64, 48, 36 or 30 tensors by list depth and 320 chunks of 65536 elements
  per launch); LayerNorm backward launches 2 kernels; every other op 1.
  A kernel reads each input once (broadcast dimensions not counted) and
  writes each output once.
- Peak memory: tensors that exist before the step (parameters, optimizer
  state, the batch) stay; a tensor made in the step lives from the op that
  makes it to its last use, the gradients to the end of the step (the
  caching allocator can free no earlier; it rounds blocks to 512 bytes).

The GradScaler kernels are added by name (meta tensors have no
_amp_foreach_non_finite_check_and_unscale_): 3 launches for the inverse
scale (double, reciprocal, float), 1 fill of found_inf, the unscale over
every gradient (multi_tensor_apply, depth 1), the .item() sync of
GradScaler.step, and _amp_update_scale_.

With sdpa=True (the peer "eager_sdpa" of bench/gpu_model.py) the model's
attention is F.scaled_dot_product_attention(q, k, v, is_causal=True)
(gpu_train_step.py's Attention with sdpa), traced as PyTorch's fused
kernels run it on an H100/H200: one forward kernel reading q, k, v and
writing the output and the f32 log-sum-exp of each query row, and a
backward of three kernels (the row sums D = rowsum(dout * out), the main
kernel accumulating dq in f32, dq's rounding) reading q, k, v, out, dout
and the log-sum-exp and writing dq, dk, dv; no N x N tensor, and no
separate scale, mask, softmax or probability product. Counted like amp's
cuDNN attention calls (attention_counts, the formulas of
lib/Analysis/GPUCost.cpp): FLOPs over the (query, key) pairs the causal
mask leaves visible, forward 2 B H N (d + dv), backward 2 B H N (3 d +
2 dv). Assumed: those kernels reach the same fraction of the tensor peak
as amp's cuDNN calls (data/devices.json "attention_efficiency"). PyTorch
2.x built with cuDNN 9.15.1 or later prefers cuDNN's attention on sm90
(sdp_utils.cpp, check_prefer_cudnn_attention; the venv's torch 2.15 with
cuDNN 9.26 does), so eager then runs the very kernels amp calls; with its
own flash-attention 2 kernels (older builds, or TORCH_CUDNN_SDPA_DEPRIORITIZED)
cudnn-frontend's H200 comparison (benchmark/sdpa_benchmark, cuDNN 9.1,
d = 128) has PyTorch at 0.5-0.6x cuDNN's throughput, and this model
flatters eager_sdpa. The output and the gradients are allocated in q's
[batch, seq, heads, dim] layout, as PyTorch's kernels do, so the
transposes around them stay views. Torch 1.13 has no
scaled_dot_product_attention: the traced function stands in for it on
both generations.
"""
import math
import os
import sys
import weakref

import torch
import torch.nn.functional as F
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gpu_train_step  # noqa: E402

LOW = {"bf16": torch.bfloat16, "fp16": torch.float16}

# CUDA autocast (torch 1.13) for the functions the workloads call.
LOWER_PRECISION = {F.linear, torch.matmul, torch.Tensor.__matmul__,
                   torch.mm, torch.bmm, torch.addmm, torch.baddbmm}
FP32 = {F.layer_norm, torch.softmax, torch.Tensor.softmax, F.softmax,
        F.mse_loss, torch.exp, torch.log, torch.pow, torch.sum,
        torch.Tensor.sum, F.log_softmax}

# multi_tensor_apply (ATen/native/cuda/MultiTensorApply.cuh).
DEPTH_TO_MAX_TENSORS = [110, 64, 48, 36, 30]
MAX_BLOCKS = 320
CHUNK = 65536

EXTRA_LAUNCHES = {"native_layer_norm_backward": 2}
# Views whose schema does not say so.
NO_KERNEL = {"_unsafe_view", "_reshape_alias", "alias", "detach",
             "lift_fresh"}


def cast(value, dtype):
    if isinstance(value, torch.Tensor) and value.is_floating_point():
        return value.to(dtype)
    if isinstance(value, (list, tuple)):
        return type(value)(cast(v, dtype) for v in value)
    return value


class Autocast(TorchFunctionMode):
    """CUDA autocast's casts, on any device."""

    def __init__(self, low):
        super().__init__()
        self.low = low

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func in LOWER_PRECISION:
            args, kwargs = cast(args, self.low), cast(kwargs, self.low)
        elif func in FP32:
            args, kwargs = cast(args, torch.float32), cast(kwargs,
                                                           torch.float32)
        return func(*args, **kwargs)


def tensors_of(values):
    for v in values:
        if isinstance(v, torch.Tensor):
            yield v
        elif isinstance(v, (list, tuple)):
            yield from tensors_of(v)


def read_bytes(t):
    """Bytes a kernel reads of `t`: broadcast (stride 0) dimensions once."""
    n = 1
    for size, stride in zip(t.shape, t.stride()):
        if stride != 0:
            n *= size
    return n * t.element_size()


def full_bytes(t):
    return t.numel() * t.element_size()


class Kernel:
    def __init__(self, name, launches, read, written, flops, gemm=None,
                 inputs=(), outputs=(), attention=None):
        self.name, self.launches = name, launches
        self.read, self.written, self.flops = read, written, flops
        self.gemm = gemm  # (dtype, batch, m, n, k)
        # Fused attention: (dtype, "forward" or "backward").
        self.attention = attention
        self.inputs, self.outputs = list(inputs), list(outputs)


def visible_pairs(seq_q, seq_kv, causal):
    """The (query, key) pairs the softmax sees: all of them, or under the
    top-left causal mask (query i sees keys 0..i) a triangle and, past
    seq_kv, full rows."""
    if not causal:
        return seq_q * seq_kv
    rows = min(seq_q, seq_kv)
    return rows * (rows + 1) // 2 + (seq_q - rows) * seq_kv


def attention_counts(elt, batch, heads_q, heads_kv, seq_q, seq_kv, d, dv,
                     causal, backward):
    """(FLOPs, bytes read, bytes written, launches) of a fused attention
    forward or backward with `elt`-byte operands: the counts of
    amp-gpu-cost-report's amp_gpu_attention_fwd/bwd (lib/Analysis/GPUCost.cpp
    visitAttention), without a mask."""
    n = visible_pairs(seq_q, seq_kv, causal)
    heads = batch * heads_q
    q, o = heads * seq_q * d, heads * seq_q * dv
    k, v = batch * heads_kv * seq_kv * d, batch * heads_kv * seq_kv * dv
    row_stats = 4 * heads * seq_q  # one f32 per query row
    if not backward:
        return (2.0 * heads * n * (d + dv), elt * (q + k + v),
                elt * o + row_stats, 1)
    dq_accumulator = 4 * heads * seq_q * d  # f32, written and read back
    return (2.0 * heads * n * (3 * d + 2 * dv),
            elt * (q + k + v + 2 * o) + 2 * row_stats + dq_accumulator,
            elt * (q + k + v) + row_stats + dq_accumulator, 3)


class Recorder(TorchDispatchMode):
    """Records the aten ops of a step on the meta device as kernels, with
    the storages they read and write."""

    active = []  # the recorders entered, innermost last

    def __init__(self):
        super().__init__()
        self.paused = False
        self.kernels = []
        self.storage = {}  # id(tensor) -> storage number
        self.storage_bytes = {}  # storage number -> bytes
        self.before = set()  # storages that exist before the step
        self.syncs = 0

    def track(self, t, number):
        """Maps tensor `t` to storage `number` while `t` lives (no strong
        reference: AccumulateGrad would copy gradients others hold)."""
        self.storage[id(t)] = number
        weakref.finalize(t, self.storage.pop, id(t), None)

    def storage_of(self, t, made=False):
        if id(t) not in self.storage:
            number = len(self.storage_bytes)
            self.storage_bytes[number] = full_bytes(t)
            if not made:
                self.before.add(number)
            self.track(t, number)
        return self.storage[id(t)]

    def __enter__(self):
        Recorder.active.append(self)
        return super().__enter__()

    def __exit__(self, *exc):
        Recorder.active.pop()
        return super().__exit__(*exc)

    def untraced(self):
        """A context in which ops run without being recorded (the outputs
        of a fused kernel, made by the kernel that is recorded)."""
        recorder = self

        class Paused:
            def __enter__(self):
                recorder.paused = True

            def __exit__(self, *exc):
                recorder.paused = False

        return Paused()

    def fused(self, name, counts, ins, outs, attention):
        """Records a fused kernel with its (FLOPs, read, written,
        launches) counts, reading `ins` and making `outs`."""
        flops, read, written, launches = counts
        self.kernels.append(Kernel(
            name, launches, read, written, flops,
            inputs=[self.storage_of(t) for t in ins],
            outputs=[self.storage_of(t, made=True) for t in outs],
            attention=attention))

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if self.paused:
            return func(*args, **kwargs)
        name = func.__name__.split(".")[0]
        if name.startswith("_foreach_"):
            out = self.foreach(func, name, args, kwargs)
        else:
            out = func(*args, **kwargs)
            self.record(func, name, args, kwargs, out)
        return out

    def foreach(self, func, name, args, kwargs):
        lists = [a for a in args if isinstance(a, (list, tuple)) and a
                 and isinstance(a[0], torch.Tensor)]
        first = lists[0]
        if first[0].device.type == "cpu":  # AdamW's step counters
            return func(*args, **kwargs)
        inplace = name.endswith("_")
        out = None if inplace else [torch.empty_like(t) for t in first]
        written = first if inplace else out
        depth = len(lists) + (0 if inplace else 1)
        chunks = sum(math.ceil(t.numel() / CHUNK) for t in first)
        launches = max(math.ceil(len(first) / DEPTH_TO_MAX_TENSORS[
            min(depth, 5) - 1]), math.ceil(chunks / MAX_BLOCKS))
        inputs = [self.storage_of(t) for l in lists for t in l]
        outputs = [self.storage_of(t, made=not inplace) for t in written]
        self.kernels.append(Kernel(
            name, launches,
            sum(read_bytes(t) for l in lists for t in l),
            sum(full_bytes(t) for t in written),
            sum(t.numel() for t in first), inputs=inputs, outputs=outputs))
        return out

    def record(self, func, name, args, kwargs, out):
        ins = [t for t in tensors_of(list(args) + list(kwargs.values()))]
        outs = [t for t in tensors_of(out if isinstance(out, (list, tuple))
                                      else [out])]
        if any(t.device.type == "cpu" for t in ins + outs):
            return
        returns = func._schema.returns
        aliased = [r.alias_info is not None for r in returns]
        inputs = [self.storage_of(t) for t in ins]
        if name in NO_KERNEL or (aliased and all(aliased) and not any(
                r.alias_info.is_write for r in returns)):
            # A view: the outputs share an input's storage; no kernel.
            for t in outs:
                if inputs:
                    self.track(t, inputs[0])
            return
        written = []
        for t, is_alias in zip(outs, aliased + [False] * len(outs)):
            if is_alias:  # in place or out=: the input tensor itself
                written.append(self.storage_of(t))
            else:
                written.append(self.storage_of(t, made=True))
        read = sum(read_bytes(t) for t in ins)
        wrote = sum(full_bytes(t) for t in outs)
        gemm = self.gemm_shape(name, ins, outs)
        if gemm:
            dtype, batch, m, n, k = gemm
            flops = 2.0 * batch * m * n * k
        else:
            flops = float(max([t.numel() for t in ins + outs] or [0]))
        self.kernels.append(Kernel(name, EXTRA_LAUNCHES.get(name, 1), read,
                                   wrote, flops, gemm, inputs, written))

    @staticmethod
    def gemm_shape(name, ins, outs):
        if name in ("mm", "addmm"):
            a, b = ins[-2], ins[-1]
            return (str(a.dtype), 1, a.shape[0], b.shape[1], a.shape[1])
        if name in ("bmm", "baddbmm"):
            a, b = ins[-2], ins[-1]
            return (str(a.dtype), a.shape[0], a.shape[1], b.shape[2],
                    a.shape[2])
        return None


def _like_bshd(t, dtype=None):
    """An empty [B, H, S, D] tensor stored as [B, S, H, D] (q's layout when
    q, k, v are heads split from one projection)."""
    b, h, s, d = t.shape
    return torch.empty((b, s, h, d), dtype=dtype or t.dtype,
                       device=t.device).transpose(1, 2)


class _FusedAttention(torch.autograd.Function):
    """scaled_dot_product_attention as PyTorch's fused kernels: one
    recorded kernel forward, one (of three launches) backward."""

    @staticmethod
    def forward(ctx, q, k, v, causal):
        rec = Recorder.active[-1]
        b, hq, sq, d = q.shape
        _, hkv, skv, dv = v.shape
        with rec.untraced():
            out = _like_bshd(q.new_empty((b, hq, sq, dv)))
            lse = torch.empty((b, hq, sq), dtype=torch.float32,
                              device=q.device)
        rec.fused("sdpa_fwd", attention_counts(
            q.element_size(), b, hq, hkv, sq, skv, d, dv, causal, False),
            [q, k, v], [out, lse], (str(q.dtype), "forward"))
        ctx.save_for_backward(q, k, v, out, lse)
        ctx.causal = causal
        return out

    @staticmethod
    def backward(ctx, dout):
        q, k, v, out, lse = ctx.saved_tensors
        rec = Recorder.active[-1]
        b, hq, sq, d = q.shape
        _, hkv, skv, dv = v.shape
        with rec.untraced():
            grads = [_like_bshd(t) for t in (q, k, v)]
            # The f32 dq accumulator lives in the backward only.
            accumulator = torch.empty(q.shape, dtype=torch.float32,
                                      device=q.device)
        rec.fused("sdpa_bwd", attention_counts(
            q.element_size(), b, hq, hkv, sq, skv, d, dv, ctx.causal, True),
            [q, k, v, out, dout, lse], grads + [accumulator],
            (str(q.dtype), "backward"))
        return grads[0], grads[1], grads[2], None


def traced_sdpa(low):
    """F.scaled_dot_product_attention for the trace: q, k, v in the low
    precision (CUDA autocast's list has it), the fused kernels; what the
    flash kernel does not take is refused."""
    def sdpa(query, key, value, attn_mask=None, dropout_p=0.0,
             is_causal=False, scale=None, enable_gqa=False):
        if attn_mask is not None or dropout_p:
            raise ValueError(
                "eager_trace: scaled_dot_product_attention is traced as the "
                "flash kernel, which takes no attn_mask and no dropout")
        if query.shape[1] != key.shape[1] and not enable_gqa:
            raise ValueError(
                "eager_trace: scaled_dot_product_attention: %d query heads "
                "and %d key heads need enable_gqa=True"
                % (query.shape[1], key.shape[1]))
        q, k, v = cast((query, key, value), low)
        return _FusedAttention.apply(q, k, v, bool(is_causal))
    return sdpa


def add_scaler_kernels(rec, grads):
    """GradScaler.unscale_/step/update (torch/cuda/amp/grad_scaler.py) after
    backward: kernels meta tensors cannot run."""
    tiny = [("double", 8), ("reciprocal", 8), ("float", 4), ("fill", 4)]
    for name, size in tiny:
        rec.kernels.append(Kernel("scaler_" + name, 1, size, size, 1))
    chunks = sum(math.ceil(g.numel() / CHUNK) for g in grads)
    launches = max(math.ceil(len(grads) / DEPTH_TO_MAX_TENSORS[0]),
                   math.ceil(chunks / MAX_BLOCKS))
    storages = [rec.storage_of(g) for g in grads]
    rec.kernels.append(Kernel(
        "_amp_foreach_non_finite_check_and_unscale_", launches,
        sum(full_bytes(g) for g in grads), sum(full_bytes(g) for g in grads),
        sum(g.numel() for g in grads), inputs=storages, outputs=storages))
    rec.syncs += 1  # found_inf.item() in GradScaler.step
    rec.kernels.append(Kernel("_amp_update_scale_", 1, 12, 8, 4))


def trace_step(workload, sizes, precision, lr=1e-3, weight_decay=0.01,
               sdpa=False):
    """The kernels of one eager training step (after a first step, so that
    AdamW's state exists), and the recorder with storages and syncs. With
    sdpa, the model's attention is scaled_dot_product_attention, traced as
    the fused kernels while the step runs."""
    if not sdpa:
        return _trace(workload, sizes, precision, lr, weight_decay, False)
    saved = F.__dict__.get("scaled_dot_product_attention")
    F.scaled_dot_product_attention = traced_sdpa(LOW[precision])
    try:
        return _trace(workload, sizes, precision, lr, weight_decay, True)
    finally:
        if saved is None:
            del F.scaled_dot_product_attention
        else:
            F.scaled_dot_product_attention = saved


def _trace(workload, sizes, precision, lr, weight_decay, sdpa):
    model = gpu_train_step.torch_model(workload, sizes, sdpa).to("meta")
    shape, tokens = gpu_train_step.workload_shapes(workload, sizes)
    language_model = workload in gpu_train_step.LM_WORKLOADS
    if language_model:  # token ids in, cross-entropy per token
        x = torch.empty(shape, dtype=torch.long, device="meta")
        target = torch.empty([tokens], dtype=torch.long, device="meta")
    else:
        x = torch.empty(shape, device="meta")
        target = torch.empty(shape, device="meta")
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr,
                                  weight_decay=weight_decay, foreach=True)
    low = LOW[precision]
    scale = torch.empty((), device="meta") if precision == "fp16" else None

    def step(rec=None):
        optimizer.zero_grad(set_to_none=True)
        with Autocast(low):
            y = model(x)
        # The loss in fp32, as autocast runs log_softmax and mse_loss.
        loss = (F.cross_entropy if language_model else F.mse_loss)(
            y.float(), target)
        if scale is not None:
            loss = loss * scale
        loss.backward()
        if scale is not None and rec is not None:
            add_scaler_kernels(rec, [p.grad for p in model.parameters()])
        optimizer.step()

    with Recorder():  # the first step makes AdamW's state
        step()
    rec = Recorder()
    for t in list(model.parameters()) + [x, target] + [
            s for st in optimizer.state.values() for s in st.values()
            if isinstance(s, torch.Tensor)]:
        rec.storage_of(t)
    with rec:
        step(rec)
    grads = {rec.storage_of(p.grad) for p in model.parameters()}
    return rec, grads


def peak_bytes(rec, live_to_end):
    """Storages made before the step stay; others live from the kernel that
    writes them first to the last that reads or writes them (gradients to
    the end)."""
    first, last = {}, {}
    for i, k in enumerate(rec.kernels):
        for s in k.outputs:
            first.setdefault(s, i)
            last[s] = i
        for s in k.inputs:
            last[s] = i
    end = len(rec.kernels)
    events = [0] * (end + 2)
    for s, start in first.items():
        if s in rec.before:
            continue
        size = -(-rec.storage_bytes[s] // 512) * 512
        stop = end if s in live_to_end else last[s]
        events[start] += size
        events[stop + 1] -= size
    base = sum(rec.storage_bytes[s] for s in rec.before)
    peak = live = 0
    for delta in events:
        live += delta
        peak = max(peak, live)
    return base + peak
