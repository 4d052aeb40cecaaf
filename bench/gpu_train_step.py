#!/usr/bin/env python3
"""Training-step benchmark of issue 8: amp's compiled library against PyTorch
eager (autocast, + GradScaler for fp16) and torch.compile, same run, same
machine, same initial weights and data.

Workloads (bench/make_gpu_models.py writes them): `mlp_stack` (LayerNorm,
Linear 2048->8192, GELU, Linear 8192->2048, residual; 16384 tokens) and
`gpt2_block` (one GPT-2-small block, batch 8, seq 1024, causal attention),
each with an mse loss against a synthetic target and AdamW, in bf16 and
fp16.

Two steps, because the GPU machine has no LLVM/MLIR (so no amp-compile):

  1. On the development machine, compile the libraries (and a manifest.json
     with the sizes and flags) into a directory:

       /usr/bin/python3 bench/gpu_train_step.py --compile-only \\
           --target cuda --sizes issue --libs gpu-libs

  2. Carry gpu-libs/ and bench/ to the GPU machine and run there:

       python3 bench/gpu_train_step.py --device cuda --libs gpu-libs \\
           [--record]

     (bench/run_gpu_benchmarks.sh does this and the GEMM/bandwidth program.)

On the CPU (torch 1.13, no torch.compile, no fp16 autocast there), with
CPU-compiled libraries, at small sizes, which is how the script is tested:

  /usr/bin/python3 bench/gpu_train_step.py --device cpu --sizes small

Without --libs, the libraries are compiled into a temporary directory with
build/bin/amp-compile for the target matching --device.

How the amp library is driven: through its C ABI
(include/amp/Runtime/ModelABI.h) with ctypes, the library opened by amp's
one loader (libamp_loader.so of AMP_BUILD_DIR, default build/; the GPU
machine's is carried with amp-run by scripts/gpu-machine.sh), which checks
its file, checksum and ABI version. amp_state_create(seed) initialises the
parameters; its inputs (`x`, `target`) are filled through amp_state_tensor;
the initial parameters are read back through amp_state_tensor and copied
into the torch modules by name, so the first losses can be compared.
amp_train_step returns after the loss is on the host, so timing it needs no
further synchronisation; torch is timed between torch.cuda.synchronize()
calls. Memory: torch's peak is
torch.cuda.max_memory_allocated(); amp allocates through its own runtime,
so its figure is the growth of the device's used memory
(torch.cuda.mem_get_info) from before amp_state_create to after the last
step (pools keep their peak, so this approximates amp's peak plus its CUDA
context).
"""
import argparse
import contextlib
import ctypes
import datetime
import gc
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import torch
import torch.nn.functional as F

import make_gpu_models
# The model ABI's tensor table, as the tests declare it.
from _common import ROOT, ROLE_NAMES, default_build, load_model_library, machine

PRECISIONS = ("bf16", "fp16")
# PyTorch has no FP8 autocast: an fp8 library's torch peers run bf16, the
# precision amp's own fp8 step keeps outside its GEMMs.
TORCH_DTYPE = {"bf16": torch.bfloat16, "fp16": torch.float16,
               "fp8": torch.bfloat16}
MARKER = "<!-- gpu_train_step.py --record inserts rows above this line -->"

# ---------------------------------------------------------------------------
# amp libraries
# ---------------------------------------------------------------------------

AMP_DTYPES = {0: torch.float32, 1: torch.float16, 2: torch.bfloat16,
              3: torch.int64, 4: torch.int32, 5: torch.uint8}


