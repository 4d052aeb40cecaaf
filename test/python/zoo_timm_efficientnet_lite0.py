# The model zoo (issue 35): timm's efficientnet_lite0 (ZOO in Inputs/zoo_models.py
# gives its configuration and size), trained through amp.compile;
# Inputs/zoo_check.py says what is checked and why. timm installs from
# PyPI into the torch 2.x venv only.
# REQUIRES: torch2-timm
# RUN: %amp_python2 %s | FileCheck %s
# CHECK: timm_efficientnet_lite0: fp32 like PyTorch
# CHECK: timm_efficientnet_lite0: eval outputs within 1e-4
# CHECK: timm_efficientnet_lite0: cuda-emulator within 1e-4 of the CPU backend
# CHECK: timm_efficientnet_lite0: bf16 drift within 3x autocast's
# CHECK: timm_efficientnet_lite0: fp16 drift within 3x autocast's
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "Inputs"))
import zoo_check  # noqa: E402

zoo_check.main("timm_efficientnet_lite0")
