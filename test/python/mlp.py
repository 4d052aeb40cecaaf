# The MLP trained from Python through a DataLoader: fp32 against PyTorch
# fp32, eval logits against PyTorch's eval-mode forward.
# RUN: %amp_python %s | FileCheck %s
# RUN: %if torch2 %{ %amp_python2 %s | FileCheck %s %}
# CHECK: mlp fp32 adamw: 24 losses within 1e-05
# CHECK: mlp fp32 sgd momentum: 24 losses within 1e-05
# CHECK: mlp eval logits: within 0.0001
# CHECK: mlp partial batches: 14 losses within 1e-05
# CHECK: mlp zero copy: the input buffer is read in place
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "Inputs"))
import amp_testing as T  # noqa: E402
import amp  # noqa: E402
import torch  # noqa: E402

model = T.mlp()
data = T.mlp_data
x0, _ = next(iter(data()))

# Tolerance: the same fp32 computation summed in another order (our loops
# against PyTorch's kernels) differs by a few ulps per op; over 24 steps
# the losses stay within ~1e-6 relative. A wrong gradient, update or
# initial weight is off by orders of magnitude more.
trainer = amp.compile(model, example_inputs=(x0,), loss="cross_entropy",
                      optimizer="adamw", lr=1e-2, weight_decay=0.01)
ours = T.amp_losses(trainer, data(), epochs=3)
theirs, reference = T.torch_losses(
    model, data(), 3, lambda p: torch.optim.AdamW(p, lr=1e-2,
                                                weight_decay=0.01))
T.check_close("mlp fp32 adamw", ours, theirs, 1e-5)

sgd = amp.compile(model, example_inputs=(x0.numpy(),), optimizer="sgd",
                  lr=0.05, momentum=0.9)
ours = T.amp_losses(sgd, data(), epochs=3)
theirs, _ = T.torch_losses(
    model, data(), 3, lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9))
T.check_close("mlp fp32 sgd momentum", ours, theirs, 1e-5)

# Eval: the trained AdamW model's logits against PyTorch's eval forward of
# the model PyTorch trained (1e-4 absolute: logits of order 1).
reference.eval()
with torch.no_grad():
    T.check_max_abs("mlp eval logits", trainer.eval(x0), reference(x0), 1e-4)

# The last partial batch of an epoch (100 samples in batches of 16: 6 full
# and one of 4) gets a step compiled for its size; the state moves across.
def partial():
    return T.loader((32,), 10, batches=100, batch_size=1, shuffle=False,
                    batch=16)


partial_trainer = amp.compile(model, example_inputs=(x0,), optimizer="sgd",
                              lr=0.05)
ours = T.amp_losses(partial_trainer, partial(), epochs=2)
theirs, _ = T.torch_losses(model, partial(), 2,
                           lambda p: torch.optim.SGD(p, lr=0.05))
T.check_close("mlp partial batches", ours, theirs, 1e-5)

# A contiguous float32 CPU tensor is handed over as a numpy view of its
# memory (one copy into the model's buffer): numpy sees the same pointer.
view = amp.trainer._as_array(x0, "x")
assert view.__array_interface__["data"][0] == x0.data_ptr()
print("mlp zero copy: the input buffer is read in place")