class AmpLibrary:
    """A library made by amp-compile, through its C ABI (the loader checked
    its version)."""

    def __init__(self, path, build):
        self.path = path
        lib = self.lib = load_model_library(path, build)
        self.tensors = {}
        for i in range(lib.amp_num_tensors()):
            info = lib.amp_tensor(i).contents
            self.tensors[info.name.decode()] = dict(
                role=ROLE_NAMES.get(info.role, str(info.role)),
                dtype=AMP_DTYPES[info.dtype],
                shape=[info.shape[d] for d in range(info.rank)],
                numel=info.num_elements)
        self.state = None

    def error(self):
        message = self.lib.amp_last_error()
        return message.decode() if message else "unknown error"

    def create(self, seed):
        self.state = self.lib.amp_state_create(seed)
        if not self.state:
            raise RuntimeError("amp_state_create: " + self.error())

    def destroy(self):
        if self.state:
            self.lib.amp_state_destroy(self.state)
            self.state = None

    def view(self, name):
        """A torch tensor sharing the state's host buffer of `name`."""
        info = self.tensors[name]
        address = self.lib.amp_state_tensor(self.state, name.encode())
        if not address:
            raise RuntimeError("amp_state_tensor(%s): %s" % (name, self.error()))
        nbytes = info["numel"] * torch.empty((), dtype=info["dtype"]).element_size()
        buffer = (ctypes.c_char * nbytes).from_address(address)
        return torch.frombuffer(buffer, dtype=info["dtype"]).view(info["shape"])

    def parameters(self):
        return {n: self.view(n).clone() for n, i in self.tensors.items()
                if i["role"] == "parameter"}

    def step(self):
        loss, skipped = ctypes.c_float(), ctypes.c_int32()
        if self.lib.amp_train_step(self.state, ctypes.byref(loss),
                                   ctypes.byref(skipped)):
            raise RuntimeError("amp_train_step: " + self.error())
        return loss.value, skipped.value

    def has_pipeline(self):
        return hasattr(self.lib, "amp_train_step_begin")

    def begin(self):
        if self.lib.amp_train_step_begin(self.state):
            raise RuntimeError("amp_train_step_begin: " + self.error())

    def finish(self):
        loss, skipped = ctypes.c_float(), ctypes.c_int32()
        if self.lib.amp_train_step_finish(self.state, ctypes.byref(loss),
                                          ctypes.byref(skipped)):
            raise RuntimeError("amp_train_step_finish: " + self.error())
        return loss.value, skipped.value

    def steps(self, count, pipelined):
        """`count` steps; pipelined: each begun before the one before it is
        finished, so that its upload overlaps that step (on a GPU)."""
        if not pipelined:
            return [self.step() for _ in range(count)]
        results = []
        for k in range(count):
            self.begin()
            if k:
                results.append(self.finish())
        if count:
            results.append(self.finish())
        return results


def compile_libraries(amp_compile, out_dir, target, sizes_name, sizes, lr,
                      weight_decay, workloads, precisions):
    """Generates the models and compiles one library per workload and
    precision; writes out_dir/manifest.json."""
    os.makedirs(out_dir, exist_ok=True)
    models = make_gpu_models.write_models(
        out_dir, sizes, [w for w in workloads if w not in LM_WORKLOADS])
    for w in workloads:
        if w in LM_WORKLOADS:
            models[w] = write_lm_model(os.path.join(out_dir, w + ".mlir"),
                                       sizes_name)
    manifest = dict(target=target, sizes_name=sizes_name, sizes=sizes,
                    lm_sizes=LM_SIZES[sizes_name], lr=lr,
                    weight_decay=weight_decay, libraries={},
                    compiled=datetime.datetime.now().isoformat(" ", "seconds"),
                    amp_revision=git_revision())
    for w in workloads:
        for p in precisions:
            name = "%s_%s.so" % (w, p)
            flags = ["--target=" + target, "--precision=" + p,
                     "--optimizer=adamw", "--lr=%g" % lr,
                     "--weight-decay=%g" % weight_decay]
            if w in LM_WORKLOADS:  # next-token cross-entropy, as nanoGPT
                flags.append("--loss=cross_entropy")
            cmd = [amp_compile, models[w]] + flags + ["-o", os.path.join(out_dir, name)]
            print("+ " + " ".join(cmd), flush=True)
            start = time.perf_counter()
            result = subprocess.run(cmd, stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, text=True)
            if result.returncode:
                print(result.stdout.rstrip())
                print("amp-compile failed for %s %s (exit %d); that "
                      "configuration is left out" % (w, p, result.returncode))
                continue
            manifest["libraries"].setdefault(w, {})[p] = dict(
                file=name, flags=flags,
                compile_seconds=round(time.perf_counter() - start, 1))
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    return manifest


