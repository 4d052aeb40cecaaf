#!/usr/bin/env bash
# Runs the GPU benchmarks of issue 8 on the GPU machine and writes the
# results to a directory.
#
#   bench/run_gpu_benchmarks.sh LIBS_DIR [RESULTS_DIR] [-- extra arguments
#                                                       for gpu_train_step.py]
#
# LIBS_DIR holds the libraries compiled beforehand on the development
# machine (the GPU machine has no LLVM/MLIR, so no amp-compile):
#
#   /usr/bin/python3 bench/gpu_train_step.py --compile-only --target cuda \
#       --sizes issue --libs gpu-libs
#
# Parts (environment PARTS, default "gemm mlp_stack gpt2_block"): `gemm`
# builds bench/gemm_cublaslt.cpp (nvcc if present, else g++ against the CUDA
# headers and libraries it can find, including those of the nvidia-* pip
# wheels PyTorch brings) and runs it: cuBLASLt GEMM TFLOP/s at the workload
# shapes and device-to-device copy bandwidth; `mlp_stack` and `gpt2_block`
# run bench/gpu_train_step.py for that workload (amp vs torch eager vs
# torch.compile, bf16 and fp16). Each part can be run alone, e.g. when one
# command has a time limit: PARTS=gemm bench/run_gpu_benchmarks.sh gpu-libs.
#
# Environment: PYTHON (default python3), RECORD=1 to add the train-step rows
# to docs/benchmarks-log.md (gpu_train_step.py --record), NVCC, CUDA_HOME.
#
# Results in RESULTS_DIR (default gpu-results/): system.txt (nvidia-smi,
# torch versions), gemm.txt and gemm.md, <workload>.txt and <workload>.json.
set -u -o pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [ $# -lt 1 ] || [ "$1" = "-h" ] || [ "$1" = "--help" ]; then
  sed -n '2,27p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
  exit 2
fi
libs="$1"; shift
results="gpu-results"
if [ $# -gt 0 ] && [ "$1" != "--" ]; then results="$1"; shift; fi
[ $# -gt 0 ] && [ "$1" = "--" ] && shift
extra=("$@")
python="${PYTHON:-python3}"
parts="${PARTS:-gemm mlp_stack gpt2_block}"
mkdir -p "$results"
status=0

{
  date -u +"%Y-%m-%d %H:%M:%S UTC"
  uname -a
  nvidia-smi 2>&1 || echo "nvidia-smi: not available"
  "$python" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "available", torch.cuda.is_available())' 2>&1
  [ -f "$libs/manifest.json" ] && cat "$libs/manifest.json"
} > "$results/system.txt"
echo "system description in $results/system.txt"

build_gemm() {
  local out="$results/gemm_cublaslt" src="$here/gemm_cublaslt.cpp"
  local nvcc="${NVCC:-}"
  if [ -z "$nvcc" ]; then
    for c in nvcc "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" /usr/local/cuda/bin/nvcc; do
      if command -v "$c" > /dev/null 2>&1; then nvcc="$c"; break; fi
    done
  fi
  if [ -n "$nvcc" ]; then
    echo "+ $nvcc -O2 -std=c++17 $src -lcublasLt -o $out"
    "$nvcc" -O2 -std=c++17 "$src" -lcublasLt -o "$out" && return 0
  fi
  # No nvcc: find cublasLt.h / cuda_runtime.h and the libraries, in the
  # toolkit or in the nvidia-* wheels next to torch.
  local roots=("${CUDA_HOME:-/usr/local/cuda}" /usr/local/cuda /usr)
  local site
  site="$("$python" -c 'import os, nvidia; print(" ".join(os.path.abspath(p) for p in nvidia.__path__))' 2>/dev/null || true)"
  local incs=() libdirs=() cublaslt="" cudart=""
  for r in "${roots[@]}" $site; do
    [ -d "$r" ] || continue
    while IFS= read -r h; do incs+=("-I$(dirname "$h")"); done < <(find -L "$r" -maxdepth 5 \( -name cublasLt.h -o -name cuda_runtime.h \) 2>/dev/null)
    [ -z "$cublaslt" ] && cublaslt="$(find -L "$r" -maxdepth 5 -name 'libcublasLt.so*' 2>/dev/null | sort | head -n1)"
    [ -z "$cudart" ] && cudart="$(find -L "$r" -maxdepth 5 -name 'libcudart.so*' 2>/dev/null | sort | head -n1)"
  done
  if [ ${#incs[@]} -eq 0 ] || [ -z "$cublaslt" ] || [ -z "$cudart" ]; then
    echo "gemm: no nvcc and no CUDA headers/libraries found; skipped"
    return 1
  fi
  libdirs=("-Wl,-rpath,$(dirname "$cublaslt")" "-Wl,-rpath,$(dirname "$cudart")")
  echo "+ ${CXX:-g++} -O2 -std=c++17 $src ${incs[*]} $cublaslt $cudart ${libdirs[*]} -o $out"
  "${CXX:-g++}" -O2 -std=c++17 "$src" "${incs[@]}" "$cublaslt" "$cudart" \
    "${libdirs[@]}" -o "$out"
}

for part in $parts; do
  case "$part" in
    gemm)
      if build_gemm; then
        "$results/gemm_cublaslt" --markdown "$results/gemm.md" 2>&1 | tee "$results/gemm.txt" || status=1
      else
        status=1
      fi
      ;;
    mlp_stack|gpt2_block)
      args=(--device cuda --libs "$libs" --workloads "$part" --json "$results/$part.json")
      [ "${RECORD:-0}" = 1 ] && args+=(--record)
      echo "+ $python $here/gpu_train_step.py ${args[*]} ${extra[*]:-}"
      "$python" "$here/gpu_train_step.py" "${args[@]}" ${extra[@]+"${extra[@]}"} 2>&1 | tee "$results/$part.txt" || status=1
      ;;
    *)
      echo "unknown part '$part' (gemm, mlp_stack, gpt2_block)"; status=2 ;;
  esac
done
echo "results in $results/"
exit $status
