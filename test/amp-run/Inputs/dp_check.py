"""Helpers of the data-parallel tests (test/amp-run/data-parallel*.test).

  dp_check.py data DIR N SHAPE CLASSES     DIR/x.npy (N samples of SHAPE,
                                           e.g. 64 or 3x32x32) and
                                           DIR/labels.npy, seeded
  dp_check.py inject DIR SEED BATCH RANKS STEP RANK
      sets the samples that rank RANK reads at step STEP (0-based; BATCH
      per rank, the order of amp-run --data, data_order.py) to 1e5, which
      is inf in f16
  dp_check.py losses A.jsonl B.jsonl RTOL  per-step losses of two --metrics
                                           files agree within RTOL
  dp_check.py params A.ckpt B.ckpt RTOL    parameters of two checkpoints
                                           agree within RTOL (of the
                                           largest magnitude of each)
  dp_check.py steps M.jsonl                prints each step's skipped
                                           count and scale"""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "amp-compile", "Inputs"))
import amp_checkpoint  # noqa: E402
from data_order import order  # noqa: E402


def make_data(d, n, shape, classes):
    rng = np.random.default_rng(1234)
    dims = [int(s) for s in shape.split("x")]
    np.save(d + "/x.npy", rng.standard_normal([n] + dims).astype(np.float32))
    np.save(d + "/labels.npy", rng.integers(0, classes, n).astype(np.int64))


def inject(d, seed, batch, ranks, step, rank):
    x = np.load(d + "/x.npy")
    glob = batch * ranks
    samples = order(seed, len(x), glob, step + 1)
    first = step * glob + rank * batch
    x[samples[first:first + batch]] = 1e5
    np.save(d + "/x.npy", x)


def metrics(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def relative(a, b):
    scale = max(np.max(np.abs(a)), np.max(np.abs(b)), 1e-30)
    return float(np.max(np.abs(a - b)) / scale)


def compare_losses(a, b, rtol):
    la = [m["loss"] for m in metrics(a)]
    lb = [m["loss"] for m in metrics(b)]
    assert len(la) == len(lb), "%d steps against %d" % (len(la), len(lb))
    worst = max(abs(x - y) / max(abs(x), abs(y)) for x, y in zip(la, lb))
    verdict = "match" if worst <= rtol else "differ"
    print("%d losses %s (worst relative difference %.1e)" %
          (len(la), verdict, worst))
    print("first loss %.4f last loss %.4f" % (la[0], la[-1]))


def compare_params(a, b, rtol):
    ta, tb = amp_checkpoint.read(a), amp_checkpoint.read(b)
    names = sorted(n for n in ta if "weight" in n or "bias" in n)
    names = [n for n in names if "grad_accum" not in n and "exp_avg" not in n]
    worst = max(relative(ta[n].astype(np.float64), tb[n].astype(np.float64))
                for n in names)
    verdict = "match" if worst <= rtol else "differ"
    print("%d parameters %s (worst relative difference %.1e)" %
          (len(names), verdict, worst))


def main():
    cmd = sys.argv[1]
    if cmd == "data":
        make_data(sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5]))
    elif cmd == "inject":
        inject(sys.argv[2], *map(int, sys.argv[3:8]))
    elif cmd == "losses":
        compare_losses(sys.argv[2], sys.argv[3], float(sys.argv[4]))
    elif cmd == "params":
        compare_params(sys.argv[2], sys.argv[3], float(sys.argv[4]))
    elif cmd == "steps":
        for m in metrics(sys.argv[2]):
            print("step %d skipped %d scale %g" %
                  (m["step"], m["skipped"], m["scale"]))


if __name__ == "__main__":
    main()
