"""Trains examples/mlp_train_step.mlir (LayerNorm, Linear, GELU, Linear,
cross-entropy, SGD with momentum 0.9) with amp-run and the same model in
PyTorch 1.13 from the same weights and data for 20 steps, and compares the
losses.

Tolerance: the two compute the same f32 sums in different orders (our
reductions are sequential loops, PyTorch's are blocked/vectorized), so each
gradient differs by a few ulps of its largest terms; momentum SGD at
lr 0.05 on a well-conditioned problem keeps these differences at the 1e-6
relative level. 1e-4 relative on every loss leaves a wide margin while a
wrong gradient (e.g. a missing 1/N or a transposed weight) fails by orders
of magnitude.
"""
import json
import subprocess
import sys

import numpy as np
import torch

import amp_checkpoint
import torch_reference

amp_run, library, workdir = sys.argv[1:4]
torch.manual_seed(0)
model = torch.nn.Sequential()
model.add_module("ln", torch.nn.LayerNorm(64))
model.add_module("fc1", torch.nn.Linear(64, 128))
model.add_module("gelu", torch.nn.GELU())
model.add_module("fc2", torch.nn.Linear(128, 10))
with torch.no_grad():  # non-trivial norm parameters
    model.ln.weight.uniform_(0.5, 1.5)
    model.ln.bias.uniform_(-0.2, 0.2)
x = torch.randn(32, 64)
labels = torch.randint(0, 10, (32,))
np.save(workdir + "/x.npy", x.numpy())
np.save(workdir + "/labels.npy", labels.numpy())
state = [(k, v.detach().numpy()) for k, v in model.state_dict().items()]
state += [(k + ".momentum_buffer", np.zeros_like(v)) for k, v in state]
state.append(("lr", np.array(0.05, np.float32)))
amp_checkpoint.write(workdir + "/init.ckpt", state)
subprocess.run([amp_run, library, "--steps", "20", "--load",
                workdir + "/init.ckpt", "--input", "x=" + workdir + "/x.npy",
                "--input", "labels=" + workdir + "/labels.npy", "--metrics",
                workdir + "/metrics.jsonl"], check=True,
               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
ours = [json.loads(l)["loss"] for l in open(workdir + "/metrics.jsonl")]

theirs = torch_reference.sgd_cross_entropy_losses(model, x, labels)
worst = torch_reference.report(ours, theirs)
sys.exit(0 if len(ours) == 20 and worst < 1e-4 and ours[-1] < ours[0] else 1)
