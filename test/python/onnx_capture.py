# amp.compile's ONNX capture on both PyTorch generations: a module that
# returns its own loss (loss="none") trains like PyTorch, whichever capture
# and opset. Its output once reached the ONNX importer unnamed, so the
# importer found no loss (only an output named "loss" is one); on PyTorch
# 2.x torch.onnx.export defaults to the dynamo exporter, which is not the
# one the importer is tested against, so the capture asks for TorchScript's.
# RUN: %amp_python %s | FileCheck %s
# RUN: %if torch2 %{ %amp_python2 %s | FileCheck %s --check-prefix=TORCH2 %}
# CHECK: onnx opset 17: 6 losses within 1e-05
# TORCH2: onnx opset 17: 6 losses within 1e-05
# TORCH2: onnx opset 18: 6 losses within 1e-05
# TORCH2: export: 6 losses within 1e-05
import copy
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "Inputs"))
import amp_testing as T  # noqa: E402
import amp  # noqa: E402
import torch  # noqa: E402

nn = torch.nn


class Regression(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.fc2 = nn.Linear(16, 4)

    def forward(self, x, target):
        y = self.fc2(torch.tanh(self.fc1(x)))
        return ((y - target) ** 2).mean()


torch.manual_seed(0)
model = Regression()
batches = [(torch.randn(4, 8), torch.randn(4, 4)) for _ in range(6)]


def torch_losses():
    reference = copy.deepcopy(model)
    optimizer = torch.optim.SGD(reference.parameters(), lr=0.1)
    losses = []
    for x, t in batches:
        optimizer.zero_grad()
        loss = reference(x, t)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def run(label, **options):
    trainer = amp.compile(model, example_inputs=batches[0], loss="none",
                          optimizer="sgd", lr=0.1, **options)
    ours = [float(trainer.step(x, t)) for x, t in batches]
    # The same fp32 arithmetic in another order: a few ulps per step; a
    # missing loss or a wrong gradient is off by far more.
    T.check_close(label, ours, torch_losses(), 1e-5)


run("onnx opset 17", capture="onnx", opset_version=17)
if int(torch.__version__.split(".")[0]) >= 2:
    run("onnx opset 18", capture="onnx", opset_version=18)
    run("export", capture="export")
