"""Trains Inputs/linreg_step.mlir with amp-run and the same model with
PyTorch 1.13 (torch.optim.SGD) from the same initial weights and data, and
compares the losses of 20 steps.

Tolerance: both compute in f32 the same sums over 8x4 values in possibly
different orders; each step's loss differs by a few f32 ulps, and SGD on a
convex quadratic with lr 0.1 contracts errors, so 1e-5 relative holds with
a wide margin over 20 steps.
"""
import sys

import numpy as np
import torch

import torch_reference

amp_run, library, workdir = sys.argv[1:4]
rng = np.random.RandomState(0)
x = rng.randn(8, 4).astype(np.float32)
y = (x @ np.array([[1.0], [-2.0], [0.5], [3.0]], np.float32) + 0.25).astype(
    np.float32)
w0 = rng.randn(1, 4).astype(np.float32) * 0.5
b0 = np.array([0.1], np.float32)
ours = torch_reference.amp_run_losses(
    amp_run, library, workdir,
    [("fc.weight", w0), ("fc.bias", b0), ("lr", np.array(0.1, np.float32))],
    {"x": x, "y": y})

model = torch.nn.Linear(4, 1)
with torch.no_grad():
    model.weight.copy_(torch.from_numpy(w0))
    model.bias.copy_(torch.from_numpy(b0))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
theirs = []
for _ in range(20):
    optimizer.zero_grad()
    loss = torch.nn.functional.mse_loss(model(torch.from_numpy(x)),
                                        torch.from_numpy(y))
    loss.backward()
    optimizer.step()
    theirs.append(loss.item())

worst = max(abs(a - b) / abs(b) for a, b in zip(ours, theirs))
print("steps %d worst relative difference %.2e" % (len(ours), worst))
print("loss %.4f -> %.4f (torch %.4f -> %.4f)" % (ours[0], ours[-1],
                                                  theirs[0], theirs[-1]))
sys.exit(0 if len(ours) == 20 and worst < 1e-5 else 1)
