"""Where the model runtime is: the archives (lib/) and headers (include/)
that amp.compile links every compiled training step with."""
import os

from .errors import CompileError

# What linking a model library needs at least (lib/Target/ModelLibrary adds
# the CPU, CUDA, emulator and data-parallel archives next to it and reports
# those itself when they are missing).
_RUNTIME = os.path.join("lib", "libamp_model_runtime.a")
_HEADER = os.path.join("include", "amp", "Runtime", "ModelDescriptor.h")


def _has_runtime(prefix):
    return (os.path.isfile(os.path.join(prefix, _RUNTIME)) and
            os.path.isfile(os.path.join(prefix, _HEADER)))


def package_prefix():
    """The directory with lib/ and include/ of the model runtime: $AMP_PREFIX
    when it is set (an explicit choice, never passed over), else the package
    itself (`pip install .` puts them in amp/lib and amp/include), else the
    build tree around build/python_packages/amp (or an install by CMake,
    which has the same layout). Raises CompileError naming where it looked."""
    explicit = os.environ.get("AMP_PREFIX")
    if explicit:
        if not _has_runtime(explicit):
            raise CompileError(
                "amp: AMP_PREFIX=%s has no model runtime (%s and %s); set it "
                "to an amp build or install directory, or unset it" %
                (explicit, _RUNTIME, _HEADER))
        return explicit
    package = os.path.dirname(os.path.abspath(__file__))
    tree = os.path.dirname(os.path.dirname(package))
    for prefix in (package, tree):
        if _has_runtime(prefix):
            return prefix
    raise CompileError(
        "amp: the model runtime (%s and %s) is in neither the package %s nor "
        "the build tree %s: reinstall amp with pip, build amp, or set "
        "AMP_PREFIX to a directory that has it" %
        (_RUNTIME, _HEADER, package, tree))
