# Indices out of range raise like PyTorch's IndexError instead of reading a
# clamped row (amp-check-indices, issue 34): an embedding id of 1e9 or
# below the valid range, in step() and eval(), and a class label outside
# the classes. The failed step leaves the whole state as it was
# (parameters and AdamW's moments and step counter): the next step trains
# exactly like PyTorch's first one. Under PyTorch 2.x (torch.export) ids
# are valid in [0, 50) as in PyTorch; under 1.13 the ONNX export makes the
# embedding a Gather, whose negative indices count from the end, so ids in
# [-50, 50) are read (-1 is the last row) and only those outside fail.
# RUN: %amp_python %s | FileCheck %s --check-prefixes=CHECK,TORCH1
# RUN: %if torch2 %{ %amp_python2 %s | FileCheck %s --check-prefixes=CHECK,TORCH2 %}
# TORCH1: id 1000000000: torch IndexError, amp IndexError (the training step failed: index 1000000000 out of range [-50, 50) in amp.gather at {{.*}}; the step's updates were skipped)
# TORCH2: id 1000000000: torch IndexError, amp IndexError (the training step failed: index 1000000000 out of range [0, 50) in amp.gather at {{.*}}; the step's updates were skipped)
# CHECK-NEXT: state unchanged by the failed step: True
# TORCH1-NEXT: id -51: torch IndexError, amp IndexError (the training step failed: index -51 out of range [-50, 50) in amp.gather at {{.*}})
# TORCH2-NEXT: id -51: torch IndexError, amp IndexError (the training step failed: index -51 out of range [0, 50) in amp.gather at {{.*}})
# TORCH1-NEXT: eval id -1: torch IndexError, amp no error
# TORCH2-NEXT: eval id -1: torch IndexError, amp IndexError (evaluation failed: index -1 out of range [0, 50) in amp.gather at {{.*}})
# CHECK-NEXT: eval id 50: torch IndexError, amp IndexError (evaluation failed: index 50 out of range [{{-50|0}}, 50) in amp.gather at {{.*}})
# CHECK-NEXT: label 7: torch IndexError, amp IndexError (the training step failed: label 'labels' element 2 is 7, outside the classes [0, 5))
# CHECK-NEXT: next step like PyTorch's first: loss within 1e-05, state within 1e-05
# CHECK-NEXT: ids at the ends of the range: torch no error, amp no error
import copy

import amp
import torch
import torch.nn as nn
import torch.nn.functional as F

TOLERANCE = 1e-5


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(50, 8)
        self.fc = nn.Linear(8, 5)

    def forward(self, ids):
        return self.fc(self.embed(ids).mean(1))


def outcome(call):
    """What call() raised: amp's message, which names the op, follows."""
    try:
        call()
    except IndexError as error:
        if isinstance(error, amp.AmpError):  # as every error of a step
            return "IndexError (%s)" % error
        return "IndexError"
    return "no error"


def torch_step(model, ids, labels):
    return F.cross_entropy(model(ids), labels)


torch.manual_seed(0)
model = Model()
ids = torch.randint(0, 50, (4, 6))
labels = torch.randint(0, 5, (4,))
trainer = amp.compile(model, example_inputs=(ids,), loss="cross_entropy",
                      optimizer="adamw", lr=1e-2)
before = {k: v.clone() for k, v in trainer.state_dict().items()}


def compare(name, bad_ids, bad_labels, amp_call):
    theirs = outcome(lambda: torch_step(model, bad_ids, bad_labels))
    print("%s: torch %s, amp %s" % (name, theirs, outcome(amp_call)))


big = ids.clone()
big[1, 2] = 10**9
compare("id 1000000000", big, labels, lambda: trainer.step(big, labels))
print("state unchanged by the failed step:",
      all(torch.equal(before[k], v) for k, v in trainer.state_dict().items()))
low = ids.clone()
low[0, 0] = -51
compare("id -51", low, labels, lambda: trainer.step(low, labels))
minus_one = ids.clone()
minus_one[1, 1] = -1
compare("eval id -1", minus_one, labels, lambda: trainer.eval(minus_one))
high = ids.clone()
high[3, 5] = 50
compare("eval id 50", high, labels, lambda: trainer.eval(high))
bad_labels = labels.clone()
bad_labels[2] = 7
compare("label 7", ids, bad_labels, lambda: trainer.step(ids, bad_labels))

# The state after the failed steps is the state before them: AdamW's first
# step from it is PyTorch's first step.
ref = copy.deepcopy(model)
optimizer = torch.optim.AdamW(ref.parameters(), lr=1e-2)
optimizer.zero_grad()
theirs = torch_step(ref, ids, labels)
theirs.backward()
optimizer.step()
ours = trainer.step(ids, labels)
loss_ok = abs(ours - theirs.item()) <= TOLERANCE * (1 + abs(theirs.item()))
state = trainer.state_dict()
state_ok = all(torch.allclose(state[k], v, rtol=TOLERANCE, atol=TOLERANCE)
               for k, v in ref.state_dict().items())
print("next step like PyTorch's first: loss %s, state %s" % (
    "within %g" % TOLERANCE if loss_ok else "FAIL",
    "within %g" % TOLERANCE if state_ok else "FAIL"))

edges = ids.clone()
edges[0, 0], edges[0, 1] = 0, 49
compare("ids at the ends of the range", edges, labels,
        lambda: trainer.step(edges, labels))
