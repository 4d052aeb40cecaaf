# The model zoo (issue 35): torchvision's VisionTransformer at a reduced
# size (2 layers, width 32, patches of 8) on 4 images of 32x32, trained
# through amp.compile; Inputs/zoo_check.py says what is checked and why.
# REQUIRES: torch2
# RUN: %amp_python2 %s | FileCheck %s
# CHECK: vit: fp32 like PyTorch
# CHECK: vit: eval outputs within 1e-4
# CHECK: vit: cuda-emulator within 1e-4 of the CPU backend
# CHECK: vit: bf16 drift within 3x autocast's
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "Inputs"))
import zoo_check  # noqa: E402

zoo_check.main("vit")
