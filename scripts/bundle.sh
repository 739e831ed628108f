#!/usr/bin/env bash
# Packs one relocatable tarball to run Tessera's device checks on another x86-64 Linux machine
# (glibc 2.36 or later, a GPU driver, no build tools): how engines push a test bundle to a
# phone. The bundle holds `tessera`, libtessera (RUNPATH $ORIGIN), the test binary, the
# libraries a stock Debian/Ubuntu may lack (used only where the machine has none), the
# PaddleOCR models, the ONNX node cases and their lists, and run.sh (scripts/bundle/run.sh):
#
#   scripts/bundle.sh [OUT.tar.gz]      (default: build/tessera-bundle.tar.gz)
#   tar xzf tessera-bundle.tar.gz && tessera-bundle/run.sh [RESULTS_DIR]
#
# Environment: TESSERA_BUILD_DIR (default: build; built first if needed, unless
# TESSERA_BUNDLE_NO_BUILD=1), TESSERA_JOBS (default: 2), TESSERA_ONNX_NODE_DATA (default:
# /usr/share/libonnx-testdata/data/node).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${TESSERA_BUILD_DIR:-$ROOT/build}"
JOBS="${TESSERA_JOBS:-2}"
NODE_DATA="${TESSERA_ONNX_NODE_DATA:-/usr/share/libonnx-testdata/data/node}"
OUT="${1:-$BUILD_DIR/tessera-bundle.tar.gz}"
case "$OUT" in /*) ;; *) OUT="$PWD/$OUT" ;; esac

die() { echo "bundle.sh: $*" >&2; exit 1; }
[ -d "$NODE_DATA" ] || die "no ONNX node cases at $NODE_DATA (scripts/setup.sh installs onnx's test data)"
ls "$ROOT"/third_party/models/paddleocr/*.onnx >/dev/null 2>&1 || die "no PaddleOCR models: run scripts/setup.sh"

if [ "${TESSERA_BUNDLE_NO_BUILD:-0}" != 1 ]; then
  if [ ! -f "$BUILD_DIR/CMakeCache.txt" ]; then
    cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  fi
  targets=(tessera_cli tessera_tests)
  grep -q '^TESSERA_BUILD_BENCHMARKS:BOOL=ON' "$BUILD_DIR/CMakeCache.txt" && targets+=(tessera_kernel_bench)
  cmake --build "$BUILD_DIR" -j "$JOBS" --target "${targets[@]}" >/dev/null
fi
[ -x "$BUILD_DIR/tessera" ] && [ -x "$BUILD_DIR/tests/tessera_tests" ] || die "no built tessera and tessera_tests in $BUILD_DIR"

STAGE="$(mktemp -d)"
trap 'rm -rf "$STAGE"' EXIT
B="$STAGE/tessera-bundle"
mkdir -p "$B/bin" "$B/lib/fallback" "$B/models" "$B/lists"

# The command and library with their install RUNPATHs ($ORIGIN/../lib, $ORIGIN), and the
# test binary (component `bundle`, not part of a plain install).
cmake --install "$BUILD_DIR" --prefix "$STAGE/install" >/dev/null
cmake --install "$BUILD_DIR" --prefix "$STAGE/install" --component bundle >/dev/null
LIBDIR="$(cd "$STAGE/install" && ls -d lib*/libtessera.so.0 | head -1 | xargs dirname)"
cp -a "$STAGE/install/bin/tessera" "$STAGE/install/bin/tessera_tests" "$B/bin/"
# The kernel micro-benchmarks where this build has them (run.sh's `cpu` step).
[ -x "$STAGE/install/bin/tessera_kernel_bench" ] && cp -a "$STAGE/install/bin/tessera_kernel_bench" "$B/bin/"
cp -a "$STAGE/install/$LIBDIR"/libtessera.so* "$B/lib/"

# Libraries the binaries or the GPU drivers load that a stock system may not have: the
# runtime's own dependencies, the Vulkan and OpenCL loaders, libglvnd (NVIDIA's Vulkan driver
# needs it) and the C++ runtime. run.sh links each in only where the machine lacks it.
find_lib() {
  local name="$1" d
  for d in /lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu /usr/lib64 /lib64 /usr/lib; do
    if [ -e "$d/$name" ]; then echo "$d/$name"; return 0; fi
  done
  return 1
}
for lib in libprotobuf.so.32 libz.so.1 libOpenCL.so.1 libvulkan.so.1 libGLdispatch.so.0 libGLX.so.0 \
           libEGL.so.1 libGL.so.1 libOpenGL.so.0 libGLESv2.so.2 libstdc++.so.6 libgcc_s.so.1; do
  path="$(find_lib "$lib")" || die "$lib is not installed here (scripts/setup.sh installs the build's libraries)"
  cp -L "$path" "$B/lib/fallback/$lib"
done
if [ -x "$B/bin/tessera_kernel_bench" ]; then
  path="$(find_lib libbenchmark.so.1debian)" || die "libbenchmark.so.1debian is not installed here (scripts/setup.sh installs it)"
  cp -L "$path" "$B/lib/fallback/"
fi

cp "$ROOT"/third_party/models/paddleocr/*.onnx "$B/models/"
mkdir -p "$B/data"
cp -r "$NODE_DATA" "$B/data/node"
cp "$ROOT"/tests/conformance/onnx_node_inference.txt "$ROOT"/tests/conformance/onnx_node_inference_float_only.txt \
   "$ROOT"/tests/cpu/isa_op_tests.txt "$B/lists/"
cp "$ROOT/scripts/bundle/run.sh" "$ROOT/scripts/bundle/ab.sh" "$ROOT/scripts/bundle/env.sh" "$ROOT/tests/models/check_paddleocr.py" "$B/"
git -C "$ROOT" describe --always --dirty >"$B/VERSION" 2>/dev/null || echo unknown >"$B/VERSION"

mkdir -p "$(dirname "$OUT")"
tar -C "$STAGE" -czf "$OUT" tessera-bundle
echo "$OUT ($(du -h "$OUT" | cut -f1)): unpack anywhere, then tessera-bundle/run.sh [RESULTS_DIR]"
