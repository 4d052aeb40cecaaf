#!/usr/bin/env python3
"""CPU training steps of issue 18's three workloads, amp against PyTorch at
equal thread counts, in one run:

  tiny     the bundled MLP (examples/mlp_train_step.mlir: LayerNorm(64),
           Linear 64->128, GELU, Linear 128->10, cross-entropy, SGD with
           momentum 0.9, batch 32)
  mid      the mid-size MLP stack: 1024 tokens, Linear 256->1024, GELU,
           Linear 1024->256, LayerNorm(256), MSE loss, AdamW, fp32
  resnet18 torchvision's ResNet-18 (num_classes=10) on 16 images of 32x32,
           cross-entropy, SGD with momentum 0.9, exported to ONNX by
           Debian's PyTorch and compiled from the ONNX file

amp: amp-compile's fp32 CPU library (matrix products call OpenBLAS,
convolutions oneDNN: docs/Lowering.md), trained by amp-run --threads N (its steps/s count only the step
calls). PyTorch: eager mode of Debian's 1.13 (torch.set_num_threads(N),
and OPENBLAS_NUM_THREADS=N and the like set in a process of its own per
thread count, so that its BLAS uses N threads too);
with --torch2, also the current PyTorch 2.x from PyPI, eager and
torch.compile, in a virtual environment this script sets up on demand
(under the build directory; skipped with a message when it does not
install). Both sides run the same untimed warm-up steps first. The rounds
(--rounds, default 3) alternate amp and the peers; prints the medians of
steps/s, the ratios amp / torch for each workload and thread count, every
round's figures, and the ResNet-18 ONNX -> library compile time.

Usage: /usr/bin/python3 bench/cpu_bench.py [--build build] [--threads 1,2]
           [--workloads tiny,mid,resnet18] [--scale 1.0] [--rounds 3]
           [--torch2]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

from _common import (ROOT, amp_compile, default_build, load_average, machine,
                     openblas_core,
                     ratio, steps_per_second, tool)

TOKENS, WIDTH, HIDDEN = 1024, 256, 1024
IMAGES, SIDE, CLASSES = 16, 32, 10

MID_MODEL = f"""
func.func @mlp(
    %x: tensor<{TOKENS}x{WIDTH}xf32> {{amp.role = #amp.role<input>, amp.name = "x"}},
    %w1: tensor<{HIDDEN}x{WIDTH}xf32> {{amp.role = #amp.role<parameter>, amp.name = "fc1.weight"}},
    %b1: tensor<{HIDDEN}xf32> {{amp.role = #amp.role<parameter>, amp.name = "fc1.bias"}},
    %w2: tensor<{WIDTH}x{HIDDEN}xf32> {{amp.role = #amp.role<parameter>, amp.name = "fc2.weight"}},
    %b2: tensor<{WIDTH}xf32> {{amp.role = #amp.role<parameter>, amp.name = "fc2.bias"}},
    %ln_w: tensor<{WIDTH}xf32> {{amp.role = #amp.role<parameter>, amp.name = "ln.weight"}},
    %ln_b: tensor<{WIDTH}xf32> {{amp.role = #amp.role<parameter>, amp.name = "ln.bias"}})
    -> (tensor<{TOKENS}x{WIDTH}xf32> {{amp.role = #amp.role<output>, amp.name = "y"}})
    attributes {{amp.graph = #amp.graph<forward>}} {{
  %h1 = amp.linear %x, %w1, %b1
      : (tensor<{TOKENS}x{WIDTH}xf32>, tensor<{HIDDEN}x{WIDTH}xf32>, tensor<{HIDDEN}xf32>) -> tensor<{TOKENS}x{HIDDEN}xf32>
  %h2 = amp.gelu %h1 : tensor<{TOKENS}x{HIDDEN}xf32>
  %h3 = amp.linear %h2, %w2, %b2
      : (tensor<{TOKENS}x{HIDDEN}xf32>, tensor<{WIDTH}x{HIDDEN}xf32>, tensor<{WIDTH}xf32>) -> tensor<{TOKENS}x{WIDTH}xf32>
  %y, %mean, %rstd = amp.layer_norm %h3, %ln_w, %ln_b
      {{axis = -1 : i64, epsilon = 1.0e-5 : f64}}
      : (tensor<{TOKENS}x{WIDTH}xf32>, tensor<{WIDTH}xf32>, tensor<{WIDTH}xf32>)
      -> (tensor<{TOKENS}x{WIDTH}xf32>, tensor<{TOKENS}xf32>, tensor<{TOKENS}xf32>)
  return %y : tensor<{TOKENS}x{WIDTH}xf32>
}}
"""

# name: steps timed at --scale 1 (about a second or more of amp work each).
WORKLOADS = {"tiny": 2000, "mid": 20, "resnet18": 10}


def cpu_kind():
    """The CPU's model name, family and model numbers, whether it has
    AVX-512, and the kernels OpenBLAS picked for it in this environment:
    Debian's OpenBLAS 0.3.21 runs its SSE3 "Prescott" kernels on CPUs it
    does not know unless OPENBLAS_CORETYPE says otherwise (both sides' matrix
    products use it; docs/Lowering.md)."""
    fields = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                fields.setdefault(key.strip(), value.strip())
    except OSError:
        pass
    avx512 = "avx512f" in fields.get("flags", "").split()
    core = openblas_core()
    return (f"{fields.get('model name', '?')} (family "
            f"{fields.get('cpu family', '?')} model {fields.get('model', '?')}"
            f", {'AVX-512' if avx512 else 'no AVX-512'}); OpenBLAS core "
            f"{core}" + (f" (OPENBLAS_CORETYPE={os.environ['OPENBLAS_CORETYPE']})"
                         if os.environ.get("OPENBLAS_CORETYPE") else ""))


# --- amp ----------------------------------------------------------------------

def export_resnet18(path, blocks=(2, 2, 2, 2)):
    """torchvision's ResNet-18 as ONNX, in training mode (batch norms
    normalize by batch statistics and update their running ones); other
    `blocks` per stage give the other basic-block ResNets ((3, 4, 6, 3):
    ResNet-34)."""
    import torch
    from torchvision.models.resnet import BasicBlock, ResNet
    torch.manual_seed(0)
    model = ResNet(BasicBlock, list(blocks), num_classes=CLASSES)
    model.train()
    with torch.no_grad():
        torch.onnx.export(model, (torch.randn(IMAGES, 3, SIDE, SIDE),), path,
                          opset_version=17,
                          training=torch.onnx.TrainingMode.TRAINING,
                          do_constant_folding=False, input_names=["x"])


def build_amp(name, build, workdir):
    """(library, compile seconds) of workload `name`."""
    library = os.path.join(workdir, name + ".so")
    if name == "tiny":
        source = os.path.join(ROOT, "examples", "mlp_train_step.mlir")
        options = ["--lr=0.05"]
    elif name == "mid":
        source = os.path.join(workdir, "mlp_stack.mlir")
        with open(source, "w") as f:
            f.write(MID_MODEL)
        options = ["--loss=mse", "--optimizer=adamw", "--lr=1e-3"]
    else:
        source = os.path.join(workdir, "resnet18.onnx")
        export_resnet18(source)
        options = ["--loss=cross_entropy", "--momentum=0.9", "--lr=0.01"]
    return library, amp_compile(build, source, library,
                                ["--target=cpu", *options])


def warmup_steps(steps):
    """Untimed steps before the timed ones, the same for amp and PyTorch:
    first steps touch fresh memory and fill caches (amp's first ResNet-18
    step takes about 1.8 times a later one)."""
    return max(3, steps // 10)


def time_amp(build, library, steps, threads):
    """steps/s of the `steps` steps after warmup_steps(steps), from the
    per-step seconds amp-run writes with --metrics (step calls only)."""
    warmup = warmup_steps(steps)
    with tempfile.TemporaryDirectory() as workdir:
        metrics = os.path.join(workdir, "metrics.jsonl")
        subprocess.run([tool(build, "amp-run"), library,
                        "--steps", str(warmup + steps), "--threads",
                        str(threads), "--metrics", metrics],
                       check=True, capture_output=True, text=True)
        with open(metrics) as f:
            seconds = [json.loads(line)["seconds"] for line in f]
    if len(seconds) != warmup + steps:
        sys.exit(f"cpu_bench: amp-run wrote {len(seconds)} metrics lines, "
                 f"not {warmup + steps}")
    return steps / sum(seconds[warmup:])


# --- PyTorch (this interpreter's, or the 2.x one through --peer) --------------

def torch_workload(name):
    """(model, optimizer, inputs, loss function) of workload `name`."""
    import torch
    import torch.nn as nn
    torch.manual_seed(0)
    if name == "tiny":
        model = nn.Sequential(nn.LayerNorm(64), nn.Linear(64, 128), nn.GELU(),
                              nn.Linear(128, 10))
        optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
        data = (torch.randn(32, 64), torch.arange(32) % 10)
        loss = nn.functional.cross_entropy
    elif name == "mid":
        model = nn.Sequential(nn.Linear(WIDTH, HIDDEN), nn.GELU(),
                              nn.Linear(HIDDEN, WIDTH), nn.LayerNorm(WIDTH))
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
        data = (torch.randn(TOKENS, WIDTH), torch.randn(TOKENS, WIDTH))
        loss = nn.functional.mse_loss
    else:
        import torchvision
        model = torchvision.models.resnet18(weights=None, num_classes=CLASSES)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        data = (torch.randn(IMAGES, 3, SIDE, SIDE),
                torch.arange(IMAGES) % CLASSES)
        loss = nn.functional.cross_entropy
    model.train()
    return model, optimizer, data, loss


def time_torch(name, steps, threads, compiled=False):
    import torch
    torch.set_num_threads(threads)
    model, optimizer, (x, target), loss = torch_workload(name)
    forward = torch.compile(model) if compiled else model

    def step():
        optimizer.zero_grad()
        loss(forward(x), target).backward()
        optimizer.step()

    # (torch.compile compiles in the first warm-up step.)
    return steps_per_second(step, steps, warmup_steps(steps))


def peer_main(request):
    """--peer: times the workloads of `request` (JSON: {"runs": [[name,
    steps, threads], ...], "compile": bool}) in this interpreter and prints
    {"version": ..., "eager": [...], "compile": [...]} in request order."""
    import torch
    spec = json.loads(request)
    out = {"version": torch.__version__, "eager": [], "compile": []}
    for name, steps, threads in spec["runs"]:
        out["eager"].append(time_torch(name, steps, threads))
        if not spec["compile"]:
            continue
        try:
            out["compile"].append(time_torch(name, steps, threads, True))
        except Exception as error:  # noqa: BLE001 (report, keep going)
            print(f"torch.compile failed on {name}: {error}", file=sys.stderr)
            out["compile"].append(None)
    print(json.dumps(out))


def thread_environment(threads):
    """The environment of a peer process limited to `threads` threads.
    torch.set_num_threads sizes PyTorch's OpenMP pool only: Debian's
    PyTorch calls the system BLAS (OpenBLAS), whose own thread pool takes
    every core unless OPENBLAS_NUM_THREADS says otherwise, read when the
    library loads. (At "one thread" PyTorch 1.13 ran its GEMMs on both
    cores of this machine until this was set.)"""
    env = dict(os.environ)
    for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                 "BLIS_NUM_THREADS"):
        env[name] = str(threads)
    return env


def time_peer(python, runs, compiled):
    """Runs `runs` ([name, steps, threads] each) in `python`, one process
    per thread count (see thread_environment); the peer's JSON merged in
    the order of `runs`, or None (with a message) when a run fails."""
    merged = {"eager": [None] * len(runs), "compile": [None] * len(runs)}
    for threads in sorted({t for _, _, t in runs}):
        picked = [i for i, run in enumerate(runs) if run[2] == threads]
        request = json.dumps({"runs": [runs[i] for i in picked],
                              "compile": compiled})
        peer = subprocess.run([python, os.path.abspath(__file__), "--peer",
                               request], capture_output=True, text=True,
                              env=thread_environment(threads))
        sys.stderr.write(peer.stderr)
        if peer.returncode != 0:
            print(f"cpu_bench: the peer {python} failed at {threads} threads")
            return None
        out = json.loads(peer.stdout.strip().splitlines()[-1])
        merged["version"] = out["version"]
        for key in ("eager", "compile"):
            for i, value in zip(picked, out[key]):
                merged[key][i] = value
    return merged


# --- PyTorch 2.x from PyPI in a virtual environment ----------------------------

def torch2_python(build):
    """The interpreter of a venv with PyPI's torch and torchvision: the
    torch2 tests' one when it is complete (AMP_TORCH2_PYTHON, else the venv
    scripts/torch2-venv.sh makes: AMP_TORCH2_VENV or
    ~/.cache/amp/torch2-venv), else one made on first use under the build
    directory; None (with a message) when it cannot be installed."""
    explicit = os.environ.get("AMP_TORCH2_PYTHON")
    shared = os.environ.get("AMP_TORCH2_VENV") or os.path.join(
        os.path.expanduser("~"), ".cache", "amp", "torch2-venv")
    if explicit:
        candidates = [explicit]
    elif os.path.isfile(os.path.join(shared, ".amp-torch2-complete")):
        candidates = [os.path.join(shared, "bin", "python")]
    else:
        candidates = []
    venv = os.path.join(build, "torch2-venv")
    python = os.path.join(venv, "bin", "python")
    for candidate in candidates + [python]:
        check = [candidate, "-c", "import torch, torchvision"]
        if (os.path.exists(candidate) and
                subprocess.run(check).returncode == 0):
            return candidate
    print(f"cpu_bench: setting up PyTorch 2.x from PyPI in {venv} ...",
          flush=True)
    try:
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        subprocess.run([python, "-m", "pip", "install", "--quiet", "torch",
                        "torchvision"], check=True)
        subprocess.run(check, check=True)
    except (subprocess.CalledProcessError, OSError) as error:
        print(f"cpu_bench: skipping PyTorch 2.x: it did not install ({error})")
        return None
    return python


def time_torch2(build, runs):
    python = torch2_python(build)
    if not python:
        return None
    return time_peer(python, runs, compiled=True)


# --- the report -----------------------------------------------------------------

def rate(value):
    return f"{value:.2f}" if value else "-"


def median(values):
    """The median of the rounds that have a figure, or None."""
    present = [v for v in values if v]
    return statistics.median(present) if present else None


def add_round(column, figures):
    """Appends one round's figures (a list per row, or None when that peer
    failed this round) to `column`, one list of rounds per row."""
    for i, rounds in enumerate(column):
        rounds.append(figures[i] if figures else None)


SHORT = {"torch1.13": "t1.13", "t2 eager": "t2", "t2 compile": "t2c"}


def print_report(rows, peers, samples, version):
    """Medians over the rounds and ratios amp / peer; then every round."""
    if version:
        print(f"torch 2.x peer: {version}")
    print("steps/s (median over the rounds); ratios amp / peer")
    header = f"{'workload':>9} {'threads':>7} {'amp':>9}"
    for peer in peers[1:]:
        header += f" {peer:>10} {'amp/' + SHORT[peer]:>9}"
    print(header)
    for i, (name, threads) in enumerate(rows):
        amp = median(samples["amp"][i])
        line = f"{name:>9} {threads:>7} {rate(amp):>9}"
        for peer in peers[1:]:
            value = median(samples[peer][i])
            line += f" {rate(value):>10} {ratio(amp, value):>9}"
        print(line)
    print("every round, steps/s:")
    for i, (name, threads) in enumerate(rows):
        print(f"{name:>9} {threads:>7}  " + "; ".join(
            f"{peer} " + " / ".join(rate(v) for v in samples[peer][i])
            for peer in peers))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default=default_build())
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--workloads", default=",".join(WORKLOADS))
    parser.add_argument("--scale", type=float, default=1.0,
                        help="multiplies every workload's timed steps")
    parser.add_argument("--rounds", type=int, default=3,
                        help="times amp and the peers this many times, "
                        "alternated; the table shows medians")
    parser.add_argument("--torch2", action="store_true",
                        help="also PyTorch 2.x from PyPI (eager and "
                        "torch.compile), in a venv set up on demand")
    parser.add_argument("--peer", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    if args.peer:
        return peer_main(args.peer)
    import torch

    counts = [int(t) for t in args.threads.split(",")]
    names = args.workloads.split(",")
    for name in names:
        if name not in WORKLOADS:
            sys.exit(f"cpu_bench: unknown workload '{name}' (choose from "
                     f"{', '.join(WORKLOADS)})")
    steps = {n: max(1, int(WORKLOADS[n] * args.scale)) for n in names}
    print(f"machine: {machine()}, load average {load_average()}; "
          f"torch {torch.__version__}")
    print(f"cpu: {cpu_kind()}")
    rows = [[name, threads] for name in names for threads in counts]
    runs = [[n, steps[n], t] for n, t in rows]
    peers = ["amp", "torch1.13"] + (["t2 eager", "t2 compile"]
                                    if args.torch2 else [])
    samples = {peer: [[] for _ in rows] for peer in peers}
    version = None
    with tempfile.TemporaryDirectory() as workdir:
        libraries = {}
        for name in names:
            libraries[name], seconds = build_amp(name, args.build, workdir)
            print(f"compile {name}: {seconds:.1f} s"
                  + (" (ONNX -> CPU library; target <= 15 s on 2 cores)"
                     if name == "resnet18" else ""), flush=True)
        # Rounds alternate amp and the peers, so that a slow spell of a
        # shared machine does not land on one side only; medians reported.
        for round_index in range(args.rounds):
            print(f"round {round_index + 1} of {args.rounds}", flush=True)
            for i, (name, threads) in enumerate(rows):
                samples["amp"][i].append(time_amp(
                    args.build, libraries[name], steps[name], threads))
            # Without a peer (its run failed, said above) amp's rows print.
            debian = time_peer(sys.executable, runs, compiled=False)
            add_round(samples["torch1.13"], debian and debian["eager"])
            if args.torch2:
                peer = time_torch2(args.build, runs)
                version = peer["version"] if peer else version
                add_round(samples["t2 eager"], peer and peer["eager"])
                add_round(samples["t2 compile"], peer and peer["compile"])
    print_report(rows, peers, samples, version)
    print(f"load average after: {load_average()}")


if __name__ == "__main__":
    sys.exit(main())
