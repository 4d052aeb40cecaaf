"""Checks an FP8 checkpoint round trip (fp8-checkpoint.test).

fp8_resume.py check FULL HALF RESUMED: the metrics (JSON lines) of N + M
steps in one run, of the first N, and of M more after loading the first
run's checkpoint; the resumed losses and loss scales must equal the last M
of the full run exactly, and the checkpoint saved after N steps must hold
a scaling state that is in use (every scale set, the history rolled).

fp8_resume.py fresh IN OUT: IN with the FP8 scaling state reset to a fresh
one (zeros), to show that resuming depends on it."""
import json
import sys

import numpy as np

import amp_checkpoint


def metrics(path):
    return [(row["loss"], row["scale"], row["skipped"])
            for row in map(json.loads, open(path))]


if sys.argv[1] == "check":
    full, half, resumed = (metrics(p) for p in sys.argv[2:5])
    state = amp_checkpoint.read(sys.argv[5])
    scale, history = state["fp8.scale"], state["fp8.amax_history"]
    rows = int((history != 0).any(axis=1).sum())
    print("scaling state after %d steps: %d scales, all set: %s; "
          "%d of %d history rows filled" % (
              len(half), scale.size,
              "yes" if np.all(scale > 0) and np.all(scale != 1) else "NO",
              rows, history.shape[0]))
    same = half == full[:len(half)] and resumed == full[len(half):]
    print("resumed losses equal the full run's: %s" % ("yes" if same
                                                       else "NO"))
    if not same:
        for i, (a, b) in enumerate(zip(full, half + resumed)):
            print("  step %d: full %r, resumed %r" % (i + 1, a, b))
        sys.exit(1)
elif sys.argv[1] == "fresh":
    state = amp_checkpoint.read(sys.argv[2])
    state["fp8.scale"] = np.zeros_like(state["fp8.scale"])
    state["fp8.amax_history"] = np.zeros_like(state["fp8.amax_history"])
    amp_checkpoint.write(sys.argv[3], list(state.items()))
elif sys.argv[1] == "differ":
    full, fresh = metrics(sys.argv[2]), metrics(sys.argv[3])
    differs = fresh != full[len(full) - len(fresh):]
    print("resumed with a fresh scaling state: the losses %s" % (
        "differ" if differs else "are the SAME"))
    sys.exit(0 if differs else 1)
