#!/usr/bin/env bash
# The main job: reads a printed line of text with PaddleOCR's direction classifier and text
# recogniser on the best backend present (`--backend auto`: a Vulkan GPU, then an OpenCL
# GPU, then the CPU), and prints what the models say and how long each takes.
#
#   scripts/run_main.sh [--text "HELLO TESSERA"] [--backend cpu] [--threads 2]
#
# Needs scripts/setup.sh to have run (models, build). TESSERA_BUILD_DIR picks the build.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${TESSERA_BUILD_DIR:-$ROOT/build}"

if [ ! -x "$BUILD_DIR/tessera" ]; then
  echo "run_main: no $BUILD_DIR/tessera: run scripts/setup.sh first" >&2
  exit 1
fi
"$BUILD_DIR/tessera" devices
echo
exec /usr/bin/python3 "$ROOT/examples/ocr_line/ocr_line.py" --tessera "$BUILD_DIR/tessera" \
  --backend auto --threads 2 "$@"
