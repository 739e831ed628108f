#!/usr/bin/env bash
# The whole test suite: builds what changed, then runs every CTest test: the unit and op
# tests, the ONNX node-test conformance run on the CPU (fails on any failure not listed in
# tests/conformance/known_failures.txt), the PaddleOCR models against ONNX Runtime, and the
# install check (examples/run_model built against the installed package).
#
#   scripts/test.sh [extra ctest arguments, e.g. -R paddleocr]
#
# Needs scripts/setup.sh to have run once (system packages, models, ONNX Runtime).
# TESSERA_BUILD_DIR picks the build (default: build), TESSERA_JOBS the parallelism (2).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${TESSERA_BUILD_DIR:-$ROOT/build}"
JOBS="${TESSERA_JOBS:-2}"

TESSERA_BUILD_DIR="$BUILD_DIR" TESSERA_JOBS="$JOBS" "$ROOT/scripts/setup.sh" --build-only
# The full soak (label soak, ~30 min) is left out: `ctest --test-dir build -L soak` runs it.
ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$JOBS" -LE soak "$@"
