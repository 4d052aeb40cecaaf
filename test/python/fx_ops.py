# Ops of the model zoo (issue 35) through the torch.export front door,
# trained against PyTorch fp32: upsampling (nearest, bilinear with and
# without align_corners, by scale and by size), hardswish/hardsigmoid,
# relu6/hardtanh, constant padding, average pooling with ceil_mode,
# indexing by an integer tensor (Swin's relative position bias), sin/cos,
# mish, cumsum, einsum, isnan/isinf guards; stochastic depth's random drop
# path (its samples differ from PyTorch's: checked by its statistics and
# in eval mode).
# REQUIRES: torch2
# RUN: %amp_python2 %s | FileCheck %s
# CHECK: upsample_nearest: 10 losses within 1e-05
# CHECK: upsample_bilinear: 10 losses within 1e-05
# CHECK: upsample_bilinear_align_corners: 10 losses within 1e-05
# CHECK: hard_activations: 10 losses within 1e-05
# CHECK: clip_activations: 10 losses within 1e-05
# CHECK: pad: 10 losses within 1e-05
# CHECK: sin_cos: 10 losses within 1e-05
# CHECK: index_tensor: 10 losses within 1e-05
# CHECK: odd_ceil_pool: aten.avg_pool2d {{.*}}(fx_ops.py:[[#]]): average pooling with ceil_mode that adds a window is not supported
# CHECK: mish: 10 losses within 1e-05
# CHECK: cumsum: 10 losses within 1e-05
# CHECK: einsum: 10 losses within 1e-05
# CHECK: nonfinite_guard: 10 losses within 1e-05
# CHECK: group_norm: 10 losses within 1e-05
# CHECK: drop_path: kept fraction {{0\.[0-9]+}} (expected 0.75), eval outputs within 1e-05
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "Inputs"))
import amp_testing as T  # noqa: E402
import amp  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

# Tolerance as in front_door.py: 10 fp32 AdamW steps in another summation
# order stay within ~1e-6 relative; a wrong index or weight is far off.
TOLERANCE = 1e-5


def train(name, model, shape, classes=4):
    return T.train_like_torch(name, model, shape, classes, TOLERANCE)


class Upsample(nn.Module):
    def __init__(self, **interpolate):
        super().__init__()
        self.conv = nn.Conv2d(2, 3, 3, padding=1)
        self.head = nn.Linear(3 * 36, 4)
        self.interpolate = interpolate

    def forward(self, x):
        y = F.interpolate(self.conv(x), **self.interpolate)
        return self.head(F.adaptive_avg_pool2d(y, 6).flatten(1) if
                         y.shape[-1] != 6 else y.flatten(1))


torch.manual_seed(0)
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
        h = self.fc1(x)
        return self.fc2(F.hardswish(h) + F.hardsigmoid(h))


train("hard_activations", Hard(), (8, 8))


class Clip(nn.Module):
    """nn.ReLU6 (MobileNetV2, EfficientNet-Lite) and F.hardtanh with
    bounds the scaled inputs cross: a wrong bound or a gradient through the
    clipped side is far off."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.relu6 = nn.ReLU6()
        self.fc2 = nn.Linear(16, 4)

    def forward(self, x):
        h = self.fc1(x) * 8
        return self.fc2(self.relu6(h) + F.hardtanh(h, -2.0, 3.0))


train("clip_activations", Clip(), (8, 8))


class Pad(nn.Module):
    """F.pad in constant mode (timm's same-padding and Swin's windows):
    the last dimension padded by 1 and 2 with 0.5, the one before cropped
    by 1 in front and padded by 2 behind; then ResNet-D's 2x2 average
    pooling with ceil_mode on the even map this gives."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 3, 3, padding=1)
        self.pool = nn.AvgPool2d(2, 2, ceil_mode=True,
                                 count_include_pad=False)
        self.fc = nn.Linear(3 * 3 * 4, 4)

    def forward(self, x):
        h = F.pad(self.conv(x), (1, 2, -1, 2), value=0.5)
        return self.fc(self.pool(h).flatten(1))


train("pad", Pad(), (4, 2, 5, 5))


class SinCos(nn.Module):
    """Sines and cosines of learned phases (rotary embeddings computed in
    the forward, a diffusion timestep's embedding): the gradient flows
    through both, so a wrong sign or a swapped derivative fails."""

    def __init__(self):
        super().__init__()
        self.phase = nn.Linear(8, 16)
        self.fc = nn.Linear(32, 4)

    def forward(self, x):
        p = self.phase(x) * 3
        return self.fc(torch.cat([torch.sin(p), torch.cos(p)], dim=-1))


