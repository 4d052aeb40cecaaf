"""Shared code of the loss-scaling execution tests (test/Integration/CPU/
loss-scaling-*.mlir): building a training step into a library, driving it
step by step from Python, and reference loss scalers.

Building. `build(tools, model, passes, directory, name)` runs

    amp-opt MODEL PASSES -o STEP.mlir
    amp-compile STEP.mlir --precision=fp32 -o NAME.so

so the step is exactly what the passes made (amp-compile compiles a module
that already has a training step as it is, with the CPU backend and the
model runtime of lib/Runtime, whose C ABI is include/amp/Runtime/ModelABI.h).

Driving. `Model(path)` opens the library with the one loader
(amp_testing.load_model_library) and calls it through ctypes. Every state
tensor, input and label is a numpy array aliasing the runtime's buffer
(`model[name]`), so a test writes inputs and reads the state bit for bit;
`model.step()` runs one training step and returns (loss, skipped).

Reference scalers, transcribed from the sources named in
/work/shared/reference/amp-systems.md:

* `GradScalerRef`: torch/amp/grad_scaler.py `update()` with the
  `_amp_update_scale_` kernel (scale is f32, factors are doubles: the
  product is rounded once to f32; growth only to a finite value).
* `MegatronRef`: megatron/core/optimizer/grad_scaler.py
  `DynamicGradScaler.update()` (hysteresis, min_scale; no max).
* `ScalerRef`: the rule amp implements (docs/LossScaling.md): Megatron's
  hysteresis and min_scale, Apex's max_loss_scale clamp on growth,
  GradScaler's "grow only to a finite value", DeepSpeed's
  raise_error_at_min_scale (an overflow that would back off a scale that is
  already at the minimum). It must agree with GradScalerRef when
  hysteresis = 1 and the clamps are out of reach, and with MegatronRef when
  the max clamp is out of reach; the tests check both agreements.
"""

import argparse
import ctypes
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "lib", "python"))
from amp_testing import (ROLE_NAMES, exit_with_verdict, fail,  # noqa: E402,F401
                         load_model_library, relative_deviation)

F32 = np.float32


# --- Building --------------------------------------------------------------

def run(command, what):
    result = subprocess.run(command, capture_output=True, text=True,
                            timeout=300)
    if result.returncode != 0:
        sys.stdout.write(result.stdout[-4000:])
        sys.stdout.write(result.stderr[-4000:])
        fail(f"{what} exited with {result.returncode}: {' '.join(command)}")
    return result.stdout


def build(tools, model, passes, directory, name):
    """Compiles MODEL after amp-opt PASSES (a list of pass arguments) into
    DIRECTORY/NAME.so; returns its path. `tools` has .opt and .compile."""
    step = os.path.join(directory, name + ".mlir")
    library = os.path.join(directory, name + ".so")
    run([tools.opt, model, *passes, "-o", step], f"amp-opt ({name})")
    run([tools.compile, step, "--precision=fp32", "-o", library],
        f"amp-compile ({name})")
    return library


def parse_arguments(source="model", steps=None):
    """The command line of a loss-scaling test: the `source` file to build,
    the tools, the work directory and, given a default number of `steps`,
    --steps."""
    parser = argparse.ArgumentParser()
    parser.add_argument(source)
    if steps is not None:
        parser.add_argument("--steps", type=int, default=steps)
    parser.add_argument("--opt", default="amp-opt")
    parser.add_argument("--compile", default="amp-compile")
    parser.add_argument("--work", required=True,
                        help="directory for the generated steps and libraries")
    return parser.parse_args()


# --- Driving a compiled step -----------------------------------------------

# bf16 is exposed as its raw uint16 bits.
DTYPES = {0: np.float32, 1: np.float16, 2: np.uint16, 3: np.int64,
          4: np.int32, 5: np.uint8}


class Model:
    def __init__(self, path, seed=0):
        lib = self.lib = load_model_library(path)
        self.state = lib.amp_state_create(seed)
        self.roles = {}
        self.arrays = {}
        for index in range(lib.amp_num_tensors()):
            info = lib.amp_tensor(index).contents
            name = info.name.decode()
            shape = tuple(info.shape[d] for d in range(info.rank))
            dtype = np.dtype(DTYPES[info.dtype])
            pointer = lib.amp_state_tensor(self.state, info.name)
            buffer = (ctypes.c_char * (info.num_elements * dtype.itemsize)
                      ).from_address(pointer)
            self.arrays[name] = np.frombuffer(buffer, dtype).reshape(shape)
            self.roles[name] = ROLE_NAMES[info.role]

    def __getitem__(self, name):
        if name not in self.arrays:
            fail(f"the model has no tensor '{name}' (it has "
                 f"{', '.join(self.arrays)})")
        return self.arrays[name]

    def __setitem__(self, name, value):
        self[name][...] = value

    def names(self, role):
        return [n for n, r in self.roles.items() if r == role]

    def snapshot(self, roles=("parameter", "optimizer_state", "buffer")):
        """Copies of every tensor with one of `roles`, by name."""
        return {n: self.arrays[n].copy() for n, r in self.roles.items()
                if r in roles}

    def step(self):
        loss = ctypes.c_float()
        skipped = ctypes.c_int32()
        if self.lib.amp_train_step(self.state, ctypes.byref(loss),
                                   ctypes.byref(skipped)) != 0:
            message = self.lib.amp_last_error().decode()
            # error-at-min: the step ran, and the runtime reports the
            # sticky flag as an error.
            if "stuck at its minimum" not in message:
                fail("amp_train_step failed: " + message)
            self.stuck_error = message
        return float(loss.value), bool(skipped.value)


