#!/usr/bin/env bash
# The main job on a fresh Debian 12 machine: install what is missing, build,
# compile the bundled MLP training step into a library and train it for a
# few steps on the CPU.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${AMP_BUILD_DIR:-$root/build}"
example="$root/examples/mlp_train_step.mlir"
work="$build/quickstart"

"$root/scripts/setup.sh"
"$root/scripts/build.sh" amp-opt amp-compile amp-run amp_model_runtime
mkdir -p "$work"

echo "== amp-opt: verify the MLP training step ($example)"
"$build/bin/amp-opt" "$example" --print-op-stats -o /dev/null

echo "== amp-compile: compile it for the CPU"
"$build/bin/amp-compile" "$example" --target=cpu --lr=0.05 -o "$work/mlp.so"

echo "== amp-run: train 30 steps on seeded synthetic data"
"$build/bin/amp-run" "$work/mlp.so" --steps 30 --seed 1 \
  --metrics "$work/metrics.jsonl" --save "$work/mlp.ckpt"

echo "== library $work/mlp.so, metrics $work/metrics.jsonl, checkpoint $work/mlp.ckpt"
