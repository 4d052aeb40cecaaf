"""What the benchmark scripts in bench/ share (bench/ is not a package: the
scripts run as `python3 bench/NAME.py`, which puts bench/ on sys.path).

  ROOT, default_build()        the repository and amp's build directory
                               (AMP_BUILD_DIR, default build/)
  tool(build, name)            build/bin/NAME, or exit naming what is missing
  amp_compile(...)             one amp-compile run, its wall-clock seconds
  steps_per_second(step, ...)  a step function timed after warm-up steps
  machine(), load_average()    the machine line every report starts with
  ratio(a, b)                  a / b as printed in the reports
  zoo_entry(name)              a model of the test suite's zoo
                               (test/python/Inputs/zoo_models.py)
  load_model_library, ROLE_NAMES
                               a model library opened by the one loader,
                               its C ABI as the tests declare it
                               (test/lib/python/amp_testing.py)
"""
import os
import platform
import subprocess
import sys
import time

__all__ = ["ROOT", "ROLE_NAMES", "amp_compile", "default_build",
           "load_average", "load_model_library", "machine", "ratio",
           "steps_per_second", "tool", "zoo_entry"]

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

sys.path.insert(0, os.path.join(ROOT, "test", "lib", "python"))
# default_build is also where load_model_library finds the loader.
from amp_testing import (ROLE_NAMES, default_build,  # noqa: E402
                         load_model_library)


def tool(build, name):
    """The path of build/bin/NAME; exits with a message when it is not
    there, instead of a traceback from subprocess."""
    path = os.path.join(build, "bin", name)
    if not os.access(path, os.X_OK):
        sys.exit(f"{os.path.basename(sys.argv[0])}: {path} is missing: "
                 f"--build names amp's build directory (./scripts/build.sh "
                 f"makes it)")
    return path


def amp_compile(build, source, output, options=(), env=None):
    """Runs `amp-compile SOURCE OPTIONS -o OUTPUT` (its messages go to this
    process's output; a failure raises CalledProcessError); returns its
    wall-clock seconds."""
    command = [tool(build, "amp-compile"), source, *options, "-o", output]
    start = time.perf_counter()
    subprocess.run(command, check=True, env=env)
    return time.perf_counter() - start


def steps_per_second(step, steps, warmup):
    """Calls `step` `warmup` times untimed (first steps touch fresh memory
    and fill caches), then `steps` times; returns the timed steps per
    second of wall-clock time."""
    for _ in range(warmup):
        step()
    start = time.perf_counter()
    for _ in range(steps):
        step()
    return steps / (time.perf_counter() - start)


def machine():
    """This machine's CPU, core count and OS, for the first line of a
    report (results are only comparable on one machine)."""
    return (f"{platform.processor() or platform.machine()}, "
            f"{os.cpu_count()} CPUs, {platform.platform(terse=True)}")


def load_average():
    """The 1, 5 and 15 minute load averages: on a shared machine a busy
    spell moves the figures more than most changes do."""
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def ratio(a, b, unit=""):
    """a / b with two decimals and `unit`, or "-" when either is missing."""
    return f"{a / b:.2f}{unit}" if a and b else "-"


def zoo_entry(name):
    """The zoo's Entry `name` (its checks' module zoo_check importable
    too, and the build's amp package); exits naming the models when there
    is no such one."""
    sys.path.insert(0, os.path.join(ROOT, "test", "python", "Inputs"))
    sys.path.insert(0, os.path.join(default_build(), "python_packages"))
    from zoo_models import ZOO
    if name not in ZOO:
        sys.exit(f"{os.path.basename(sys.argv[0])}: no zoo model '{name}' "
                 f"(the models: {', '.join(ZOO)})")
    return ZOO[name]


def openblas_core():
    """The core type OpenBLAS chose for this CPU (its kernels), or
    "unknown"."""
    import ctypes
    try:
        openblas = ctypes.CDLL("libopenblas.so.0")
        openblas.openblas_get_corename.restype = ctypes.c_char_p
        return openblas.openblas_get_corename().decode()
    except (OSError, AttributeError):
        return "unknown"
