#!/usr/bin/env bash
# Kernel micro-benchmarks (benchmarks/, Google Benchmark): builds tessera_kernel_bench if
# needed, then runs every case on the CPU backend and prints one table: time of
# Session::run, GFLOP/s, % of the machine's peak, the op's own step, and for the
# memory-bound cases the bandwidth bound (docs/PERFORMANCE.md, "Kernel micro-benchmarks").
#
#   scripts/bench_kernels.sh [--threads=N] [--rounds=N] [Google Benchmark flags, e.g. --benchmark_filter=Conv1x1]
#
# --rounds=N (or TESSERA_BENCH_ROUNDS) runs the whole set N times and ends with one table of
# each case's lowest median op time over the rounds, against the highest peak and bandwidth
# any round measured (scripts/kernel_rounds.py).
#
# Each case runs TESSERA_BENCH_REPETITIONS times (default: 5) and the table shows the
# aggregates of those repetitions: read the _median rows (a shared machine's bursts of load
# move the mean; the _cv row says how much).
#
# Environment: TESSERA_BUILD_DIR (default: build), TESSERA_JOBS (default: 2),
# TESSERA_BENCH_THREADS (default: 2; --threads=N wins), TESSERA_BENCH_MIN_TIME (seconds per
# repetition, default: 0.5), TESSERA_BENCH_REPETITIONS (default: 5; the whole run takes about
# a minute).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${TESSERA_BUILD_DIR:-$ROOT/build}"
JOBS="${TESSERA_JOBS:-2}"
MIN_TIME="${TESSERA_BENCH_MIN_TIME:-0.5}"
REPETITIONS="${TESSERA_BENCH_REPETITIONS:-5}"

if [ ! -f "$BUILD_DIR/CMakeCache.txt" ]; then
  cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
if ! grep -q '^TESSERA_BUILD_BENCHMARKS:BOOL=ON' "$BUILD_DIR/CMakeCache.txt"; then
  echo "bench_kernels: $BUILD_DIR has TESSERA_BUILD_BENCHMARKS off (Google Benchmark missing?);" \
       "install libbenchmark-dev and reconfigure with -DTESSERA_BUILD_BENCHMARKS=ON" >&2
  exit 1
fi
if ! grep -q '^CMAKE_BUILD_TYPE:STRING=Release' "$BUILD_DIR/CMakeCache.txt"; then
  echo "bench_kernels: warning: $BUILD_DIR is not a Release build; timings will mislead" >&2
fi
cmake --build "$BUILD_DIR" -j "$JOBS" --target tessera_kernel_bench >&2
ROUNDS="${TESSERA_BENCH_ROUNDS:-1}"
args=()
for a in "$@"; do
  case "$a" in
    --rounds=*) ROUNDS="${a#--rounds=}" ;;
    *) args+=("$a") ;;
  esac
done
case "$ROUNDS" in ''|*[!0-9]*|0) echo "bench_kernels: --rounds wants a positive count, not '$ROUNDS'" >&2; exit 2 ;; esac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for r in $(seq "$ROUNDS"); do
  [ "$ROUNDS" -gt 1 ] && echo "== round $r of $ROUNDS"
  "$BUILD_DIR/benchmarks/tessera_kernel_bench" --benchmark_min_time="$MIN_TIME" \
    --benchmark_repetitions="$REPETITIONS" --benchmark_display_aggregates_only=true \
    --benchmark_counters_tabular=true --benchmark_out="$work/round$r.json" --benchmark_out_format=json \
    ${args[@]+"${args[@]}"} | tee "$work/out$r"
  # A busy machine (other processes on these cores, or on their hyperthread siblings) shows in
  # the FMA loop itself; below 90% of peak every other row of the run understates its kernel.
  awk '/^MachinePeak\/fma_chains.*_median/ && $7 + 0 < 90 {
    printf "bench_kernels: warning: fma_chains reached %.0f%% of peak in this run: the machine was busy, so the other rows understate their kernels; rerun when it reads 95%% or more\n", $7 > "/dev/stderr" }' "$work/out$r"
done
if [ "$ROUNDS" -gt 1 ]; then
  python3 "$ROOT/scripts/kernel_rounds.py" "$work"/round*.json
fi
