"""The order in which amp-run --data feeds samples (docs/Driver.md):
0..N-1 shuffled afresh each epoch by Fisher-Yates (for i from N-1 down to 1,
swap i with next() % (i + 1)) with one SplitMix64 generator (amp::Random)
seeded with SEED ^ 0x5EEDDA7A; each step takes the next BATCH samples and
an epoch ends when fewer than BATCH are left.

  data_order.py make DIR            writes the test's data files
  data_order.py check DIR SEED N BATCH STEPS
      checks DIR/out/batch.npy (amp-run --eval-output) against that order
      and DIR/out/loss.npy against 0 (labels aligned with inputs)"""
import sys

import numpy as np

MASK = (1 << 64) - 1


def splitmix64(state):
    while True:
        state = (state + 0x9E3779B97F4A7C15) & MASK
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        yield z ^ (z >> 31)


def order(seed, n, batch, steps):
    random = splitmix64(seed ^ 0x5EEDDA7A)
    samples = []
    while len(samples) < steps * batch:
        perm = list(range(n))
        for i in range(n - 1, 0, -1):
            j = next(random) % (i + 1)
            perm[i], perm[j] = perm[j], perm[i]
        samples += perm[:n // batch * batch]
    return samples[:steps * batch]


def samples(n):
    return np.arange(n, dtype=np.float32)[:, None] + \
        np.array([0, .25, .5, .75], np.float32)


def main():
    if sys.argv[1] == "make":
        d = sys.argv[2]
        x = samples(7)
        np.save(d + "/x/a.npy", x[:3])
        np.save(d + "/x/b.npy", x[3:])
        np.save(d + "/y.npy", x)
        np.save(d + "/y0.npy", x[:5])
        np.save(d + "/y1.npy", x[5:])
        np.save(d + "/short.npy", x[:6])
        np.save(d + "/one.npy", x[:1])
        np.save(d + "/wide.npy", np.zeros((7, 5), np.float32))
        np.save(d + "/f64.npy", x.astype(np.float64))
        bad = x.copy()
        bad[5, 2] = np.nan
        np.save(d + "/nan.npy", bad)
        return

    d, seed, n, batch, steps = sys.argv[2], *map(int, sys.argv[3:])
    got = np.load(d + "/out/batch.npy")
    want = samples(n)[order(seed, n, batch, steps)]
    print("batches", got.shape, "match" if (got == want).all() else "differ")
    print("first rows", got[:, 0][:2 * batch].tolist())
    print("losses", np.load(d + "/out/loss.npy").tolist())


if __name__ == "__main__":
    main()
