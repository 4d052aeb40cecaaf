"""The emulated device's stream capture, called through the driver API.

capture_rules.py LIBDIR: opens LIBDIR/libamp_cuda_emulator.so and checks
that a capture records work instead of running it (a fill runs at each
cuGraphLaunch, not before), and that the calls CUDA refuses during a capture
are refused and invalidate it: a host wait for the captured stream
(cuStreamSynchronize, cuStreamQuery), cuCtxSynchronize, a wait for an event
recorded in the capture, and cuMemAlloc/cuMemFree in global mode (allowed
after cuThreadExchangeStreamCaptureMode to relaxed). Prints one line per
check with the driver's error name and description.
"""

import ctypes
import os
import sys

lib = ctypes.CDLL(os.path.join(sys.argv[1], "libamp_cuda_emulator.so"))
P = ctypes.c_void_p
GLOBAL, RELAXED = 0, 2


def name(code):
    text = ctypes.c_char_p()
    if lib.cuGetErrorName(code, ctypes.byref(text)) != 0:
        return f"error {code}"
    detail = ctypes.c_char_p()
    lib.cuGetErrorString(code, ctypes.byref(detail))
    return f"{text.value.decode()} ({detail.value.decode()})"


def call(what, code):
    print(f"{what}: {name(code) if code else 'CUDA_SUCCESS'}")
    return code


def check(what, code):
    if code:
        print(f"FAIL: {what}: {name(code)}")
        sys.exit(1)


stream = P()
check("cuStreamCreate", lib.cuStreamCreate(ctypes.byref(stream), 1))
block = ctypes.c_uint64()
check("cuMemAlloc", lib.cuMemAlloc_v2(ctypes.byref(block), 16))
data = (ctypes.c_uint32 * 4).from_address(block.value)
lib.cuMemsetD32Async(block, 0, 4, stream)


def begin():
    check("cuStreamBeginCapture",
          lib.cuStreamBeginCapture_v2(stream, GLOBAL))


def end():
    graph = P()
    code = lib.cuStreamEndCapture(stream, ctypes.byref(graph))
    return code, graph


# Recorded, not run; run at every launch.
begin()
check("fill", lib.cuMemsetD32Async(block, 7, 4, stream))
print(f"captured fill, before a launch: {data[0]}")
code, graph = end()
check("cuStreamEndCapture", code)
exe = P()
check("cuGraphInstantiate",
      lib.cuGraphInstantiateWithFlags(ctypes.byref(exe), graph, 0))
check("cuGraphLaunch", lib.cuGraphLaunch(exe, stream))
print(f"after cuGraphLaunch: {data[0]}")
lib.cuMemsetD32Async(block, 0, 4, stream)
print(f"reset: {data[0]}")
check("cuGraphLaunch", lib.cuGraphLaunch(exe, stream))
print(f"after a second cuGraphLaunch: {data[0]}")
lib.cuGraphExecDestroy(exe)
lib.cuGraphDestroy(graph)

# Each refused call invalidates the capture.
event = P()
check("cuEventCreate", lib.cuEventCreate(ctypes.byref(event), 0))
refused = [
    ("cuStreamSynchronize", lambda: lib.cuStreamSynchronize(stream)),
    ("cuStreamQuery", lambda: lib.cuStreamQuery(stream)),
    ("cuCtxSynchronize", lambda: lib.cuCtxSynchronize()),
    ("cuEventSynchronize",
     lambda: lib.cuEventRecord(event, stream) or lib.cuEventSynchronize(event)),
    ("cuMemAlloc", lambda: lib.cuMemAlloc_v2(ctypes.byref(ctypes.c_uint64()),
                                             64)),
    ("cuMemFree", lambda: lib.cuMemFree_v2(block)),
]
for what, refuse in refused:
    begin()
    call(what + " during a capture", refuse())
    code, graph = end()
    call("  then cuStreamEndCapture", code)

# Relaxed mode allows cuMemAlloc; the capture stays valid.
begin()
mode = ctypes.c_int(RELAXED)
check("relax", lib.cuThreadExchangeStreamCaptureMode(ctypes.byref(mode)))
other = ctypes.c_uint64()
call("cuMemAlloc in relaxed mode", lib.cuMemAlloc_v2(ctypes.byref(other), 64))
check("restore", lib.cuThreadExchangeStreamCaptureMode(ctypes.byref(mode)))
code, graph = end()
call("  then cuStreamEndCapture", code)
call("cuStreamEndCapture with no capture", end()[0])
call("cuStreamBeginCapture of the NULL stream",
     lib.cuStreamBeginCapture_v2(None, GLOBAL))
