# The model zoo (issue 35): torchvision's ConvNeXt-Tiny (depthwise 7x7,
# LayerNorm over channels, GELU) on 4 images of 32x32, trained through
# amp.compile; Inputs/zoo_check.py says what is checked and why.
# Under PyTorch 1.13 (ONNX capture, torchvision 0.14) and 2.x (torch.export).
# REQUIRES: python-torchvision
# RUN: %amp_python %s | FileCheck %s
# RUN: %if torch2 %{ %amp_python2 %s | FileCheck %s %}
# CHECK: convnext_tiny: fp32 like PyTorch
# CHECK: convnext_tiny: eval outputs within 1e-4
# CHECK: convnext_tiny: cuda-emulator within 1e-4 of the CPU backend
# PyTorch 1.13's CPU autocast fails on ConvNeXt's LayerNorm2d (zoo_check.py):
# there amp's bf16 losses need only be finite.
# CHECK: convnext_tiny: bf16 {{drift within 3x autocast's|losses finite, drift .* \(PyTorch 1\.13.*'s autocast fails}}
# CHECK: convnext_tiny: fp16 {{drift within 3x autocast's|not checked under PyTorch 1\.13}}
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "Inputs"))
import zoo_check  # noqa: E402

zoo_check.main("convnext_tiny")
