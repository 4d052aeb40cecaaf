#!/usr/bin/env bash
# Checks and measures amp on a GPU machine that has no LLVM/MLIR (so no
# amp-compile): everything is compiled beforehand on the development machine.
#
#   scripts/gpu-machine.sh prepare DIR     # here: compile into DIR
#   scripts/gpu-machine.sh run DIR OUT     # there, with DIR carried along
#
# prepare: copies amp-run (linked without libLLVM), amp-cuda-runtime-check,
# amp-step-pipeline-check, amp-cuda-attention-check and
# amp-cuda-fp8-gemm-check into DIR/bin and the model-library loader that bench/gpu_train_step.py
# opens libraries with (libamp_loader.so, without libLLVM too) into DIR/lib,
# DIR laid out as a build directory's run side (run sets AMP_BUILD_DIR to
# it); compiles the GPU-vs-CPU correctness cases into DIR/cases (the
# bundled examples at fp32/bf16/fp16 and the emulated-device tests' option
# mixes), trains their CPU builds here and keeps only those builds' loss
# curves; compiles the checkpoint and overflow-skip libraries; compiles the
# benchmark libraries (bench/gpu_train_step.py, issue sizes) into
# DIR/gpu-libs. Environment: AMP_BUILD_DIR (default build), PYTHON
# (default /usr/bin/python3), GPU_TARGET (default cuda; cuda-emulator
# builds the checks for the emulated device, to try this script without a
# GPU: the runtime and bench checks then fail for want of one).
#
# run: each check under a time limit, going on after a failure, its output
# in OUT/<check>.txt; a line per check "PASS name" / "FAIL name" in
# OUT/summary.txt; exit 1 if any failed. Checks (environment CHECKS, default
# all but torch_compile): runtime (amp-cuda-runtime-check: gpu, the
# emulated device's exact GEMM and epilogue checks, the data-parallel
# collectives as one rank on NCCL; amp-cuda-attention-check: cuDNN's fused
# attention against a reference; amp-cuda-fp8-gemm-check: cuBLASLt's FP8
# GEMMs against the exact reference, in a graph too), gpu_vs_cpu,
# checkpoint (10 steps == 5 + resume 5, byte for byte), overflow (fp16 with
# an initial scale of 2^24 skips steps and halves the scale, as on the CPU),
# pipeline (amp-step-pipeline-check: overlapped steps identical to plain
# ones on every case and two benchmark libraries), graphs (steps replayed
# from CUDA graphs leave the checkpoint steps without graphs do), bench
# (bench/run_gpu_benchmarks.sh without torch.compile, with a kernel
# trace), bench_fresh (torch copies its batch from the host every step, as
# amp does), torch_compile (with torch.compile), bench_fp8 (fp8 against
# bf16 on both workloads), bench_lm (GPT-2 124M, bf16 and fp8, against
# eager, eager-sdpa and torch.compile with SDPA; prepare compiles it with
# PyTorch 2, scripts/torch2-venv.sh). BENCH_PARTS: the parts of bench and
# torch_compile (default "gemm mlp_stack gpt2_block" and "mlp_stack
# gpt2_block"); BENCH_PRECISIONS: their precisions (default bf16,fp16).
set -u -o pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
usage() { sed -n '2,/^set /p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 2; }
[ $# -ge 2 ] || usage

# ---------------------------------------------------------------------------
# prepare (development machine)
# ---------------------------------------------------------------------------

# "MODEL PRECISION OPTIONS..." per case; models under $models or examples/.
correctness_cases() {
  local ex="$root/examples" m="$1"
  for model in mlp_train_step transformer_block cnn; do
    for precision in fp32 bf16 fp16; do echo "$ex/$model.mlir $precision"; done
  done
  cat <<EOF
$ex/mlp_forward.mlir fp32 --loss=cross_entropy --optimizer=sgd --momentum=0.9
$ex/mlp_forward.mlir fp16 --opt-level=O2 --loss=mse --optimizer=adamw --max-grad-norm=1.0
$ex/cnn_groupnorm.mlir fp32 --loss=cross_entropy --optimizer=adamw --weight-decay=0.01
$ex/cnn_groupnorm.mlir fp16 --opt-level=O1 --loss=cross_entropy --optimizer=sgd --momentum=0.9 --max-grad-norm=0.5
$ex/transformer_block.mlir fp16 --opt-level=O2 --optimizer=sgd --momentum=0.9 --max-grad-norm=1.0
$m/mlp_stack.mlir fp32 --optimizer=adamw --max-grad-norm=1.0
$m/mlp_stack.mlir bf16 --opt-level=O2 --optimizer=adamw
$m/mlp_stack.mlir fp16 --optimizer=adamw
$m/gpt2_block.mlir fp32 --optimizer=sgd --momentum=0.9
$m/gpt2_block.mlir bf16 --opt-level=O1 --optimizer=adamw --max-grad-norm=0.5 --loss-scale=dynamic
$m/gpt2_block.mlir fp16 --optimizer=adamw
$ex/mlp_stack.mlir fp8 --fp8-select=all --optimizer=adamw --lr=1e-3
$ex/transformer_block.mlir fp8 --fp8-select=all --optimizer=adamw --lr=1e-3
$m/gpt2_block.mlir fp8 --fp8-select=all --optimizer=adamw --lr=1e-3
EOF
}

prepare() {
  local dir="$1" build="${AMP_BUILD_DIR:-$root/build}"
  local python="${PYTHON:-/usr/bin/python3}"
  local compile="$build/bin/amp-compile" run="$build/bin/amp-run"
  local target="${GPU_TARGET:-cuda}"
  # Replaces only what an earlier prepare made (its marker), never another
  # directory's contents.
  if [ -e "$dir" ] && [ -n "$(ls -A "$dir" 2>/dev/null)" ] &&
     [ ! -f "$dir/.gpu-machine" ]; then
    echo "gpu-machine: $dir exists and was not made by 'prepare'; name a" \
      "new directory" >&2
    return 1
  fi
  rm -rf "$dir" && mkdir -p "$dir/bin" "$dir/lib" "$dir/cases" \
    "$dir/models" && touch "$dir/.gpu-machine" || return 1
  cp "$run" "$build/bin/amp-cuda-runtime-check" \
    "$build/bin/amp-step-pipeline-check" \
    "$build/bin/amp-cuda-attention-check" \
    "$build/bin/amp-cuda-fp8-gemm-check" "$dir/bin/" &&
    cp "$build/lib/libamp_loader.so" "$dir/lib/" || return 1
  local carried
  for carried in "$dir/bin/amp-run" "$dir/lib/libamp_loader.so"; do
    if ldd "$carried" | grep -Eq 'libLLVM|libMLIR'; then
      echo "gpu-machine: $carried links libLLVM or libMLIR, which GPU" \
        "machines lack" >&2
      return 1
    fi
  done
  "$python" "$root/bench/make_gpu_models.py" --sizes small \
    -o "$dir/models" > /dev/null || return 1
  local cases=()
  while IFS= read -r line; do cases+=(--case "$line"); done \
    < <(correctness_cases "$dir/models")
  "$python" "$root/test/amp-compile/Inputs/gpu_vs_cpu.py" --prepare \
    --amp-compile "$compile" --amp-run "$run" --dir "$dir/cases" \
    --gpu-target "$target" --steps 20 "${cases[@]}" || return 1
  rm -f "$dir"/cases/*-cpu.so
  # Checkpoints and the overflow skip.
  local mlp="$root/examples/mlp_train_step.mlir"
  "$compile" "$mlp" --target="$target" --precision=fp16 -o "$dir/cases/ckpt.so" &&
  "$compile" "$mlp" --target="$target" --precision=fp16 --init-scale=16777216 \
    --lr=0.05 -o "$dir/cases/inf-gpu.so" &&
  "$compile" "$mlp" --precision=fp16 --init-scale=16777216 --lr=0.05 \
    -o "$dir/cases/inf-cpu.so" || return 1
  "$run" "$dir/cases/inf-cpu.so" --steps 7 --seed 2 \
    --save "$dir/cases/inf-cpu.ckpt" > "$dir/cases/inf-cpu.txt" 2>&1 ||
    return 1
  rm -f "$dir/cases/inf-cpu.so"
  "$python" "$root/bench/gpu_train_step.py" --compile-only --target cuda \
    --sizes issue --libs "$dir/gpu-libs" --build "$build" \
    --precisions bf16,fp16,fp8 || return 1
  # GPT-2 124M as amp.fx imports it (written by the torch2 venv where this
  # python's torch has no torch.export); its 80 MB of IR stays here.
  if "$python" "$root/bench/gpu_train_step.py" --compile-only --target cuda \
       --sizes issue --libs "$dir/lm-libs" --build "$build" \
       --workloads gpt2_124m --precisions bf16,fp8; then
    rm -f "$dir"/lm-libs/*.mlir
  else
    echo "gpu-machine: GPT-2 124M not compiled (it needs PyTorch 2:" \
      "scripts/torch2-venv.sh); check bench_lm will fail" >&2
  fi
  du -sh "$dir"
}

# ---------------------------------------------------------------------------
# run (GPU machine)
# ---------------------------------------------------------------------------

# The directory of a CUDA library (libcublasLt.so.13, libnccl.so.2,
# libcudnn.so.9): the
# toolkit's, else the one in the nvidia-* wheels PyTorch brings.
find_cuda_library() {
  local python="${PYTHON:-python3}" name="$1" found
  found="$(ls "/usr/local/cuda/lib64/$name" 2>/dev/null)"
  [ -z "$found" ] && found="$(NAME="$name" "$python" - <<'EOF' 2>/dev/null
import glob, os
try:
    import nvidia
    roots = list(nvidia.__path__)
except ImportError:
    roots = []
for r in roots:
    for f in glob.glob(os.path.join(r, "**", os.environ["NAME"]), recursive=True):
        print(f); break
EOF
)"
  [ -n "$found" ] && dirname "$(echo "$found" | head -n1)"
}

# The runtime's own checks, then the emulated device's exact GEMM checks
# (test/Runtime/GemmChecks.h), each in its own process (errors are sticky).
check_runtime() {
  local status=0 mode
  for mode in gpu gemm-exact gemm-epilogue gemm-apart nccl; do
    echo "== amp-cuda-runtime-check $mode"
    "$bin/amp-cuda-runtime-check" "$mode" || status=1
  done
  # Fused attention on cuDNN against a reference (test/Runtime/
  # attention-check.cpp).
  echo "== amp-cuda-attention-check attention"
  "$bin/amp-cuda-attention-check" attention || status=1
  # What this cuDNN says to configurations the rules refuse: a record for
  # CudnnAttentionRules.h, not a pass/fail check.
  echo "== amp-cuda-attention-check refuse (a record, not a check)"
  local w
  for w in d264 d264-bwd keep; do "$bin/amp-cuda-attention-check" refuse $w; done
  # FP8 GEMMs on cuBLASLt (test/Runtime/fp8-gemm-check.cpp): every operand
  # pair, bf16/f32 D, bias, fast accumulation, NaN, exact against the
  # reference; replayed from a graph with new scales; a TN call made
  # directly.
  for mode in gemm graph "lt ok libcublasLt.so.13"; do
    echo "== amp-cuda-fp8-gemm-check $mode"
    # shellcheck disable=SC2086 # mode is a word list
    "$bin/amp-cuda-fp8-gemm-check" $mode || status=1
  done
  # What this cuBLASLt says to the FP8 descriptors CublasLtFp8Rules.h
  # refuses (the emulated cuBLASLt's answers are in fp8-gemm-emulated.test):
  # a record for the rules, not a pass/fail check.
  echo "== amp-cuda-fp8-gemm-check lt (a record, not a check)"
  for w in amax f32-bias tf32 scale-bf16 ld nn e5m2 n8; do
    echo "-- $w"
    "$bin/amp-cuda-fp8-gemm-check" lt $w libcublasLt.so.13 2>&1 | grep -v '^device:'
  done
  # Informational: allow_tf32 permits TF32, cuBLASLt need not use it.
  echo "== amp-cuda-runtime-check gemm-tf32 (a record, not a check)"
  "$bin/amp-cuda-runtime-check" gemm-tf32
  # Which epilogue forms this cuBLASLt takes (one process each): a record
  # for the emulated device's rules, not a pass/fail check.
  echo "== epilogue forms (amp-cuda-runtime-check epilogue-case)"
  local types epi ta tb
  for types in "f32 f32" "bf16 f32" "bf16 bf16" "f16 f32" "f16 f16"; do
    for epi in bias bias-c bgrad; do
      for ta in 0 1; do for tb in 0 1; do
        "$bin/amp-cuda-runtime-check" epilogue-case $types $epi $ta $tb 2>&1 |
          grep -v '^device:' | tr '\n' ' '
        echo
      done; done
    done
  done
  return $status
}

check_gpu_vs_cpu() {
  "${PYTHON:-python3}" "$root/test/amp-compile/Inputs/gpu_vs_cpu.py" --check \
    --amp-run "$bin/amp-run" --dir "$dir/cases"
}

check_checkpoint() {
  local c="$dir/cases" t="$work"
  "$bin/amp-run" "$c/ckpt.so" --steps 10 --seed 3 --save "$t/ten.ckpt" &&
  "$bin/amp-run" "$c/ckpt.so" --steps 5 --seed 3 --save "$t/five.ckpt" &&
  "$bin/amp-run" "$c/ckpt.so" --steps 5 --seed 3 --load "$t/five.ckpt" \
    --save "$t/resumed.ckpt" && cmp "$t/ten.ckpt" "$t/resumed.ckpt" &&
  echo "10 steps == 5 + 5 resumed: identical checkpoints"
}

# The GPU skips the same steps as the CPU build and resumes from its
# checkpoint.
check_overflow() {
  local c="$dir/cases"
  "$bin/amp-run" "$c/inf-gpu.so" --steps 7 --seed 2 \
    --save "$work/inf-gpu.ckpt" > "$work/inf-gpu.txt" 2>&1
  local status=$?
  cat "$work/inf-gpu.txt"
  [ $status -eq 0 ] || return 1
  echo "--- CPU build, same seed:"; cat "$c/inf-cpu.txt"
  local gpu_skips cpu_skips
  gpu_skips="$(grep -oE 'skipped steps [0-9]+' "$work/inf-gpu.txt")"
  cpu_skips="$(grep -oE 'skipped steps [0-9]+' "$c/inf-cpu.txt")"
  echo "GPU: ${gpu_skips:-no skip count}; CPU: ${cpu_skips:-no skip count}"
  [ -n "$gpu_skips" ] && [ "$gpu_skips" = "$cpu_skips" ] &&
  "$bin/amp-run" "$c/inf-gpu.so" --steps 2 --seed 2 --load "$c/inf-cpu.ckpt"
}

# Overlapped steps (amp_train_step_begin/finish) against plain ones, a new
# batch every step, bit for bit: every correctness case, then the benchmark
# libraries, whose steps are long enough for an upload to race a step that
# still reads its buffers.
check_pipeline() {
  local status=0 lib
  for lib in "$dir"/cases/*-cuda.so "$dir"/gpu-libs/gpt2_block_bf16.so \
             "$dir"/gpu-libs/mlp_stack_fp16.so; do
    echo "== $(basename "$lib")"
    "$bin/amp-step-pipeline-check" "$lib" 8 7 > "$work/pipeline.txt" 2>&1 ||
      status=1
    grep -E "DIFFERENT|differs|error|identical|begin" "$work/pipeline.txt"
  done
  return $status
}

# Steps replayed from CUDA graphs (the default) leave the same state as
# steps launched one by one (--cuda-graphs=false): every correctness case and
# two benchmark libraries, checkpoints compared byte for byte; the summary
# line says whether the steps did run from graphs.
check_graphs() {
  local status=0 lib
  for lib in "$dir"/cases/*-cuda.so "$dir"/gpu-libs/gpt2_block_bf16.so \
             "$dir"/gpu-libs/mlp_stack_fp16.so; do
    echo "== $(basename "$lib")"
    if "$bin/amp-run" "$lib" --steps 6 --seed 5 --save "$work/graphs.ckpt" \
         > /dev/null &&
       "$bin/amp-run" "$lib" --steps 6 --seed 5 --cuda-graphs=false \
         --overlap-steps=false --save "$work/plain.ckpt" > /dev/null &&
       cmp "$work/graphs.ckpt" "$work/plain.ckpt"; then
      echo "graphs and plain steps: identical checkpoints"
    else
      status=1
    fi
  done
  return $status
}

check_bench() {
  PARTS="${BENCH_PARTS:-gemm mlp_stack gpt2_block}" \
    "$root/bench/run_gpu_benchmarks.sh" \
    "$dir/gpu-libs" "$out/bench" -- --no-compile --kernel-trace "$out/bench" \
    --precisions "${BENCH_PRECISIONS:-bf16,fp16}"
}

# FP8 against bf16 (issue 39): both workloads, torch eager (bf16) as the
# peer, kernel traces.
check_bench_fp8() {
  "${PYTHON:-python3}" "$root/bench/gpu_train_step.py" --device cuda \
    --libs "$dir/gpu-libs" --workloads mlp_stack,gpt2_block \
    --precisions bf16,fp8 --no-compile --kernel-trace "$out/fp8" \
    --json "$out/fp8.json"
}

# GPT-2 124M (nanoGPT, sequence 1024, batch 8) in bf16 and fp8 against
# eager, eager with SDPA and torch.compile with SDPA (issue 38), kernel
# traces.
check_bench_lm() {
  "${PYTHON:-python3}" "$root/bench/gpu_train_step.py" --device cuda \
    --libs "$dir/lm-libs" --workloads gpt2_124m --precisions bf16,fp8 \
    --kernel-trace "$out/lm" --json "$out/lm.json"
}

# The same with torch copying x and target from pinned host memory every
# step, as amp's runtime uploads its inputs and labels before every step.
check_bench_fresh() {
  PARTS="mlp_stack gpt2_block" "$root/bench/run_gpu_benchmarks.sh" \
    "$dir/gpu-libs" "$out/fresh" -- --no-compile --no-sdpa --fresh-batch
}

check_torch_compile() {
  PARTS="${BENCH_PARTS:-mlp_stack gpt2_block}" \
    "$root/bench/run_gpu_benchmarks.sh" "$dir/gpu-libs" "$out/compile" -- \
    --precisions "${BENCH_PRECISIONS:-bf16,fp16}"
}

run_checks() {
  if [ ! -f "$1/.gpu-machine" ]; then
    echo "gpu-machine: $1 is not a directory made by 'prepare'" >&2
    return 1
  fi
  dir="$(cd "$1" && pwd)"; out="$2"; bin="$dir/bin"
  mkdir -p "$out" && out="$(cd "$out" && pwd)"
  # bench/gpu_train_step.py opens libraries with DIR/lib/libamp_loader.so.
  export AMP_BUILD_DIR="$dir"
  work="$(mktemp -d)"
  local lt nccl cudnn found
  lt="$(find_cuda_library libcublasLt.so.13)"
  nccl="$(find_cuda_library libnccl.so.2)"
  cudnn="$(find_cuda_library libcudnn.so.9)"
  for found in "$lt" "$nccl" "$cudnn"; do
    [ -n "$found" ] &&
      export LD_LIBRARY_PATH="$found${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  done
  { date -u; nvidia-smi; echo "cuBLASLt from: ${lt:-not found}"
    echo "NCCL from: ${nccl:-not found}"
    echo "cuDNN from: ${cudnn:-not found}"; } > "$out/system.txt" 2>&1
  local failed=0 check limit
  : > "$out/summary.txt"
  for check in ${CHECKS:-runtime gpu_vs_cpu checkpoint overflow pipeline graphs bench}; do
    limit="${GPU_CHECK_TIMEOUT:-300}"
    local start=$SECONDS
    export root dir out bin work
    export -f "check_$check"
    timeout "$limit" bash -c "check_$check" > "$out/$check.txt" 2>&1
    local status=$?
    local verdict=PASS; [ $status -eq 0 ] || { verdict=FAIL; failed=1; }
    echo "$verdict $check (exit $status, $((SECONDS - start)) s)" |
      tee -a "$out/summary.txt"
  done
  rm -rf "$work"
  return $failed
}

case "$1" in
  prepare) prepare "$2" ;;
  run) [ $# -ge 3 ] || usage; run_checks "$2" "$3" ;;
  *) usage ;;
esac
