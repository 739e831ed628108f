#!/usr/bin/env bash
# Median latency of the three PaddleOCR models on Tessera (`tessera bench`) next to ONNX
# Runtime's (CPU, tests/models/ort_reference.mjs) at the same input shapes and thread count;
# prints a markdown table (docs/PERFORMANCE.md holds the last one recorded).
#
#   tests/models/bench_paddleocr.sh [--tessera build/tessera] [--backend cpu] [--threads 2]
#                                   [--runs 20] [--warmup 3] [--rounds 3] [--models DIR]
#                                   [--case "NAME MODEL_FILE SHAPE"]... [--no-cycle]
#
# --case (repeatable) times those cases instead of the default ones, e.g.
# --case "det ch_PP-OCRv4_det_infer.onnx 1x3x736x1280", MODEL_FILE in --models (default
# third_party/models/paddleocr; each model's input is `x`); --no-cycle leaves out the width
# cycle. benchmarks/compare_general_nets.sh runs other nets through it.
#
# Each round times Tessera and then ONNX Runtime on a case (a median of --runs runs each); the
# table shows each engine's lowest median over the rounds, so a burst of load from another
# process on a shared machine costs one round, not the result, and hits both engines alike.
# The last row is the recogniser fed a new line width on every run (one session each,
# --shape-cycle through 10 widths, 10 cycles): there the figure is the mean per run, since
# the re-planning a new shape costs is part of what is measured.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
TESSERA="$ROOT/build/tessera"
BACKEND=cpu
THREADS=2
RUNS=20
WARMUP=3
ROUNDS=3
GIVEN_CASES=()
CYCLE_ROW=1
MODELS="$ROOT/third_party/models/paddleocr"
while [ $# -gt 0 ]; do
  case "$1" in
    --tessera) TESSERA="$2"; shift 2 ;;
    --backend) BACKEND="$2"; shift 2 ;;
    --threads) THREADS="$2"; shift 2 ;;
    --runs) RUNS="$2"; shift 2 ;;
    --warmup) WARMUP="$2"; shift 2 ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    --case) GIVEN_CASES+=("$2"); shift 2 ;;
    --models) MODELS="$2"; shift 2 ;;
    --no-cycle) CYCLE_ROW=0; shift ;;
    *) echo "bench_paddleocr: unknown option '$1'" >&2; exit 2 ;;
  esac
done

CASES=(
  "cls ch_ppocr_mobile_v2.0_cls_infer.onnx 1x3x48x192"
  "cls ch_ppocr_mobile_v2.0_cls_infer.onnx 2x3x48x192"
  "det ch_PP-OCRv4_det_infer.onnx 1x3x320x320"
  "det ch_PP-OCRv4_det_infer.onnx 1x3x640x640"
  "rec ch_PP-OCRv4_rec_infer.onnx 1x3x48x320"
)
if [ ${#GIVEN_CASES[@]} -gt 0 ]; then
  CASES=("${GIVEN_CASES[@]}")
fi
for c in "${CASES[@]}"; do
  read -r name file shape <<<"$c"
  if [ -z "$shape" ] || [ ! -f "$MODELS/$file" ]; then
    echo "bench_paddleocr: bad --case '$c' (want \"NAME MODEL_FILE SHAPE\", MODEL_FILE in $MODELS)" >&2
    exit 2
  fi
done
for f in "$TESSERA" "$MODELS" "$ROOT/third_party/ort/node_modules/onnxruntime-node"; do
  [ -e "$f" ] || { echo "bench_paddleocr: $f is missing: run scripts/setup.sh" >&2; exit 1; }
done
if [ "$CYCLE_ROW" = 1 ] && [ ! -f "$MODELS/ch_PP-OCRv4_rec_infer.onnx" ]; then
  echo "bench_paddleocr: the width cycle needs ch_PP-OCRv4_rec_infer.onnx in $MODELS (or --no-cycle)" >&2
  exit 2
fi

field() {  # field NAME JSON_LINE
  /usr/bin/python3 -c 'import json, sys; print(json.loads(sys.argv[2])[sys.argv[1]])' "$1" "$2"
}

lowest() {  # lowest PREVIOUS(empty for none) VALUE
  /usr/bin/python3 -c 'import sys; print(min(float(v) for v in sys.argv[1:] if v))' "$1" "$2"
}

echo "| model | input x | Tessera $BACKEND median ms | ONNX Runtime median ms | Tessera / ORT |"
echo "| --- | --- | ---: | ---: | ---: |"
device=""
for c in "${CASES[@]}"; do
  read -r name file shape <<<"$c"
  model="$MODELS/$file"
  tm="" om=""
  for _ in $(seq "$ROUNDS"); do
    t=$("$TESSERA" bench "$model" --backend "$BACKEND" --threads "$THREADS" --shape "x=$shape" \
          --runs "$RUNS" --warmup "$WARMUP" --json | tail -n 1)
    o=$(node "$ROOT/tests/models/ort_reference.mjs" bench "$model" --threads "$THREADS" \
          --shape "x=$shape" --runs "$RUNS" --warmup "$WARMUP" --json | tail -n 1)
    tm=$(lowest "$tm" "$(field median_ms "$t")")
    om=$(lowest "$om" "$(field median_ms "$o")")
  done
  device=$(field device "$t")
  ortv=$(field version "$o")
  printf '| %s | %s | %.2f | %.2f | %.2f |\n' "$name" "$shape" "$tm" "$om" \
    "$(/usr/bin/python3 -c "print($tm / $om)")"
done
# The width cycle: mean per run over 10 cycles of 10 widths.
if [ "$CYCLE_ROW" = 1 ]; then
WIDTHS="320 96 480 160 640 224 352 128 800 256"
CYCLE=$(for w in $WIDTHS; do printf '1x3x48x%s,' "$w"; done)
CYCLE=${CYCLE%,}
model="$MODELS/ch_PP-OCRv4_rec_infer.onnx"
tm="" om=""
for _ in $(seq "$ROUNDS"); do
  t=$("$TESSERA" bench "$model" --backend "$BACKEND" --threads "$THREADS" --shape-cycle "x=$CYCLE" \
        --runs 100 --json | tail -n 1)
  o=$(node "$ROOT/tests/models/ort_reference.mjs" bench "$model" --threads "$THREADS" \
        --shape-cycle "x=$CYCLE" --runs 100 --json | tail -n 1)
  tm=$(lowest "$tm" "$(field mean_ms "$t")")
  om=$(lowest "$om" "$(field mean_ms "$o")")
done
printf '| rec, width cycle | 1x3x48x{%s}, mean per run | %.2f | %.2f | %.2f |\n' "${WIDTHS// /,}" "$tm" "$om" \
  "$(/usr/bin/python3 -c "print($tm / $om)")"
fi

echo
echo "Tessera: $BACKEND backend ($device), $THREADS threads; ONNX Runtime $ortv (onnxruntime-node, CPU," \
     "$THREADS intra-op threads, all graph optimisations); lowest of $ROUNDS medians, each of $RUNS runs after $WARMUP warm-up runs."
