# The model zoo (issue 35): timm's resnet18d (ZOO in Inputs/zoo_models.py
# gives its configuration and size), trained through amp.compile;
# Inputs/zoo_check.py says what is checked and why. timm installs from
# PyPI into the torch 2.x venv only.
# REQUIRES: torch2-timm
# RUN: %amp_python2 %s | FileCheck %s
# CHECK: timm_resnet18d: fp32 like PyTorch
# CHECK: timm_resnet18d: eval outputs within 1e-4
# CHECK: timm_resnet18d: cuda-emulator within 1e-4 of the CPU backend
# CHECK: timm_resnet18d: bf16 drift within 3x autocast's
# CHECK: timm_resnet18d: fp16 drift within 3x autocast's
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "Inputs"))
import zoo_check  # noqa: E402

zoo_check.main("timm_resnet18d")
