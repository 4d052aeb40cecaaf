"""Checks an nn.Embedding(10, 4, padding_idx=3) trained by amp-run
(Inputs/embedding_padding.mlir: loss = sum(table[ids] * c), plain SGD).

    embedding_padding.py make DIR
        writes DIR/ids.npy: ids that name the padding row 3 three times,
        rows 0, 1, 7 and 9, and never the others
    embedding_padding.py check INITIAL.ckpt TRAINED.ckpt IDS.npy LR STEPS
        prints one line per check and exits non-zero on a failure:
        - the padding row is bit-identical to its initial value (it would
          move by 3 * LR * c per step if the attribute were ignored);
        - every other row is its initial value minus STEPS * LR * count * c,
          computed step by step in float32 (rows no id names stay put).
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "amp-compile", "Inputs"))
import amp_checkpoint  # noqa: E402

PADDING = 3
C = np.array([1.0, -2.0, 0.5, 4.0], dtype=np.float32)


def make(directory):
    ids = np.array([[3, 0, 7, 3, 1], [9, 3, 0, 0, 7]], dtype=np.int64)
    np.save(os.path.join(directory, "ids.npy"), ids)


def check(initial_path, trained_path, ids_path, lr, steps):
    initial = amp_checkpoint.read(initial_path)["emb.weight"]
    trained = amp_checkpoint.read(trained_path)["emb.weight"]
    ids = np.load(ids_path)
    lr = np.float32(lr)
    counts = np.bincount(ids.ravel(), minlength=initial.shape[0])
    expected = initial.copy()
    for _ in range(steps):
        for row in range(initial.shape[0]):
            if row != PADDING:
                expected[row] = expected[row] - lr * (
                    np.float32(counts[row]) * C)
    ok = True
    same = np.array_equal(trained[PADDING], initial[PADDING])
    print(("PASS" if same else "FAIL") +
          f" padding row {PADDING} unchanged (named {counts[PADDING]} times)")
    ok &= same
    others = [r for r in range(initial.shape[0]) if r != PADDING]
    err = float(np.max(np.abs(trained[others] - expected[others])))
    close = err <= 1e-6 * (1 + float(np.max(np.abs(expected[others]))))
    moved = int(np.sum(np.any(trained[others] != initial[others], axis=1)))
    print(("PASS" if close else "FAIL") +
          f" other rows follow SGD (max abs err {err:.3g}, {moved} rows moved)")
    ok &= close
    if not ok:
        sys.exit(1)


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2])
    else:
        check(sys.argv[2], sys.argv[3], sys.argv[4], float(sys.argv[5]),
              int(sys.argv[6]))
