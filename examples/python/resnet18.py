#!/usr/bin/env python3
"""Trains torchvision's ResNet-18 (num_classes=10) with amp in bf16 for 50
optimizer steps of 2 accumulated micro-batches (cosine schedule, AdamW) on
a seeded synthetic 32x32 image dataset through a DataLoader, against
PyTorch fp32 on the same batches with the same accumulation.

    export PYTHONPATH=$PWD/build/python_packages
    /usr/bin/python3 examples/python/resnet18.py            # the full model
    /usr/bin/python3 examples/python/resnet18.py --small    # one block per stage

--small keeps ResNet's structure (torchvision's ResNet class and BasicBlock:
conv, batch norm, residual, downsampling) with one block per stage: what
the tests run (test/python/examples.py).
"""
import os
import sys

import torch
import torchvision

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import parity  # noqa: E402

# AdamW at 1e-4: at 1e-3 batch norm on 16-image batches makes the first
# steps chaotic, and any rounding (PyTorch's own autocast too) diverges.
args = parity.arguments(__doc__.splitlines()[0], batch_size=16, lr=1e-4)
torch.manual_seed(0)
if args.small:
    model = torchvision.models.resnet.ResNet(
        torchvision.models.resnet.BasicBlock, [1, 1, 1, 1], num_classes=10)
else:
    model = torchvision.models.resnet18(num_classes=10)
generator = torch.Generator().manual_seed(0)
images = torch.randn(256, 3, 32, 32, generator=generator)
labels = torch.randint(0, 10, (256,), generator=generator)
parity.run(model, torch.utils.data.TensorDataset(images, labels), args)
