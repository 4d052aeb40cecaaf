"""Runs ONNX models imported by amp-translate on amp's CPU backend.

The pieces the ONNX tests share:

  import_model(onnx, mlir, *flags)   amp-translate --import-onnx (-> .mlir, .ckpt)
  read_checkpoint(path)              the initial values amp-translate wrote
  signature(mlir_text, function)     the function's arguments and results
                                     (type, amp.name, amp.role)
  run_forward(mlir, feeds)           builds a @main that calls the imported
                                     function on `feeds` (name -> numpy array,
                                     exact: hex constants), lowers it with
                                     amp-opt --amp-cpu-pipeline, runs it with
                                     mlir-runner and returns every float
                                     result (name -> numpy array)
  compare(label, got, expected, ...) PASS/FAIL line, tolerance explained there

Tools come from $PATH (the lit configuration puts the build's first) or
$AMP_TRANSLATE / $AMP_OPT / $MLIR_RUNNER; the runner's libraries from
$MLIR_RUNNER_LIBS or /usr/lib/llvm-22/lib.
"""

import os
import re
import shutil
import subprocess
import sys

import numpy as np

LLVM_LIB = "/usr/lib/llvm-22/lib"


def tool(name, env):
    path = os.environ.get(env) or shutil.which(name)
    if not path:
        sys.exit(f"FAIL: cannot find {name} (put it on PATH or set ${env})")
    return path


def run(command, what, stdin=None, timeout=600):
    result = subprocess.run(command, input=stdin, capture_output=True,
                            text=True, timeout=timeout)
    if result.returncode != 0:
        sys.stdout.write(result.stdout[-3000:])
        sys.stdout.write(result.stderr[-3000:])
        sys.exit(f"FAIL: {what} exited with {result.returncode}: "
                 f"{' '.join(command[:4])} ...")
    return result.stdout


def import_model(onnx_path, mlir_path, *flags):
    run([tool("amp-translate", "AMP_TRANSLATE"), "--import-onnx", onnx_path,
         "-o", mlir_path, *flags], "amp-translate")
    with open(mlir_path) as f:
        return f.read()


# --- amp checkpoints (lib/Runtime/Checkpoint.cpp, docs/Driver.md) --------

# The checkpoint reader of the amp-compile tests serves here too.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "amp-compile", "Inputs"))
from amp_checkpoint import read as read_checkpoint  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "lib", "python"))
from amp_testing import parse_printout  # noqa: E402


# --- The imported function --------------------------------------------------

ARG = re.compile(r"(%[\w]+): (tensor<[^>]*>) \{([^}]*)\}")
RESULT = re.compile(r"(tensor<[^>]*>) \{([^}]*)\}")


def attrs(text):
    name = re.search(r'amp\.name = "((?:[^"\\]|\\.)*)"', text)
    role = re.search(r"amp\.role = #amp\.role<(\w+)>", text)
    return (name.group(1) if name else None, role.group(1) if role else None)


def signature(mlir_text, function="forward"):
    """[(ssa, type, name, role)] for arguments and [(type, name, role)] for
    results of `function` as amp-translate prints it."""
    match = re.search(r"func\.func @%s\((.*?)\) -> \((.*?)\) attributes" %
                      re.escape(function), mlir_text, re.S)
    if not match:
        match = re.search(r"func\.func @%s\((.*?)\) -> (tensor<[^>]*> \{[^}]*\}) "
                          r"attributes" % re.escape(function), mlir_text,
                          re.S)
    if not match:
        sys.exit(f"FAIL: no function @{function} in the imported module")
    args = [(ssa, ty) + attrs(a) for ssa, ty, a in ARG.findall(match.group(1))]
    results = [(ty,) + attrs(a) for ty, a in RESULT.findall(match.group(2))]
    return args, results


def parse_type(ty):
    body = ty[len("tensor<"):-1]
    *dims, element = body.split("x")
    return [int(d) for d in dims], element


NUMPY = {"f32": np.float32, "f16": np.float16, "i64": np.int64,
         "i32": np.int32}


def hex_constant(array, ty):
    shape, element = parse_type(ty)
    if element == "bf16":
        wide = np.ascontiguousarray(array, dtype=np.float32)
        data = (wide.view(np.uint32) >> 16).astype("<u2").tobytes()
    else:
        data = np.ascontiguousarray(array, dtype=NUMPY[element]).astype(
            np.dtype(NUMPY[element]).newbyteorder("<")).tobytes()
    if list(np.shape(array)) != shape:
        sys.exit(f"FAIL: value of shape {list(np.shape(array))} for {ty}")
    return f'amp.constant dense<"0x{data.hex().upper()}"> : {ty}'


