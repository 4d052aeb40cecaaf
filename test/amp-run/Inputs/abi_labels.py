"""Calls a model library through its C ABI from Python (ctypes), as a
program other than amp-run would, the library opened by the one loader
(test/lib/python/amp_testing.py): a label outside [0, classes) written into
the state must fail the step with an error naming the label, its index and
value."""
import ctypes
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "lib", "python"))
from amp_testing import load_model_library  # noqa: E402

lib = load_model_library(sys.argv[1])
state = lib.amp_state_create(0)
labels = ctypes.cast(lib.amp_state_tensor(state, b"labels"),
                     ctypes.POINTER(ctypes.c_int64))
for i in range(32):
    labels[i] = i % 10
labels[17] = int(sys.argv[2])
loss, skipped = ctypes.c_float(), ctypes.c_int32()
print("step:", lib.amp_train_step(state, ctypes.byref(loss),
                                  ctypes.byref(skipped)),
      lib.amp_last_error().decode())
print("eval:", lib.amp_eval(state, ctypes.byref(loss)),
      lib.amp_last_error().decode())
labels[17] = 9
print("fixed:", lib.amp_train_step(state, ctypes.byref(loss),
                                   ctypes.byref(skipped)))
