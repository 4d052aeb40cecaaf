#!/usr/bin/env python3
"""Trains a PyTorch MLP exported to ONNX with amp for 20 SGD steps and
compares the losses with PyTorch's (ONNX -> amp-translate -> amp-compile
--loss=cross_entropy -> amp-run).

    train_parity.py DIR

The model (LayerNorm, Linear 64->128, GELU, Linear 128->10; opset 13, so
LayerNorm and GELU arrive decomposed and are raised) is exported in training
mode; amp-translate writes the forward model and the initial parameters
(DIR/mlp.ckpt); amp-compile appends a cross-entropy loss whose integer
labels are the input `labels` and builds an SGD (momentum 0.9) step;
amp-run starts from a checkpoint made of mlp.ckpt plus zero momentum buffers
and the learning rate, on fixed data (the input keeps its ONNX name,
`input0`).

Tolerance: as test/amp-compile/Inputs/mlp_parity.py, the same f32 sums in
different orders keep the losses within ~1e-6 relative over 20 steps; a
wrong gradient or a wrong initial value fails by orders of magnitude, so
every loss must agree to 1e-4 relative.
"""
import os
import subprocess
import sys
import warnings

import torch

import onnx_harness as H

warnings.filterwarnings("ignore")
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..",
                                "amp-compile", "Inputs"))
import torch_reference  # noqa: E402

workdir = sys.argv[1]
model, x, labels = torch_reference.parity_mlp()
onnx_path = os.path.join(workdir, "mlp.onnx")
with torch.no_grad():
    torch.onnx.export(model, (x,), onnx_path, opset_version=13,
                      training=torch.onnx.TrainingMode.TRAINING,
                      do_constant_folding=False, input_names=["input0"])
H.import_model(onnx_path, os.path.join(workdir, "mlp.mlir"))
library = os.path.join(workdir, "mlp.so")
subprocess.run([H.tool("amp-compile", "AMP_COMPILE"),
                os.path.join(workdir, "mlp.mlir"), "--loss=cross_entropy",
                "--optimizer=sgd", "--momentum=0.9", "--lr=0.05", "-o",
                library], check=True)

initial = H.read_checkpoint(os.path.join(workdir, "mlp.ckpt"))
ours = torch_reference.amp_run_losses(
    H.tool("amp-run", "AMP_RUN"), library, workdir,
    torch_reference.momentum_sgd_state(initial.items(), 0.05),
    {"input0": x.numpy(), "labels": labels.numpy()})

theirs = torch_reference.sgd_cross_entropy_losses(model, x, labels)
worst = torch_reference.report(ours, theirs)
if len(ours) != 20 or worst > 1e-4:
    sys.exit("FAIL: amp's losses differ from PyTorch's")
print("PASS")
