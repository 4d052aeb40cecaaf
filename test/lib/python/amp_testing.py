"""Python pieces that the test harnesses and benchmarks share.

  parse_printout(text)        the tensors printMemrefF32 printed
  load_model_library(path)    a library made by amp-compile, its C ABI
                              (include/amp/Runtime/ModelABI.h) declared
  TensorInfo, ROLE_NAMES      that ABI's tensor table
  relative_deviation(a, b)    how far a loss curve strays from a reference
  exit_with_verdict(ok)       the closing ALL PASS / SOME FAILED line

Scripts elsewhere in the tree put this folder on sys.path (relative to
their own file) and import it.
"""

import ctypes
import math
import os
import re
import sys

import numpy as np


def fail(message, code=1):
    print(f"FAIL: {message}")
    sys.exit(code)


# --- printMemrefF32 output ---------------------------------------------------

HEADER = re.compile(
    r"Unranked Memref base@ = \S+ rank = (\d+) offset = \d+ "
    r"sizes = \[([^\]]*)\] strides = \[[^\]]*\] data =")
NUMBER = re.compile(r"[-+]?(?:nan|inf|\d+(?:\.\d*)?(?:e[-+]?\d+)?)", re.I)


def parse_printout(text):
    """The tensors printMemrefF32 printed, as float64 numpy arrays."""
    headers = list(HEADER.finditer(text))
    tensors = []
    for i, header in enumerate(headers):
        end = headers[i + 1].start() if i + 1 < len(headers) else len(text)
        body = text[header.end():end]
        shape = [int(s) for s in header.group(2).replace(",", " ").split()]
        if len(shape) != int(header.group(1)):
            fail(f"printed tensor {i}: rank and sizes disagree")
        # The data is the bracketed block; anything after it on later lines
        # is other output.
        start, stop = body.find("["), body.rfind("]")
        values = [float(v) for v in NUMBER.findall(body[start:stop + 1])]
        if len(values) != math.prod(shape):
            fail(f"printed tensor {i}: {len(values)} values for shape {shape}")
        tensors.append(np.array(values, dtype=np.float64).reshape(shape))
    return tensors


# --- The C ABI of a compiled model (include/amp/Runtime/ModelABI.h) ----------

class TensorInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("role", ctypes.c_int32),
                ("dtype", ctypes.c_int32), ("rank", ctypes.c_int32),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("num_elements", ctypes.c_int64), ("init", ctypes.c_int32),
                ("init_constant", ctypes.c_double),
                ("fan_in", ctypes.c_int64), ("init_values", ctypes.c_void_p),
                ("label_range", ctypes.c_int64),
                ("copy_of", ctypes.c_int32)]


ROLE_NAMES = {0: "parameter", 1: "input", 2: "label", 3: "loss",
              4: "optimizer_state", 5: "scaler_state", 6: "hyperparameter",
              7: "skipped", 8: "output", 9: "buffer"}


def load_model_library(path):
    """Loads the library at `path` with the signatures of its C ABI."""
    lib = ctypes.CDLL(os.path.abspath(path))
    lib.amp_abi_version.restype = ctypes.c_int32
    lib.amp_last_error.restype = ctypes.c_char_p
    lib.amp_num_tensors.restype = ctypes.c_int32
    lib.amp_tensor.restype = ctypes.POINTER(TensorInfo)
    lib.amp_tensor.argtypes = [ctypes.c_int32]
    lib.amp_state_create.restype = ctypes.c_void_p
    lib.amp_state_create.argtypes = [ctypes.c_uint64]
    lib.amp_state_destroy.restype = None
    lib.amp_state_destroy.argtypes = [ctypes.c_void_p]
    lib.amp_state_tensor.restype = ctypes.c_void_p
    lib.amp_state_tensor.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    lib.amp_train_step.restype = ctypes.c_int32
    lib.amp_train_step.argtypes = [ctypes.c_void_p,
                                   ctypes.POINTER(ctypes.c_float),
                                   ctypes.POINTER(ctypes.c_int32)]
    return lib


# --- Verdicts ----------------------------------------------------------------

def relative_deviation(losses, reference):
    """The largest |loss - reference| over the steps, relative to the first
    reference loss."""
    deviation = max(abs(a - b) for a, b in zip(losses, reference))
    return deviation / abs(reference[0])


def exit_with_verdict(ok):
    """Prints the closing line of a harness and exits with its status."""
    print("ALL PASS" if ok else "SOME FAILED")
    sys.exit(0 if ok else 1)
