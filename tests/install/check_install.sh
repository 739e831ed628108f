#!/usr/bin/env bash
# Installs a built tree into a scratch prefix, then builds examples/run_model and
# examples/custom_op against the installed package (find_package(Tessera) → Tessera::tessera)
# the way an outside project would, and runs them and the installed `tessera` command on
# small models. custom_op must pass on the CPU, and on OpenCL / Vulkan when the build has
# that backend and a device is present (Vulkan with the Khronos validation layer on, which
# turns any validation error into a failure).
#
#   tests/install/check_install.sh BUILD_DIR [MODEL.onnx]
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD_DIR="$(cd "${1:?usage: check_install.sh BUILD_DIR [MODEL.onnx]}" && pwd)"
MODEL="${2:-/usr/share/libonnx-testdata/data/node/test_relu/model.onnx}"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/tessera-install-XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
PREFIX="$WORK/prefix"

step() { printf '== %s\n' "$*"; }
fail() { printf 'FAIL: %s\n' "$*"; exit 1; }

[ -f "$MODEL" ] || fail "no model at $MODEL (run scripts/setup.sh)"

step "cmake --install into $PREFIX"
cmake --install "$BUILD_DIR" --prefix "$PREFIX" >"$WORK/install.log" || {
  cat "$WORK/install.log"; fail "cmake --install failed"; }
config="$(find "$PREFIX" -name TesseraConfig.cmake -print -quit)"
[ -n "$config" ] || fail "no TesseraConfig.cmake under $PREFIX"
[ -f "$PREFIX/include/tessera/Tessera.hpp" ] || fail "headers not installed"

step "configure and build examples/run_model against the installed package"
# A clean environment: nothing of the source tree or the build tree is on any search path.
generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
cmake -S "$ROOT/examples/run_model" -B "$WORK/example" "${generator[@]}" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$PREFIX" >"$WORK/configure.log" 2>&1 || {
  cat "$WORK/configure.log"; fail "configuring the example against $PREFIX failed"; }
grep -q "Tessera_DIR:PATH=$PREFIX" "$WORK/example/CMakeCache.txt" ||
  fail "the example found Tessera somewhere other than $PREFIX: $(grep Tessera_DIR "$WORK/example/CMakeCache.txt")"
cmake --build "$WORK/example" >"$WORK/build.log" 2>&1 || {
  cat "$WORK/build.log"; fail "building the example failed"; }

step "run the example on $MODEL"
args=("$MODEL" --backend cpu)
# The PaddleOCR models have free dimensions; the ONNX node-test models do not.
case "$MODEL" in *ocr*|*paddle*|*_infer.onnx) args+=(--shape x=1x3x48x192) ;; esac
"$WORK/example/run_model" "${args[@]}" | tee "$WORK/run.log" || fail "run_model failed"
grep -q "^output '" "$WORK/run.log" || fail "run_model printed no output"

step "build examples/custom_op against the installed package and run it"
cmake -S "$ROOT/examples/custom_op" -B "$WORK/custom" "${generator[@]}" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$PREFIX" >"$WORK/custom-configure.log" 2>&1 || {
  cat "$WORK/custom-configure.log"; fail "configuring examples/custom_op against $PREFIX failed"; }
cmake --build "$WORK/custom" >"$WORK/custom-build.log" 2>&1 || {
  cat "$WORK/custom-build.log"; fail "building examples/custom_op failed"; }
/usr/bin/python3 "$ROOT/examples/custom_op/make_model.py" "$WORK/custom_op.onnx" ||
  fail "could not write the custom-op model (python3-onnx missing? run scripts/setup.sh)"
TESSERA_VULKAN_VALIDATION=1 XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}" \
  "$WORK/custom/custom_op" "$WORK/custom_op.onnx" | tee "$WORK/custom.log" || fail "custom_op failed"
grep -q "^PASS cpu" "$WORK/custom.log" || fail "custom_op did not pass on the CPU"
# Its OpenCL kernel must have run wherever this build has OpenCL and a device is present.
if grep -q "TESSERA_WITH_OPENCL 1" "$PREFIX/include/tessera/BuildConfig.hpp" &&
   "$PREFIX/bin/tessera" devices | awk '/^opencl:/{s=1; next} /^[a-z]/{s=0} s && /\[[0-9]+\]/{f=1} END{exit !f}'; then
  grep -q "^PASS opencl: .*ScaledTanh@opencl" "$WORK/custom.log" ||
    fail "custom_op's OpenCL kernel did not run and pass on OpenCL (a device is present)"
else
  echo "note: no OpenCL in this build or no OpenCL device: custom_op's OpenCL kernel not required"
fi
if grep -q "TESSERA_WITH_VULKAN 1" "$PREFIX/include/tessera/BuildConfig.hpp" &&
   "$PREFIX/bin/tessera" devices | awk '/^vulkan:/{s=1; next} /^[a-z]/{s=0} s && /\[[0-9]+\]/{f=1} END{exit !f}'; then
  grep -q "^PASS vulkan: .*ScaledTanh@vulkan" "$WORK/custom.log" ||
    fail "custom_op's Vulkan kernel did not run and pass on Vulkan (a device is present)"
else
  echo "note: no Vulkan in this build or no Vulkan device: custom_op's Vulkan kernel not required"
fi

step "run the installed tessera command"
"$PREFIX/bin/tessera" devices || fail "the installed tessera command does not run"

echo "PASS install: package found, example built and ran, installed command ran"
