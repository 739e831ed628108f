#!/usr/bin/env bash
# Median latency of conv nets other than PaddleOCR (benchmarks/general_nets.py writes them)
# on Tessera (`tessera bench`) next to ONNX Runtime's (CPU, tests/models/ort_reference.mjs),
# same input shapes and thread count; prints a markdown table (docs/PERFORMANCE.md holds the
# last one recorded).
#
#   benchmarks/compare_general_nets.sh [--tessera build/tessera] [--backend cpu] [--threads 2]
#                                      [--runs 15] [--warmup 3] [--rounds 3] [--dir build/general_nets]
#
# Each round times Tessera and then ONNX Runtime on a model (a median of --runs runs each);
# the table shows each engine's lowest median over the rounds, as bench_paddleocr.sh does.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TESSERA="$ROOT/build/tessera"
BACKEND=cpu
THREADS=2
RUNS=15
WARMUP=3
ROUNDS=3
DIR="$ROOT/build/general_nets"
while [ $# -gt 0 ]; do
  case "$1" in
    --tessera) TESSERA="$2"; shift 2 ;;
    --backend) BACKEND="$2"; shift 2 ;;
    --threads) THREADS="$2"; shift 2 ;;
    --runs) RUNS="$2"; shift 2 ;;
    --warmup) WARMUP="$2"; shift 2 ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    --dir) DIR="$2"; shift 2 ;;
    *) echo "compare_general_nets: unknown option '$1'" >&2; exit 2 ;;
  esac
done
for f in "$TESSERA" "$ROOT/third_party/ort/node_modules/onnxruntime-node"; do
  [ -e "$f" ] || { echo "compare_general_nets: $f is missing: run scripts/setup.sh" >&2; exit 1; }
done
/usr/bin/python3 "$ROOT/benchmarks/general_nets.py" "$DIR"

CASES=(
  "mobilenetv2_nhwc_224.onnx 1x224x224x3"
  "mobilenetv2_nhwc4_512.onnx 1x512x512x4"
  "ultraface_320x240.onnx 1x3x240x320"
  "ultraface_640x480.onnx 1x3x480x640"
)

field() {  # field NAME JSON_LINE
  /usr/bin/python3 -c 'import json, sys; print(json.loads(sys.argv[2])[sys.argv[1]])' "$1" "$2"
}

echo "| model | input x | Tessera $BACKEND median ms | ONNX Runtime median ms | Tessera / ORT |"
echo "| --- | --- | ---: | ---: | ---: |"
device="" ortv=""
for c in "${CASES[@]}"; do
  read -r file shape <<<"$c"
  tm="" om=""
  for _ in $(seq "$ROUNDS"); do
    t=$("$TESSERA" bench "$DIR/$file" --backend "$BACKEND" --threads "$THREADS" --shape "x=$shape" \
          --runs "$RUNS" --warmup "$WARMUP" --json | tail -n 1)
    o=$(node "$ROOT/tests/models/ort_reference.mjs" bench "$DIR/$file" --threads "$THREADS" \
          --shape "x=$shape" --runs "$RUNS" --warmup "$WARMUP" --json | tail -n 1)
    tm=$(/usr/bin/python3 -c 'import sys; print(min(float(v) for v in sys.argv[1:] if v))' "$tm" "$(field median_ms "$t")")
    om=$(/usr/bin/python3 -c 'import sys; print(min(float(v) for v in sys.argv[1:] if v))' "$om" "$(field median_ms "$o")")
  done
  device=$(field device "$t")
  ortv=$(field version "$o")
  printf '| %s | %s | %.2f | %.2f | %.2f |\n' "${file%.onnx}" "$shape" "$tm" "$om" \
    "$(/usr/bin/python3 -c "print($tm / $om)")"
done
echo
echo "Tessera: $BACKEND backend ($device), $THREADS threads; ONNX Runtime $ortv (onnxruntime-node, CPU," \
     "$THREADS intra-op threads, all graph optimisations); lowest of $ROUNDS medians, each of $RUNS runs after $WARMUP warm-up runs."
