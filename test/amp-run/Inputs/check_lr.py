"""Checks amp-run's per-step learning rates against python/amp/schedules.py.

  check_lr.py SCHEDULES_PY METRICS LR SPEC

SPEC is amp-run's --lr-schedule ("NAME[:KEY=VALUE,...]"); the keys are the
keyword arguments of schedules.NAME. Prints one line per step and fails on
a rate that differs by more than 1e-6 relative."""
import importlib.util
import json
import sys

spec = importlib.util.spec_from_file_location("schedules", sys.argv[1])
schedules = importlib.util.module_from_spec(spec)
spec.loader.exec_module(schedules)

name, _, arguments = sys.argv[4].partition(":")
kwargs = {}
for item in filter(None, arguments.split(",")):
    key, value = item.split("=")
    kwargs[key] = int(value) if key.endswith(("_steps", "_size")) else \
        float(value)
schedule = getattr(schedules, name)(float(sys.argv[3]), **kwargs)
with open(sys.argv[2]) as metrics:
    for index, line in enumerate(metrics):
        got = json.loads(line)["lr"]
        want = schedule(index)
        ok = abs(got - want) <= 1e-6 * max(abs(want), 1e-12)
        print("step %d lr %.6g %s" % (index + 1, got,
                                       "ok" if ok else "expected %.9g" % want))
        if not ok:
            sys.exit(1)
