#!/usr/bin/env python3
"""Exports a PyTorch 1.13 model to ONNX, imports it with amp-translate and
checks that its forward on amp's CPU backend matches PyTorch.

    torch_models.py MODEL --opset N --dir DIR [--fold] [--no-run]
                    [--upgrade M]

MODEL is one of the models below. The model is built with a fixed seed, put
in training mode and exported with torch.onnx.export(training=TRAINING) to
DIR/MODEL.onnx (with --fold, with PyTorch's constant folding, which renames
some parameters `onnx::...`; without, every initializer keeps its
state_dict name; with --upgrade M, converted to opset M by
onnx.version_converter). Under PyTorch 2.x the TorchScript exporter
writes it (opsets up to 20). Exporting runs the model once, which updates batch-norm
running statistics; the ONNX initializers hold the state after that run,
and so does the model. amp-translate writes DIR/MODEL.mlir and DIR/MODEL.ckpt.

Checks, each printed as PASS or FAIL:
  - every initial value in the checkpoint equals the ONNX initializer;
  - unless --no-run: the forward of the imported function on the CPU
    backend, on seeded random inputs and the checkpoint's values, matches
    the PyTorch model's forward in training mode: every output, and every
    updated batch-norm running statistic (returned as a `buffer` result)
    matches the module's buffer after PyTorch's forward.
Ends with `ALL N CHECKS PASS` or exits non-zero.
"""

import argparse
import copy
import inspect
import os
import sys
import warnings

import numpy as np
import onnx
import torch
import torch.nn as nn
from onnx import numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import onnx_harness as H  # noqa: E402

warnings.filterwarnings("ignore")


class MLP(nn.Module):
    """LayerNorm + Linear + GELU + Linear (the GELU is the erf form)."""

    def __init__(self):
        super().__init__()
        self.ln = nn.LayerNorm(16)
        self.fc1 = nn.Linear(16, 32)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(32, 4)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(self.ln(x))))


class GroupNormCNN(nn.Module):
    """Conv/GroupNorm/ReLU/MaxPool, Conv/BatchNorm/ReLU/AvgPool, a 1x1 conv
    with GroupNorm without affine, global pooling, flatten, Linear."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.gn1 = nn.GroupNorm(4, 8)
        self.conv2 = nn.Conv2d(8, 16, 3, stride=1, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(16)
        self.conv3 = nn.Conv2d(16, 16, 1)
        self.gn3 = nn.GroupNorm(2, 16, affine=False)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        x = nn.functional.max_pool2d(torch.relu(self.gn1(self.conv1(x))), 2)
        x = nn.functional.avg_pool2d(torch.relu(self.bn2(self.conv2(x))), 2)
        x = torch.sigmoid(self.gn3(self.conv3(x)))
        x = nn.functional.adaptive_avg_pool2d(x, 1)
        return self.fc(torch.flatten(x, 1))


class Transformer(nn.Module):
    """One nn.TransformerEncoderLayer (dropout 0: deterministic), then a
    mean over the sequence and a classifier with log_softmax."""

    def __init__(self, norm_first=False, activation="relu"):
        super().__init__()
        self.layer = nn.TransformerEncoderLayer(
            16, 4, 32, dropout=0.0, batch_first=True, norm_first=norm_first,
            activation=activation)
        self.head = nn.Linear(16, 6)

    def forward(self, x):
        y = self.layer(x)
        return torch.log_softmax(self.head(y.mean(dim=1)), dim=-1), y


class CausalAttention(nn.Module):
    """Single-head self-attention with the usual causal mask,
    torch.triu(torch.ones(T, T), diagonal=1), which exports as a Trilu of
    constants (folded at import time), then a Linear."""

    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(16, 48)
        self.out = nn.Linear(16, 16)

    def forward(self, x):
        t = x.shape[1]
        q, k, v = self.qkv(x).split(16, dim=-1)
        att = q @ k.transpose(-2, -1) / 4.0
        mask = torch.triu(torch.ones(t, t), diagonal=1).bool()
        att = att.masked_fill(mask, float("-inf")).softmax(-1)
        return self.out(att @ v)


class TriangularScores(nn.Module):
    """torch.tril and torch.triu of a computed tensor (a Trilu at run time:
    a constant mask and amp.where), with and without a diagonal offset."""

    def __init__(self):
        super().__init__()
        self.a = nn.Linear(6, 6)
        self.b = nn.Linear(6, 6)

    def forward(self, x):
        s = self.a(x) @ self.b(x).transpose(-2, -1)
        return torch.tril(s, diagonal=-1).sum(-1), torch.triu(s)


class ConvTransposes(nn.Module):
    """nn.ConvTranspose2d as decoders and UNets use it (ONNX ConvTranspose):
    the 2x upsampling of a UNet decoder (kernel 3, stride 2, padding 1,
    output_padding 1), kernel 2 stride 2, groups with dilation, output
    padding below the stride with different strides and padding per
    dimension, and output_padding 2 at stride 1 (PyTorch allows it below
    the dilation), which amp takes from the end padding, or without
    padding, where the rows no window reaches are zeros."""

    def __init__(self):
        super().__init__()
        self.up = nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1,
                                     output_padding=1)
        self.k2 = nn.ConvTranspose2d(4, 3, 2, stride=2)
        self.grouped = nn.ConvTranspose2d(4, 6, 3, padding=1, groups=2,
                                          dilation=2, bias=False)
        self.mixed = nn.ConvTranspose2d(4, 2, (3, 2), stride=(3, 2),
                                        padding=(0, 1), output_padding=(2, 1),
                                        dilation=(2, 1))
        self.dilated = nn.ConvTranspose2d(4, 2, 3, padding=2,
                                          output_padding=2, dilation=3)
        self.unpadded = nn.ConvTranspose2d(4, 2, 3, output_padding=(2, 1),
                                           dilation=3)

    def forward(self, x):
        return (self.up(x), self.k2(x), self.grouped(x), self.mixed(x),
                self.dilated(x), self.unpadded(x))


class HardActivations(nn.Module):
    """MobileNetV3's activations (ONNX HardSwish, HardSigmoid), mish
    (exported as Softplus, Tanh, Mul) and softplus with beta."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        h = self.fc(x) * 4
        return (nn.functional.hardswish(h), nn.functional.hardsigmoid(h),
                nn.functional.mish(h), nn.functional.softplus(h, beta=2))