def write_lm_model(path, sizes_name):
    """Writes the forward model of GPT2LM at `sizes_name` as amp.fx imports
    it (amp.compile's path on PyTorch 2) to `path`: the parameters are
    arguments, so the library starts them from its seed (docs/Driver.md,
    "Initial state") instead of embedding 500 MB of weights. torch.export
    needs PyTorch 2: without it here, the torch2 test venv
    (AMP_TORCH2_PYTHON, default ~/.cache/amp/torch2-venv/bin/python, made by
    scripts/torch2-venv.sh) writes it."""
    if not hasattr(torch, "export"):
        python = os.environ.get("AMP_TORCH2_PYTHON", os.path.expanduser(
            "~/.cache/amp/torch2-venv/bin/python"))
        subprocess.run([python, os.path.abspath(__file__), "--write-lm-model",
                        path, "--sizes", sizes_name], check=True)
        return path
    sys.path.insert(0, os.path.join(default_build(), "python_packages"))
    from amp import fx
    sizes = LM_SIZES[sizes_name]
    shape, _ = workload_shapes("gpt2_124m", sizes)
    captured = fx.capture(torch_model("gpt2_124m", sizes),
                          [torch.zeros(shape, dtype=torch.long)])
    with open(path, "w") as f:
        f.write(fx.import_program(captured, ["idx"]).text)
    return path


def git_revision():
    try:
        return subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              text=True).stdout.strip() or "unknown"
    except OSError:
        return "unknown"

# ---------------------------------------------------------------------------
# torch models (parameter names = the amp.name of the generated models)
# ---------------------------------------------------------------------------


class MLPBlock(torch.nn.Module):
    def __init__(self, d, hidden):
        super().__init__()
        self.ln = torch.nn.LayerNorm(d)
        self.fc1 = torch.nn.Linear(d, hidden)
        self.fc2 = torch.nn.Linear(hidden, d)

    def forward(self, x):
        return x + self.fc2(F.gelu(self.fc1(self.ln(x))))


class MLPStack(torch.nn.Module):
    def __init__(self, d, hidden, layers):
        super().__init__()
        self.layers = torch.nn.ModuleList(MLPBlock(d, hidden)
                                          for _ in range(layers))

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


