#!/usr/bin/env bash
# The main job on a fresh Debian 12 machine: install what is missing, build,
# and run amp-opt on the bundled MLP training step.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${AMP_BUILD_DIR:-$root/build}"
example="$root/examples/mlp_train_step.mlir"

"$root/scripts/setup.sh"
"$root/scripts/build.sh" amp-opt

echo "== amp-opt: parse, verify and print $example"
"$build/bin/amp-opt" "$example" -o "$build/mlp_train_step.verified.mlir"
cat "$build/mlp_train_step.verified.mlir"
echo "== operations in the training step"
"$build/bin/amp-opt" "$example" --print-op-stats -o /dev/null
echo "== verified the MLP training step; printed form in $build/mlp_train_step.verified.mlir"