train("sin_cos", SinCos(), (8, 8))


class RelativeBias(nn.Module):
    """Swin's relative position bias: a learned table indexed by a buffer
    of indices (some negative, counted from the end as PyTorch does), added
    to attention-like scores; the table's gradient is a scatter-add, so a
    wrong or unwrapped index fails the comparison."""

    def __init__(self):
        super().__init__()
        self.table = nn.Parameter(torch.randn(7, 2))
        self.register_buffer("index", torch.tensor([[0, 3, -1], [6, -7, 2],
                                                    [3, 3, 5]]))
        self.fc = nn.Linear(3 * 3 * 2, 4)
        self.scale = nn.Linear(8, 1)

    def forward(self, x):
        bias = self.table[self.index]
        scores = self.scale(x)[:, :, None, None] + bias
        return self.fc(scores.flatten(1))


train("index_tensor", RelativeBias(), (4, 8))


class OddCeilPool(nn.Module):
    def forward(self, x):
        return F.avg_pool2d(x, 2, ceil_mode=True).flatten(1)


try:
    amp.compile(OddCeilPool(), example_inputs=(torch.randn(2, 2, 5, 5),))
    print("odd_ceil_pool: FAIL: compiled")
except amp.CompileError as error:
    print("odd_ceil_pool:", str(error).split(": ", 2)[-1])


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
        return self.fc(torch.cumsum(x, 1)[:, -1] / 8 +
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


class GroupNormSiLU(nn.Module):
    # nn.GroupNorm reaches the importer as aten.native_group_norm (the
    # decomposition keeps it), once refused; with an affine and a plain
    # instance: diffusion UNets use both.
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 8, 3, padding=1)
        self.norm = nn.GroupNorm(4, 8)
        self.plain = nn.GroupNorm(2, 8, affine=False)
        self.head = nn.Linear(8 * 16, 4)

    def forward(self, x):
        y = F.silu(self.norm(self.conv(x)))
        return self.head(self.plain(y).flatten(1))


train("group_norm", GroupNormSiLU(), (4, 2, 4, 4))


class DropPath(nn.Module):
    """torchvision's stochastic depth (row mode) on a residual branch."""

    def __init__(self, p=0.25):
        super().__init__()
        self.p = p
        self.fc = nn.Linear(8, 8)
        self.head = nn.Linear(8, 4)

    def forward(self, x):
        branch = self.fc(x)
        if self.training:
            keep = torch.empty((x.shape[0], 1)).bernoulli_(1 - self.p)
            branch = branch * keep / (1 - self.p)
        return self.head(x + branch)


class DropPathLoss(nn.Module):
    """The drop path's kept fraction as the loss: the mean of ones kept
    and scaled by 1 / (1 - p) is the kept fraction / (1 - p)."""

    def __init__(self, p=0.25):
        super().__init__()
        self.p = p
        self.w = nn.Parameter(torch.ones(()))

    def forward(self, x):
        keep = torch.empty((x.shape[0], 1)).bernoulli_(1 - self.p)
        return (x * keep / (1 - self.p)).mean() * self.w


ones = torch.ones(4096, 1)
sampler = amp.compile(DropPathLoss(), example_inputs=(ones,), loss="none",
                      optimizer="sgd", lr=0.0)
fractions = [sampler.step(ones) * 0.75 for _ in range(3)]
# 4096 rows: the fraction's standard deviation is 0.0068; 0.72..0.78 is
# over 4 of them, and each step draws new samples.
fair = all(0.72 <= f <= 0.78 for f in fractions) and \
    len(set(fractions)) == len(fractions)
model = DropPath()
trainer = amp.compile(model, example_inputs=(torch.randn(8, 8),), lr=1e-2)
trainer.step(torch.randn(8, 8), torch.randint(0, 4, (8,)))
trainer.copy_to(model)
x = torch.randn(8, 8)
with torch.no_grad():
    difference = (trainer.eval(x) - model.eval()(x)).abs().max().item()
print("drop_path: kept fraction %.3f (expected 0.75), eval outputs within "
      "1e-05" % fractions[0] if fair and difference <= 1e-5 else
      "drop_path: FAIL: kept fractions %s, eval difference %g" %
      (fractions, difference))
