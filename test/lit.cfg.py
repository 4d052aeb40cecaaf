# -*- Python -*-
import os
import shlex
import shutil

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "AMP"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.amp_obj_root, "test")
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
# Survey mode of the hostile-input suite (test/Hostile/Inputs/expect_error.py).
if "AMP_HOSTILE_KEEP_GOING" in os.environ:
    config.environment["AMP_HOSTILE_KEEP_GOING"] = os.environ[
        "AMP_HOSTILE_KEEP_GOING"]
config.substitutions.append(("%amp_src_root", config.amp_src_root))
# The build under test, for the harnesses that open model libraries with its
# loader, libamp_loader.so (test/lib/python/amp_testing.py).
config.environment["AMP_BUILD_DIR"] = config.amp_obj_root
config.substitutions.append(("%python", config.python_executable))
# `%expect_error [--stderr TEXT] [--unchanged PATH] -- COMMAND...`: COMMAND
# must exit with status 1 exactly (not a signal, not another status), say
# TEXT on stderr and leave PATH as it was (test/Hostile/Inputs/expect_error.py).
# `%sweep` checks a tool on many generated variants of an input (truncations,
# bit flips, full disks, unwritable paths), `%gen` writes hostile inputs.
hostile_inputs = os.path.join(config.amp_src_root, "test", "Hostile", "Inputs")
for name, script in [("%expect_error", "expect_error.py"),
                     ("%sweep", "sweep.py"), ("%gen", "gen.py")]:
    config.substitutions.append(
        (name, "%s %s" % (config.python_executable,
                          os.path.join(hostile_inputs, script))))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tool_dirs = [config.amp_tools_dir, config.llvm_tools_dir]
tools = ["amp-opt", "amp-compile", "amp-run", "amp-translate", "amp-bisect"]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# The CPU execution tests run lowered IR with mlir-runner and its runtime
# support libraries (printMemref*).
llvm_lib_dir = os.path.join(os.path.dirname(config.llvm_tools_dir), "lib")
config.substitutions.append(
    ("%mlir_runner_utils", os.path.join(llvm_lib_dir, "libmlir_runner_utils.so")))
# The CPU pipeline calls amp_cpu_sgemm (its `blas` option, on by default;
# the model runtime's matrix products on OpenBLAS): the C runner utilities
# come with libamp_runner_runtime.so, so that every test running lowered IR
# finds it.
config.substitutions.append(
    ("%mlir_c_runner_utils",
     os.path.join(llvm_lib_dir, "libmlir_c_runner_utils.so") + "," +
     config.amp_runner_runtime))
# The same list for the harnesses that run mlir-runner themselves
# (test/Target/ONNX/Inputs/onnx_harness.py).
config.environment["MLIR_RUNNER_LIBS"] = ",".join(
    [os.path.join(llvm_lib_dir, "libmlir_runner_utils.so"),
     os.path.join(llvm_lib_dir, "libmlir_c_runner_utils.so"),
     config.amp_runner_runtime])

if config.amp_has_cuda_toolkit:
    config.available_features.add("cuda-toolkit")
# Data-parallel execution tests need amp built with MPI and a launcher
# (docs/DataParallel.md); without them they report UNSUPPORTED.
if config.amp_has_mpi and shutil.which("mpirun"):
    config.available_features.add("mpi")
    config.substitutions.append(
        ("%mpirun", "mpirun --oversubscribe --allow-run-as-root "
                    "--mca btl self,vader --bind-to none"))
if os.path.exists(os.path.join(config.amp_tools_dir, "amp-translate")):
    config.available_features.add("amp-translate")


def _python_has(module):
    """Whether the tests' Python (/usr/bin/python3) imports `module`."""
    import subprocess

    try:
        return subprocess.run([config.python_executable, "-c",
                               "import " + module],
                              capture_output=True, timeout=120).returncode == 0
    except Exception:
        return False


for module in ["numpy", "onnx", "torchvision"]:
    if _python_has(module):
        config.available_features.add("python-" + module)

# The Python package (python/, test/python): %amp_python runs a script with
# this build's package on PYTHONPATH. Not under sanitizers: the
# interpreter would have to load their runtimes first.
amp_python_packages = os.path.join(config.amp_obj_root, "python_packages")
if (os.path.isdir(os.path.join(amp_python_packages, "amp")) and
        not config.amp_sanitizers and _python_has("torch")):
    config.available_features.add("python-amp")

# The same package under current PyPI PyTorch 2.x and numpy 2: %amp_python2
# runs a script with the Python of the venv that scripts/torch2-venv.sh
# creates (AMP_TORCH2_VENV, default ~/.cache/amp/torch2-venv; complete once
# its stamp is written) or with AMP_TORCH2_PYTHON. Test files run under both
# generations with `RUN: %if torch2 %{ %amp_python2 ... %}`. A missing venv
# fails those lines with the reason: a suite that quietly skipped torch 2
# would hide the bugs they are for. AMP_NO_TORCH2=1 is the explicit opt-out
# (no feature torch2: the lines are skipped).
def _torch2_python():
    """The torch2 tests' interpreter, or None and why there is none."""
    explicit = os.environ.get("AMP_TORCH2_PYTHON")
    if explicit:
        return explicit, None
    venv = os.environ.get("AMP_TORCH2_VENV") or os.path.join(
        os.path.expanduser("~"), ".cache", "amp", "torch2-venv")
    python = os.path.join(venv, "bin", "python")
    # Written by scripts/torch2-venv.sh only after a complete install.
    if (os.path.isfile(os.path.join(venv, ".amp-torch2-complete")) and
            os.access(python, os.X_OK)):
        return python, None
    return None, ("no complete torch2 venv at %s: run scripts/torch2-venv.sh "
                  "(AMP_NO_TORCH2=1 skips the torch2 RUN lines)" % venv)