class Upsampling(nn.Module):
    """nn.Upsample / F.interpolate as UNets and FPNs use them (ONNX Resize):
    nearest by scale and by size, bilinear with and without align_corners,
    by scale and by a size that is no multiple of the input."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 3, 3, padding=1)
        self.up = nn.Upsample(scale_factor=2)

    def forward(self, x):
        y = self.conv(x)
        f = nn.functional.interpolate
        return (self.up(y), f(y, size=(7, 9)),
                f(y, scale_factor=2, mode="bilinear", align_corners=False),
                f(y, size=(7, 9), mode="bilinear", align_corners=True),
                f(y, size=(5, 11), mode="bilinear"),
                f(y, scale_factor=3, mode="nearest"))


class Contractions(nn.Module):
    """Einsum attention scores and their product with the values, a
    running sum (CumSum) and a non-finite guard
    (IsNaN, IsInf of a Cast to double)."""

    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(8, 24)

    def forward(self, x):
        q, k, v = self.qkv(x).split(8, dim=-1)
        q = q.reshape(2, 5, 2, 4)
        k = k.reshape(2, 5, 2, 4)
        scores = torch.einsum("bihd,bjhd->bhij", q, k).softmax(-1)
        out = torch.einsum("bhij,bjhd->bihd", scores, v.reshape(2, 5, 2, 4))
        running = torch.cumsum(out, 1) + torch.cumsum(out, -1) * 4
        # Some of each: log of the negative elements is NaN, exp of the
        # large ones overflows.
        bad = torch.isnan(torch.log(running)) | torch.isinf(
            torch.exp(running * 30))
        return torch.where(bad, torch.zeros_like(running), running)


class Opset18Forms(nn.Module):
    """What PyTorch 2.x writes differently from opset 18: reductions with
    their axes as an input (ReduceMax, ReduceMean), chunk and F.pad."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 9)

    def forward(self, x):
        a, b, c = self.fc(x).chunk(3, dim=-1)
        p = nn.functional.pad(a, (1, 2))
        return p.amax(dim=1), (b + c).mean(dim=(0, 2), keepdim=True)


def resnet18():
    import torchvision
    return torchvision.models.resnet18(weights=None, num_classes=10)


def mobilenet_v2():
    import torchvision
    model = torchvision.models.mobilenet_v2(weights=None, num_classes=10,
                                            width_mult=0.25)
    model.classifier[0].p = 0.0  # deterministic forward
    return model


