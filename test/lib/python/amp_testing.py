"""Python pieces that the test harnesses and benchmarks share.

  parse_printout(text)        the tensors printMemrefF32 printed
  load_model_library(path)    a library made by amp-compile, opened by the
                              one loader (libamp_loader.so), its C ABI
                              (include/amp/Runtime/ModelABI.h) declared
  TensorInfo, ROLE_NAMES      that ABI's tensor table
  default_build()             amp's build directory (AMP_BUILD_DIR, default
                              build/ under the repository)
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


# The entry points the scripts call: (result type, argument types).
_FLOAT_P = ctypes.POINTER(ctypes.c_float)
_INT32_P = ctypes.POINTER(ctypes.c_int32)
ABI_SIGNATURES = {
    "amp_abi_version": (ctypes.c_int32, ()),
    "amp_last_error": (ctypes.c_char_p, ()),
    "amp_num_tensors": (ctypes.c_int32, ()),
    "amp_tensor": (ctypes.POINTER(TensorInfo), (ctypes.c_int32,)),
    "amp_state_create": (ctypes.c_void_p, (ctypes.c_uint64,)),
    "amp_state_destroy": (None, (ctypes.c_void_p,)),
    "amp_state_tensor": (ctypes.c_void_p, (ctypes.c_void_p, ctypes.c_char_p)),
    "amp_train_step": (ctypes.c_int32, (ctypes.c_void_p, _FLOAT_P, _INT32_P)),
    "amp_train_step_begin": (ctypes.c_int32, (ctypes.c_void_p,)),
    "amp_train_step_finish": (ctypes.c_int32,
                              (ctypes.c_void_p, _FLOAT_P, _INT32_P)),
    "amp_eval": (ctypes.c_int32, (ctypes.c_void_p, _FLOAT_P)),
}


# The runtime's fused attention (include/amp/Runtime/Attention.h) and its
# thread count, as libamp_runner_runtime.so exports them.
_I32, _I64, _F32, _PTR = (ctypes.c_int32, ctypes.c_int64, ctypes.c_float,
                          ctypes.c_void_p)
_PROBLEM = (_I32,) + (_I64,) * 7
_MASK_AND_ATTRIBUTES = (_I32, _PTR, _I64, _I64, _F32, _I32, _F32, _I64)
# Offset, stride_batch, stride_head, stride_seq of each 4-D tensor (q, k, v,
# out; the backward's also dout, dq, dk, dv), in elements.
_LAYOUT = (_I64,) * 4
ATTENTION_SIGNATURES = {
    "amp_cpu_attention_fwd": (None, _PROBLEM + (_PTR,) * 3 +
                              _MASK_AND_ATTRIBUTES + (_PTR,) * 2 +
                              _LAYOUT * 4),
    "amp_cpu_attention_bwd": (None, _PROBLEM + (_PTR,) * 6 +
                              _MASK_AND_ATTRIBUTES + (_PTR,) * 3 +
                              _LAYOUT * 8),
    "amp_set_num_threads": (_I32, (_I32,)),
}


def attention_layout(t):
    """The layout arguments (Attention.h, "Layouts") of a 4-D torch tensor:
    its storage offset and strides, in elements; its pointer is then
    t.data_ptr() - offset * t.element_size(). The last dimension must be
    contiguous."""
    assert t.dim() == 4 and (t.stride(3) == 1 or t.size(3) <= 1), t.stride()
    return (t.storage_offset(),) + tuple(t.stride()[:3])


def attention_base(t):
    """The pointer attention_layout's offset counts from: t's storage."""
    return t.data_ptr() - t.storage_offset() * t.element_size()


def load_attention_runtime(path):
    """libamp_runner_runtime.so at `path` with ATTENTION_SIGNATURES set."""
    lib = ctypes.CDLL(path)
    for name, (result, arguments) in ATTENTION_SIGNATURES.items():
        function = getattr(lib, name)
        function.restype, function.argtypes = result, list(arguments)
    return lib

def default_build():
    """amp's build directory: AMP_BUILD_DIR (as test/lit.cfg.py and
    scripts/gpu-machine.sh set it) or build/ under the repository."""
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                        "..", "..")
    return os.environ.get("AMP_BUILD_DIR",
                          os.path.normpath(os.path.join(root, "build")))


_loaders = {}


def _open_loader(build):
    """libamp_loader.so of the build `build` (lib/Host/LoaderCAPI.h): the
    one loader of model libraries, behind a C interface. No libLLVM, so it
    runs where amp-run runs."""
    path = os.path.join(build, "lib", "libamp_loader.so")
    loader = _loaders.get(path)
    if loader is None:
        try:
            loader = ctypes.CDLL(path)
        except OSError as error:
            raise OSError(f"cannot open amp's loader: {error} (AMP_BUILD_DIR "
                          f"names amp's build, ./scripts/build.sh amp_loader "
                          f"builds it)") from None
        loader.amp_loader_open.restype = ctypes.c_void_p
        loader.amp_loader_open.argtypes = [ctypes.c_char_p]
        loader.amp_loader_error.restype = ctypes.c_char_p
        loader.amp_loader_error.argtypes = []
        loader.amp_loader_symbol.restype = ctypes.c_void_p
        loader.amp_loader_symbol.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
        _loaders[path] = loader
    return loader


class LoadedLibrary:
    """A library made by amp-compile, opened by the one loader (its file,
    checksum and ABI version checked as amp-run checks them). Its entry
    points are ctypes functions with the signatures of ABI_SIGNATURES:
    `lib.amp_train_step(state, byref(loss), byref(skipped))`. One the
    library lacks (amp_train_step_begin in an older library) is an
    AttributeError, so hasattr tells. It stays loaded until the process
    exits. `build`: the amp build whose loader opens it (default_build())."""

    def __init__(self, path, build=None):
        loader = self._loader = _open_loader(build or default_build())
        self.path = path
        self._handle = loader.amp_loader_open(os.fsencode(path))
        if not self._handle:
            raise OSError(loader.amp_loader_error().decode())

    def __getattr__(self, name):
        signature = ABI_SIGNATURES.get(name)
        if signature is None:
            raise AttributeError(f"{name} is not an entry point of the model "
                                 f"ABI that amp_testing declares")
        address = self._loader.amp_loader_symbol(self._handle, name.encode())
        if not address:
            raise AttributeError(f"{self.path} has no {name}")
        restype, argtypes = signature
        function = ctypes.CFUNCTYPE(restype, *argtypes)(address)
        # Found by ordinary lookup from now on.
        setattr(self, name, function)
        return function


def load_model_library(path, build=None):
    """The library at `path`, opened by the loader of amp's build `build`
    (LoadedLibrary); OSError saying why when it cannot be loaded."""
    return LoadedLibrary(path, build)


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
