#!/usr/bin/env bash
# Runs one libFuzzer target of tests/fuzz on its corpus (docs/FUZZING.md).
#
#   scripts/fuzz.sh loader|npy|cache [libFuzzer options, e.g. -runs=1000000 -max_total_time=3600]
#
# Configures build-asan when it has no build yet (clang-14; ASan + UBSan + libFuzzer
# instrumentation) and brings the target up to date (incremental) on every run, seeds
# the corpus once (loader: the ONNX node-test models, the PaddleOCR models and the
# regression inputs; npy: the node tests' tensors saved as .npy plus hand-made headers;
# cache: valid and broken cache entries), then fuzzes. New inputs go to
# build-asan/fuzz/<target>/corpus, crashes to build-asan/fuzz/<target>/.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="$ROOT/build-asan"
JOBS="${TESSERA_JOBS:-2}"
target=${1:?usage: scripts/fuzz.sh loader|npy|cache [libFuzzer options]}
shift
case "$target" in
  loader) binary=FuzzOnnxLoader ;;
  npy) binary=FuzzNpy ;;
  cache) binary=FuzzCacheFiles ;;
  *) echo "unknown target '$target' (loader, npy or cache)" >&2; exit 2 ;;
esac

if [ ! -f "$BUILD/CMakeCache.txt" ]; then
  CC=clang-14 CXX=clang++-14 cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DTESSERA_FUZZ=ON -DTESSERA_SANITIZE=address,undefined >/dev/null
fi
# Always (incremental): a binary built before the last change would fuzz the old code.
cmake --build "$BUILD" -j "$JOBS" --target "$binary"

work="$BUILD/fuzz/$target"
seeds="$work/seeds"
mkdir -p "$work/corpus"
if [ ! -d "$seeds" ]; then
  mkdir -p "$seeds"
  case "$target" in
    loader)
      for m in /usr/share/libonnx-testdata/data/node/*/model.onnx; do
        cp "$m" "$seeds/$(basename "$(dirname "$m")").onnx"
      done
      cp "$ROOT"/third_party/models/paddleocr/*.onnx "$seeds/" 2>/dev/null || true
      cp "$ROOT"/tests/fuzz/regressions/loader/* "$seeds/" ;;
    npy) /usr/bin/python3 "$ROOT/tests/fuzz/make_npy_seeds.py" "$seeds" ;;
    cache) /usr/bin/python3 "$ROOT/tests/fuzz/make_cache_seeds.py" "$seeds" ;;
  esac
fi
export ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1"
export LSAN_OPTIONS="suppressions=$ROOT/tests/sanitizers/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
cd "$work"
exec "$BUILD/tests/fuzz/$binary" -rss_limit_mb=4096 -timeout=30 -artifact_prefix="$work/" "$@" corpus "$seeds"
