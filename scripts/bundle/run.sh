#!/usr/bin/env bash
# Tessera's device checks from an unpacked bundle (scripts/bundle.sh): no build tools needed.
#
#   tessera-bundle/run.sh [--only STEP[,STEP...]] [RESULTS_DIR]     (default: ./tessera-results)
#
# Steps, in order (all by default):
#   devices      `tessera devices`, and the backend `--backend auto` picks
#   unit         the GPU unit tests (tessera_tests --gtest_filter='Vulkan*:OpenCl*')
#   conformance  the ONNX node cases of lists/onnx_node_inference.txt on cpu, vulkan and
#                opencl (in parallel), and on the GPU backends how many of the float-only
#                cases ran every node there, none folded
#   accuracy     the PaddleOCR models on each GPU backend against ONNX Runtime (Python's
#                onnxruntime module, where the machine has it with numpy): fp32 within
#                rtol 1e-3 / atol 1e-4, fp16 in the terms of issue 15 (check_paddleocr.py)
#   latency      the PaddleOCR table: every GPU backend in fp32 and fp16, the CPU at
#                1, 2, 4 ... all hardware threads; medians of TESSERA_BUNDLE_RUNS runs
#                (default 30) after 5 warm-up runs; and det 640's per-step profile on each GPU
#   cpu          the CPU kernels on every instruction set this host runs (avx512, avx2,
#                generic; TESSERA_CPU_ISA forces each): the CPU op tests, the inference list
#                of node cases, the PaddleOCR cases against ONNX Runtime (as `accuracy`), and
#                the kernel micro-benchmarks on 2 threads on each SIMD path (issue 9's items 3
#                and 4 on a host with AVX-512, which the build machine may lack)
# Every step writes its full output under RESULTS_DIR; the summary goes to stdout and to
# RESULTS_DIR/summary.md. Exit status: 1 when a unit test failed, a conformance run had a
# failure the CPU does not also have, or a latency cell failed.
# Narrower runs (the repository's smoke test uses them): TESSERA_BUNDLE_TESTS (a gtest
# filter), TESSERA_BUNDLE_LIST (one case list for both conformance runs), TESSERA_BUNDLE_MODELS
# (e.g. "cls det320": cls, rec, det320, det640), TESSERA_BUNDLE_CPU_TESTS (the `cpu` step's
# gtest filter), TESSERA_BUNDLE_BENCH_FILTER (its kernel micro-benchmarks).
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=env.sh
. "$HERE/env.sh"

STEPS="devices,unit,conformance,accuracy,latency,cpu"
if [ "${1:-}" = "--only" ]; then STEPS="$2"; shift 2; fi
RESULTS="${1:-$PWD/tessera-results}"
mkdir -p "$RESULTS"
SUMMARY="$RESULTS/summary.md"
: >"$SUMMARY"
RUNS="${TESSERA_BUNDLE_RUNS:-30}"
STATUS=0
say() { echo "$*" | tee -a "$SUMMARY"; }
want() { case ",$STEPS," in *",$1,"*) return 0 ;; esac; return 1; }

say "# Tessera bundle $(cat "$HERE/VERSION") on $(hostname), $(date -u '+%Y-%m-%d %H:%M UTC')"
say ""

# Which GPU backends this machine has (a backend that `tessera devices` cannot open is left out).
tessera devices >"$RESULTS/devices.txt" 2>&1
GPUS=" $(tb_gpu_backends "$RESULTS/devices.txt")"
[ "$GPUS" = " " ] && GPUS=""

if want devices; then
  say "## Devices"
  say ""
  say '```'
  cat "$RESULTS/devices.txt" | tee -a "$SUMMARY"
  say '```'
  auto="$(tessera bench "$HERE/models/ch_ppocr_mobile_v2.0_cls_infer.onnx" --backend auto --shape x=1x3x48x192 \
          --runs 1 --warmup 0 --json 2>/dev/null | sed -n 's/.*"backend": "\([a-z]*\)".*/\1/p')"
  say "GPU backends present:${GPUS:- none}; --backend auto runs on: ${auto:-?}"
  say ""