def _fails_with(message):
    """A command in place of %amp_python2 that fails saying why."""
    return "%s -c %s" % (config.python_executable, shlex.quote(
        'import sys; sys.exit("amp: %s")' % message))


torch2_python = None
if os.environ.get("AMP_NO_TORCH2", "") not in ("", "0"):
    if "python-amp" in config.available_features:
        lit_config.note("AMP_NO_TORCH2 is set: the torch2 RUN lines of "
                        "test/python are skipped")
    # Only a RUN line outside `%if torch2 %{...%}`, in a file without
    # REQUIRES: torch2, still runs it: it fails, saying so. (No percent sign
    # in the message: lit would substitute there again.)
    config.substitutions.append(("%amp_python2", _fails_with(
        "AMP_NO_TORCH2 is set, but this RUN line runs the torch2 Python "
        "without the torch2 feature condition (if torch2)")))
else:
    config.available_features.add("torch2")
    torch2_python, torch2_missing = _torch2_python()
    if not torch2_python:
        if "python-amp" in config.available_features:
            lit_config.warning(torch2_missing)
        config.substitutions.append(("%amp_python2",
                                     _fails_with(torch2_missing)))
if torch2_python:
    config.substitutions.append(
        ("%amp_python2", "env PYTHONPATH=%s %s" % (amp_python_packages,
                                                   torch2_python)))
    # Real models that the venv has when they installed (best effort):
    # features torch2-transformers, torch2-timm.
    import subprocess

    try:
        found = subprocess.run(
            [torch2_python, "-c",
             "import importlib.util as u\n"
             "for m in ['transformers', 'timm']:\n"
             "    print(m) if u.find_spec(m) else None"],
            capture_output=True, text=True, timeout=120).stdout.split()
    except Exception:
        found = []
    for module in found:
        config.available_features.add("torch2-" + module)
# After %amp_python2: lit replaces in list order, and this is its prefix.
config.substitutions.append(
    ("%amp_python", "env PYTHONPATH=%s %s" % (amp_python_packages,
                                              config.python_executable)))

# A build with AMP_ENABLE_SANITIZERS (scripts/test-sanitizers.sh): features
# "asan", "ubsan" and "sanitizers" for tests that must know, and the
# sanitizers' options for every tool the tests run. A report aborts the tool
# (a signal, never the exit status 1 that a clean error has), so it fails
# the test that ran into it; allocations too large for the machine return
# null as they do without ASan, for the tools to report. Manual poisoning is
# off: LLVM's BumpPtrAllocator poisons its slabs in our instrumented copy of
# its inline code and not in libMLIR's, which then writes to "poisoned"
# memory it allocated itself (a false use-after-poison). Leak checking stays
# off unless ASAN_OPTIONS asks for it (detect_leaks=1).
sanitizers = [s for s in config.amp_sanitizers.replace(",", ";").split(";") if s]
if sanitizers:
    config.available_features.add("sanitizers")
    if "address" in sanitizers:
        config.available_features.add("asan")
    if "undefined" in sanitizers:
        config.available_features.add("ubsan")
    symbolizer = os.path.join(config.llvm_tools_dir, "llvm-symbolizer")
    defaults = {
        "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=1:"
                        "allocator_may_return_null=1:allow_user_poisoning=0",
        "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1:"
                         "abort_on_error=1",
    }
    for name, value in defaults.items():
        # Options from the environment come last and win.
        config.environment[name] = ":".join(
            filter(None, [value, os.environ.get(name)]))
    config.environment["ASAN_SYMBOLIZER_PATH"] = symbolizer
    config.environment["UBSAN_SYMBOLIZER_PATH"] = symbolizer


def _has_cuda_gpu():
    """A CUDA driver that finds at least one device: GPU execution tests
    need it and report UNSUPPORTED elsewhere (CI, development machines)."""
    import ctypes

    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    count = ctypes.c_int(0)
    return (cuda.cuInit(0) == 0 and
            cuda.cuDeviceGetCount(ctypes.byref(count)) == 0 and
            count.value > 0)


if config.amp_has_cuda_toolkit and _has_cuda_gpu():
    config.available_features.add("cuda-gpu")
    # NCCL where the runtime would open it: on the library path or in the
    # toolkit (lib/Runtime/CUDACollectives.cpp).
    import ctypes

    for nccl in ["libnccl.so.2",
                 os.path.join(config.amp_cuda_root, "lib64", "libnccl.so.2")]:
        try:
            ctypes.CDLL(nccl)
            config.available_features.add("nccl")
            break
        except OSError:
            pass
