#!/usr/bin/env python3
"""Trains a small PyTorch decoder through ONNX with amp, telling the importer
which initializers train and which embeddings pad (--onnx-trainable,
--onnx-padding-idx), and checks that amp trains what PyTorch trains.

    tensor_rules_train.py DIR --opset N

The model (seeded) has every kind of tensor the rules are about:
  - `emb`: nn.Embedding(12, 8, padding_idx=0) tied to the output head
    (one initializer, `emb.weight`, read by a Gather and a MatMul);
  - `seg`: nn.Embedding(3, 8, padding_idx=2), not tied;
  - `frozen`: an nn.Linear with requires_grad=False;
  - `cos`: a float buffer (as a RoPE table), read by the forward only;
  - `qkv`: a trainable nn.Linear, and a torch.triu causal mask (ONNX Trilu).
It is exported in training mode (no constant folding, so every initializer
keeps its state_dict name) and imported with
--onnx-trainable=(the requires_grad parameters, plus a name that is no
initializer, which is ignored) and --onnx-padding-idx=emb.weight=0,
seg.weight=-1; amp-compile appends a cross-entropy loss and SGD with
momentum 0.9; amp-run trains 10 steps from the ONNX initializers and saves
its state.

Checks, each printed as PASS or FAIL:
  - roles: exactly the requires_grad parameters are `parameter` arguments,
    every other initializer a `buffer`; both gathers carry padding_idx;
  - the saved state holds every initializer by name and optimizer state
    (momentum) for the trained parameters only;
  - every loss agrees with PyTorch's to 1e-5 relative (the same f32 sums in
    a different order stay within ~1e-6 over 10 steps of this model; a
    frozen tensor that trains, or a padding row that trains, moves the
    losses by 1e-3 or more);
  - after training, the buffers and the frozen Linear are bit-identical to
    their initial values, the padding row of `seg` too (the tied `emb` row 0
    still trains through the head, as in PyTorch), and every parameter
    matches PyTorch's within 1e-5 of its largest element.
"""
import argparse
import math
import os
import subprocess
import sys
import warnings

import numpy as np
import torch
import torch.nn as nn

import onnx_harness as H

warnings.filterwarnings("ignore")
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..",
                                "amp-compile", "Inputs"))
import amp_checkpoint  # noqa: E402
import torch_reference  # noqa: E402

V, D, T, B = 12, 8, 5, 2
STEPS, LR = 10, 0.1


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, D, padding_idx=0)
        self.seg = nn.Embedding(3, D, padding_idx=2)
        self.frozen = nn.Linear(D, D)
        self.frozen.requires_grad_(False)
        self.register_buffer(
            "cos", torch.cos(torch.arange(T * D).float().reshape(T, D) / 7))
        self.qkv = nn.Linear(D, 3 * D)
        self.head = nn.Linear(D, V, bias=False)
        self.head.weight = self.emb.weight

    def forward(self, ids, seg):
        h = self.emb(ids) * self.cos + self.seg(seg)
        h = h + self.frozen(h)
        q, k, v = self.qkv(h).split(D, -1)
        att = q @ k.transpose(-2, -1) / math.sqrt(D)
        mask = torch.triu(torch.ones(T, T), diagonal=1).bool()
        att = att.masked_fill(mask, float("-inf")).softmax(-1)
        h = h + att @ v
        return self.head(h).reshape(-1, V)


