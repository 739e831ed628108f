#!/usr/bin/env bash
# This bundle against another build on this machine's GPU backends, side by side: the
# PaddleOCR cases in interleaved rounds (each round runs every row once, in turn), each cell a
# row's lowest median over the rounds. A GPU lease is short and each one a fresh machine, so a
# change is measured next to its baseline in one call, never against another hour's figures.
#
#   tessera-bundle/ab.sh OTHER_TESSERA [RESULTS_DIR]      (default: ./tessera-ab)
#
# OTHER_TESSERA is another build's `tessera` (e.g. bin/tessera of an older bundle unpacked
# beside this one; it finds its own library through its RUNPATH). Environment:
# TESSERA_BUNDLE_ROUNDS (3), TESSERA_BUNDLE_RUNS (30, after 5 warm-up runs),
# TESSERA_BUNDLE_MODELS (cls rec det320 det640), TESSERA_BUNDLE_BACKENDS (the GPU backends
# present), TESSERA_BUNDLE_VARIANTS: more rows of this bundle under settings, ';' between rows
# and ' ' between the VAR=VALUE of one row (e.g. "TESSERA_VULKAN_SPLIT=off;TESSERA_VULKAN_CONV_COLUMNS=8").
# Prints a markdown table (also RESULTS_DIR/ab.md); exit status 1 when a cell failed.
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=env.sh
. "$HERE/env.sh"

OTHER="${1:?usage: ab.sh OTHER_TESSERA [RESULTS_DIR]}"
RESULTS="${2:-$PWD/tessera-ab}"
[ -x "$OTHER" ] || { echo "ab.sh: $OTHER is not an executable tessera" >&2; exit 2; }
mkdir -p "$RESULTS"
ROUNDS="${TESSERA_BUNDLE_ROUNDS:-3}"
RUNS="${TESSERA_BUNDLE_RUNS:-30}"
THIS="$HERE/bin/tessera"

tessera devices >"$RESULTS/devices.txt" 2>&1
BACKENDS="${TESSERA_BUNDLE_BACKENDS:-$(tb_gpu_backends "$RESULTS/devices.txt")}"
[ -n "$BACKENDS" ] || { echo "ab.sh: no GPU backend on this machine (devices.txt)" >&2; exit 2; }
models=()
for m in ${TESSERA_BUNDLE_MODELS:-cls rec det320 det640}; do
  c="$(tb_paddleocr_case "$m")" || { echo "ab.sh: unknown model '$m' in TESSERA_BUNDLE_MODELS" >&2; exit 2; }
  models+=("$m $c")
done
# Rows: "name|binary|settings".
rows=("this $(cat "$HERE/VERSION")|$THIS|" "other|$OTHER|")
IFS=';' read -ra variants <<<"${TESSERA_BUNDLE_VARIANTS:-}"
for v in "${variants[@]}"; do [ -n "$v" ] && rows+=("this, $v|$THIS|$v"); done

median() { sed -n 's/.*"median_ms": \([0-9.]*\).*/\1/p' "$1"; }
for round in $(seq "$ROUNDS"); do
  for b in $BACKENDS; do
    for i in "${!rows[@]}"; do
      IFS='|' read -r _ bin settings <<<"${rows[$i]}"
      for m in "${models[@]}"; do
        set -- $m
        # shellcheck disable=SC2086
        env $settings "$bin" bench "$HERE/models/$3" --backend "$b" --shape "x=$4" --runs "$RUNS" --warmup 5 --json \
          >"$RESULTS/${b}_row${i}_$1_r$round.json" 2>/dev/null
      done
    done
  done
done

status=0
out="$RESULTS/ab.md"
{
  echo "# A/B on $(hostname), $(date -u '+%Y-%m-%d %H:%M UTC'): lowest median of $ROUNDS rounds, $RUNS runs each (ms)"
  echo ""
  header="| backend | build |"
  rule="| --- | --- |"
  for m in "${models[@]}"; do set -- $m; header="$header $2 $4 |"; rule="$rule ---: |"; done
  echo "$header"
  echo "$rule"
  for b in $BACKENDS; do
    for i in "${!rows[@]}"; do
      IFS='|' read -r name _ _ <<<"${rows[$i]}"
      line="| $b | $name |"
      for m in "${models[@]}"; do
        set -- $m
        all="" best=""
        for round in $(seq "$ROUNDS"); do
          v="$(median "$RESULTS/${b}_row${i}_$1_r$round.json")"
          [ -z "$v" ] && continue
          all="$all${all:+ / }$(printf '%.3f' "$v")"
          if [ -z "$best" ] || awk "BEGIN { exit !($v < $best) }"; then best="$v"; fi
        done
        if [ -z "$best" ]; then line="$line failed |"; status=1; else line="$line $(printf '%.3f' "$best") ($all) |"; fi
      done
      echo "$line"
    done
  done
} | tee "$out"
exit $status
