# The model zoo (issue 35): torchvision's MobileNetV3-Small (hardswish,
# squeeze-excitation) on 4 images of 32x32, trained through amp.compile;
# Inputs/zoo_check.py says what is checked and why.
# Under PyTorch 1.13 (ONNX capture, torchvision 0.14) and 2.x (torch.export).
# REQUIRES: python-torchvision
# RUN: %amp_python %s | FileCheck %s
# RUN: %if torch2 %{ %amp_python2 %s | FileCheck %s %}
# CHECK: mobilenet_v3_small: fp32 like PyTorch
# CHECK: mobilenet_v3_small: eval outputs within 1e-4
# CHECK: mobilenet_v3_small: cuda-emulator within 1e-4 of the CPU backend
# CHECK: mobilenet_v3_small: bf16 drift within 3x autocast's
# CHECK: mobilenet_v3_small: fp16 {{drift within 3x autocast's|not checked under PyTorch 1\.13}}
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "Inputs"))
import zoo_check  # noqa: E402

zoo_check.main("mobilenet_v3_small")
