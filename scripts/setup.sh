#!/usr/bin/env bash
# Installs the Debian 12 packages amp needs when they are missing. Safe to run
# again: it only calls apt-get for packages that are not installed yet.
set -euo pipefail

packages=(
  # Build: LLVM/MLIR 22, CMake, Ninja, a compiler cache.
  cmake ninja-build g++ ccache
  # The Python package (python/): its extension is built with pybind11.
  pybind11-dev
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools
  # amp-run links LLVM's static Support library (it must run on GPU machines
  # without LLVM), whose CMake target needs zstd's development files.
  libzstd-dev
  # ONNX import.
  libonnx-dev libprotobuf-dev protobuf-compiler
  # CPU matrix products (cblas_sgemm) and convolutions (oneDNN).
  libopenblas-dev libdnnl-dev
  # Data-parallel training on the CPU (MPI; docs/DataParallel.md).
  libopenmpi-dev openmpi-bin
  # Test models and reference numerics (run with /usr/bin/python3).
  python3 python3-numpy python3-onnx python3-torch python3-torchvision
  # The venv with PyPI's PyTorch 2.x for the torch2 tests
  # (scripts/torch2-venv.sh).
  python3-venv
)

missing=()
for pkg in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$pkg")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages are installed"
  exit 0
fi

echo "setup: installing ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -q
"${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
