#!/usr/bin/env bash
# Runs every loader regression input (tests/fuzz/regressions/loader/: models that once
# crashed Tessera, hand-made or found by the fuzzer) through `tessera bench`: each must end
# in a result or a clean error ("tessera: error: ..."), never a crash or a time-out.
# Usage: check_regressions.sh PATH/TO/tessera
set -u
tessera=${1:?usage: check_regressions.sh PATH/TO/tessera}
dir="$(cd "$(dirname "$0")" && pwd)/regressions/loader"
passed=0 failed=0
for f in "$dir"/*; do
  out=$(timeout 60 "$tessera" bench "$f" --runs 1 --warmup 0 2>&1)
  rc=$?
  if [ "$rc" -ge 124 ]; then
    echo "FAIL $(basename "$f"): crashed or timed out (exit $rc)"; echo "$out" | tail -n 5 | sed 's/^/    /'
    failed=$((failed + 1))
  elif [ "$rc" -ne 0 ] && ! grep -q "tessera: error:" <<<"$out"; then
    echo "FAIL $(basename "$f"): exit $rc without an error message"; failed=$((failed + 1))
  else
    echo "PASS $(basename "$f") (exit $rc): $(tail -n 1 <<<"$out")"; passed=$((passed + 1))
  fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
