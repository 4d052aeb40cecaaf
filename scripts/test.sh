#!/usr/bin/env bash
# Installs what is missing, builds everything and runs the whole test suite
# (the lit suite, through ctest). The Python package's tests run under
# Debian's PyTorch 1.13 and under PyPI's PyTorch 2.x with numpy 2, from the
# venv of scripts/torch2-venv.sh (created once and cached: AMP_TORCH2_VENV).
# If that venv cannot be made the torch2 tests fail; AMP_NO_TORCH2=1 skips
# them instead.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${AMP_BUILD_DIR:-$root/build}"

"$root/scripts/setup.sh"
status=0
# test/lit.cfg.py finds the venv through the same variable.
export AMP_TORCH2_VENV="${AMP_TORCH2_VENV:-$HOME/.cache/amp/torch2-venv}"
if [ "${AMP_NO_TORCH2:-0}" = 0 ]; then
  start=$(date +%s)
  "$root/scripts/torch2-venv.sh" || status=$?
  echo "== torch2 venv took $(( $(date +%s) - start )) s"
fi
start=$(date +%s)
"$root/scripts/build.sh"
echo "== build took $(( $(date +%s) - start )) s"
start=$(date +%s)
ctest --test-dir "$build" --output-on-failure -V || status=$?
echo "== tests took $(( $(date +%s) - start )) s"
"$root/scripts/check-devices.sh" || status=$?
exit $status
