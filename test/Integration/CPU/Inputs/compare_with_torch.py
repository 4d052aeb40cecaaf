#!/usr/bin/env python3
"""Runs an amp test on the CPU and compares what it prints with PyTorch.

    compare_with_torch.py TEST.mlir [--reference REF.py] [--opt AMP_OPT]
        [--runner MLIR_RUNNER] --shared-libs LIB[,LIB...]

TEST.mlir is lowered with `amp-opt --amp-cpu-pipeline` and its `@main` run
with `mlir-runner`; every tensor it prints with `printMemrefF32` is parsed.

The reference (by default Inputs/<test name>.py next to the test) defines
`reference(consts)`. `consts` maps the SSA name of every
`%name = amp.constant dense<...> : tensor<...>` in TEST.mlir to a torch
tensor of the declared element type, so the reference uses exactly the
test's inputs. It returns one `(label, expected, tolerance)` per printed
tensor, in print order; `tolerance` is a dict of
    atol: absolute error (a number or a tensor broadcast to the shape),
    rtol: error relative to |expected|,
    ulp:  error in units in the last place at |expected| of `expected`'s
          dtype (float32, float16 or bfloat16), or of ulp_type if given
          (to compare a low-precision result with an unrounded reference).
Element i passes when |got - expected| <= atol + rtol |e| + ulp ulp(e) + q,
where q is the quantization of the printout: printMemrefF32 prints six
significant digits, so a printed value is off from the computed one by up
to half a unit in its sixth digit (a relative 5e-7 to 5e-6). NaN must be
printed where NaN is expected, infinities must match exactly.

Prints `PASS tensor I (LABEL) max_abs_err=E tol=T max_err/tol=R` per
tensor (T is the bound at the element of the largest error, R the largest
ratio of error to bound over all elements), then `ALL N TENSORS PASS`. Any
mismatch, a count of printed tensors that is not the number of references,
or a failure of either tool prints FAIL lines and exits non-zero.
"""

import argparse
import ast
import importlib.util
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "lib", "python"))
from amp_testing import fail, parse_printout  # noqa: E402,F401


# --- Inputs: the test's amp.constant ops ------------------------------------

TORCH_DTYPES = {
    "f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16,
    "f64": torch.float64, "i64": torch.int64, "i32": torch.int32,
    "i1": torch.bool,
}

CONSTANT = re.compile(
    r"%([\w.$-]+)\s*=\s*amp\.constant\s+dense<(.*?)>\s*:\s*tensor<([^>]*)>",
    re.S)


def parse_constants(text):
    consts = {}
    for name, payload, type_text in CONSTANT.findall(text):
        *dims, element = type_text.split("x")
        if element not in TORCH_DTYPES:
            fail(f"constant %{name}: unsupported element type {element}")
        shape = [int(d) for d in dims]
        payload = re.sub(r"\btrue\b", "True", payload)
        payload = re.sub(r"\bfalse\b", "False", payload)
        try:
            value = ast.literal_eval(payload.strip())
        except (ValueError, SyntaxError):
            fail(f"constant %{name}: cannot parse dense<{payload}>")
        dtype = TORCH_DTYPES[element]
        if isinstance(value, list):
            # Python reads decimals as f64, then torch rounds to the element
            # type; this differs from MLIR's direct decimal -> f32 rounding
            # only for a decimal within 2^-53 (relative) of an f32 rounding
            # midpoint, which the tests' short decimals are not.
            wide = torch.float64 if dtype.is_floating_point else None
            tensor = torch.tensor(value, dtype=wide).to(dtype)
            if list(tensor.shape) != shape:
                fail(f"constant %{name}: payload shape {list(tensor.shape)} "
                     f"is not {shape}")
        else:
            tensor = torch.full(shape, value, dtype=torch.float64).to(dtype)
        if name in consts:
            fail(f"constant %{name} is defined twice")
        consts[name] = tensor
    return consts


# --- Running the test -------------------------------------------------------

def find_tool(given, env, default):
    path = shutil.which(given or os.environ.get(env) or default)
    if not path:
        fail(f"cannot find {given or os.environ.get(env) or default} "
             f"(pass it on the command line or in ${env})", 2)
    return path


def run(command, stdin_text, what):
    try:
        result = subprocess.run(command, input=stdin_text, capture_output=True,
                                text=True, timeout=120)
    except subprocess.TimeoutExpired:
        fail(f"{what} timed out: {' '.join(command)}", 2)
    if result.returncode != 0:
        sys.stdout.write(result.stdout[-4000:])
        sys.stdout.write(result.stderr[-4000:])
        fail(f"{what} exited with {result.returncode}: {' '.join(command)}", 2)
    return result.stdout


# --- Comparing --------------------------------------------------------------

# (explicit mantissa bits, minimum normal exponent)
FORMATS = {torch.float32: (23, -126), torch.float16: (10, -14),
           torch.bfloat16: (7, -126), torch.float64: (52, -1022)}


def ulp(values, dtype):
    mantissa, min_exp = FORMATS[dtype]
    _, exp = np.frexp(np.abs(values))  # |v| = m 2^exp, m in [0.5, 1)
    return np.ldexp(1.0, np.maximum(exp - 1, min_exp) - mantissa)


