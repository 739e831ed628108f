#!/usr/bin/env bash
# The main job: reads a document page with PaddleOCR's models (detection, direction,
# recognition) on the `tessera` Python module, on the best backend present (`--backend auto`:
# a Vulkan GPU, then an OpenCL GPU, then the CPU). Prints each line found with its box and
# confidence and the time of each stage, and writes out/ocr.png.
#
#   scripts/run_main.sh [--image PATH] [--backend cpu|vulkan|opencl|onnxruntime] [--runs 5]
#
# Without --image it reads a page it renders itself. Needs scripts/setup.sh to have run
# (packages, models, build). TESSERA_BUILD_DIR picks the build.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${TESSERA_BUILD_DIR:-$ROOT/build}"

if [ ! -f "$BUILD_DIR/python/tessera/__init__.py" ]; then
  echo "run_main: no Python module in $BUILD_DIR/python: run scripts/setup.sh first" >&2
  exit 1
fi
exec /usr/bin/python3 "$ROOT/examples/ocr_page/ocr_page.py" --build "$BUILD_DIR" \
  --backend auto --threads 2 "$@"
