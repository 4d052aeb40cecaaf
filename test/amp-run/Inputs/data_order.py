"""The order in which amp-run --data feeds samples (docs/Driver.md,
include/amp/Host/SampleOrder.h): each epoch is a bijection of 0..N-1 computed
per position, a 6-round balanced Feistel network on 2h-bit numbers (2^2h
the least power of four >= N) walked until it lands below N, its round keys
the next 6 outputs of one SplitMix64 generator (amp::Random) seeded with
SEED ^ 0x5EEDDA7A; each step takes the next BATCH samples and an epoch ends
when fewer than BATCH are left.

  data_order.py make DIR            writes the test's data files
  data_order.py check DIR SEED N BATCH STEPS
      checks DIR/out/batch.npy (amp-run --eval-output) against that order
      and DIR/out/loss.npy against 0 (labels aligned with inputs)
  data_order.py epochs DIR N BATCH STEPS
      makes DIR/x.npy, N samples (sample i holds i), when STEPS is 0; else
      checks that each whole epoch of DIR/out/batch.npy holds every sample
      once (N divisible by BATCH) and that the epochs' orders differ
  data_order.py sparse PATH N       a .npy of N samples of 4 f32 zeros as a
                                    sparse file (no disk blocks for the data)
  data_order.py rss COMMAND...      runs COMMAND and prints whether its peak
                                    resident memory stayed below 1 GiB"""
import os
import resource
import subprocess
import sys

import numpy as np

MASK = (1 << 64) - 1


def splitmix64(state):
    while True:
        state = (state + 0x9E3779B97F4A7C15) & MASK
        yield mix(state)


def mix(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def permutation(n, keys):
    half = 0
    while half < 32 and (1 << (2 * half)) < n:
        half += 1
    mask = (1 << half) - 1

    def permute(x):
        left, right = x >> half, x & mask
        for key in keys:
            left, right = right, left ^ (mix(key ^ right) & mask)
        return (left << half) | right

    def at(position):
        x = permute(position)
        while x >= n:
            x = permute(x)
        return x
    return [at(i) for i in range(n)]


def order(seed, n, batch, steps):
    random = splitmix64(seed ^ 0x5EEDDA7A)
    samples = []
    while len(samples) < steps * batch:
        perm = permutation(n, [next(random) for _ in range(6)])
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

    if sys.argv[1] == "sparse":
        path, n = sys.argv[2], int(sys.argv[3])
        header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, 4), }" % n
        header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
        with open(path, "wb") as f:
            f.write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") +
                    header.encode("latin-1"))
            f.truncate(f.tell() + n * 16)
        blocks = os.stat(path).st_blocks * 512
        print("sparse" if blocks < (1 << 20) else "not sparse: %d bytes" % blocks)
        return
    if sys.argv[1] == "rss":
        subprocess.run(sys.argv[2:], check=True, stdout=subprocess.DEVNULL)
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
        print("peak rss", "below 1 GiB" if peak < (1 << 30) else
              "%d bytes" % peak)
        return
    if sys.argv[1] == "epochs":
        d, n, batch, steps = sys.argv[2], *map(int, sys.argv[3:])
        if steps == 0:
            np.save(d + "/x.npy", samples(n))
            return
        got = np.load(d + "/out/batch.npy")[:, 0].astype(int).tolist()
        epochs = [got[i:i + n] for i in range(0, steps * batch, n)]
        for e, epoch in enumerate(epochs):
            print("epoch", e, "permutation" if sorted(epoch) == list(range(n))
                  else "not a permutation: %s" % epoch)
        print("orders", "differ" if len(set(map(tuple, epochs))) ==
              len(epochs) else "repeat")
        return

    d, seed, n, batch, steps = sys.argv[2], *map(int, sys.argv[3:])
    got = np.load(d + "/out/batch.npy")
    want = samples(n)[order(seed, n, batch, steps)]
    print("batches", got.shape, "match" if (got == want).all() else "differ")
    print("first rows", got[:, 0][:2 * batch].tolist())
    print("losses", np.load(d + "/out/loss.npy").tolist())


if __name__ == "__main__":
    main()
