#!/usr/bin/env bash
# Data-parallel step time on the CPU (issue 15, docs/DataParallel.md):
# 1 rank against 2 MPI ranks with the same batch per rank (weak scaling),
# and the fraction of the all-reduce time the overlap with the backward
# pass hides: 1 - (time waiting with overlap) / (time waiting when every
# all-reduce starts at its wait, AMP_DP_OVERLAP=0).
#
#   bench/data_parallel.sh [STEPS] [WIDTH] [LAYERS] [BATCH] [BUCKET_MB]
#
# The model: LAYERS x (Linear WIDTH->WIDTH, GELU), then cross-entropy over
# WIDTH classes, fp32, SGD; one OpenBLAS thread per rank; gradient buckets
# of BUCKET_MB MiB (default 1: one per layer, so that all but the last
# bucket can overlap the rest of the backward pass). The wait times include
# the time one rank waits for the other to reach the collective (their
# skew), which on a busy machine is most of it. Environment:
# AMP_BUILD_DIR (default build), MPIRUN (default mpirun with the flags for
# a container: --oversubscribe --allow-run-as-root).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${AMP_BUILD_DIR:-$root/build}/bin"
mpirun="${MPIRUN:-mpirun --oversubscribe --allow-run-as-root --bind-to none}"
steps="${1:-30}" width="${2:-512}" layers="${3:-6}" batch="${4:-64}"
bucket="${5:-1}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

python3 - "$work/model.mlir" "$width" "$layers" "$batch" <<'PY'
import sys
path, w, n, b = sys.argv[1], *map(int, sys.argv[2:])
args = ['%%x: tensor<%dx%dxf32> {amp.role = #amp.role<input>, amp.name = "x"}' % (b, w)]
body, h = [], "%x"
for i in range(n):
    args.append('%%w%d: tensor<%dx%dxf32> {amp.role = #amp.role<parameter>, amp.name = "fc%d.weight"}' % (i, w, w, i))
    args.append('%%b%d: tensor<%dxf32> {amp.role = #amp.role<parameter>, amp.name = "fc%d.bias"}' % (i, w, i))
    t = "tensor<%dx%dxf32>" % (b, w)
    body.append("  %%l%d = amp.linear %s, %%w%d, %%b%d : (%s, tensor<%dx%dxf32>, tensor<%dxf32>) -> %s" % (i, h, i, i, t, w, w, w, t))
    body.append("  %%g%d = amp.gelu %%l%d : %s" % (i, i, t))
    h = "%%g%d" % i
with open(path, "w") as f:
    f.write("func.func @stack(\n    " + ",\n    ".join(args) + ")\n")
    f.write('    -> (tensor<%dx%dxf32> {amp.role = #amp.role<output>, amp.name = "logits"})\n' % (b, w))
    f.write("    attributes {amp.graph = #amp.graph<forward>} {\n")
    f.write("\n".join(body) + "\n  return %s : tensor<%dx%dxf32>\n}\n" % (h, b, w))
PY

"$bin/amp-compile" "$work/model.mlir" --loss=cross_entropy --optimizer=sgd -o "$work/one.so"
"$bin/amp-compile" "$work/model.mlir" --loss=cross_entropy --optimizer=sgd --data-parallel \
  --bucket-cap-mb="$bucket" -o "$work/dp.so"

seconds() { sed -n 's/^trained [0-9]* steps in \([0-9.]*\) s.*/\1/p'; }
waiting() { sed -n 's/^amp-dp: .* \([0-9.]*\) s waiting.*/\1/p'; }

one=$("$bin/amp-run" "$work/one.so" --steps "$steps" --threads 1 2>/dev/null | seconds)
AMP_DP_PROFILE=1 $mpirun -np 2 "$bin/amp-run" "$work/dp.so" --steps "$steps" \
  --threads 1 >"$work/on.out" 2>"$work/on.err"
AMP_DP_PROFILE=1 AMP_DP_OVERLAP=0 $mpirun -np 2 "$bin/amp-run" "$work/dp.so" \
  --steps "$steps" --threads 1 >"$work/off.out" 2>"$work/off.err"
two=$(seconds <"$work/on.out")
two_off=$(seconds <"$work/off.out")
wait_on=$(waiting <"$work/on.err")
wait_off=$(waiting <"$work/off.err")
params=$(( layers * (width * width + width) ))

python3 - "$steps" "$one" "$two" "$two_off" "$wait_on" "$wait_off" "$params" "$batch" "$bucket" <<'PY'
import sys
steps = int(sys.argv[1])
one, two, two_off, won, woff = map(float, sys.argv[2:7])
params, batch, bucket = int(sys.argv[7]), int(sys.argv[8]), sys.argv[9]
ms = lambda s: 1000 * s / steps
print("model: %d parameters (%.1f MiB of f32 gradients, buckets of %s MiB), "
      "batch %d per rank, %d steps"
      % (params, params * 4 / 2**20, bucket, batch, steps))
print("| ranks | step time (ms) | samples/s | all-reduce wait per step (ms) |")
print("|---|---|---|---|")
print("| 1 | %.1f | %.0f | - |" % (ms(one), steps * batch / one))
print("| 2, overlap | %.1f | %.0f | %.2f |" % (ms(two), 2 * steps * batch / two, ms(won)))
print("| 2, no overlap | %.1f | %.0f | %.2f |" % (ms(two_off), 2 * steps * batch / two_off, ms(woff)))
hidden = 1 - won / woff if woff > 0 else 0.0
print("all-reduce time hidden behind backward: %.0f%%" % (100 * hidden))
PY
