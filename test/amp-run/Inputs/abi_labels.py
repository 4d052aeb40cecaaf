"""Calls a model library through its C ABI (ctypes), as a program other
than amp-run would: a label outside [0, classes) written into the state
must fail the step with an error naming the label, its index and value."""
import ctypes
import sys

lib = ctypes.CDLL(sys.argv[1])
lib.amp_state_create.restype = ctypes.c_void_p
lib.amp_state_tensor.restype = ctypes.c_void_p
lib.amp_state_tensor.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
lib.amp_train_step.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_float),
                               ctypes.POINTER(ctypes.c_int32)]
lib.amp_eval.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_float)]
lib.amp_last_error.restype = ctypes.c_char_p

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
