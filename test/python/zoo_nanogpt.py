# The model zoo (issue 35): nanogpt of Inputs/front_door_models.py (ZOO in
# Inputs/zoo_models.py gives its size), trained through amp.compile;
# Inputs/zoo_check.py says what is checked and why (front_door.py checks
# its AdamW training, tied weights and buffers).
# Under PyTorch 1.13 (ONNX capture) and 2.x (torch.export).
# RUN: %amp_python %s | FileCheck %s
# RUN: %if torch2 %{ %amp_python2 %s | FileCheck %s %}
# CHECK: nanogpt: fp32 like PyTorch
# CHECK: nanogpt: eval outputs within 1e-4
# CHECK: nanogpt: cuda-emulator within 1e-4 of the CPU backend
# CHECK: nanogpt: bf16 drift within 3x autocast's
# CHECK: nanogpt: fp16 {{drift within 3x autocast's|not checked under PyTorch 1\.13}}
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "Inputs"))
import zoo_check  # noqa: E402

zoo_check.main("nanogpt")
