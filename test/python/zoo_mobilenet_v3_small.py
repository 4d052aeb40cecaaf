# The model zoo (issue 35): torchvision's MobileNetV3-Small (hardswish,
# squeeze-excitation) on 4 images of 32x32, trained through amp.compile;
# Inputs/zoo_check.py says what is checked and why.
# REQUIRES: torch2
# RUN: %amp_python2 %s | FileCheck %s
# CHECK: mobilenet_v3_small: fp32 like PyTorch
# CHECK: mobilenet_v3_small: eval outputs within 1e-4
# CHECK: mobilenet_v3_small: cuda-emulator within 1e-4 of the CPU backend
# CHECK: mobilenet_v3_small: bf16 drift within 3x autocast's
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "Inputs"))
import zoo_check  # noqa: E402

zoo_check.main("mobilenet_v3_small")
