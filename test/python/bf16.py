# The MLP of test/python/mlp.py trained in bf16 (O1: matmuls and GELU in
# bf16, LayerNorm, softmax and the loss in fp32) against PyTorch fp32.
# RUN: %amp_python %s | FileCheck %s
# RUN: %if torch2 %{ %amp_python2 %s | FileCheck %s %}
# CHECK: mlp bf16 vs fp32: 24 losses within 0.02
# CHECK: mlp bf16 computes in bf16: the losses differ from fp32
# CHECK: mlp bf16 eval logits: within 0.05
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "Inputs"))
import amp_testing as T  # noqa: E402
import amp  # noqa: E402
import torch  # noqa: E402

model = T.mlp()
data = T.mlp_data
x0, _ = next(iter(data()))
trainer = amp.compile(model, example_inputs=(x0,), loss="cross_entropy",
                      optimizer="adamw", lr=1e-2, precision="bf16",
                      opt_level="O1")
ours = T.amp_losses(trainer, data(), epochs=3)
theirs, reference = T.torch_losses(
    model, data(), 3, lambda p: torch.optim.AdamW(p, lr=1e-2))
# Tolerance: bf16 keeps 8 significant bits, so each rounded matmul input is
# off by up to 2^-9 (0.2%) relative; with fp32 accumulation the logits
# (order 1) move by ~1e-3 and the loss (~2) by ~1e-3 relative per step.
# AdamW's normalised updates do not amplify that drift over 24 steps: we
# see ~2e-3, and allow 2e-2 (1%: a wrong cast, an fp16 overflow or
# a missing master update shows up as a 10% or larger difference).
T.check_close("mlp bf16 vs fp32", ours, theirs, 2e-2)
if max(abs(a - b) for a, b in zip(ours, theirs)) < 1e-6:
    print("mlp bf16: FAIL, the losses equal fp32's: nothing ran in bf16")
    sys.exit(1)
print("mlp bf16 computes in bf16: the losses differ from fp32")
# Logits of order 1 after bf16 matmuls and 24 bf16 steps: ~2e-2 seen.
reference.eval()
with torch.no_grad():
    T.check_max_abs("mlp bf16 eval logits", trainer.eval(x0), reference(x0),
                    5e-2)
