"""accumulate_check.py make DIR: 64 samples of x (16 features, N(0, 1)) and
labels in [0, 4) as .npy files. accumulate_check.py compare A.jsonl
B.jsonl RTOL: the per-step losses of two --metrics files agree within RTOL
relative (prints the worst)."""
import json
import sys

import numpy as np


def make(directory):
    rng = np.random.default_rng(7)
    np.save(directory + "/x.npy", rng.standard_normal((64, 16), np.float32))
    np.save(directory + "/y.npy", rng.integers(0, 4, 64).astype(np.int64))


def losses(path):
    with open(path) as f:
        return [json.loads(line)["loss"] for line in f if line.strip()]


def compare(a, b, rtol):
    ours, theirs = losses(a), losses(b)
    assert len(ours) == len(theirs), (len(ours), len(theirs))
    worst = max(abs(x - y) / abs(y) for x, y in zip(ours, theirs))
    print("%d steps: worst relative difference %s" %
          (len(ours), "within %s" % rtol if worst <= float(rtol)
           else "%.3g > %s" % (worst, rtol)))


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2])
    else:
        compare(*sys.argv[2:5])