fi

if want unit; then
  say "## GPU unit tests"
  say ""
  tessera_tests --gtest_filter="${TESSERA_BUNDLE_TESTS:-Vulkan*:OpenCl*}" --gtest_color=no >"$RESULTS/unit.txt" 2>&1
  rc=$?
  [ $rc -ne 0 ] && STATUS=1
  say "- exit $rc: $(grep -E '^\[  (PASSED|FAILED)  \]|tests? ran' "$RESULTS/unit.txt" | tr '\n' ' ')"
  grep -E '^\[  FAILED  \] [A-Za-z]' "$RESULTS/unit.txt" | sed 's/^/  - /' | sort -u | tee -a "$SUMMARY"
  say ""
fi

if want conformance; then
  say "## ONNX node conformance"
  say ""
  for b in cpu $GPUS; do
    tessera conformance "$TESSERA_ONNX_NODE_DATA" --list "${TESSERA_BUNDLE_LIST:-$HERE/lists/onnx_node_inference.txt}" --backend "$b" \
      >"$RESULTS/conformance_$b.txt" 2>&1 &
  done
  for b in $GPUS; do
    tessera conformance "$TESSERA_ONNX_NODE_DATA" --list "${TESSERA_BUNDLE_LIST:-$HERE/lists/onnx_node_inference_float_only.txt}" \
      --backend "$b" >"$RESULTS/conformance_float_only_$b.txt" 2>&1 &
  done
  wait
  for b in cpu $GPUS; do
    say "- $b, inference list: $(grep -E '^[0-9]+ passed' "$RESULTS/conformance_$b.txt")"
  done
  # A GPU failure is one the CPU does not also have (a few ONNX cases fail everywhere:
  # docs/CONFORMANCE.md); those are listed.
  grep '^FAIL ' "$RESULTS/conformance_cpu.txt" | cut -d' ' -f2 | sort >"$RESULTS/.cpu_failures"
  for b in $GPUS; do
    extra="$(grep '^FAIL ' "$RESULTS/conformance_$b.txt" | cut -d' ' -f2 | sort | comm -23 - "$RESULTS/.cpu_failures")"
    if [ -n "$extra" ]; then
      STATUS=1
      say "  - failing on $b only: $(echo $extra)"
    fi
  done
  for b in $GPUS; do
    say "- $b, float-only list: $(grep -E '^[0-9]+ passed' "$RESULTS/conformance_float_only_$b.txt");" \
        "$(grep -E 'ran every node on' "$RESULTS/conformance_float_only_$b.txt")"
  done
  say ""
fi

if want accuracy; then
  say "## PaddleOCR answers against ONNX Runtime"
  say ""
  if ! python3 -c 'import numpy, onnxruntime' 2>/dev/null; then
    say "- skipped: needs python3 with numpy and onnxruntime (pip install numpy onnxruntime)"
  else
    for b in $GPUS; do
      for p in fp32 fp16; do
        terms=""
        [ "$p" = fp16 ] && terms="--fp16-terms"
        python3 "$HERE/check_paddleocr.py" --tessera "$HERE/bin/tessera" --models-dir "$HERE/models" --ort python \
          --backend "$b" --precision "$p" $terms >"$RESULTS/accuracy_${b}_$p.txt" 2>&1
        rc=$?
        [ $rc -ne 0 ] && STATUS=1
        say "- $b $p: $(tail -1 "$RESULTS/accuracy_${b}_$p.txt")"
        grep -E '^(PASS|FAIL)|^    ' "$RESULTS/accuracy_${b}_$p.txt" | sed 's/^/    /' | tee -a "$SUMMARY" >/dev/null
      done
    done
  fi
  say ""
fi

