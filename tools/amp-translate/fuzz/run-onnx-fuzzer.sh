#!/usr/bin/env bash
# Builds the libFuzzer target of the ONNX importer with clang-22 and runs it
# for a bounded time on a seed corpus of valid models (the ONNX test cases).
#
#   tools/amp-translate/fuzz/run-onnx-fuzzer.sh [SECONDS] [BUILD_DIR] [WORK_DIR]
#
# SECONDS (default 60) bounds the run; BUILD_DIR (default $AMP_BUILD_DIR or
# build) is a configured and built amp build directory (it provides the
# generated headers and libMLIRAMPDialect.a); WORK_DIR (default
# BUILD_DIR/onnx-fuzz) receives the binary, the corpus and any crash
# reproducer. Needs clang-22 and the fuzzer runtime (Debian: clang-22,
# libclang-rt-22-dev), and /usr/bin/python3 with onnx for the seeds.
# Exits non-zero if the fuzzer finds a crash, a leak, a timeout or an
# out-of-memory input.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
seconds="${1:-60}"
build="$(cd "${2:-${AMP_BUILD_DIR:-$root/build}}" && pwd)"
work="${3:-$build/onnx-fuzz}"
clang="${CLANGXX:-clang++-22}"
llvm=/usr/lib/llvm-22

command -v "$clang" >/dev/null || {
  echo "run-onnx-fuzzer: $clang not found (apt-get install clang-22 libclang-rt-22-dev)" >&2
  exit 2
}
[ -f "$build/lib/libMLIRAMPDialect.a" ] || {
  echo "run-onnx-fuzzer: build amp first ($build/lib/libMLIRAMPDialect.a is missing)" >&2
  exit 2
}
mkdir -p "$work/corpus" "$work/artifacts"

# The importer and the target, instrumented; MLIR, LLVM, the amp dialect,
# ONNX's protobuf messages and protobuf itself are used as built.
"$clang" -std=c++17 -O1 -g -fno-exceptions -fno-omit-frame-pointer \
  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -DONNX_ML=1 -DONNX_NAMESPACE=onnx -D_GLIBCXX_USE_CXX11_ABI=1 \
  -D__STDC_CONSTANT_MACROS -D__STDC_FORMAT_MACROS -D__STDC_LIMIT_MACROS \
  -I"$llvm/include" -I"$root/include" -I"$build/include" \
  "$root/tools/amp-translate/fuzz/onnx-import-fuzzer.cpp" \
  "$root"/lib/Target/ONNX/*.cpp \
  "$build/lib/libMLIRAMPDialect.a" \
  -L"$llvm/lib" -Wl,-rpath,"$llvm/lib" -lMLIR -lLLVM \
  -lonnx_proto -lprotobuf -lpthread \
  -o "$work/onnx-import-fuzzer"

# Seeds: every small test model, valid, broken and hostile, and the inputs
# that once crashed the importer (test/Target/ONNX/Inputs/fuzz-regressions,
# replayed by the lit test fuzz-regressions.test).
inputs="$root/test/Target/ONNX/Inputs"
export PYTHONPATH="$inputs"
/usr/bin/python3 "$inputs/onnx_ops.py" "$work/seeds" --all
/usr/bin/python3 "$inputs/onnx_bad.py" "$work/seeds"
/usr/bin/python3 "$inputs/onnx_hostile.py" "$work/seeds"
cp "$work"/seeds/*.onnx "$inputs"/fuzz-regressions/* "$work/corpus/"

# Protobuf's own messages allocate from the input: keep RSS bounded. ASan
# leak checking stays on (a leak is a bug too).
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"
"$work/onnx-import-fuzzer" "$work/corpus" -external_data_dir="$work/seeds" \
  -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 \
  -max_len=65536 -print_final_stats=1 \
  -artifact_prefix="$work/artifacts/"
echo "run-onnx-fuzzer: no crash in $seconds s"