class Attention(torch.nn.Module):
    def __init__(self, d, heads, seq, sdpa):
        super().__init__()
        self.heads, self.sdpa = heads, sdpa
        self.c_attn = torch.nn.Linear(d, 3 * d)
        self.c_proj = torch.nn.Linear(d, d)
        self.register_buffer("causal", torch.ones(seq, seq, dtype=torch.bool)
                             .tril(), persistent=False)

    def forward(self, a):
        B, S, D = a.shape
        H = self.heads
        q, k, v = (t.reshape(B, S, H, D // H).transpose(1, 2)
                   for t in self.c_attn(a).split(D, dim=-1))
        if self.sdpa:
            ctx = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:  # the same computation as the amp model
            scores = (q @ k.transpose(-2, -1)) * (1.0 / (D // H) ** 0.5)
            scores = scores.masked_fill(~self.causal, -1.0e4)
            ctx = torch.softmax(scores, dim=-1) @ v
        return self.c_proj(ctx.transpose(1, 2).reshape(B, S, D))


class GPT2MLP(torch.nn.Module):
    def __init__(self, d, mlp):
        super().__init__()
        self.c_fc = torch.nn.Linear(d, mlp)
        self.c_proj = torch.nn.Linear(mlp, d)

    def forward(self, x):
        return self.c_proj(F.gelu(self.c_fc(x), approximate="tanh"))


class GPT2Block(torch.nn.Module):
    def __init__(self, d, heads, seq, mlp, sdpa=False):
        super().__init__()
        self.ln_1 = torch.nn.LayerNorm(d)
        self.attn = Attention(d, heads, seq, sdpa)
        self.ln_2 = torch.nn.LayerNorm(d)
        self.mlp = GPT2MLP(d, mlp)

    def forward(self, x):
        h = x + self.attn(self.ln_1(x))
        return h + self.mlp(self.ln_2(h))


# nanoGPT's GPT-2 124M (the vocabulary padded to 50304 as nanoGPT pads it)
# at sequence 1024: the real-model workload of issue 38 (bench/gpu_model.py),
# compiled through amp.compile rather than generated IR.
LM_WORKLOADS = ("gpt2_124m",)
LM_SIZES = {"issue": dict(vocab=50304, seq=1024, d=768, heads=12, layers=12,
                          batch=8),
            "small": dict(vocab=64, seq=16, d=32, heads=2, layers=2,
                          batch=2)}


class GPT2LM(torch.nn.Module):
    """nanoGPT's GPT: token and position embeddings, GPT2Blocks, the final
    LayerNorm and the output projection tied to the token embedding; the
    logits flattened to [batch * seq, vocab] for cross-entropy per token."""

    def __init__(self, vocab, seq, d, heads, layers, sdpa=False, **_):
        super().__init__()
        self.vocab = vocab
        self.wte = torch.nn.Embedding(vocab, d)
        self.wpe = torch.nn.Embedding(seq, d)
        self.h = torch.nn.ModuleList(GPT2Block(d, heads, seq, 4 * d, sdpa)
                                     for _ in range(layers))
        self.ln_f = torch.nn.LayerNorm(d)
        self.lm_head = torch.nn.Linear(d, vocab, bias=False)
        self.lm_head.weight = self.wte.weight
        self.register_buffer("pos", torch.arange(seq), persistent=False)

    def forward(self, idx):
        x = self.wte(idx) + self.wpe(self.pos)
        for block in self.h:
            x = block(x)
        return self.lm_head(self.ln_f(x)).view(-1, self.vocab)


def torch_model(workload, sizes, sdpa=False):
    s = sizes
    if workload in LM_WORKLOADS:
        return GPT2LM(sdpa=sdpa, **s)
    if workload == "mlp_stack":
        model = MLPStack(s["d"], s["hidden"], s["layers"])
        if s["layers"] == 1:  # names without the "layers.0." prefix
            model = model.layers[0]
        return model
    return GPT2Block(s["gpt_d"], s["heads"], s["seq"], s["mlp"], sdpa)


def workload_data(workload, sizes, seed):
    """The step's input `x` and label `target`: N(0, 1) activations and
    target; for a language model, random token ids and next tokens."""
    shape, tokens = workload_shapes(workload, sizes)
    gen = torch.Generator().manual_seed(seed)
    if workload in LM_WORKLOADS:
        return dict(x=torch.randint(sizes["vocab"], shape, generator=gen),
                    target=torch.randint(sizes["vocab"], [tokens],
                                         generator=gen))
    return dict(x=torch.randn(shape, generator=gen),
                target=torch.randn(shape, generator=gen))


def workload_shapes(workload, sizes):
    if workload in LM_WORKLOADS:  # token ids
        return [sizes["batch"], sizes["seq"]], sizes["batch"] * sizes["seq"]
    if workload == "mlp_stack":
        return [sizes["tokens"], sizes["d"]], sizes["tokens"]
    shape = [sizes["batch"], sizes["seq"], sizes["gpt_d"]]
    return shape, sizes["batch"] * sizes["seq"]

# ---------------------------------------------------------------------------
# runners
# ---------------------------------------------------------------------------


class Unavailable(Exception):
    pass


def sync(device):
    if device == "cuda":
        torch.cuda.synchronize()


def device_used_bytes():
    free, total = torch.cuda.mem_get_info()
    return total - free


TRACED_STEPS = 3


def trace_kernels(step, path, timeline=False):
    """Runs TRACED_STEPS more steps under torch.profiler (CUPTI sees every
    kernel of the process, amp's driver-API launches and cuBLASLt's too) and
    writes the kernels' measured times per step to path (.txt table, .json
    records); with `timeline`, also every launch with its grid and block
    (path.trace.json, Chrome's trace format), which amp's launches, all
    named after the step, are told apart by."""
    from torch.profiler import ProfilerActivity, profile
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(TRACED_STEPS):
            step()
        torch.cuda.synchronize()
    if timeline:
        prof.export_chrome_trace(path + ".trace.json")
    records = []
    for e in prof.key_averages():
        us = getattr(e, "self_device_time_total", None)
        if us is None:
            us = getattr(e, "self_cuda_time_total", 0)
        if us > 0:
            records.append(dict(kernel=e.key, calls=e.count / TRACED_STEPS,
                                us_per_step=us / TRACED_STEPS))
    records.sort(key=lambda r: -r["us_per_step"])
    total = sum(r["us_per_step"] for r in records)
    with open(path + ".json", "w") as f:
        json.dump(dict(device_us_per_step=total, kernels=records), f, indent=1)
    with open(path + ".txt", "w") as f:
        f.write("measured device time per step: %.1f us over %d kernels/"
                "copies (%.1f launches per step)\n" % (
                    total, len(records), sum(r["calls"] for r in records)))
        f.write("%10s %7s %6s  %s\n" % ("us/step", "share", "calls", "kernel"))
        for r in records:
            f.write("%10.1f %6.1f%% %6.1f  %s\n" % (
                r["us_per_step"], 100 * r["us_per_step"] / total, r["calls"],
                r["kernel"][:150]))


def run_amp(library, build, data, seed, device, warmup, steps, trace=None,
            pipelined=False):
    if device == "cuda":
        gc.collect()
        torch.cuda.empty_cache()
        used_before = device_used_bytes()
    lib = AmpLibrary(library, build)
    if pipelined and not lib.has_pipeline():
        raise Unavailable("the library has no amp_train_step_begin")
    lib.create(seed)
    try:
        for role, value in (("input", data["x"]), ("label", data["target"])):
            names = [n for n, t in lib.tensors.items() if t["role"] == role]
            if len(names) != 1:
                raise RuntimeError("%s: expected one %s tensor, found %s"
                                   % (library, role, names or "none"))
            lib.view(names[0]).copy_(value)
        params = lib.parameters()
        lr = float(lib.view("lr")) if "lr" in lib.tensors else None
        results = lib.steps(warmup, pipelined)
        start = time.perf_counter()
        results += lib.steps(steps, pipelined)
        seconds = time.perf_counter() - start
        losses = [loss for loss, _ in results]
        skipped = sum(s for _, s in results)
        memory = (device_used_bytes() - used_before) if device == "cuda" else None
        if trace and device == "cuda":
            trace_kernels(lib.step, trace, timeline=True)
    finally:
        lib.destroy()
    return dict(seconds=seconds, losses=losses, skipped=skipped,
                memory=memory), params, lr


def run_torch(workload, sizes, precision, data, params, lr, weight_decay,
              device, warmup, steps, compiled=False, sdpa=False,
              compile_mode=None, fused_adamw=False, fp32=False,
              fresh_batch=False, trace=None):
    dtype = TORCH_DTYPE[precision]
    if device == "cpu" and precision == "fp16" and not fp32:
        raise Unavailable("CPU autocast has no fp16 in torch %s"
                          % torch.__version__)
    if compiled and not hasattr(torch, "compile"):
        raise Unavailable("torch.compile needs torch 2 (this is %s)"
                          % torch.__version__)
    if sdpa and not hasattr(F, "scaled_dot_product_attention"):
        raise Unavailable("no F.scaled_dot_product_attention in torch %s"
                          % torch.__version__)
    model = torch_model(workload, sizes, sdpa)
    if params is not None:
        state = {n: p.float() for n, p in params.items()}
        if workload in LM_WORKLOADS:  # wte is lm_head's tied weight
            state["wte.weight"] = state["lm_head.weight"]
        model.load_state_dict(state, strict=True)
    model = model.to(device)
    x, target = data["x"].to(device), data["target"].to(device)
    if fresh_batch and device == "cuda":  # copy the batch in every step
        host_x, host_target = data["x"].pin_memory(), data["target"].pin_memory()
    kwargs = dict(lr=lr, weight_decay=weight_decay)
    if fused_adamw and device == "cuda":
        kwargs["fused"] = True
    optimizer = torch.optim.AdamW(model.parameters(), **kwargs)
    scaler = None
    if precision == "fp16" and not fp32:
        scaler = (torch.amp.GradScaler("cuda") if hasattr(torch.amp, "GradScaler")
                  else torch.cuda.amp.GradScaler())
    forward = torch.compile(model, mode=compile_mode) if compiled else model

    def step():
        nonlocal x, target
        if fresh_batch and device == "cuda":
            x = host_x.to(device, non_blocking=True)
            target = host_target.to(device, non_blocking=True)
        optimizer.zero_grad(set_to_none=True)
        with (contextlib.nullcontext() if fp32 else
              torch.autocast(device_type=device, dtype=dtype)):
            y = forward(x)
        loss = (F.cross_entropy(y.float(), target)
                if workload in LM_WORKLOADS else F.mse_loss(y.float(), target))
        if scaler is None:
            loss.backward()
            optimizer.step()
        else:
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        return loss.detach()

    if device == "cuda":
        gc.collect()
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()
    losses = [step() for _ in range(warmup)]
    sync(device)
    start = time.perf_counter()
    for _ in range(steps):
        losses.append(step())
    sync(device)
    seconds = time.perf_counter() - start
    memory = torch.cuda.max_memory_allocated() if device == "cuda" else None
    if trace and device == "cuda":
        trace_kernels(step, trace)
    result = dict(seconds=seconds, losses=torch.stack(losses).tolist(),
                  skipped=None, memory=memory)
    return result


def trace_path(args, workload, precision, runner):
    if not args.kernel_trace:
        return None
    os.makedirs(args.kernel_trace, exist_ok=True)
    return os.path.join(args.kernel_trace, "%s_%s_%s_kernels" % (
        workload, precision, runner))


def machine_description(device):
    if device == "cuda":
        props = torch.cuda.get_device_properties(0)
        return "%s (%.0f GiB), CUDA %s, torch %s" % (
            props.name, props.total_memory / 2**30, torch.version.cuda,
            torch.__version__)
    return "%s, torch %s" % (machine(), torch.__version__)


def record(rows, path):
    text = "".join("| " + " | ".join(row) + " |\n" for row in rows)
    with open(path) as f:
        doc = f.read()
    if MARKER in doc:
        doc = doc.replace(MARKER, text + MARKER, 1)
    else:
        doc += "\n" + text
    with open(path, "w") as f:
        f.write(doc)
    print("recorded %d rows in %s" % (len(rows), path))


def fmt(value, spec="%.1f"):
    return "n/a" if value is None else spec % value


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="\n".join(__doc__.splitlines()[1:]))
    p.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    p.add_argument("--sizes", choices=sorted(make_gpu_models.SIZES),
                   default=None, help="model sizes (default: issue on cuda, "
                   "small on cpu; with --libs, the manifest's)")
    p.add_argument("--steps", type=int, default=None,
                   help="timed steps (default 50 on cuda, 20 on cpu)")
    p.add_argument("--warmup", type=int, default=None,
                   help="warm-up steps, also the steps whose losses are "
                   "compared (default 10 on cuda, 5 on cpu)")
    p.add_argument("--libs", help="directory of libraries and manifest.json "
                   "from --compile-only (default: compile into a temporary "
                   "directory)")
    p.add_argument("--compile-only", action="store_true",
                   help="compile the libraries into --libs and stop")
    p.add_argument("--target", choices=("cuda", "cpu"), default=None,
                   help="amp-compile target (default: --device)")
    p.add_argument("--build", default=default_build(),
                   help="amp's build: its amp-compile compiles the libraries, "
                   "its lib/libamp_loader.so opens them (default: "
                   "AMP_BUILD_DIR, else build/)")
    p.add_argument("--workloads", default=",".join(make_gpu_models.WORKLOADS),
                   help="of %s" % ", ".join(list(make_gpu_models.WORKLOADS) +
                                            list(LM_WORKLOADS)))
    p.add_argument("--write-lm-model", metavar="PATH", help=argparse.SUPPRESS)
    p.add_argument("--precisions", default=",".join(PRECISIONS))
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--weight-decay", type=float, default=0.01)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=None,
                   help="torch CPU threads (default: torch's)")
    p.add_argument("--no-sdpa", action="store_true",
                   help="skip the eager/compile runs of gpt2_block with "
                   "F.scaled_dot_product_attention")
    p.add_argument("--no-compile", action="store_true",
                   help="skip torch.compile")
    p.add_argument("--compile-mode", default=None,
                   help="torch.compile mode (default, max-autotune, ...)")
    p.add_argument("--fused-adamw", action="store_true",
                   help="torch AdamW(fused=True) on cuda (default: torch's "
                   "default implementation)")
    p.add_argument("--no-pipelined", action="store_true",
                   help="skip the run of amp with overlapped steps "
                   "(amp_train_step_begin/finish: the next step's upload "
                   "runs while the step before computes)")
    p.add_argument("--fresh-batch", action="store_true",
                   help="torch copies x and target from (pinned) host memory "
                   "to the GPU every step, as amp's runtime uploads its "
                   "inputs and labels before every step")
    p.add_argument("--record", nargs="?", metavar="FILE",
                   const=os.path.join(ROOT, "docs", "benchmarks-log.md"),
                   help="add the rows to the 'Training step' table of FILE "
                   "(default docs/benchmarks-log.md, the lab log; "
                   "docs/benchmarks.md keeps the current figures by hand)")
    p.add_argument("--json", help="also write the results to this file")
    p.add_argument("--kernel-trace", metavar="DIR",
                   help="on cuda: after the timed steps, trace %d more steps "
                   "of each runner with torch.profiler and write each "
                   "kernel's measured time per step to DIR/<workload>_"
                   "<precision>_<runner>_kernels.{txt,json}" % TRACED_STEPS)
    a = p.parse_args()
    if a.write_lm_model:  # write_lm_model's PyTorch 2 half
        write_lm_model(a.write_lm_model, a.sizes or "issue")
        return 0
    workloads = a.workloads.split(",")
    precisions = a.precisions.split(",")
    target = a.target or a.device

    if a.compile_only:
        if not a.libs:
            p.error("--compile-only needs --libs DIR")
        name = a.sizes or ("issue" if target == "cuda" else "small")
        compile_libraries(os.path.join(a.build, "bin", "amp-compile"), a.libs,
                          target, name, make_gpu_models.sizes_from(name), a.lr,
                          a.weight_decay, workloads, precisions)
        print("libraries and manifest.json in %s; run there with: "
              "python3 bench/gpu_train_step.py --device %s --libs %s"
              % (a.libs, target, a.libs))
        return 0

    if a.device == "cuda" and not torch.cuda.is_available():
        print("error: --device cuda but torch sees no GPU (torch %s)"
              % torch.__version__)
        return 1
    if a.threads:
        torch.set_num_threads(a.threads)
    steps = a.steps or (50 if a.device == "cuda" else 20)
    warmup = a.warmup if a.warmup is not None else (10 if a.device == "cuda" else 5)

    tmp = None
    if a.libs:
        with open(os.path.join(a.libs, "manifest.json")) as f:
            manifest = json.load(f)
        if a.sizes and a.sizes != manifest["sizes_name"]:
            print("note: --sizes %s ignored, the libraries in %s were compiled "
                  "for '%s'" % (a.sizes, a.libs, manifest["sizes_name"]))
        libs_dir = a.libs
    else:
        tmp = tempfile.mkdtemp(prefix="amp-bench-")
        name = a.sizes or ("issue" if a.device == "cuda" else "small")
        manifest = compile_libraries(
            os.path.join(a.build, "bin", "amp-compile"), tmp, target, name,
            make_gpu_models.sizes_from(name), a.lr, a.weight_decay, workloads,
            precisions)
        libs_dir = tmp
    if manifest["target"] != a.device:
        print("note: libraries compiled for --target=%s, torch runs on %s"
              % (manifest["target"], a.device))
    sizes = manifest["sizes"]
    weight_decay = manifest["weight_decay"]

    machine = machine_description(a.device)
    date = datetime.date.today().isoformat()
    print("machine: %s" % machine)
    print("amp %s, libraries: %s (target %s, sizes %s: %s)"
          % (manifest.get("amp_revision", "?"), libs_dir, manifest["target"],
             manifest["sizes_name"], sizes))
    print("%d warm-up + %d timed steps, AdamW lr %g weight decay %g"
          % (warmup, steps, manifest["lr"], weight_decay))
    if manifest["target"] == "cuda":
        print("amp uploads its inputs and labels from the host before every "
              "step; torch %s" % ("does too (--fresh-batch)" if a.fresh_batch
                                  else "keeps them on the device "
                                  "(--fresh-batch to copy them every step)"))
    print()

    results, rows = [], []
    for w in workloads:
        w_sizes = manifest["lm_sizes"] if w in LM_WORKLOADS else sizes
        shape, tokens = workload_shapes(w, w_sizes)
        data = workload_data(w, w_sizes, a.seed)
        for prec in precisions:
            runs = {}
            params, lr = None, manifest["lr"]
            entry = manifest["libraries"].get(w, {}).get(prec)
            try:
                if entry is None:
                    raise Unavailable("no library compiled")
                runs["amp"], params, lib_lr = run_amp(
                    os.path.join(libs_dir, entry["file"]), a.build, data,
                    a.seed, a.device, warmup, steps,
                    trace_path(a, w, prec, "amp"))
                lr = lib_lr if lib_lr is not None else lr
            except Exception as e:  # report and go on with torch
                runs["amp"] = dict(error="%s: %s" % (type(e).__name__, e))
            if entry is not None and not a.no_pipelined:
                try:
                    runs["amp-pipelined"] = run_amp(
                        os.path.join(libs_dir, entry["file"]), a.build, data,
                        a.seed, a.device, warmup, steps, pipelined=True)[0]
                except Unavailable as e:
                    runs["amp-pipelined"] = dict(error="unavailable: %s" % e)
                except Exception as e:
                    runs["amp-pipelined"] = dict(
                        error="%s: %s" % (type(e).__name__, e))
            attention = w == "gpt2_block" or w in LM_WORKLOADS
            variants = [("eager", False, False, False)]
            if attention and not a.no_sdpa:
                variants.append(("eager-sdpa", False, True, False))
            if not a.no_compile:
                # The language model under torch.compile as nanoGPT runs it
                # (with SDPA) only: each compilation takes minutes.
                if w not in LM_WORKLOADS:
                    variants.append(("compile", True, False, False))
                if attention and not a.no_sdpa:
                    variants.append(("compile-sdpa", True, True, False))
            if a.device == "cpu" and prec == "fp16":
                # torch 1.13 has no fp16 autocast on the CPU: an fp32 run
                # still checks amp's losses.
                variants.append(("eager-fp32", False, False, True))
            for label, compiled, sdpa, fp32 in variants:
                try:
                    runs[label] = run_torch(
                        w, w_sizes, prec, data, params, lr, weight_decay,
                        a.device, warmup, steps, compiled, sdpa,
                        a.compile_mode, a.fused_adamw, fp32, a.fresh_batch,
                        trace_path(a, w, prec, label))
                except Unavailable as e:
                    runs[label] = dict(error="unavailable: %s" % e)
                except Exception as e:
                    runs[label] = dict(error="%s: %s" % (type(e).__name__, e))
                if a.device == "cuda":
                    gc.collect()
                    torch.cuda.empty_cache()

            print("== %s %s (%d tokens/step)%s" % (
                w, prec, tokens, "" if params is not None else
                "  [torch uses its own initial weights: amp failed]"))
            amp = runs["amp"]
            amp_rate = steps / amp["seconds"] if "seconds" in amp else None
            print("  %-13s %10s %12s %10s %10s  %s" % (
                "runner", "steps/s", "tokens/s", "mem MiB", "amp/this",
                "first losses"))
            for label, r in runs.items():
                if "error" in r:
                    print("  %-13s %s" % (label, r["error"]))
                    if not r["error"].startswith("unavailable"):
                        rows.append([date, machine, w, prec, label, "-", "-", "-",
                                     "-", r["error"].replace("|", "/")])
                    continue
                rate = steps / r["seconds"]
                ratio = amp_rate / rate if amp_rate else None
                mem = r["memory"] / 2**20 if r["memory"] is not None else None
                first = r["losses"][:min(warmup, 5)]
                note = ""
                if label == "amp" and r["skipped"]:
                    note = "%d skipped steps" % r["skipped"]
                print("  %-13s %10.2f %12.0f %10s %10s  %s%s" % (
                    label, rate, rate * tokens, fmt(mem, "%.0f"),
                    fmt(ratio, "%.2f"), " ".join("%.5g" % v for v in first),
                    ("  (" + note + ")") if note else ""))
                rows.append([date, machine, w, prec, label, "%.2f" % rate,
                             "%.0f" % (rate * tokens), fmt(mem, "%.0f"),
                             "" if label == "amp" else fmt(ratio, "%.2f"), note])
            pipe = runs.get("amp-pipelined", {})
            if "seconds" in pipe:
                pipe_rate = steps / pipe["seconds"]
                ratios = ["%s %.2fx" % (label, pipe_rate * r["seconds"] / steps)
                          for label, r in runs.items()
                          if label not in ("amp", "amp-pipelined")
                          and "seconds" in r]
                same = pipe["losses"] == amp.get("losses")
                print("  amp-pipelined against: %s; its losses %s amp's"
                      % (", ".join(ratios) or "-",
                         "are identical to" if same else "DIFFER from"))
            reference = next((label for label in ("eager", "eager-fp32")
                              if "losses" in runs.get(label, {})), None)
            k = min(warmup, len(amp.get("losses", [])))
            if reference and k and params is not None:
                worst = max(abs(x - y) / max(abs(y), 1e-12) for x, y in
                            zip(amp["losses"][:k], runs[reference]["losses"][:k]))
                print("  amp vs %s over the first %d steps (same initial "
                      "weights and data): worst relative loss difference %.2e"
                      % (reference, k, worst))
            print()
            results.append(dict(workload=w, precision=prec, tokens=tokens,
                                runs=runs))

    if a.json:
        with open(a.json, "w") as f:
            json.dump(dict(machine=machine, date=date, sizes=sizes, steps=steps,
                           warmup=warmup, manifest=manifest, results=results),
                      f, indent=1)
    if a.record:
        record(rows, a.record)
    if tmp:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
