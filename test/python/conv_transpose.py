# nn.ConvTranspose2d (issue 35) through amp.compile, under PyTorch 1.13
# (ONNX ConvTranspose) and 2.x (torch.export's transposed aten.convolution),
# on the CPU backend and the emulated CUDA device: for each configuration
# (a UNet decoder's 2x upsampling, kernel 2 stride 2, groups with dilation,
# per-dimension strides, paddings and output paddings, output_padding at
# or beyond the stride), the forward against PyTorch's, then the
# gradients of one SGD step (lr 1, so each parameter moves by exactly its
# gradient) against PyTorch's autograd: the weight, the bias and the
# input's (an added parameter `shift`, zero, whose gradient is the
# input's).
# RUN: %amp_python %s | FileCheck %s
# RUN: %if torch2 %{ %amp_python2 %s | FileCheck %s %}
# CHECK-COUNT-12: forward within 1e-05, gradients of weight, bias, input within 1e-05
# CHECK: ALL 12 PASS
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "Inputs"))
import amp_testing as T  # noqa: E402,F401  (one thread, warnings off)
import amp  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

# The forward is a sum of a few dozen products in another order, and the
# gradients come back as p - (p - g) in f32, which loses the bits of g
# below p's ulp: both measured within 3e-7 relative to their largest
# element; a wrong tap, stride, padding or group moves them by O(1).
FORWARD, GRADIENT = 1e-5, 1e-5

CONFIGS = [
    ("unet_up", dict(in_channels=4, out_channels=6, kernel_size=3, stride=2,
                     padding=1, output_padding=1), (2, 4, 5, 6)),
    ("k2_s2", dict(in_channels=4, out_channels=3, kernel_size=2, stride=2),
     (2, 4, 3, 4)),
    ("groups_dilation", dict(in_channels=4, out_channels=6, kernel_size=3,
                             padding=1, groups=2, dilation=2), (2, 4, 5, 5)),
    ("mixed", dict(in_channels=4, out_channels=2, kernel_size=(3, 2),
                   stride=(3, 2), padding=(0, 1), output_padding=(2, 1),
                   dilation=(2, 1)), (2, 4, 4, 5)),
    # output_padding at or beyond the stride (PyTorch allows it below the
    # dilation): from the end padding, and beyond it zero rows.
    ("padding_from_end", dict(in_channels=2, out_channels=3, kernel_size=3,
                              padding=2, output_padding=2, dilation=3),
     (2, 2, 4, 5)),
    ("zero_rows", dict(in_channels=2, out_channels=3, kernel_size=3,
                       output_padding=(2, 1), dilation=3), (2, 2, 4, 4)),
]


class Probe(nn.Module):
    def __init__(self, shape, **conv):
        super().__init__()
        self.shift = nn.Parameter(torch.zeros(shape))
        self.conv = nn.ConvTranspose2d(**conv)

    def forward(self, x):
        return self.conv(x + self.shift)


def relative(a, b):
    return float((a.double() - b.double()).abs().max() /
                 max(1e-12, float(b.double().abs().max())))


passed = 0
for target in ("cpu", "cuda-emulator"):
    for name, conv, shape in CONFIGS:
        torch.manual_seed(0)
        model = Probe(shape, **conv)
        x = torch.randn(shape)
        with torch.no_grad():
            expected = model(x)
        t = torch.randn(expected.shape)
        trainer = amp.compile(model, example_inputs=(x,), loss="mse",
                              optimizer="sgd", lr=1.0, target=target)
        forward = relative(trainer.eval(x), expected)
        loss = F.mse_loss(model(x), t)
        loss.backward()
        amp_loss = trainer.step(x, t)
        after = trainer.state_dict()
        errors = {}
        for key, what in (("conv.weight", "weight"), ("conv.bias", "bias"),
                          ("shift", "input")):
            before = dict(model.named_parameters())[key]
            errors[what] = relative(before.detach() - after[key], before.grad)
        ok = forward <= FORWARD and all(e <= GRADIENT for e in
                                        errors.values()) and \
            abs(amp_loss - loss.item()) <= FORWARD * abs(loss.item())
        if ok:
            passed += 1
            print("%s %s: forward within %g, gradients of weight, bias, input "
                  "within %g" % (target, name, FORWARD, GRADIENT))
        else:
            print("%s %s: FAIL: forward %.3g, loss %r vs %r, gradients %s" %
                  (target, name, forward, amp_loss, loss.item(), errors))
total = 2 * len(CONFIGS)
print("ALL %d PASS" % total if passed == total else
      "%d OF %d FAIL" % (total - passed, total))
