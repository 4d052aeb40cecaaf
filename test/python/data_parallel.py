# The Python package takes amp-compile's data-parallel options
# (docs/DataParallel.md). Started alone (no mpirun) a data-parallel
# library is one rank of one: it trains exactly as the library without
# data parallelism (the all-reduce of one rank returns its input).
# REQUIRES: mpi
# RUN: %amp_python %s | FileCheck %s
# RUN: %if torch2 %{ %amp_python2 %s | FileCheck %s %}
# CHECK: data_parallel alone: 8 losses equal to the plain library's
# CHECK: dp_reduction='max' -> ValueError: {{.*}}dp_reduction{{.*}}
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "Inputs"))
import amp_testing as T  # noqa: E402
import amp  # noqa: E402

model = T.mlp()
x0, _ = next(iter(T.mlp_data()))


def losses(**options):
    trainer = amp.compile(model, example_inputs=(x0,), optimizer="sgd",
                          lr=1e-2, **options)
    return T.amp_losses(trainer, T.mlp_data(), epochs=1)[:8]


plain = losses()
alone = losses(data_parallel=True, bucket_cap_mb=0.001)
assert plain == alone, (plain, alone)
print("data_parallel alone: %d losses equal to the plain library's"
      % len(alone))

try:
    losses(data_parallel=True, dp_reduction="max")
except ValueError as error:
    print("dp_reduction='max' -> ValueError:", error)
