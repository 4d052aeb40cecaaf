# Trainer.find_nonfinite, the Python twin of amp-run --find-nonfinite
# (docs/Debugging.md): the fp16 exp overflow of test/amp-run's
# find-nonfinite.test, as a torch module, is named as amp-run names it, with
# the same report fields; the log of a negative value too, in fp32.
#
# RUN: rm -rf %t && mkdir -p %t
# RUN: %amp_python %s train %t | FileCheck %s
# RUN: %if torch2 %{ rm -rf %t.torch2 && mkdir -p %t.torch2 %}
# RUN: %if torch2 %{ %amp_python2 %s train %t.torch2 | FileCheck %s %}
#
# amp-run on the same export (the file the script wrote) reports the same
# op with the same fields. (PyTorch 1.x's export: PyTorch 2.x exports ONNX
# opset 18, and amp.compile captures it through torch.export, whose
# locations name the aten op and the source line instead.)
# RUN: amp-compile %t/exp.onnx --precision=fp16 --opt-level=O3 --loss-scale=none --loss=mse --optimizer=sgd --lr=0.01 -o %t/exp.so
# RUN: amp-run %t/exp.so --steps 2 --input x=%t/x.raw --find-nonfinite --find-nonfinite-report=%t/amp-run.json | FileCheck %s --check-prefix=TOOL
# TOOL: first non-finite op: amp.exp '[[NAME:.*]]' at {{.*}}exp.onnx:0:0
# RUN: %amp_python %s compare %t/python.json %t/amp-run.json | FileCheck %s --check-prefix=SAME
# SAME: python and amp-run report the same op: amp.exp
import json
import os
import sys
import warnings

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "Inputs"))
import amp_testing as T  # noqa: E402,F401
import amp  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402

nn = torch.nn


class Scaled(nn.Module):
    """exp or log of x times a weight that starts at one (as
    test/amp-run/Inputs/nonfinite_exp.mlir)."""

    def __init__(self, function):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(4))
        self.function = function

    def forward(self, x):
        return self.function(x * self.scale)

attempt = T.attempt


def compile_exp(**options):
    return amp.compile(Scaled(torch.exp), (x,), loss="mse", optimizer="sgd",
                       lr=0.01, precision="fp16", opt_level="O3",
                       loss_scale="none", **options)


def train(directory):
    global x
    # exp(12) = 162755 overflows fp16 (max 65504), not fp32.
    x = torch.full((8, 4), 12.0)
    y = torch.zeros(8, 4)
    x.numpy().tofile(os.path.join(directory, "x.raw"))
    torch.onnx.export(Scaled(torch.exp), (x,),
                      os.path.join(directory, "exp.onnx"), opset_version=13,
                      training=torch.onnx.TrainingMode.TRAINING,
                      do_constant_folding=False, input_names=["x"])

    # The first step that goes non-finite is re-run and reported once; the
    # report is also a warning.
    trainer = compile_exp(find_nonfinite=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        losses = [trainer.step(x, y) for _ in range(2)]
    print("losses", losses)
    # CHECK: losses [inf, {{.*}}]
    reports = trainer.nonfinite_reports
    print("reports", len(reports), "warnings",
          sum("first non-finite op" in str(w.message) for w in caught))
    # CHECK-NEXT: reports 1 warnings 1
    print(reports[0], end="")
    # CHECK-NEXT: find-nonfinite: step 1: the loss is inf
    # CHECK-NEXT:   first non-finite op: amp.exp '{{.+}}' at {{model\.onnx:0:0|loc\("aten\.exp \(find_nonfinite\.py:[0-9]+\)"\)}}
    # CHECK-NEXT:   precision: f16 -> f16
    # CHECK-NEXT:   operands: finite, min 12, max 12
    # CHECK-NEXT:   in f32: finite (the low precision overflowed: pin it to f32)
    op = reports[0].op
    print("fields", reports[0].step, repr(reports[0].trigger), op.kind,
          op.precision, op.operand_min, op.operand_max, op.finite_in_f32)
    # CHECK-NEXT: fields 1 'the loss is inf' amp.exp f16 -> f16 12 12 True
    with open(os.path.join(directory, "python.json"), "w") as f:
        json.dump({"reports": [r.to_dict() for r in reports]}, f)

    # "every" from step 3 on: the state already holds -inf (the update of
    # step 1), which no op of the step produced.
    trainer.find_nonfinite("every")
    trainer.step(x, y)
    report = trainer.nonfinite_reports[0]
    print("every", report.step, report.trigger, report.op)
    # CHECK-NEXT: every 3 tensor 'scale' element 0 is -inf None

    # Finite steps report nothing; off is off.
    fine = compile_exp(find_nonfinite="every")
    fine.step(torch.zeros(8, 4), y)
    print("finite", fine.nonfinite_reports)
    # CHECK-NEXT: finite []
    fine.find_nonfinite(None)
    x = torch.full((8, 4), 12.0)
    fine.step(x, y)
    print("off", fine.nonfinite_reports)
    # CHECK-NEXT: off []

    # The log of a negative value, in fp32: named, and f32 does not help.
    x = torch.full((8, 4), -2.0)
    log = amp.compile(Scaled(torch.log), (x,), loss="mse", optimizer="sgd",
                      lr=0.01, find_nonfinite="first")
    log.step(x, y)
    print(log.nonfinite_reports[0], end="")
    # CHECK-NEXT: find-nonfinite: step 1: the loss is {{-?}}nan
    # CHECK-NEXT:   first non-finite op: amp.log '{{.+}}' at {{model\.onnx:0:0|loc\("aten\.log \(find_nonfinite\.py:[0-9]+\)"\)}}
    # CHECK-NEXT:   precision: f32 -> f32
    # CHECK-NEXT:   operands: finite, min -2, max -2
    # CHECK-NEXT:   in f32: also inf or NaN (not a precision problem)

    # A failed instrumented build raises its error, as a compile does.
    broken = compile_exp(find_nonfinite=True)

    def fail(*args, **kwargs):
        raise amp.CompileError("no instrumented build")

    broken._source.build = fail
    attempt("failed build", lambda: broken.step(torch.full((8, 4), 12.0), y))
    # CHECK-NEXT: failed build -> CompileError: no instrumented build

    # Bad modes are refused with the keyword's name.
    attempt("bad mode", lambda: log.find_nonfinite("sometimes"))
    # CHECK-NEXT: bad mode -> ValueError: find_nonfinite='sometimes' is not one of True, 'first', 'every'
    attempt("bad keyword", lambda: compile_exp(find_nonfinite="always"))
    # CHECK-NEXT: bad keyword -> ValueError: find_nonfinite='always' is not one of True, 'first', 'every'


def compare(python_path, amp_run_path):
    """The reports agree field by field; the location differs only in the
    model's file name (amp.compile names its in-memory export model.onnx)."""
    with open(python_path) as f:
        ours = json.load(f)["reports"]
    with open(amp_run_path) as f:
        theirs = json.load(f)["reports"]
    assert len(ours) == len(theirs) == 1, (ours, theirs)
    for report in (ours[0], theirs[0]):
        report["op"]["location"] = os.path.basename(
            report["op"]["location"]).replace("exp.onnx", "model.onnx")
    assert ours == theirs, (ours, theirs)
    print("python and amp-run report the same op:", ours[0]["op"]["kind"])


if sys.argv[1] == "train":
    train(sys.argv[2])
else:
    compare(sys.argv[2], sys.argv[3])
