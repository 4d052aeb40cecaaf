#!/usr/bin/env bash
# Configures (once) and builds amp into build/ with Ninja against Debian's
# LLVM/MLIR 22. Extra arguments are passed to ninja (e.g. a target).
# AMP_BUILD_DIR picks another build directory, AMP_BUILD_TYPE the build type
# and AMP_CMAKE_ARGS adds CMake arguments to the first configuration (e.g.
# -DAMP_ENABLE_SANITIZERS=address\;undefined, as scripts/test-sanitizers.sh).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${AMP_BUILD_DIR:-$root/build}"

if [ ! -f "$build/build.ninja" ]; then
  # shellcheck disable=SC2086 # AMP_CMAKE_ARGS is a list of arguments.
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE="${AMP_BUILD_TYPE:-Release}" \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir ${AMP_CMAKE_ARGS:-}
fi
ninja -C "$build" "$@"
