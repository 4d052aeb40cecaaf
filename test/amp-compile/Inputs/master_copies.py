"""Checks that every low-precision copy of a master weight in a checkpoint
(a tensor named <P>.f16) is exactly its f32 parameter <P> rounded to
nearest even: numpy's float32 -> float16 conversion rounds that way, so the
comparison is bit for bit."""
import sys

import numpy as np

import amp_checkpoint

state = amp_checkpoint.read(sys.argv[1])
copies = [name for name in state if name.endswith(".f16")]
assert copies, "the checkpoint has no .f16 copies"
for name in sorted(copies):
    master = state[name[:-len(".f16")]]
    same = np.array_equal(master.astype(np.float16).view(np.uint16),
                          state[name].view(np.uint16))
    print("%s is %s rounded: %s" % (name, name[:-4], "yes" if same else "NO"))
    if not same:
        sys.exit(1)
