# The model zoo (issue 35): torchvision's ResNet-50 (num_classes=10) on 8
# images of 64x64, trained through amp.compile; Inputs/zoo_check.py says
# what is checked and why.
# Under PyTorch 1.13 (ONNX capture, torchvision 0.14) and 2.x (torch.export).
# REQUIRES: python-torchvision
# RUN: %amp_python %s | FileCheck %s
# RUN: %if torch2 %{ %amp_python2 %s | FileCheck %s %}
# CHECK: resnet50: fp32 like PyTorch
# CHECK: resnet50: eval outputs within 1e-4
# CHECK: resnet50: cuda-emulator within 1e-4 of the CPU backend
# CHECK: resnet50: bf16 drift within 3x autocast's
# CHECK: resnet50: fp16 {{drift within 3x autocast's|not checked under PyTorch 1\.13}}
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "Inputs"))
import zoo_check  # noqa: E402

zoo_check.main("resnet50")
