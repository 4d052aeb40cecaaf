# The model zoo (issue 35): a diffusion-style UNet (Inputs/zoo_models.py:
# GroupNorm, SiLU, sinusoidal timestep embeddings, strided convolutions
# down, nn.Upsample and ConvTranspose2d up, skip concatenations, attention
# blocks at the lower resolutions) predicting the noise of 4 images of
# 16x16 under an MSE loss, trained through amp.compile; Inputs/zoo_check.py
# says what is checked and why.
# Under PyTorch 1.13 (ONNX capture) and 2.x (torch.export).
# RUN: %amp_python %s | FileCheck %s
# RUN: %if torch2 %{ %amp_python2 %s | FileCheck %s %}
# CHECK: unet: fp32 like PyTorch
# CHECK: unet: eval outputs within 1e-4
# CHECK: unet: cuda-emulator within 1e-4 of the CPU backend
# PyTorch 1.13's CPU autocast fails on this model (zoo_check.py): there
# amp's bf16 losses need only be finite.
# CHECK: unet: bf16 {{drift within 3x autocast's|losses finite, drift .* \(PyTorch 1\.13.*'s autocast fails}}
# CHECK: unet: fp16 {{drift within 3x autocast's|not checked under PyTorch 1\.13}}
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "Inputs"))
import zoo_check  # noqa: E402

zoo_check.main("unet")
