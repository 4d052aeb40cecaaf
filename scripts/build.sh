#!/usr/bin/env bash
# Configures (once) and builds amp into build/ with Ninja against Debian's
# LLVM/MLIR 22. Extra arguments are passed to ninja (e.g. a target).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${AMP_BUILD_DIR:-$root/build}"

if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE="${AMP_BUILD_TYPE:-Release}" \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir
fi
ninja -C "$build" "$@"
