# What trains is what PyTorch trains (issue 33), under Debian's PyTorch 1.13
# (amp.compile captures through torch.onnx) and current PyTorch 2.x with
# numpy 2 (through torch.export): for each model, 10 fp32 AdamW steps
# against PyTorch's, the trained state, the eval outputs, and that
# amp.compile leaves the module (its state_dict, training flag) and torch's
# random stream as they were.
# RUN: %amp_python %s | FileCheck %s --check-prefixes=CHECK,TORCH1
# RUN: %if torch2 %{ %amp_python2 %s | FileCheck %s --check-prefixes=CHECK,TORCH2 %}
# CHECK: mlp: module unchanged by compile
# CHECK-NEXT: mlp: 10 losses within 1e-05
# CHECK-NEXT: mlp: trained state within 1e-05
# CHECK-NEXT: mlp: eval outputs within 0.0001
# CHECK: cnn_batchnorm: module unchanged by compile
# CHECK-NEXT: cnn_batchnorm: 10 losses within 1e-05
# CHECK-NEXT: cnn_batchnorm: trained state within 1e-05
# CHECK-NEXT: cnn_batchnorm: eval outputs within 0.0001
# CHECK-NEXT: cnn_batchnorm: running statistics within 1e-05, num_batches_tracked 10
# CHECK: gpt_tied_triu: module unchanged by compile
# CHECK-NEXT: gpt_tied_triu: 10 losses within 1e-05
# CHECK-NEXT: gpt_tied_triu: trained state within 1e-05
# CHECK-NEXT: gpt_tied_triu: eval outputs within 0.0001
# CHECK-NEXT: gpt_tied_triu: tied weights trained as one: True
# CHECK: llama_rope: module unchanged by compile
# CHECK-NEXT: llama_rope: 10 losses within 1e-05
# CHECK-NEXT: llama_rope: trained state within 1e-05
# CHECK-NEXT: llama_rope: eval outputs within 0.0001
# CHECK-NEXT: llama_rope: cos, sin buffers bit-identical after training
# TORCH2: sdpa_encoder: module unchanged by compile
# TORCH2-NEXT: sdpa_encoder: 10 losses within 1e-05
# TORCH2-NEXT: sdpa_encoder: trained state within 1e-05
# TORCH2-NEXT: sdpa_encoder: eval outputs within 0.0001
# TORCH1: sdpa_encoder: skipped, F.scaled_dot_product_attention needs PyTorch 2
# CHECK: embedding_padding_idx: module unchanged by compile
# CHECK-NEXT: embedding_padding_idx: 10 losses within 1e-05
# CHECK-NEXT: embedding_padding_idx: trained state within 1e-05
# CHECK-NEXT: embedding_padding_idx: eval outputs within 0.0001
# CHECK-NEXT: embedding_padding_idx: padding row bit-identical after training
# CHECK: frozen_backbone: module unchanged by compile
# CHECK-NEXT: frozen_backbone: 10 losses within 1e-05
# CHECK-NEXT: frozen_backbone: trained state within 1e-05
# CHECK-NEXT: frozen_backbone: eval outputs within 0.0001
# CHECK-NEXT: frozen_backbone: frozen parameters bit-identical after training
# CHECK: eval mode: dropout off and batch norm on running statistics
import copy
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "Inputs"))
import amp_testing as T  # noqa: E402
import front_door_models as M  # noqa: E402
import amp  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

STEPS = 10
# Tolerance: 10 fp32 AdamW steps computed in another summation order
# (amp's loops against PyTorch's kernels) differ by a few ulps per op,
# ~1e-6 relative in the losses and weights here; every defect these tests
# guard against (a buffer, a frozen weight, a padding row or a constant
# trained; a tied weight trained twice) moves them by 1e-3 or more.
TOLERANCE = 1e-5


def relative(a, b):
    a, b = a.double(), b.double()
    return float((a - b).abs().max() / max(1e-12, float(b.abs().max())))


def snapshot(model):
    return ({k: v.clone() for k, v in model.state_dict().items()},
            model.training, torch.get_rng_state())


def unchanged(model, before):
    state, training, rng = before
    now = model.state_dict()
    return (list(now) == list(state) and model.training == training and
            torch.equal(torch.get_rng_state(), rng) and
            all(now[k].dtype == v.dtype and torch.equal(now[k], v)
                for k, v in state.items()))


