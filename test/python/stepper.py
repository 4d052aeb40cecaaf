# The per-step rules of lib/Host's Stepper through the binding
# (_amp.State.stepper), which the Trainer steps with: whether a micro-batch
# completed an optimizer update, the micro-batches per update, the learning
# rate, the loss scales and the overlapped step.
# RUN: rm -rf %t && mkdir -p %t && %amp_python %s %t | FileCheck %s
# RUN: rm -rf %t && mkdir -p %t && %if torch2 %{ %amp_python2 %s %t | FileCheck %s %}
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "Inputs"))
import amp_testing as T  # noqa: E402,F401
import numpy as np  # noqa: E402
from amp import _amp  # noqa: E402
from amp._prefix import package_prefix  # noqa: E402

workdir = sys.argv[1]

LINEAR = """
func.func @linear(
    %x: tensor<4x3xf32> {amp.role = #amp.role<input>, amp.name = "x"},
    %w: tensor<2x3xf32> {amp.role = #amp.role<parameter>, amp.name = "fc.weight"},
    %b: tensor<2xf32> {amp.role = #amp.role<parameter>, amp.name = "fc.bias"})
    -> (tensor<4x2xf32> {amp.role = #amp.role<output>, amp.name = "logits"})
    attributes {amp.graph = #amp.graph<forward>} {
  %y = amp.linear %x, %w, %b
      : (tensor<4x3xf32>, tensor<2x3xf32>, tensor<2xf32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}
"""
rng = np.random.default_rng(0)
initial = {"fc.weight": rng.standard_normal((2, 3)).astype(np.float32),
           "fc.bias": rng.standard_normal(2).astype(np.float32)}
x = rng.standard_normal((4, 3)).astype(np.float32)
labels = np.array([0, 1, 1, 0], dtype=np.int64)


def state(name, options):
    path = os.path.join(workdir, name + ".so")
    _amp.compile_mlir(LINEAR, initial,
                      "loss=cross_entropy optimizer=sgd lr=0.125 " + options,
                      path, package_prefix(), "c++")
    result = _amp.State(_amp.Library(path), 0)
    result.set("x", x)
    result.set("labels", labels)
    return result


def error(call):
    try:
        call()
    except _amp.AmpError as raised:
        return "AmpError: %s" % raised
    return "no error"


# Without accumulation every step completes an update; 1 micro-batch per
# update is the only count, the learning rate reads back as set.
plain = state("plain", "")
stepper = plain.stepper
print("plain:", stepper.accumulates, stepper.accumulation, stepper.lr,
      stepper.loss_scales())
# CHECK: plain: False None 0.125 []
plain.train_step()
print("plain completed:", stepper.completed_update)
# CHECK: plain completed: True
stepper.set_accumulation(1)
print("accumulate 2:", error(lambda: stepper.set_accumulation(2)))
# CHECK: accumulate 2: AmpError: the step was compiled without gradient accumulation; pass accumulate=N to amp.compile
stepper.set_lr(0.25)
print("lr:", stepper.lr)
# CHECK: lr: 0.25

# With accumulate=2 an update completes on every second micro-batch, on
# every third once the count is 3.
accumulating = state("accumulating", "accumulate=2")
stepper = accumulating.stepper
print("accumulating:", stepper.accumulates, stepper.accumulation)
# CHECK: accumulating: True 0.0
completions = []
for count in (2, 3):
    stepper.set_accumulation(count)
    for _ in range(6):
        accumulating.train_step()
        completions.append(int(stepper.completed_update))
print("completions:", completions, "count:", stepper.accumulation)
# CHECK: completions: [0, 1, 0, 1, 0, 1, 0, 0, 1, 0, 0, 1] count: 3.0

# Dynamic loss scaling: one scale, from init-scale.
scaled = state("scaled", "precision=fp16 loss-scale=dynamic init-scale=1024")
scaled.train_step()
print("scales:", scaled.stepper.loss_scales())
# CHECK: scales: [1024.0]

# An overlapped step (begin, then finish) gives the plain step's loss.
begun, run = state("begun", ""), state("run", "")
begun.stepper.begin_step()
print("overlapped equal:", begun.stepper.finish_step() == run.train_step())
# CHECK: overlapped equal: True
