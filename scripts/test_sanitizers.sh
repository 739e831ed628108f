#!/usr/bin/env bash
# Sanitizer runs (CI runs this after scripts/test.sh):
#   build-asan  ASan + UBSan: the unit, op, CPU, Vulkan and OpenCL gtests, the CPU ONNX
#               conformance run, the PaddleOCR CPU checks and the bad-input CLI checks (not
#               the packaging tests, install and bundle, which run a bare environment);
#   build-tsan  TSan: the concurrency tests (tests/concurrency/, their own small binary).
# Any sanitizer report fails the run (halt_on_error, -fno-sanitize-recover). Reports from the
# GPU drivers' own code (lavapipe, PoCL, LLVM) are suppressed by tests/sanitizers/*.supp;
# none from Tessera's code are.
#
#   scripts/test_sanitizers.sh [asan|tsan]    (default: both)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JOBS="${TESSERA_JOBS:-2}"
SUPP="$ROOT/tests/sanitizers"
which="${1:-all}"

build() {  # build DIR CMAKE_OPTIONS... -- TARGETS...
  local dir=$1
  shift
  local opts=()
  while [ "$1" != -- ]; do opts+=("$1"); shift; done
  shift
  CC=clang-14 CXX=clang++-14 cmake -S "$ROOT" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "${opts[@]}" >/dev/null
  cmake --build "$dir" -j "$JOBS" --target "$@"
}

if [ "$which" = all ] || [ "$which" = asan ]; then
  echo "[sanitizers] ASan + UBSan build"
  # clang, ASan + UBSan + libFuzzer instrumentation: one build serves the tests and the
  # fuzz targets of tests/fuzz (scripts/fuzz.sh). No Python module: an ASan-instrumented
  # extension cannot load into Debian's uninstrumented python3 (the main suite tests it).
  build "$ROOT/build-asan" -DTESSERA_FUZZ=ON -DTESSERA_PYTHON=OFF -DTESSERA_SANITIZE=address,undefined -- all
  export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:abort_on_error=0"
  export LSAN_OPTIONS="suppressions=$SUPP/lsan.supp:print_suppressions=0"
  export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
  ctest --test-dir "$ROOT/build-asan" --output-on-failure -j "$JOBS" \
    -LE soak -E "^(onnx_node_all_no_crash|onnx_conformance_(vulkan|opencl)|paddleocr_(vulkan|opencl)|ocr_page|install_and_example|bundle_runs_unpacked|vulkan_|opencl_no_platform|conformance_|soak)"
fi

if [ "$which" = all ] || [ "$which" = tsan ]; then
  echo "[sanitizers] TSan build"
  build "$ROOT/build-tsan" -DTESSERA_PYTHON=OFF -DTESSERA_SANITIZE=thread -- tessera_concurrency_tests
  export TSAN_OPTIONS="halt_on_error=1:suppressions=$SUPP/tsan.supp:second_deadlock_stack=1"
  TESSERA_CACHE_DIR="$ROOT/build-tsan/concurrency-cache" "$ROOT/build-tsan/tests/tessera_concurrency_tests"
fi