def bit_identical(before, after):
    """Names of the tensors whose bytes differ."""
    return [n for n in before if before[n].tobytes() != after[n].tobytes()]


# --- Reference scalers -----------------------------------------------------

def times(scale, factor):
    """f32 scale times a double factor, rounded once to f32."""
    with np.errstate(over="ignore"):
        return F32(float(scale) * factor)


class GradScalerRef:
    """torch.cuda.amp.GradScaler.update() (PyTorch 1.13)."""

    def __init__(self, init_scale=65536.0, growth_factor=2.0,
                 backoff_factor=0.5, growth_interval=2000):
        self.scale = F32(init_scale)
        self.growth_tracker = 0
        self.growth_factor = growth_factor
        self.backoff_factor = backoff_factor
        self.growth_interval = growth_interval

    def update(self, found_inf):
        if found_inf:
            self.scale = times(self.scale, self.backoff_factor)
            self.growth_tracker = 0
            return
        successful = self.growth_tracker + 1
        if successful == self.growth_interval:
            new_scale = times(self.scale, self.growth_factor)
            if np.isfinite(new_scale):
                self.scale = new_scale
            self.growth_tracker = 0
        else:
            self.growth_tracker = successful


class MegatronRef:
    """Megatron-LM DynamicGradScaler.update()."""

    def __init__(self, initial_scale, min_scale, growth_factor,
                 backoff_factor, growth_interval, hysteresis):
        self.scale = F32(initial_scale)
        self.min_scale = F32(min_scale)
        self.growth_factor = growth_factor
        self.backoff_factor = backoff_factor
        self.growth_interval = growth_interval
        self.hysteresis = hysteresis
        self.growth_tracker = 0
        self.hysteresis_tracker = hysteresis

    def update(self, found_inf):
        if found_inf:
            self.growth_tracker = 0
            self.hysteresis_tracker -= 1
            if self.hysteresis_tracker <= 0:
                self.scale = max(times(self.scale, self.backoff_factor),
                                 self.min_scale)
        else:
            self.growth_tracker += 1
            if self.growth_tracker == self.growth_interval:
                self.growth_tracker = 0
                self.hysteresis_tracker = self.hysteresis
                self.scale = times(self.scale, self.growth_factor)


class ScalerRef:
    """amp's rule: Megatron + Apex's max clamp + GradScaler's finite growth
    + DeepSpeed's error at the minimum."""

    def __init__(self, init_scale=65536.0, growth_factor=2.0,
                 backoff_factor=0.5, growth_interval=2000, hysteresis=1,
                 min_scale=1.0, max_scale=2.0 ** 24, error_at_min=False):
        self.scale = F32(init_scale)
        self.growth_tracker = 0
        self.hysteresis_tracker = hysteresis
        self.growth_factor = growth_factor
        self.backoff_factor = backoff_factor
        self.growth_interval = growth_interval
        self.hysteresis = hysteresis
        with np.errstate(over="ignore"):
            self.min_scale = F32(min_scale)
            self.max_scale = F32(max_scale)   # inf above the f32 range
        self.error_at_min = error_at_min
        self.stuck = False

    def update(self, found_inf):
        if found_inf:
            self.growth_tracker = 0
            self.hysteresis_tracker -= 1
            if self.hysteresis_tracker <= 0:
                if self.error_at_min and self.scale <= self.min_scale:
                    # DeepSpeed raises here ("Current loss scale already at
                    # minimum - cannot decrease scale anymore. Exiting
                    # run."); amp sets a sticky flag the runtime reports.
                    self.stuck = True
                self.scale = max(times(self.scale, self.backoff_factor),
                                 self.min_scale)
            return
        self.growth_tracker += 1
        if self.growth_tracker >= self.growth_interval:
            grown = min(times(self.scale, self.growth_factor), self.max_scale)
            if np.isfinite(grown):
                self.scale = grown
            self.growth_tracker = 0
            self.hysteresis_tracker = self.hysteresis


# --- The bundled MLP (examples/mlp_forward.mlir) ---------------------------

MLP_PARAMETERS = {"ln.weight": (64,), "ln.bias": (64,),
                  "fc1.weight": (128, 64), "fc1.bias": (128,),
                  "fc2.weight": (10, 128), "fc2.bias": (10,)}


def mlp_parameters(seed):
    """PyTorch's defaults: ones and zeros for the norm, U(+-1/sqrt(fan_in))
    for the linears."""
    rng = np.random.default_rng(seed)
    values = {"ln.weight": np.ones(64, F32), "ln.bias": np.zeros(64, F32)}
    for name, (out, fan_in) in (("fc1", (128, 64)), ("fc2", (10, 128))):
        bound = 1 / np.sqrt(fan_in)
        values[name + ".weight"] = rng.uniform(-bound, bound,
                                               (out, fan_in)).astype(F32)
        values[name + ".bias"] = rng.uniform(-bound, bound, out).astype(F32)
    return values


def mlp_batch(seed):
    """A batch the MLP can fit: labels from a fixed random linear rule."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((32, 64)).astype(F32)
    rule = np.random.default_rng(1234).standard_normal((10, 64))
    labels = np.argmax(x @ rule.T, axis=1).astype(np.int64)
    return x, labels


def initialize_copies(model):
    """Starts each low-precision master-weight copy (`<param>.f16`, from
    --amp-master-weights) as its parameter rounded to f16."""
    for name in model.names("buffer"):
        if name.endswith(".f16"):
            model[name] = model[name[:-len(".f16")]].astype(np.float16)