if want latency; then
  say "## PaddleOCR latency (median ms of $RUNS runs)"
  say ""
  models=()
  for m in ${TESSERA_BUNDLE_MODELS:-cls rec det320 det640}; do
    c="$(tb_paddleocr_case "$m")" || { echo "run.sh: unknown model '$m' in TESSERA_BUNDLE_MODELS" >&2; exit 2; }
    models+=("$c")
  done
  configs=()
  n="$(nproc)"
  # GPU rows run with the host's threads, as `tessera bench` does by default (Vulkan copies
  # inputs and outputs over up to 8 of them).
  for b in $GPUS; do configs+=("$b fp32 $n" "$b fp16 $n"); done
  # OpenCL without its early clFlush calls, next to the row with them (docs/OPENCL.md).
  case " $GPUS " in *" opencl "*) configs+=("opencl fp32 $n TESSERA_OPENCL_FLUSH=0") ;; esac
  t=1
  while [ "$t" -lt "$n" ]; do configs+=("cpu fp32 $t"); t=$((t * 2)); done
  configs+=("cpu fp32 $n")
  header="| backend | precision | threads |"
  rule="| --- | --- | ---: |"
  for m in "${models[@]}"; do
    set -- $m
    header="$header $1 $3 |"
    rule="$rule ---: |"
  done
  say "$header"
  say "$rule"
  for c in "${configs[@]}"; do
    set -- $c
    backend=$1 precision=$2 threads=$3 setting=${4:-}
    row="| $backend${setting:+, $setting} | $precision | $threads |"
    for m in "${models[@]}"; do
      set -- $m
      log="$RESULTS/bench_${backend}_${precision}_t${threads}${setting:+_${setting%%=*}}_$1_$3.json"
      env $setting tessera bench "$HERE/models/$2" --backend "$backend" --precision "$precision" --threads "$threads" \
        --shape "x=$3" --runs "$RUNS" --warmup 5 --json >"$log" 2>&1
      ms="$(sed -n 's/.*"median_ms": \([0-9.]*\).*/\1/p' "$log")"
      cell="$(if [ -n "$ms" ]; then printf '%.3f' "$ms"; else echo failed; fi)"
      [ -z "$ms" ] && STATUS=1
      # fp16 asked of a device that cannot store it: the backend ran fp32 and its name says so.
      grep -q 'running fp32' "$log" && cell="$cell (ran fp32)"
      row="$row $cell |"
    done
    say "$row"
  done
  say ""
  say "Host: $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) hardware threads."
  for b in $GPUS; do
    say "$b: $(sed -n "/^$b:$/,/^[a-z]*:$/p" "$RESULTS/devices.txt" | grep -m1 '<- default' | sed 's/^ *//; s/ *<- default//')"
  done
  for b in $GPUS; do
    case " ${TESSERA_BUNDLE_MODELS:-det640} " in *" det640 "*) ;; *) continue ;; esac
    for p in fp32 fp16; do
      tessera bench "$HERE/models/ch_PP-OCRv4_det_infer.onnx" --backend "$b" --precision "$p" \
        --shape x=1x3x640x640 --runs 10 --warmup 3 --profile >"$RESULTS/profile_det640_${b}_$p.txt" 2>&1
    done
  done
  case " ${TESSERA_BUNDLE_MODELS:-det640} " in
    *" det640 "*) say "Per-step profiles of det 1x3x640x640: profile_det640_<backend>_<precision>.txt" ;;
  esac
  say ""
fi

