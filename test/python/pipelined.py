# Trainer.train(batches): each batch begun before the step before it is
# finished (amp_train_step_begin/finish), so that on a GPU its upload
# overlaps that step. Against step() on the same batches from the same
# seed: the same losses and the same trained state, bit for bit, on the
# CPU (begin runs the step at once) and on the emulated CUDA device (the
# runtime's pipelined path: a second set of input buffers, the next batch
# uploaded on the upload stream). The learning-rate schedule follows the
# updates; leaving the loop early finishes the steps already begun; a
# batch of another size goes to its own compiled step in the middle of the
# pipeline.
# RUN: rm -rf %t && mkdir -p %t && %amp_python %s %t | FileCheck %s
# RUN: %if torch2 %{ rm -rf %t.torch2 && mkdir -p %t.torch2 && %amp_python2 %s %t.torch2 | FileCheck %s %}
# CHECK: cpu: 6 losses identical to step()'s: True; state identical: True; steps 6
# CHECK: cpu: early exit after 2 losses: steps 3
# CHECK: cuda-emulator: 6 losses identical to step()'s: True; state identical: True; steps 6
# CHECK: cuda-emulator: early exit after 2 losses: steps 3
# CHECK: cuda-emulator: partial batch in the pipeline: True
# CHECK: batches taken when the first loss is yielded: 2
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "Inputs"))
import amp_testing as T  # noqa: E402,F401 (warnings, one thread)
import amp  # noqa: E402
import torch  # noqa: E402

nn = torch.nn
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.Linear(32, 4))
batches = [(torch.randn(8, 16), torch.randint(0, 4, (8,))) for _ in range(6)]
schedule = amp.schedules.linear_warmup(1e-2, warmup_steps=4)


def make(target):
    return amp.compile(model, example_inputs=(batches[0][0],),
                       optimizer="adamw", lr=1e-2, target=target,
                       lr_schedule=schedule)


def same_state(a, b):
    sa, sb = a.state_dict(), b.state_dict()
    return list(sa) == list(sb) and all(torch.equal(sa[k], sb[k]) for k in sa)


for target in ["cpu", "cuda-emulator"]:
    plain, piped = make(target), make(target)
    expected = [plain.step(x, y) for x, y in batches]
    losses = list(piped.train(batches))
    print("%s: %d losses identical to step()'s: %s; state identical: %s; "
          "steps %d" % (target, len(losses), losses == expected,
                        same_state(plain, piped), piped.steps))
    early = make(target)
    for k, _ in enumerate(early.train(batches)):
        if k == 1:
            break
    print("%s: early exit after 2 losses: steps %d" % (target, early.steps))

# A partial batch (4 rows) between full ones: step() and train() move to a
# step compiled for it and back alike.
mixed = batches[:2] + [(batches[2][0][:4], batches[2][1][:4])] + batches[3:]
plain, piped = make("cuda-emulator"), make("cuda-emulator")
expected = [plain.step(x, y) for x, y in mixed]
print("cuda-emulator: partial batch in the pipeline: %s" %
      (list(piped.train(mixed)) == expected and same_state(plain, piped)))

# The pipeline in action: the second batch is taken (and begun) before the
# first step's loss is yielded.
taken = []


def counted(items):
    for item in items:
        taken.append(item)
        yield item


trainer = make("cuda-emulator")
next(iter(trainer.train(counted(batches))))
print("batches taken when the first loss is yielded:", len(taken))

# A bad batch in the middle fails with the reason; the steps begun before
# it are finished, so the trainer goes on.
# CHECK: bad batch -> TypeError: train() takes batches of the model's 1 input(s) and 1 label tensor(s), got a batch of 1; steps 2
trainer = make("cuda-emulator")
try:
    for _ in trainer.train(batches[:2] + [(batches[2][0],)]):
        pass
except TypeError as e:
    print("bad batch -> TypeError: %s; steps %d" % (e, trainer.steps))
