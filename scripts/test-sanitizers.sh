#!/usr/bin/env bash
# The sanitizer job (README "Tests", docs/Errors.md): builds amp's own code
# (the tools, passes, ONNX importer, model and CUDA runtimes; Debian's MLIR
# and LLVM stay as they are) with AddressSanitizer and
# UndefinedBehaviorSanitizer into build-san/, and runs the lit suites that
# exercise that code under them: the hostile-input suite, amp-opt,
# amp-compile (which also runs the sanitized model runtime through amp-run),
# the dialect and the ONNX importer. A sanitizer report aborts the tool and
# fails its test. Then training steps run under valgrind's memcheck on the
# plain build (the sanitizers' runtime and valgrind do not mix). Then each
# fuzzer (tools/*/fuzz/run-*-fuzzer.sh) runs for a bounded time when its
# compiler (clang++-22 with libFuzzer) is installed.
#
#   scripts/test-sanitizers.sh [LIT ARGUMENTS...]
#
# AMP_SAN_BUILD_DIR: the build directory (default build-san);
# AMP_SANITIZERS: the sanitizers (default "address;undefined");
# AMP_SAN_TESTS: a lit --filter regex for the suites to run;
# AMP_FUZZ_SECONDS: time per fuzzer (default 60; 0 skips the fuzzers), which
#   use the plain build (AMP_BUILD_DIR, default build; built by
#   scripts/test.sh);
# ASAN_OPTIONS, UBSAN_OPTIONS: override test/lit.cfg.py's defaults (e.g.
#   ASAN_OPTIONS=detect_leaks=1 to check leaks too).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${AMP_SAN_BUILD_DIR:-$root/build-san}"
sanitizers="${AMP_SANITIZERS:-address;undefined}"
tests="${AMP_SAN_TESTS:-^AMP :: (Hostile|amp-opt|amp-compile|Dialect|Target/ONNX|Runtime|Fuzz)/}"
fuzz_seconds="${AMP_FUZZ_SECONDS:-60}"

start=$(date +%s)
AMP_BUILD_DIR="$build" AMP_CMAKE_ARGS="-DAMP_ENABLE_SANITIZERS=$sanitizers" \
  "$root/scripts/build.sh" build.ninja
if ! grep -qx "AMP_ENABLE_SANITIZERS:STRING=$sanitizers" "$build/CMakeCache.txt"; then
  echo "test-sanitizers: $build was configured without" \
    "AMP_ENABLE_SANITIZERS=$sanitizers; remove it or set AMP_SAN_BUILD_DIR" >&2
  exit 2
fi
# Only what the lit suite runs (the dependencies of check-amp, see
# test/CMakeLists.txt: the tools, the runtime archives model libraries link,
# the test drivers), not the rest of the build.
mapfile -t targets < <(ninja -C "$build" -t query test/CMakeFiles/check-amp |
  sed -n 's/^ *|| //p')
AMP_BUILD_DIR="$build" "$root/scripts/build.sh" "${targets[@]}"
echo "== sanitizer build took $(( $(date +%s) - start )) s"

start=$(date +%s)
status=0
# Runtime/cuda-runtime-mlir-abi.test links the runtime archive into a library
# (-Wl,--no-undefined) for an uninstrumented C host: no sanitizer runtime to
# resolve the instrumentation against.
/usr/lib/llvm-22/bin/lit -sv --filter "$tests" \
  --filter-out "Runtime/cuda-runtime-mlir-abi" "$@" "$build/test" || status=$?
"$root/scripts/check-devices.sh" || status=$?
echo "== sanitizer tests took $(( $(date +%s) - start )) s"

# Valgrind's memcheck of training steps (Hostile/valgrind-step.test) cannot
# run under ASan: it runs on the plain build (AMP_BUILD_DIR, default build;
# built by scripts/test.sh), whose libraries are portable (--cpu default)
# and so run under valgrind.
plain="${AMP_BUILD_DIR:-$root/build}"
if command -v valgrind > /dev/null && [ -d "$plain/test" ]; then
  start=$(date +%s)
  /usr/lib/llvm-22/bin/lit -sv --filter 'Hostile/valgrind-' "$plain/test" ||
    status=$?
  echo "== valgrind memcheck took $(( $(date +%s) - start )) s"
else
  echo "== valgrind memcheck: skipped (valgrind or $plain/test missing)"
fi

if [ "$fuzz_seconds" != 0 ]; then
  for fuzzer in "$root"/tools/*/fuzz/run-*-fuzzer.sh; do
    [ -e "$fuzzer" ] || continue
    if ! command -v clang++-22 > /dev/null; then
      echo "== $(basename "$fuzzer"): skipped (clang++-22 and" \
        "libclang-rt-22-dev are not installed)"
      continue
    fi
    start=$(date +%s)
    "$fuzzer" "$fuzz_seconds" "${AMP_BUILD_DIR:-$root/build}" || status=$?
    echo "== $(basename "$fuzzer") took $(( $(date +%s) - start )) s"
  done
fi
exit $status
