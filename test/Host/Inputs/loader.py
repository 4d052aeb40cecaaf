"""Opens model libraries from Python through amp_testing.load_model_library
(libamp_loader.so, include/amp/Host/LoaderCAPI.h) and prints what happens:
the good library trains a step; damaged ones, a library without the model
ABI and a missing file are OSErrors naming the file and the reason; an
entry point the library lacks or amp_testing does not declare is an
AttributeError. Last, the loader itself needs neither libLLVM nor libMLIR
(GPU machines have neither)."""
import ctypes
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "lib", "python"))
from amp_testing import default_build, load_model_library  # noqa: E402

work = sys.argv[1]
good = os.path.join(work, "mlp.so")

lib = load_model_library(good)
print("abi version:", lib.amp_abi_version())
state = lib.amp_state_create(0)
loss, skipped = ctypes.c_float(), ctypes.c_int32()
print("step:", lib.amp_train_step(state, ctypes.byref(loss),
                                  ctypes.byref(skipped)),
      "finite loss:", 0 < loss.value < float("inf"))
lib.amp_state_destroy(state)
print("has amp_train_step_begin:", hasattr(lib, "amp_train_step_begin"))
for name in ("amp_state_save", "amp_no_such_function"):
    try:
        getattr(lib, name)
    except AttributeError as error:
        print("AttributeError:", error)

data = open(good, "rb").read()
flipped = bytearray(data)
flipped[len(data) // 2] ^= 0xFF
cases = {"flipped.so": bytes(flipped),
         "no-trailer.so": data[:-56]}
for name, contents in cases.items():
    with open(os.path.join(work, name), "wb") as f:
        f.write(contents)
shutil.copy("/lib/x86_64-linux-gnu/libm.so.6", os.path.join(work, "libm.so"))
for name in ("flipped.so", "no-trailer.so", "libm.so", "missing.so"):
    try:
        load_model_library(os.path.join(work, name))
        print(name, "loaded")
    except OSError as error:
        print("OSError:", error)

loader = os.path.join(default_build(), "lib", "libamp_loader.so")
needed = subprocess.run(["ldd", loader], capture_output=True, text=True,
                        check=True).stdout
print("loader needs LLVM or MLIR:",
      any(n in needed for n in ("libLLVM", "libMLIR")))
