# torch.gather (amp.gather_elements, issue 35) trained against PyTorch fp32:
# gathers along the last axis with run-time indices (repeated, both ends)
# and along axis 0 with known indices shorter than the data off the axis,
# so that the scatter-add gradient sums repeated positions and leaves the
# others zero. 10 plain SGD steps (each update is the gradient, so a
# gradient scattered to the wrong place or summed wrongly shows): every
# loss and the trained parameters (whose gradients all pass through the
# gathers; the buffer of known indices is a constant of the step) against
# PyTorch's, on the CPU and on the emulated CUDA device; eval outputs; an
# index out of range fails the step (PyTorch: RuntimeError; amp: an
# AmpError that is also an IndexError; valid indices: [0, 10) as in
# PyTorch under 2.x, ONNX's [-10, 10) under 1.13). Under PyTorch 1.13 (ONNX
# GatherElements) and 2.x (torch.export's aten.gather).
# RUN: %amp_python %s | FileCheck %s
# RUN: %if torch2 %{ %amp_python2 %s | FileCheck %s %}
# CHECK: gather_elements cpu: 10 losses within 1e-05
# CHECK-NEXT: gather_elements cpu: trained parameters within 1e-05
# CHECK-NEXT: gather_elements cpu: eval outputs within 1e-05
# CHECK-NEXT: gather_elements cpu: index 10: torch RuntimeError, amp IndexError (the training step failed: index 10 out of range [{{-10|0}}, 10) in amp.gather_elements at {{.*}}; the step's updates were skipped)
# CHECK-NEXT: gather_elements cuda-emulator: 10 losses within 1e-05
# CHECK-NEXT: gather_elements cuda-emulator: trained parameters within 1e-05
import copy
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "Inputs"))
import amp_testing as T  # noqa: E402
import amp  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

# 10 fp32 steps in another summation order stay within ~1e-6 relative; a
# gradient scattered to the wrong position is far off.
TOLERANCE = 1e-5


class Gathers(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 10)
        self.head = nn.Linear(3, 4)
        # Rows 0 and 3 of the first 4 columns, row 3 twice.
        self.register_buffer("rows", torch.tensor([[3, 0, 3, 1],
                                                   [3, 3, 0, 2]]))

    def forward(self, x, idx):
        h = self.fc(x)                                   # [8, 10]
        picked = torch.gather(h, -1, idx)                # [8, 3]
        mixed = torch.gather(h, 0, self.rows).sum(0)     # [4]
        return self.head(picked) + mixed


def batches():
    generator = torch.Generator().manual_seed(1)
    out = []
    for _ in range(10):
        x = torch.randn(8, 6, generator=generator)
        idx = torch.randint(0, 10, (8, 3), generator=generator)
        idx[0] = torch.tensor([0, 9, 9])  # the ends, a repeat
        y = torch.randint(0, 4, (8,), generator=generator)
        out.append((x, idx, y))
    return out


def run(target):
    name = "gather_elements " + target
    torch.manual_seed(0)
    model = Gathers()
    data = batches()
    trainer = amp.compile(model, example_inputs=data[0][:2],
                          optimizer="sgd", lr=0.1, target=target)
    ours = [trainer.step(x, idx, y) for x, idx, y in data]
    ref = copy.deepcopy(model)
    optimizer = torch.optim.SGD(ref.parameters(), lr=0.1)
    theirs = []
    for x, idx, y in data:
        optimizer.zero_grad()
        loss = F.cross_entropy(ref(x, idx), y)
        loss.backward()
        optimizer.step()
        theirs.append(loss.item())
    T.check_close(name, ours, theirs, TOLERANCE)
    state = trainer.state_dict()
    close = all(torch.allclose(state[k], v, rtol=TOLERANCE, atol=TOLERANCE)
                for k, v in ref.named_parameters())
    print("%s: trained parameters %s" % (
        name, "within %g" % TOLERANCE if close else "FAIL"))
    return trainer, ref, data


trainer, ref, data = run("cpu")
x, idx, y = data[0]
with torch.no_grad():
    expected = ref.eval()(x, idx)
got = trainer.eval(x, idx)
print("gather_elements cpu: eval outputs %s" % (
    "within %g" % TOLERANCE
    if torch.allclose(got, expected, rtol=TOLERANCE, atol=TOLERANCE)
    else "FAIL"))

bad = idx.clone()
bad[2, 1] = 10
try:
    ref(x, bad)
    theirs = "no error"
except IndexError:
    theirs = "IndexError"
except RuntimeError:
    theirs = "RuntimeError"
try:
    trainer.step(x, bad, y)
    ours = "no error"
except IndexError as error:
    ours = "IndexError (%s)" % error
print("gather_elements cpu: index 10: torch %s, amp %s" % (theirs, ours))

run("cuda-emulator")