def print_quantum(got, expected):
    """Half a unit in the sixth significant digit of the printed value."""
    magnitude = np.maximum(np.abs(got), np.abs(expected))
    with np.errstate(divide="ignore"):
        digit = np.floor(np.log10(np.where(magnitude > 0, magnitude, 1.0)))
    # A value exactly halfway (say -0.3828125) prints as -0.382812: allow the
    # half unit itself despite float64 rounding in the subtraction.
    return np.where(magnitude > 0, 0.5000001 * 10.0 ** (digit - 5), 0.0)


def compare(index, label, got, expected_tensor, tolerance):
    name = f"tensor {index} ({label})"
    unknown = set(tolerance) - {"atol", "rtol", "ulp", "ulp_type"}
    if unknown:
        fail(f"{name}: unknown tolerance keys {sorted(unknown)}", 2)
    expected_tensor = torch.as_tensor(expected_tensor)
    expected = expected_tensor.detach().double().numpy()
    if list(got.shape) != list(expected.shape):
        print(f"FAIL {name} printed shape {list(got.shape)}, "
              f"expected {list(expected.shape)}")
        return False
    atol = tolerance.get("atol", 0.0)
    if isinstance(atol, torch.Tensor):
        atol = atol.detach().double().numpy()
    finite = np.isfinite(expected)
    with np.errstate(invalid="ignore", divide="ignore"):  # inf * 0, inf - inf
        bound = np.broadcast_to(atol, expected.shape) + tolerance.get(
            "rtol", 0.0) * np.abs(expected)
        if tolerance.get("ulp"):
            unit = ulp(expected, tolerance.get("ulp_type", expected_tensor.dtype))
            bound = bound + tolerance["ulp"] * unit
        # Non-finite expectations must be matched exactly.
        bound = np.where(finite, bound + print_quantum(got, expected), 0.0)
        same_special = (np.isnan(expected) & np.isnan(got)) | (
            np.isinf(expected) & (got == expected))
        error = np.where(same_special, 0.0, np.abs(got - expected))
        error = np.where(np.isnan(error), np.inf, error)  # unexpected NaN
        ok = error <= bound
        ratio = np.where(error == 0, 0.0, error / bound)
    summary = "max_abs_err=0 tol=0 max_err/tol=0"
    if error.size:
        at = np.unravel_index(np.argmax(error), error.shape)
        summary = (f"max_abs_err={float(error[at]):.3g} "
                   f"tol={float(bound[at]):.3g} "
                   f"max_err/tol={float(np.max(ratio)):.6g}")
    if ok.all():
        print(f"PASS {name} {summary}")
        return True
    bad = np.argwhere(~ok)
    print(f"FAIL {name} {summary}: "
          f"{len(bad)} of {ok.size} elements out of tolerance")
    for position in bad[:8]:
        position = tuple(int(p) for p in position)
        print(f"  at {list(position)}: got {got[position]!r} expected "
              f"{expected[position]!r} (bound {bound[position]:.3g})")
    return False


def add_arguments(parser):
    """The arguments every runner of a test with a reference takes."""
    parser.add_argument("test")
    parser.add_argument("--reference")
    parser.add_argument("--opt", help="amp-opt ($AMP_OPT, else PATH)")
    parser.add_argument("--runner", help="mlir-runner ($MLIR_RUNNER, else PATH)")
    parser.add_argument("--shared-libs", default=os.environ.get("MLIR_SHARED_LIBS"),
                        help="comma-separated mlir-runner support libraries")


def check(args, consts, text, opt_options, what):
    """Lowers `text` with `amp-opt opt_options`, runs its @main and compares
    each printed tensor with the reference module's expectations for
    `consts`; prints the verdict and exits non-zero on a failure."""
    test = os.path.abspath(args.test)
    stem = os.path.splitext(os.path.basename(test))[0]
    reference_path = args.reference or os.path.join(
        os.path.dirname(test), "Inputs", stem + ".py")
    if not args.shared_libs:
        fail("no --shared-libs (the runner utils providing printMemrefF32)", 2)
    spec = importlib.util.spec_from_file_location(f"reference_{stem}",
                                                  reference_path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    references = list(module.reference(consts))

    opt = find_tool(args.opt, "AMP_OPT", "amp-opt")
    runner = find_tool(args.runner, "MLIR_RUNNER", "mlir-runner")
    lowered = run([opt, "-"] + opt_options, text, what)
    printed = run([runner, "-e", "main", "-entry-point-result=void",
                   f"-shared-libs={args.shared_libs}"], lowered, "mlir-runner")
    tensors = parse_printout(printed)
    if len(tensors) != len(references):
        fail(f"the test printed {len(tensors)} tensors but the reference "
             f"has {len(references)}")

    passed = 0
    for index, (got, (label, expected, tolerance)) in enumerate(
            zip(tensors, references)):
        passed += compare(index, label, got, expected, tolerance)
    if passed != len(references):
        fail(f"{len(references) - passed} of {len(references)} tensors "
             "out of tolerance")
    print(f"ALL {passed} TENSORS PASS")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_arguments(parser)
    args = parser.parse_args()
    with open(args.test) as f:
        text = f.read()
    check(args, parse_constants(text), text, ["--amp-cpu-pipeline"], "amp-opt")


if __name__ == "__main__":
    main()