if want cpu; then
  say "## CPU kernels on each instruction set"
  say ""
  say "Host: $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) hardware threads;" \
      "$(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -E '^(avx2|fma|avx512[a-z_0-9]*)$' | tr '\n' ' ')"
  have_ort=0
  python3 -c 'import numpy, onnxruntime' 2>/dev/null && have_ort=1
  # The portable path first: each SIMD path is held to its conformance failures.
  for isa in generic avx2 avx512; do
    # A CPU without the path would fall back to another one and prove nothing: skipped.
    devices="$(TESSERA_CPU_ISA=$isa tessera devices 2>/dev/null)"
    if [[ "$devices" != *"kernels: $isa,"* ]]; then
      say "- $isa: this CPU has no $isa path; skipped"
      continue
    fi
    TESSERA_CPU_ISA=$isa tessera_tests --gtest_filter="${TESSERA_BUNDLE_CPU_TESTS:-$(grep -v '^#' "$HERE/lists/isa_op_tests.txt")}" \
      --gtest_color=no \
      >"$RESULTS/cpu_${isa}_unit.txt" 2>&1
    rc=$?
    [ $rc -ne 0 ] && STATUS=1
    say "- $isa, CPU op tests: exit $rc: $(grep -E '^\[  (PASSED|FAILED)  \]|tests? ran' "$RESULTS/cpu_${isa}_unit.txt" | tr '\n' ' ')"
    grep -E '^\[  FAILED  \] [A-Za-z]' "$RESULTS/cpu_${isa}_unit.txt" | sed 's/^/  - /' | sort -u | tee -a "$SUMMARY"
    TESSERA_CPU_ISA=$isa tessera conformance "$TESSERA_ONNX_NODE_DATA" \
      --list "${TESSERA_BUNDLE_LIST:-$HERE/lists/onnx_node_inference.txt}" --backend cpu >"$RESULTS/cpu_${isa}_conformance.txt" 2>&1
    say "- $isa, inference list: $(grep -E '^[0-9]+ passed' "$RESULTS/cpu_${isa}_conformance.txt")"
    grep '^FAIL ' "$RESULTS/cpu_${isa}_conformance.txt" | cut -d' ' -f2 | sort >"$RESULTS/.cpu_${isa}_failures"
    if [ "$isa" != generic ]; then
      extra="$(comm -23 "$RESULTS/.cpu_${isa}_failures" "$RESULTS/.cpu_generic_failures")"
      [ -n "$extra" ] && { STATUS=1; say "  - failing with $isa, not with generic: $(echo $extra)"; }
    fi
    if [ $have_ort = 1 ]; then
      TESSERA_CPU_ISA=$isa python3 "$HERE/check_paddleocr.py" --tessera "$HERE/bin/tessera" --models-dir "$HERE/models" \
        --ort python --backend cpu --threads 2 >"$RESULTS/cpu_${isa}_paddleocr.txt" 2>&1
      rc=$?
      [ $rc -ne 0 ] && STATUS=1
      say "- $isa, PaddleOCR against ONNX Runtime: $(tail -1 "$RESULTS/cpu_${isa}_paddleocr.txt")"
    else
      say "- $isa, PaddleOCR: skipped (needs python3 with numpy and onnxruntime)"
    fi
    if [ "$isa" != generic ] && [ ! -x "$HERE/bin/tessera_kernel_bench" ]; then
      say "- $isa, kernel micro-benchmarks: not in this bundle (built without Google Benchmark)"
    elif [ "$isa" != generic ]; then
      TESSERA_CPU_ISA=$isa tessera_kernel_bench --threads=2 --benchmark_min_time=0.3 --benchmark_repetitions=3 \
        --benchmark_display_aggregates_only=true --benchmark_counters_tabular=true \
        ${TESSERA_BUNDLE_BENCH_FILTER:+--benchmark_filter="$TESSERA_BUNDLE_BENCH_FILTER"} \
        >"$RESULTS/cpu_${isa}_kernels.txt" 2>&1 || STATUS=1
      say "- $isa, kernel micro-benchmarks (2 threads; cpu_${isa}_kernels.txt): $(awk '
          !/_median/ { next }
          { sub(/\/(iterations:[0-9]+\/)?manual_time_median/, "", $1) }
          $1 ~ /^(MachinePeak|Conv3x3|Conv1x1\/256|ConvTranspose|MatMul)/ { printf "%s%s %.1f%% of peak", sep, $1, $7; sep = "; " }
          $1 ~ /^(ConvDepthwise3x3\/s[12]\/96ch|ConvFirst)/ { printf "%s%s %.2fx its bound", sep, $1, $NF; sep = "; " }' \
          "$RESULTS/cpu_${isa}_kernels.txt")"
    fi
  done
  say ""
fi

say "Results: $RESULTS"
exit $STATUS
