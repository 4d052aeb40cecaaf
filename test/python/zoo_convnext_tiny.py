# The model zoo (issue 35): torchvision's ConvNeXt-Tiny (depthwise 7x7,
# LayerNorm over channels, GELU) on 4 images of 32x32, trained through
# amp.compile; Inputs/zoo_check.py says what is checked and why.
# REQUIRES: torch2
# RUN: %amp_python2 %s | FileCheck %s
# CHECK: convnext_tiny: fp32 like PyTorch
# CHECK: convnext_tiny: eval outputs within 1e-4
# CHECK: convnext_tiny: cuda-emulator within 1e-4 of the CPU backend
# CHECK: convnext_tiny: bf16 drift within 3x autocast's
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "Inputs"))
import zoo_check  # noqa: E402

zoo_check.main("convnext_tiny")