def reference(model, batches, lr, weight_decay, dtype=torch.float32):
    """PyTorch's own training in `dtype`: losses and the trained module."""
    model = copy.deepcopy(model).train().to(dtype)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr,
                                  weight_decay=weight_decay)
    losses = []
    for *inputs, labels in batches:
        inputs = [x.to(dtype) if x.is_floating_point() else x for x in inputs]
        optimizer.zero_grad()
        loss = F.cross_entropy(model(*inputs), labels)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses, model


def state_difference(state, fp32, fp64):
    """The worst difference of amp's trained state from PyTorch's, in units
    of the tolerance: within TOLERANCE (relative) of PyTorch's fp32 state,
    or, where PyTorch's own fp32 state is further than that from its fp64
    one, within three times that distance of the fp64 state (amp at most
    three times as far from the exact result as PyTorch). The latter
    matters for parameters whose exact gradient is zero (the key bias of
    attention, which softmax cancels): their computed gradients are
    rounding noise, which AdamW normalizes into full steps of random sign,
    in PyTorch as in amp, so two fp32 runs (amp's, PyTorch's; different
    BLAS kernels on AVX2 and AVX-512 CPUs) differ by up to twice that
    noise."""
    worst, where = 0.0, None
    for key, value in fp32.items():
        if key not in state:
            return float("inf"), key + " (missing)"
        if not value.is_floating_point():
            score = 0.0 if torch.equal(state[key], value) else float("inf")
        else:
            score = relative(state[key], value) / TOLERANCE
            own = relative(fp64[key], value)
            if own > TOLERANCE:
                score = min(score, relative(state[key], fp64[key]) /
                            (3 * own))
        if score > worst:
            worst, where = score, key
    return worst, where


def check(name, model, batches, lr=1e-3, weight_decay=0.01):
    """Compiles and trains `model` on `batches` (inputs..., labels) and
    compares with PyTorch; returns the trainer and PyTorch's trained
    module."""
    before = snapshot(model)
    trainer = amp.compile(model, example_inputs=tuple(batches[0][:-1]),
                          loss="cross_entropy", optimizer="adamw", lr=lr,
                          weight_decay=weight_decay)
    if unchanged(model, before):
        print(name + ": module unchanged by compile")
    else:
        print(name + ": FAIL: amp.compile changed the module or torch's RNG")
    ours = [trainer.step(*batch) for batch in batches]
    theirs, trained = reference(model, batches, lr, weight_decay)
    T.check_close(name, ours, theirs, TOLERANCE)
    _, trained64 = reference(model, batches, lr, weight_decay, torch.float64)
    worst, where = state_difference(trainer.state_dict(),
                                    trained.state_dict(),
                                    trained64.state_dict())
    if worst <= 1:
        print("%s: trained state within %g of PyTorch's (or 3x its own "
              "fp32-fp64 difference)" % (name, TOLERANCE))
    else:
        print("%s: FAIL: trained %s is %.3g tolerances from PyTorch's" %
              (name, where, worst))
    inputs = batches[0][:-1]
    with torch.no_grad():
        ours, theirs = trainer.eval(*inputs), trained.eval()(*inputs)
    difference = relative(ours, theirs)
    print("%s: eval outputs within 0.0001" % name if difference <= 1e-4 else
          "%s: FAIL: eval outputs %g from PyTorch's" % (name, difference))
    return trainer, trained


def tokens(vocab, batch=4, length=8, seed=0):
    generator = torch.Generator().manual_seed(seed)
    return [(torch.randint(0, vocab, (batch, length), generator=generator),
             torch.randint(0, vocab, (batch * length,), generator=generator))
            for _ in range(STEPS)]


def images(seed=0):
    generator = torch.Generator().manual_seed(seed)
    return [(torch.randn(4, 3, 8, 8, generator=generator),
             torch.randint(0, 5, (4,), generator=generator))
            for _ in range(STEPS)]


def vectors(shape, seed=0):
    generator = torch.Generator().manual_seed(seed)
    return [(torch.randn(*shape, generator=generator),
             torch.randint(0, 5, (shape[0],), generator=generator))
            for _ in range(STEPS)]


torch.manual_seed(0)
mlp_batches = vectors((8, 16))
trainer, trained = check("mlp", M.MLP(), mlp_batches)

torch.manual_seed(1)
trainer, trained = check("cnn_batchnorm", M.CNN(), images())
state, expected = trainer.state_dict(), trained.state_dict()
stats = max(relative(state[k], expected[k]) for k in expected
            if "running" in k)
