# Learning-rate schedules: each against its torch.optim.lr_scheduler twin,
# their effect on training (a cosine schedule against PyTorch with
# CosineAnnealingLR, through a DataLoader), and trainer.step(lr=...).
# RUN: %amp_python %s | FileCheck %s
# RUN: %if torch2 %{ %amp_python2 %s | FileCheck %s %}
# CHECK: linear_warmup matches LinearLR: True
# CHECK: cosine matches CosineAnnealingLR: True
# CHECK: step_decay matches StepLR: True
# CHECK: lambda_lr matches LambdaLR: True
# CHECK: cosine training: 16 losses within 1e-05
# CHECK: the schedule changes training: True
# CHECK: lr=0 leaves the weights: True
# CHECK: lr after step(lr=0): 0.0
# CHECK: bad schedule: ValueError total_steps must be a finite number >= 1, got 0
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "Inputs"))
import amp_testing as T  # noqa: E402
import amp  # noqa: E402
import torch  # noqa: E402
from torch.optim import lr_scheduler  # noqa: E402


def torch_rates(make, steps, lr=0.1):
    optimizer = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=lr)
    scheduler = make(optimizer)
    rates = []
    for _ in range(steps):
        rates.append(optimizer.param_groups[0]["lr"])
        optimizer.step()
        scheduler.step()
    return rates


def same(schedule, make, steps=12):
    ours = [schedule(i) for i in range(steps)]
    return all(abs(a - b) < 1e-9 for a, b in zip(ours,
                                                    torch_rates(make, steps)))


print("linear_warmup matches LinearLR:",
      same(amp.schedules.linear_warmup(0.1, 5, start_factor=0.2),
           lambda o: lr_scheduler.LinearLR(o, start_factor=0.2,
                                           total_iters=5)))
print("cosine matches CosineAnnealingLR:",
      same(amp.schedules.cosine(0.1, 10, min_lr=0.01),
           lambda o: lr_scheduler.CosineAnnealingLR(o, 10, eta_min=0.01),
           steps=10))
print("step_decay matches StepLR:",
      same(amp.schedules.step_decay(0.1, 3, gamma=0.5),
           lambda o: lr_scheduler.StepLR(o, 3, gamma=0.5)))
print("lambda_lr matches LambdaLR:",
      same(amp.schedules.lambda_lr(0.1, lambda s: 0.9 ** s),
           lambda o: lr_scheduler.LambdaLR(o, lambda s: 0.9 ** s)))

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(),
                            torch.nn.Linear(64, 10))


def data():
    return T.loader((32,), 10, batches=8, batch_size=16)


x0, y0 = next(iter(data()))
schedule = amp.schedules.cosine(0.1, 16)
trainer = amp.compile(model, example_inputs=(x0,), optimizer="sgd", lr=0.1,
                      lr_schedule=schedule)
ours = T.amp_losses(trainer, data(), epochs=2)
theirs, _ = T.torch_losses(model, data(), 2,
                           lambda p: torch.optim.SGD(p, lr=0.1), schedule)
T.check_close("cosine training", ours, theirs, 1e-5)
constant, _ = T.torch_losses(model, data(), 2,
                             lambda p: torch.optim.SGD(p, lr=0.1))
print("the schedule changes training:",
      max(abs(a - b) for a, b in zip(ours, constant)) > 1e-3)

before = trainer.state_dict()
trainer.step(x0, y0, lr=0.0)
print("lr=0 leaves the weights:",
      all(torch.equal(v, trainer.state_dict()[k]) for k, v in before.items()))
print("lr after step(lr=0):", trainer.lr)
try:
    amp.schedules.cosine(0.1, 0)
except ValueError as error:
    print("bad schedule:", type(error).__name__, error)