def check(label, ok, detail=""):
    print(f"{'PASS' if ok else 'FAIL'} {label}{': ' + detail if detail else ''}")
    return ok


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("dir")
    parser.add_argument("--opset", type=int, required=True)
    args = parser.parse_args()
    work = args.dir

    torch.manual_seed(0)
    model = Decoder()
    # Padding ids in both embeddings, so a padding row that trains shows.
    ids = torch.tensor([[0, 3, 7, 0, 11], [5, 0, 1, 2, 9]])
    seg = torch.tensor([[2, 0, 1, 2, 2], [1, 2, 0, 0, 2]])
    labels = torch.randint(0, V, (B * T,))
    onnx_path = os.path.join(work, "decoder.onnx")
    with torch.no_grad():
        torch.onnx.export(model, (ids, seg), onnx_path,
                          opset_version=args.opset,
                          training=torch.onnx.TrainingMode.TRAINING,
                          do_constant_folding=False,
                          input_names=["ids", "seg"])
    trainable = [n for n, p in model.named_parameters() if p.requires_grad]
    mlir = os.path.join(work, "decoder.mlir")
    text = H.import_model(
        onnx_path, mlir,
        "--onnx-trainable=" + ",".join(trainable + ["not.an.initializer"]),
        "--onnx-padding-idx=emb.weight=0", "--onnx-padding-idx=seg.weight=-1")
    initial = H.read_checkpoint(os.path.join(work, "decoder.ckpt"))
    ok = True

    fn_args, _ = H.signature(text)
    params = sorted(n for _, _, n, r in fn_args if r == "parameter")
    buffers = sorted(n for _, _, n, r in fn_args if r == "buffer")
    ok &= check("roles", params == sorted(trainable) and
                buffers == ["cos", "frozen.bias", "frozen.weight"],
                f"parameters {params}, buffers {buffers}")
    ok &= check("padding_idx",
                "{padding_idx = 0 : i64}" in text and
                "{padding_idx = 2 : i64}" in text)

    library = os.path.join(work, "decoder.so")
    subprocess.run([H.tool("amp-compile", "AMP_COMPILE"), mlir,
                    "--loss=cross_entropy", "--optimizer=sgd",
                    "--momentum=0.9", f"--lr={LR}", "-o", library],
                   check=True)
    # The state the library holds: the initializers, momentum for the
    # trained parameters and the learning rate; loading checks it exactly.
    state = list(initial.items())
    state += [(n + ".momentum_buffer", np.zeros_like(initial[n]))
              for n in trainable]
    state.append(("lr", np.array(LR, np.float32)))
    ours = torch_reference.amp_run_losses(
        H.tool("amp-run", "AMP_RUN"), library, work, state,
        {"ids": ids.numpy(), "seg": seg.numpy(),
         "labels": labels.numpy()}, steps=STEPS)
    final_path = os.path.join(work, "final.ckpt")
    subprocess.run([H.tool("amp-run", "AMP_RUN"), library, "--steps",
                    str(STEPS), "--load", os.path.join(work, "init.ckpt"),
                    "--input", "ids=" + os.path.join(work, "ids.npy"),
                    "--input", "seg=" + os.path.join(work, "seg.npy"),
                    "--input", "labels=" + os.path.join(work, "labels.npy"),
                    "--save", final_path], check=True,
                   stdout=subprocess.DEVNULL)
    final = amp_checkpoint.read(final_path)
    ok &= check("saved state", sorted(final) == sorted(n for n, _ in state),
                ", ".join(sorted(final)))

    theirs = []
    optimizer = torch.optim.SGD(
        [p for p in model.parameters() if p.requires_grad], lr=LR,
        momentum=0.9)
    for _ in range(STEPS):
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(ids, seg), labels)
        loss.backward()
        optimizer.step()
        theirs.append(loss.item())
    worst = torch_reference.report(ours, theirs)
    ok &= check("losses", len(ours) == STEPS and worst <= 1e-5,
                f"worst relative difference {worst:.2e}")

    for name in ("cos", "frozen.weight", "frozen.bias"):
        ok &= check(f"'{name}' unchanged",
                    np.array_equal(final[name], initial[name]))
    ok &= check("padding row 2 of 'seg.weight' unchanged",
                np.array_equal(final["seg.weight"][2],
                               initial["seg.weight"][2]))
    expected = {n: p.detach().numpy() for n, p in model.named_parameters()}
    for name in trainable:
        err = float(np.max(np.abs(final[name] - expected[name])))
        scale = float(np.max(np.abs(expected[name])))
        ok &= check(f"'{name}' after training", err <= 1e-5 * scale,
                    f"max abs err {err:.2e}")
    if not ok:
        sys.exit(1)
    print("ALL CHECKS PASS")


if __name__ == "__main__":
    main()
