# A small CNN (Conv, BatchNorm, ReLU, MaxPool, global average pool, Linear)
# trained from Python through a DataLoader in fp32 against PyTorch; the
# batch-norm running statistics and the eval-mode logits against PyTorch's.
# RUN: %amp_python %s | FileCheck %s
# RUN: %if torch2 %{ %amp_python2 %s | FileCheck %s %}
# CHECK: cnn fp32 sgd: 12 losses within 1e-05
# CHECK: cnn running statistics: within 1e-05
# CHECK: cnn eval logits: within 0.0001
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "Inputs"))
import amp_testing as T  # noqa: E402
import amp  # noqa: E402
import torch  # noqa: E402

torch.manual_seed(0)
nn = torch.nn
model = nn.Sequential(
    nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
    nn.MaxPool2d(2), nn.Conv2d(8, 16, 3, padding=1), nn.BatchNorm2d(16),
    nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 10))


def data():
    return T.loader((3, 12, 12), 10, batches=6, batch_size=8)


x0, _ = next(iter(data()))
# Tolerance as test/python/mlp.py: fp32 in another summation order.
trainer = amp.compile(model, example_inputs=(x0,), optimizer="sgd", lr=0.05,
                      momentum=0.9)
ours = T.amp_losses(trainer, data(), epochs=2)
theirs, reference = T.torch_losses(
    model, data(), 2, lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9))
T.check_close("cnn fp32 sgd", ours, theirs, 1e-5)

state = trainer.state_dict()
T.check_max_abs("cnn running statistics",
                torch.cat([state["1.running_var"], state["5.running_mean"]]),
                torch.cat([reference[1].running_var,
                           reference[5].running_mean]), 1e-5)
reference.eval()
with torch.no_grad():
    T.check_max_abs("cnn eval logits", trainer.eval(x0), reference(x0), 1e-4)
