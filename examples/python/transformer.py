#!/usr/bin/env python3
"""Trains a small transformer classifier (token embedding, one pre-LN
encoder layer with 4 heads and a GELU MLP, mean pooling, linear head) with
amp in bf16 for 50 optimizer steps of 2 accumulated micro-batches (cosine
schedule, AdamW) on seeded synthetic token sequences through a DataLoader,
against PyTorch fp32 on the same batches with the same accumulation.

    export PYTHONPATH=$PWD/build/python_packages
    /usr/bin/python3 examples/python/transformer.py [--small]
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import parity  # noqa: E402


class TinyTransformer(torch.nn.Module):
    def __init__(self, vocab, width, heads, layers, classes):
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, width)
        self.blocks = torch.nn.Sequential(*[
            torch.nn.TransformerEncoderLayer(
                width, heads, 2 * width, dropout=0.0, batch_first=True,
                norm_first=True, activation="gelu")
            for _ in range(layers)])
        self.head = torch.nn.Linear(width, classes)

    def forward(self, tokens):
        return self.head(self.blocks(self.embed(tokens)).mean(1))


args = parity.arguments(__doc__.splitlines()[0])
torch.manual_seed(0)
width, layers, length = (32, 1, 16) if args.small else (128, 2, 64)
model = TinyTransformer(vocab=256, width=width, heads=4, layers=layers,
                        classes=10)
generator = torch.Generator().manual_seed(0)
tokens = torch.randint(0, 256, (256, length), generator=generator)
labels = torch.randint(0, 10, (256,), generator=generator)
parity.run(model, torch.utils.data.TensorDataset(tokens, labels), args)