def build_main(mlir_text, feeds, function="forward"):
    args, results = signature(mlir_text, function)
    lines = [mlir_text.rstrip()[:-1].rstrip(),  # reopen the module
             "  func.func private @printMemrefF32(tensor<*xf32>)",
             "  func.func @main() {"]
    operands = []
    for i, (ssa, ty, name, role) in enumerate(args):
        if name not in feeds:
            sys.exit(f"FAIL: no value for argument '{name}' ({role})")
        lines.append(f"    %a{i} = {hex_constant(feeds[name], ty)}")
        operands.append(f"%a{i}")
    arg_types = ", ".join(ty for _, ty, _, _ in args)
    result_types = ", ".join(ty for ty, _, _ in results)
    lines.append(f"    %r:{len(results)} = func.call @{function}("
                 f"{', '.join(operands)}) : ({arg_types}) -> ({result_types})")
    printed = []
    for i, (ty, name, role) in enumerate(results):
        shape, element = parse_type(ty)
        if element not in ("f32", "f16", "bf16"):
            continue
        value = f"%r#{i}"
        if element != "f32":
            lines.append(f"    %w{i} = amp.cast {value} : {ty} to "
                         f"tensor<{'x'.join(map(str, shape + ['f32']))}>")
            value, ty = f"%w{i}", f"tensor<{'x'.join(map(str, shape))}" + \
                ("x" if shape else "") + "f32>"
        if not shape:
            lines.append(f"    %s{i} = amp.reshape {value} : tensor<f32> -> "
                         "tensor<1xf32>")
            value, ty = f"%s{i}", "tensor<1xf32>"
        lines.append(f"    %u{i} = tensor.cast {value} : {ty} to tensor<*xf32>")
        lines.append(f"    func.call @printMemrefF32(%u{i}) : "
                     "(tensor<*xf32>) -> ()")
        printed.append((name, role, shape))
    lines += ["    return", "  }", "}"]
    return "\n".join(lines) + "\n", printed


def run_forward(mlir_path, feeds, workdir, function="forward"):
    with open(mlir_path) as f:
        text = f.read()
    main_text, printed = build_main(text, feeds, function)
    main_path = os.path.join(workdir, "main.mlir")
    with open(main_path, "w") as f:
        f.write(main_text)
    lowered = run([tool("amp-opt", "AMP_OPT"), main_path,
                   "--amp-cpu-pipeline"], "amp-opt --amp-cpu-pipeline")
    libs = os.environ.get("MLIR_RUNNER_LIBS") or ",".join(
        os.path.join(LLVM_LIB, lib) for lib in
        ("libmlir_runner_utils.so", "libmlir_c_runner_utils.so"))
    out = run([tool("mlir-runner", "MLIR_RUNNER"), "-e", "main",
               "-entry-point-result=void", "-shared-libs=" + libs],
              "mlir-runner", stdin=lowered)
    tensors = parse_printout(out)
    if len(tensors) != len(printed):
        sys.exit(f"FAIL: {len(tensors)} tensors printed, expected "
                 f"{len(printed)}")
    got = {}
    for (name, role, shape), tensor in zip(printed, tensors):
        got[name] = tensor.reshape(shape) if shape else tensor.reshape(())
    return got


def compare(label, got, expected, rtol=2e-4, atol_rel=2e-5):
    """|got - expected| <= atol + rtol |expected| elementwise, with
    atol = atol_rel * max|expected| + 1e-6. The defaults cover f32 sums
    accumulated in a different order (convolutions and GEMMs of up to a few
    thousand terms), erf/tanh/exp implementations that differ by a few ulps,
    and the six significant digits printMemrefF32 prints."""
    expected = np.asarray(expected, dtype=np.float64)
    got = np.asarray(got, dtype=np.float64)
    if got.shape != expected.shape:
        print(f"FAIL {label}: shape {list(got.shape)} != "
              f"{list(expected.shape)}")
        return False
    scale = float(np.max(np.abs(expected))) if expected.size else 0.0
    tol = atol_rel * scale + 1e-6 + rtol * np.abs(expected)
    err = np.abs(got - expected)
    ratio = float(np.max(err / tol)) if err.size else 0.0
    ok = bool(np.all(err <= tol)) and not np.any(np.isnan(got))
    print(f"{'PASS' if ok else 'FAIL'} {label}: max_abs_err="
          f"{float(np.max(err)) if err.size else 0.0:.3g} "
          f"max_err/tol={ratio:.3g}")
    return ok