# name: (factory, input shapes, tolerance of compare()). The default
# tolerance covers shallow models. ResNet-18 and MobileNetV2 stack 20 and
# 52 batch norms in training mode; each normalizes by statistics summed
# over 2048-8192 elements, which the CPU backend sums in sequential f32
# order (error up to n*u, u = 6e-8) and PyTorch in blocked order, and the
# normalization passes each difference on, relative, to the next layer. At
# these sizes the CPU backend is within 5e-5 * max|y| of a float64 PyTorch
# forward and PyTorch's own float32 forward within 1.3e-5 * max|y|, hence
# the looser bound. (At 32x32 inputs the last stages normalize 2 values
# per channel and even PyTorch's float32 forward is 1e-2 off float64.)
DEEP = {"rtol": 1e-3, "atol_rel": 2e-4}
MODELS = {
    "mlp": (MLP, [(8, 16)], {}),
    "gn_cnn": (GroupNormCNN, [(2, 3, 16, 16)], {}),
    "transformer": (Transformer, [(2, 5, 16)], {}),
    "transformer_gelu_prenorm":
        (lambda: Transformer(norm_first=True, activation="gelu"), [(2, 5, 16)],
         {}),
    "causal_attention": (CausalAttention, [(2, 5, 16)], {}),
    "triangular_scores": (TriangularScores, [(2, 4, 6)], {}),
    "conv_transpose": (ConvTransposes, [(2, 4, 5, 6)], {}),
    "hard_activations": (HardActivations, [(4, 8)], {}),
    "upsampling": (Upsampling, [(2, 2, 3, 4)], {}),
    "contractions": (Contractions, [(2, 5, 8)], {}),
    "opset18_forms": (Opset18Forms, [(2, 3, 8)], {}),
    "resnet18": (resnet18, [(2, 3, 64, 64)], DEEP),
    "mobilenet_v2": (mobilenet_v2, [(2, 3, 64, 64)], DEEP),
}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model", choices=sorted(MODELS))
    parser.add_argument("--opset", type=int, required=True)
    parser.add_argument("--dir", required=True)
    parser.add_argument("--fold", action="store_true")
    parser.add_argument("--no-run", action="store_true")
    parser.add_argument("--upgrade", type=int,
                        help="convert the export to this opset with "
                        "onnx.version_converter")
    args = parser.parse_args()

    torch.manual_seed(0)
    factory, input_shapes, tolerance = MODELS[args.model]
    model = factory()
    model.train()
    inputs = [torch.randn(*shape) for shape in input_shapes]
    input_names = [f"input{i}" for i in range(len(inputs))]
    onnx_path = os.path.join(args.dir, args.model + ".onnx")
    mlir_path = os.path.join(args.dir, args.model + ".mlir")
    ckpt_path = os.path.join(args.dir, args.model + ".ckpt")
    # PyTorch 2.x: the TorchScript exporter, which writes opsets up to 20
    # (its dynamo exporter decomposes differently and needs onnxscript).
    legacy = {"dynamo": False} if "dynamo" in inspect.signature(
        torch.onnx.export).parameters else {}
    with torch.no_grad():
        torch.onnx.export(model, tuple(inputs), onnx_path, **legacy,
                          opset_version=args.opset,
                          training=torch.onnx.TrainingMode.TRAINING,
                          do_constant_folding=args.fold,
                          input_names=input_names)
    if args.upgrade:
        from onnx import version_converter
        upgraded = version_converter.convert_version(onnx.load(onnx_path),
                                                     args.upgrade)
        onnx.save(upgraded, onnx_path)
    text = H.import_model(onnx_path, mlir_path)
    ok = True
    checks = 0

    # The checkpoint holds exactly the ONNX initializers that became
    # parameters or buffers, bit for bit.
    initializers = {init.name: numpy_helper.to_array(init)
                    for init in onnx.load(onnx_path).graph.initializer}
    state = H.read_checkpoint(ckpt_path)
    fn_args, results = H.signature(text)
    for _, _, name, role in fn_args:
        if role in ("parameter", "buffer"):
            checks += 1
            same = name in state and np.array_equal(
                state[name], initializers[name].astype(state[name].dtype))
            ok &= same
            if not same:
                print(f"FAIL initial value of '{name}'")
    print(f"PASS {len(state)} initial values" if ok else
          "FAIL initial values")

    if not args.no_run:
        feeds = dict(state)
        for name, value in zip(input_names, inputs):
            feeds[name] = value.numpy()
        for _, _, name, role in fn_args:
            if name.endswith(".seed") and name not in feeds:
                feeds[name] = np.array(0, dtype=np.int64)
        got = H.run_forward(mlir_path, feeds, args.dir)
        reference = copy.deepcopy(model)
        with torch.no_grad():
            outputs = reference(*inputs)
        if isinstance(outputs, torch.Tensor):
            outputs = (outputs,)
        buffers = dict(reference.named_buffers())
        output_index = 0
        for _, name, role in results:
            if role in ("output", "loss"):
                expected = outputs[output_index].numpy()
                output_index += 1
            elif role == "buffer":
                expected = buffers[name].numpy()
            else:
                continue
            checks += 1
            ok &= H.compare(f"{role} '{name}'", got[name], expected,
                            **tolerance)
    if not ok:
        sys.exit(1)
    print(f"ALL {checks} CHECKS PASS")


if __name__ == "__main__":
    main()
