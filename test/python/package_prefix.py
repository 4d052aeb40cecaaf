# Where amp.compile finds the model runtime (lib/libamp_model_runtime.a and
# include/amp/Runtime), python/amp/_prefix.py: $AMP_PREFIX first, then
# inside the package (what `pip install .` installs), then the build tree
# around build/python_packages/amp; otherwise an amp.CompileError naming
# where it looked. The cases run on a copy of this build's package (its
# files linked) in a temporary tree.
# RUN: %amp_python %s | FileCheck %s
# RUN: %if torch2 %{ %amp_python2 %s | FileCheck %s %}
# CHECK: this build: the build tree
# CHECK-NEXT: runtime in the package and the tree: the package
# CHECK-NEXT: runtime in the tree only: the tree
# CHECK-NEXT: AMP_PREFIX and the package: AMP_PREFIX
# CHECK-NEXT: AMP_PREFIX without a runtime: CompileError AMP_PREFIX=<empty> has no model runtime
# CHECK-NEXT: headers missing: CompileError the model runtime (lib/libamp_model_runtime.a and include/amp/Runtime/ModelDescriptor.h) is in neither the package <package> nor the build tree <tree>
import os
import shutil
import subprocess
import sys
import tempfile

import amp
from amp._prefix import package_prefix

build_package = os.path.dirname(os.path.abspath(amp.__file__))
build_tree = os.path.dirname(os.path.dirname(build_package))
assert package_prefix() == build_tree, package_prefix()
print("this build: the build tree")

RUNTIME = os.path.join("lib", "libamp_model_runtime.a")
HEADER = os.path.join("include", "amp", "Runtime", "ModelDescriptor.h")


def add_runtime(prefix, header=True):
    paths = [RUNTIME] + ([HEADER] if header else [])
    for path in paths:
        os.makedirs(os.path.dirname(os.path.join(prefix, path)), exist_ok=True)
        shutil.copyfile(os.path.join(build_tree, path),
                        os.path.join(prefix, path))


def remove_runtime(prefix):
    for name in ("lib", "include"):
        shutil.rmtree(os.path.join(prefix, name), ignore_errors=True)


def lookup(root, names, **env):
    """package_prefix() of the package under root/python_packages, in a
    fresh interpreter, with root and the empty directory shown by name."""
    script = ("import amp\n"
              "from amp._prefix import package_prefix\n"
              "try:\n"
              "    print(package_prefix())\n"
              "except amp.CompileError as e:\n"
              "    print('CompileError ' + str(e))\n")
    environment = dict(os.environ, **env)
    environment["PYTHONPATH"] = os.path.join(root, "python_packages")
    if "AMP_PREFIX" not in env:
        environment.pop("AMP_PREFIX", None)
    out = subprocess.run([sys.executable, "-c", script], env=environment,
                         stdout=subprocess.PIPE, check=True,
                         universal_newlines=True).stdout.strip()
    for path, name in names:
        out = out.replace(path, name)
    return out.replace("amp: ", "")


with tempfile.TemporaryDirectory() as root:
    root = os.path.realpath(root)
    empty = os.path.join(root, "empty")
    os.makedirs(empty)
    package = os.path.join(root, "python_packages", "amp")
    os.makedirs(package)
    # Linked, not copied: the package's files are found at the copy's path.
    for name in os.listdir(build_package):
        if name not in ("lib", "include", "__pycache__"):
            os.symlink(os.path.join(build_package, name),
                       os.path.join(package, name))
    names = [(package, "<package>"), (empty, "<empty>"), (root, "<tree>")]

    add_runtime(package)
    add_runtime(root)
    print("runtime in the package and the tree: " +
          lookup(root, names).replace("<package>", "the package"))
    remove_runtime(package)
    print("runtime in the tree only: " +
          lookup(root, names).replace("<tree>", "the tree"))
    add_runtime(package)
    print("AMP_PREFIX and the package: " +
          lookup(root, names, AMP_PREFIX=root).replace("<tree>",
                                                       "AMP_PREFIX"))
    print("AMP_PREFIX without a runtime: " +
          lookup(root, names, AMP_PREFIX=empty).split(" (")[0])
    # An archive without its headers is not a runtime amp can link with.
    remove_runtime(package)
    remove_runtime(root)
    add_runtime(package, header=False)
    add_runtime(root, header=False)
    print("headers missing: " + lookup(root, names).split(": reinstall")[0])
