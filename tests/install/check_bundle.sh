#!/usr/bin/env bash
# The relocatable bundle (scripts/bundle.sh) from a built tree: packs it, unpacks it in a
# scratch folder and runs its run.sh there with a bare environment (no build tree, no
# LD_LIBRARY_PATH, a fresh HOME), narrowed to stay quick on CPU-run drivers: the devices, two
# GPU unit tests, two ONNX node cases per backend, and the classifier's latency row per
# backend, and the CPU step on every instruction set with one op test and the FMA peak.
# Every step must report success and every latency cell a number. ab.sh times the
# classifier against the bundle's own tessera (one round). Then the devices
# step again as on a machine's first run: with the NC4HW4 storage choices gone from the
# cache, `tessera devices` notes its measurements inside the backends' sections, and run.sh
# must still find every GPU backend (it once found none there).
#
#   tests/install/check_bundle.sh BUILD_DIR
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD_DIR="$(cd "${1:?usage: check_bundle.sh BUILD_DIR}" && pwd)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/tessera-bundle-XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

TESSERA_BUILD_DIR="$BUILD_DIR" TESSERA_BUNDLE_NO_BUILD=1 "$ROOT/scripts/bundle.sh" "$WORK/bundle.tar.gz"
mkdir "$WORK/unpacked" "$WORK/home"
tar -C "$WORK/unpacked" -xzf "$WORK/bundle.tar.gz"
rc=0
# The suite's own program and pipeline caches (same build, so the same kernels): PoCL would
# otherwise compile every OpenCL program again, most of this test's time.
CACHE="${XDG_CACHE_HOME:-${HOME:-$WORK/home}/.cache}"
env -i PATH=/usr/bin:/bin HOME="$WORK/home" TESSERA_BUNDLE_CACHE="$CACHE" TESSERA_BUNDLE_RUNS=2 TESSERA_BUNDLE_MODELS=cls \
  TESSERA_BUNDLE_TESTS='VulkanFp16Rounding.*:OpenClFp16Rounding.*' \
  TESSERA_BUNDLE_CPU_TESTS='VectorMath.SwishMatchesItsDefinition' TESSERA_BUNDLE_BENCH_FILTER='MachinePeak' \
  TESSERA_BUNDLE_LIST="$WORK/unpacked/tessera-bundle/lists/smoke.txt" \
  bash -c 'printf "test_relu\ntest_conv_with_strides_padding\n" >"$TESSERA_BUNDLE_LIST" && "$0" "$1"' \
  "$WORK/unpacked/tessera-bundle/run.sh" "$WORK/results" || rc=$?
S="$WORK/results/summary.md"
[ -f "$S" ] || fail "run.sh wrote no summary"
cat "$S"
[ "$rc" -eq 0 ] || fail "run.sh exited $rc"
grep -q '<- default' "$WORK/results/devices.txt" || fail "no device listed"
grep -qE '^- exit 0: .*PASSED' "$S" || fail "the unit tests did not pass"
grep -qE '^- cpu, inference list: 2 passed, 0 failed' "$S" || fail "the CPU conformance run did not pass"
# The CPU paths: the portable one everywhere, and each SIMD path this CPU runs.
grep -qE '^- generic, CPU op tests: exit 0: .*PASSED' "$S" || fail "the generic CPU op test did not pass"
grep -qE '^- generic, inference list: 2 passed, 0 failed' "$S" || fail "the generic CPU conformance run did not pass"
for isa in avx2 avx512; do
  if [[ "$(TESSERA_CPU_ISA=$isa "$BUILD_DIR/tessera" devices 2>/dev/null)" == *"kernels: $isa,"* ]]; then
    grep -qE "^- $isa, CPU op tests: exit 0: .*PASSED" "$S" || fail "the $isa CPU op test did not pass"
    grep -qE "^- $isa, kernel micro-benchmarks .*fma_chains [0-9.]+% of peak" "$S" || fail "no $isa FMA peak reported"
  else
    grep -q "^- $isa: this CPU has no $isa path; skipped" "$S" || fail "no word of the $isa path"
  fi
done
grep -E '^\| (cpu|vulkan|opencl)[ ,]' "$S" >"$WORK/rows" || fail "no latency rows"
if grep -q failed "$WORK/rows"; then fail "a latency cell failed"; fi
for b in vulkan opencl; do
  if sed -n "/^$b:$/,/^[a-z]*:$/p" "$WORK/results/devices.txt" | grep -q '<- default'; then
    grep -qE "^- $b, float-only list: 2 passed, 0 failed.*2 of the 2 passed ran every node on $b" "$S" ||
      fail "$b conformance not reported as passing wholly on $b"
    grep -q "^| $b | fp16 |" "$WORK/rows" || fail "no $b fp16 row"
    if [ "$b" = opencl ]; then
      grep -q "^| opencl, TESSERA_OPENCL_FLUSH=0 | fp32 |" "$WORK/rows" || fail "no OpenCL row without early flushes"
    fi
  fi
done

# ab.sh, the side-by-side timing of this bundle against another build (here its own tessera
# as the other, one round of one run of the classifier): a number in every cell.
env -i PATH=/usr/bin:/bin HOME="$WORK/home" TESSERA_BUNDLE_CACHE="$CACHE" TESSERA_BUNDLE_ROUNDS=1 TESSERA_BUNDLE_RUNS=1 \
  TESSERA_BUNDLE_MODELS=cls "$WORK/unpacked/tessera-bundle/ab.sh" "$WORK/unpacked/tessera-bundle/bin/tessera" \
  "$WORK/ab" >/dev/null || fail "ab.sh exited $?"
grep -qE '^\| (vulkan|opencl) \| other \| [0-9.]+ ' "$WORK/ab/ab.md" || fail "ab.sh timed no GPU row: $(cat "$WORK/ab/ab.md")"

mkdir -p "$WORK/first-run"
cp -r "$CACHE/tessera" "$WORK/first-run/tessera"
rm -f "$WORK/first-run/tessera"/nc4_storage_*.txt
env -i PATH=/usr/bin:/bin HOME="$WORK/home" TESSERA_BUNDLE_CACHE="$WORK/first-run" \
  "$WORK/unpacked/tessera-bundle/run.sh" --only devices "$WORK/first-run-results" >/dev/null ||
  fail "run.sh --only devices exited $? on a first run"
D="$WORK/first-run-results/devices.txt"
grep -q 'NC4HW4 storage: .*measured' "$D" || fail "no storage measurement on the first run (nothing tested)"
gpus=""
for b in vulkan opencl; do
  if sed -n "/^$b:$/,/^[a-z]*:$/p" "$D" | grep -q '<- default'; then gpus="$gpus $b"; fi
done
grep -q "^GPU backends present:${gpus:- none};" "$WORK/first-run-results/summary.md" ||
  fail "on a first run run.sh reported $(grep '^GPU backends present' "$WORK/first-run-results/summary.md"), not${gpus:- none}"
echo "PASS: the bundle ran from $WORK/unpacked"
