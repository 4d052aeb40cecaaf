# The model zoo's ops (issue 35) through amp.compile's ONNX capture (the
# default on PyTorch 1.x), trained against PyTorch fp32 as fx_ops.py trains
# them through torch.export: upsampling (nearest, bilinear with and
# without align_corners, by scale and by size: ONNX Resize), hardswish and
# hardsigmoid, mish, cumsum, einsum, an isnan/isinf guard, a transposed
# convolution; stochastic depth's drop path as PyTorch 1.x exports it
# (floor(keep + torch.rand(...)): RandomUniformLike, Add, Floor), whose
# samples differ from PyTorch's: checked by its kept fraction, and in eval
# mode against PyTorch.
# RUN: %amp_python %s | FileCheck %s
# CHECK: upsample_nearest: 10 losses within 1e-05
# CHECK: upsample_bilinear: 10 losses within 1e-05
# CHECK: upsample_bilinear_align_corners: 10 losses within 1e-05
# CHECK: hard_activations: 10 losses within 1e-05
# CHECK: mish: 10 losses within 1e-05
# CHECK: cumsum: 10 losses within 1e-05
# CHECK: einsum: 10 losses within 1e-05
# CHECK: nonfinite_guard: 10 losses within 1e-05
# CHECK: unet_decoder: 10 losses within 1e-05
# CHECK: drop_path: kept fractions {{0\.[0-9]+}} {{0\.[0-9]+}} {{0\.[0-9]+}} (expected 0.75), eval outputs within 1e-05
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "Inputs"))
import amp_testing as T  # noqa: E402
import amp  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

# As fx_ops.py: 10 fp32 AdamW steps in another summation order stay within
# ~1e-6 relative; a wrong index, weight or tap is far off.
TOLERANCE = 1e-5


def train(name, model, shape, classes=4):
    T.train_like_torch(name, model, shape, classes, TOLERANCE,
                       capture="onnx")


class Upsample(nn.Module):
    def __init__(self, **interpolate):
        super().__init__()
        self.conv = nn.Conv2d(2, 3, 3, padding=1)
        self.head = nn.Linear(3 * 36, 4)
        self.interpolate = interpolate

    def forward(self, x):
        return self.head(F.interpolate(self.conv(x),
                                       **self.interpolate).flatten(1))


train("upsample_nearest", Upsample(scale_factor=2, mode="nearest"),
      (4, 2, 3, 3))
train("upsample_bilinear", Upsample(size=(6, 6), mode="bilinear",
                                    align_corners=False), (4, 2, 4, 5))
train("upsample_bilinear_align_corners",
      Upsample(scale_factor=2, mode="bilinear", align_corners=True),
      (4, 2, 3, 3))


class Hard(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.fc2 = nn.Linear(16, 4)

    def forward(self, x):
        h = self.fc1(x) * 3
        return self.fc2(F.hardswish(h) + F.hardsigmoid(h))


train("hard_activations", Hard(), (8, 8))


class Mish(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.fc2 = nn.Linear(16, 4)

    def forward(self, x):
        return self.fc2(F.mish(self.fc1(x)))


train("mish", Mish(), (8, 8))


class CumSum(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        return self.fc(torch.cumsum(self.fc.weight.sum() * x, 1)[:, -1] / 8 +
                       torch.cumsum(x, -1)[:, 0])


train("cumsum", CumSum(), (4, 3, 8))


class Einsum(nn.Module):
    def __init__(self):
        super().__init__()
        self.q = nn.Linear(8, 8)
        self.k = nn.Linear(8, 8)
        self.fc = nn.Linear(5, 4)

    def forward(self, x):
        scores = torch.einsum("bid,bjd->bij", self.q(x), self.k(x))
        return self.fc(scores.softmax(-1).sum(1))


train("einsum", Einsum(), (4, 5, 8))


class Guard(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        y = self.fc(x)
        bad = torch.isnan(y) | torch.isinf(y)
        return torch.where(bad, torch.zeros_like(y), y)


train("nonfinite_guard", Guard(), (8, 8))


class Decoder(nn.Module):
    """A UNet decoder stage: upsampling by a transposed convolution, a skip
    concatenation, GroupNorm and SiLU."""

    def __init__(self):
        super().__init__()
        self.up = nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1,
                                     output_padding=1)
        self.conv = nn.Conv2d(4, 4, 3, padding=1)
        self.norm = nn.GroupNorm(2, 4)
        self.head = nn.Linear(4, 4)

    def forward(self, x):
        skip = F.interpolate(x[:, :2], scale_factor=2)
        y = torch.cat([self.up(x), skip], dim=1)
        y = F.silu(self.norm(self.conv(y)))
        return self.head(y.mean(dim=(2, 3)))


train("unet_decoder", Decoder(), (4, 4, 3, 3))


def drop_path(x, p, training):
    """Stochastic depth's drop path as timm wrote it before bernoulli_."""
    if not training or p == 0:
        return x
    keep = 1 - p
    mask = keep + torch.rand((x.shape[0],) + (1,) * (x.dim() - 1),
                             dtype=x.dtype)
    mask.floor_()
    return x.div(keep) * mask


class DropPath(nn.Module):
    def __init__(self, p=0.25):
        super().__init__()
        self.p = p
        self.fc = nn.Linear(8, 8)
        self.head = nn.Linear(8, 4)

    def forward(self, x):
        return self.head(x + drop_path(self.fc(x), self.p, self.training))


class DropPathSamples(nn.Module):
    """Ones through the drop path: with an mse loss against zeros, the
    loss is the kept fraction / (1 - p)^2."""

    def __init__(self, p=0.25):
        super().__init__()
        self.p = p
        self.w = nn.Parameter(torch.ones(()))

    def forward(self, x):
        return drop_path(x * self.w, self.p, True)


ones = torch.ones(4096, 1)
sampler = amp.compile(DropPathSamples(), example_inputs=(ones,), loss="mse",
                      optimizer="sgd", lr=0.0, capture="onnx")
fractions = [sampler.step(ones, torch.zeros(4096, 1)) * 0.75 ** 2
             for _ in range(3)]
# 4096 rows: the fraction's standard deviation is 0.0068; 0.72..0.78 is
# over 4 of them, and each step draws new samples.
fair = all(0.72 <= f <= 0.78 for f in fractions) and \
    len(set(fractions)) == len(fractions)
model = DropPath()
trainer = amp.compile(model, example_inputs=(torch.randn(8, 8),), lr=1e-2,
                      capture="onnx")
trainer.step(torch.randn(8, 8), torch.randint(0, 4, (8,)))
trainer.copy_to(model)
x = torch.randn(8, 8)
with torch.no_grad():
    difference = (trainer.eval(x) - model.eval()(x)).abs().max().item()
print("drop_path: kept fractions %.3f %.3f %.3f (expected 0.75), eval "
      "outputs within 1e-05" % tuple(fractions) if fair and difference <= 1e-5
      else "drop_path: FAIL: kept fractions %s, eval difference %g" %
      (fractions, difference))
