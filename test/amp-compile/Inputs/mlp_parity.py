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
import sys

import torch_reference

amp_run, library, workdir = sys.argv[1:4]
model, x, labels = torch_reference.parity_mlp()
state = [(k, v.detach().numpy()) for k, v in model.state_dict().items()]
ours = torch_reference.amp_run_losses(
    amp_run, library, workdir, torch_reference.momentum_sgd_state(state, 0.05),
    {"x": x.numpy(), "labels": labels.numpy()})

theirs = torch_reference.sgd_cross_entropy_losses(model, x, labels)
worst = torch_reference.report(ours, theirs)
sys.exit(0 if len(ours) == 20 and worst < 1e-4 and ours[-1] < ours[0] else 1)