print("cnn_batchnorm: running statistics within %g, num_batches_tracked %d"
      % (TOLERANCE, int(state["bn1.num_batches_tracked"]))
      if stats <= TOLERANCE else
      "cnn_batchnorm: FAIL: running statistics %g from PyTorch's" % stats)

torch.manual_seed(2)
trainer, trained = check("gpt_tied_triu", M.GPT(), tokens(40))
state = trainer.state_dict()
print("gpt_tied_triu: tied weights trained as one:",
      torch.equal(state["wte.weight"], state["lm_head.weight"]))

torch.manual_seed(3)
model = M.LlamaBlock()
buffers = {k: v.clone() for k, v in model.named_buffers()}
trainer, _ = check("llama_rope", model, tokens(40, seed=3))
# A buffer the step holds is state and must come back bit-identical; the
# ONNX export of PyTorch 1.x makes a non-persistent buffer (sin) a Constant
# instead, which no step can change.
held = trainer.tensor_names()
same = "cos" in held and all(torch.equal(trainer.tensor(k), v)
                             for k, v in buffers.items() if k in held)
print("llama_rope: cos, sin buffers bit-identical after training" if same
      else "llama_rope: FAIL: a buffer changed in training")

if M.HAS_SDPA:
    torch.manual_seed(4)
    check("sdpa_encoder", M.SDPAEncoder(), vectors((4, 6, 16), seed=4))
else:
    print("sdpa_encoder: skipped, F.scaled_dot_product_attention needs "
          "PyTorch 2")

torch.manual_seed(5)
model = M.PaddedEmbedding()
row = model.embed.weight[0].clone()
batches = [(ids, labels) for ids, labels in
           [(torch.randint(0, 4, (4, 6)), torch.randint(0, 5, (4,)))
            for _ in range(STEPS)]]  # many padding (0) ids
# No weight decay: the padding row must then stay exactly as it was.
trainer, _ = check("embedding_padding_idx", model, batches, lr=1e-2,
                   weight_decay=0.0)
print("embedding_padding_idx: padding row bit-identical after training"
      if torch.equal(trainer.state_dict()["embed.weight"][0], row) else
      "embedding_padding_idx: FAIL: the padding row trained")

torch.manual_seed(6)
model = M.FrozenBackbone()
frozen = {k: v.clone() for k, v in model.backbone.state_dict().items()}
trainer, _ = check("frozen_backbone", model, vectors((8, 16), seed=6))
state = trainer.state_dict()
print("frozen_backbone: frozen parameters bit-identical after training"
      if all(torch.equal(state["backbone." + k], v)
             for k, v in frozen.items())
      else "frozen_backbone: FAIL: a frozen parameter trained")

# A module in eval mode trains in eval mode, as in PyTorch: no dropout,
# batch norm normalizing with (and not updating) its running statistics.
torch.manual_seed(7)
model = torch.nn.Sequential(torch.nn.Linear(16, 16), torch.nn.Dropout(0.5),
                            torch.nn.BatchNorm1d(16), torch.nn.Linear(16, 5))
model[2].running_mean.uniform_(-0.5, 0.5)
model.eval()
batches = vectors((8, 16), seed=7)
# With dropout or batch statistics the losses would be far apart. (Under
# PyTorch 1.x this also guards torch.onnx's eval-mode export, which merged
# the running variance of ones into the batch norm's weight of ones, so
# that the trained weight became the variance from the second step.)
trainer = amp.compile(model, example_inputs=(batches[0][0],),
                      optimizer="sgd", lr=0.05, momentum=0.9)
ours = [trainer.step(*b) for b in batches]
theirs = []
ref = copy.deepcopy(model)
optimizer = torch.optim.SGD(ref.parameters(), lr=0.05, momentum=0.9)
for x, y in batches:
    optimizer.zero_grad()
    loss = F.cross_entropy(ref(x), y)
    loss.backward()
    optimizer.step()
    theirs.append(loss.item())
close = max(abs(a - b) / abs(b) for a, b in zip(ours, theirs)) <= TOLERANCE
kept = torch.equal(trainer.state_dict()["2.running_mean"],
                   model[2].running_mean)
print("eval mode: dropout off and batch norm on running statistics"
      if close and kept else
      "eval mode: FAIL: losses %s (amp %s, torch %s), running mean kept %s"
      % (close, ours, theirs, kept))
