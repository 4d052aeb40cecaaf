"""Training steps replayed from CUDA graphs against plain ones.

graph_steps.py LIB STEPS SEED: trains the GPU library LIB (made for the
emulated device) from the same seed on a new synthetic batch every step
three times: plain steps without graphs (AMP_CUDA_GRAPHS=0), plain steps
with graphs (the default) and overlapped steps (amp_train_step_begin/finish)
with graphs. The same kernels on the same data give the same bits, so every
loss, skipped flag and loss scale, and every state tensor afterwards
(parameters, optimizer and scaler state), must be identical. How many graphs
each run captured and how many steps it launched from one
(amp_cuda_graph_stats) is printed: a run that fell back to plain steps says
so, with the reason. Then AMP_CUDA_GRAPHS set to something else than 0 or 1
is an error of amp_state_create.
"""

import ctypes
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "lib", "python"))
import amp_testing  # noqa: E402

BYTES = {0: 4, 1: 2, 2: 2, 3: 8, 4: 4, 5: 1}
NUMPY = {0: np.float32, 3: np.int64, 4: np.int32}
STREAMED = (1, 2)  # input, label


def tensors(lib):
    return [lib.amp_tensor(i).contents for i in range(lib.amp_num_tensors())]


def view(lib, state, info):
    address = lib.amp_state_tensor(state, info.name)
    if not address:
        raise RuntimeError(lib.amp_last_error().decode())
    size = info.num_elements * BYTES[info.dtype]
    return (ctypes.c_char * size).from_address(address)


def fill_batch(lib, state, seed, step):
    """Batch `step`: N(0, 1) floats, integer labels in their range."""
    rng = np.random.default_rng([seed, step])
    for info in tensors(lib):
        if info.role not in STREAMED:
            continue
        dtype = NUMPY[info.dtype]
        if np.issubdtype(dtype, np.floating):
            values = rng.standard_normal(info.num_elements).astype(dtype)
        else:
            values = rng.integers(0, max(info.label_range, 2),
                                  info.num_elements).astype(dtype)
        ctypes.memmove(view(lib, state, info), values.tobytes(),
                       values.nbytes)


def scales(lib, state):
    return [bytes(view(lib, state, info)) for info in tensors(lib)
            if info.role == 5 and info.name.endswith(b"scale")]


def train(lib, stats, seed, steps, graphs, overlapped):
    os.environ["AMP_CUDA_GRAPHS"] = "1" if graphs else "0"
    state = lib.amp_state_create(seed)
    if not state:
        raise RuntimeError(lib.amp_last_error().decode())
    losses, skipped, scale_bits = [], [], []
    loss, skip = ctypes.c_float(), ctypes.c_int32()

    def finish():
        if lib.amp_train_step_finish(state, ctypes.byref(loss),
                                     ctypes.byref(skip)):
            raise RuntimeError(lib.amp_last_error().decode())
        losses.append(bytes(loss))
        skipped.append(skip.value)

    for k in range(steps):
        fill_batch(lib, state, seed, k)
        if overlapped:
            if lib.amp_train_step_begin(state):
                raise RuntimeError(lib.amp_last_error().decode())
            if k > 0:
                finish()
            continue
        if lib.amp_train_step(state, ctypes.byref(loss), ctypes.byref(skip)):
            raise RuntimeError(lib.amp_last_error().decode())
        losses.append(bytes(loss))
        skipped.append(skip.value)
        scale_bits.append(scales(lib, state))
    if overlapped:
        finish()
    final = {info.name.decode(): bytes(view(lib, state, info))
             for info in tensors(lib) if info.role not in STREAMED}
    captured, launched = ctypes.c_int64(), ctypes.c_int64()
    status = stats(state, ctypes.byref(captured), ctypes.byref(launched))
    note = "" if status == 0 else ": " + lib.amp_last_error().decode()
    lib.amp_state_destroy(state)
    return losses, skipped, scale_bits, final, (captured.value,
                                                launched.value, note)


def main():
    lib_path, steps, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    lib = amp_testing.load_model_library(lib_path)
    address = lib._loader.amp_loader_symbol(lib._handle,
                                            b"amp_cuda_graph_stats")
    stats = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p,
                             ctypes.POINTER(ctypes.c_int64),
                             ctypes.POINTER(ctypes.c_int64))(address)
    runs = {name: train(lib, stats, seed, steps, graphs, overlapped)
            for name, graphs, overlapped in [("plain", False, False),
                                             ("graphs", True, False),
                                             ("overlapped", True, True)]}
    plain = runs["plain"]
    differences = 0
    for name, run in runs.items():
        captured, launched, note = run[4]
        print(f"{name}: {captured} graphs captured, {launched} of {steps} "
              f"steps launched from one{note}")
        if name == "plain":
            continue
        for k in range(steps):
            same = (run[0][k] == plain[0][k] and run[1][k] == plain[1][k])
            if run[2]:
                same &= run[2][k] == plain[2][k]
            value = np.frombuffer(plain[0][k], np.float32)[0]
            print(f"  step {k + 1}: loss {value:.6f} skipped {plain[1][k]}"
                  f"{'' if same else '  DIFFERENT'}")
            differences += not same
        for tensor, data in plain[3].items():
            if run[3][tensor] != data:
                print(f"  state tensor '{tensor}' differs")
                differences += 1
    if differences == 0:
        print("steps from graphs identical to plain ones")
    os.environ["AMP_CUDA_GRAPHS"] = "yes"
    if lib.amp_state_create(seed):
        print("FAIL: AMP_CUDA_GRAPHS=yes was accepted")
        differences += 1
    else:
        print("AMP_CUDA_GRAPHS=yes: " + lib.amp_last_error().decode())
    sys.exit(1 if differences else 0)


if __name__ == "__main__":
    main()
