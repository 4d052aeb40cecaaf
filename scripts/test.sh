#!/usr/bin/env bash
# Installs what is missing, builds everything and runs the whole test suite
# (the lit suite, through ctest).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${AMP_BUILD_DIR:-$root/build}"

"$root/scripts/setup.sh"
start=$(date +%s)
"$root/scripts/build.sh"
echo "== build took $(( $(date +%s) - start )) s"
start=$(date +%s)
status=0
ctest --test-dir "$build" --output-on-failure -V || status=$?
echo "== tests took $(( $(date +%s) - start )) s"
"$root/scripts/check-devices.sh" || status=$?
exit $status
