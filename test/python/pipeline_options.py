# The amp package's compile keywords, their choices and amp-compile's
# defaults come from the compiler's TrainingPipelineOptions through the
# extension (_amp.pipeline_options), not from a table of the package's own.
# RUN: %amp_python %s | FileCheck %s
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "Inputs"))
import amp_testing as T  # noqa: E402,F401
from amp import _amp, trainer  # noqa: E402

options = {o["name"]: o for o in _amp.pipeline_options()}
for name in ("target", "optimizer", "lr", "accumulate", "allow-tf32",
             "dp-reduction"):
    o = options[name]
    print(name, o["kind"], repr(o["default"]), ",".join(o["choices"]))
# CHECK: target choice 'cpu' cpu,cuda,cuda-emulator
# CHECK-NEXT: optimizer choice 'sgd' sgd,adamw
# CHECK-NEXT: lr number 0.01
# CHECK-NEXT: accumulate integer 1
# CHECK-NEXT: allow-tf32 flag False
# CHECK-NEXT: dp-reduction choice 'mean' mean,sum

# Every pipeline option is a keyword (with _ for -) except those the
# binding sets and the keywords of their own.
print(sorted(set(n.replace("-", "_") for n in options) -
             set(trainer._PIPELINE_OPTIONS)))
# CHECK-NEXT: ['cxx', 'lower', 'model_abi', 'policy']
print(all(trainer._CHOICES[k] == options[v]["choices"]
          for k, v in trainer._PIPELINE_OPTIONS.items()
          if options[v]["choices"]))
# CHECK-NEXT: True

# amp.compile's own defaults, where they differ from amp-compile's.
print(sorted(trainer._DEFAULTS.items()))
# CHECK-NEXT: [('loss', 'cross_entropy'), ('lr', 0.001), ('optimizer', 'adamw')]
