#!/usr/bin/env bash
# Feeds the `tessera` command bad inputs and checks that each is refused cleanly: a non-zero
# exit below 128 (no crash), "tessera: error:" and a message naming the cause.
# Usage: bad_input.sh PATH/TO/tessera    (exit 77 = skipped: ONNX test data not installed)
set -u
tessera=${1:?usage: bad_input.sh PATH/TO/tessera}
node=/usr/share/libonnx-testdata/data/node
relu=$node/test_relu/model.onnx  # input x: f32 3x4x5
if [ ! -f "$relu" ]; then
  echo "SKIP: $relu not found (install libonnx-testdata)"
  exit 77
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

# make_npy FILE DESCR SHAPE DATA_BYTES: a version 1.0 .npy whose data is DATA_BYTES zeros.
make_npy() {
  local header="{'descr': '$2', 'fortran_order': False, 'shape': $3, }"
  while [ $(( (10 + ${#header} + 1) % 64 )) -ne 0 ]; do header="$header "; done
  header="$header"$'\n'
  local len=${#header}
  {
    printf '\x93NUMPY\x01\x00'
    printf "\\x$(printf %02x $((len % 256)))\\x$(printf %02x $((len / 256)))"
    printf '%s' "$header"
    head -c "$4" /dev/zero
  } > "$1"
}

# expect_error NAME NEEDLE COMMAND...: COMMAND must fail without crashing and say NEEDLE.
expect_error() {
  local name=$1 needle=$2
  shift 2
  local out rc
  out=$("$@" 2>&1)
  rc=$?
  if [ "$rc" -eq 0 ]; then
    echo "FAIL $name: exit code 0"; failures=$((failures + 1)); return
  fi
  if [ "$rc" -ge 128 ]; then
    echo "FAIL $name: crashed (exit code $rc)"; failures=$((failures + 1)); return
  fi
  if ! grep -qF "tessera: error:" <<<"$out" || ! grep -qF -- "$needle" <<<"$out"; then
    echo "FAIL $name: exit $rc but the message lacks '$needle':"; echo "$out" | sed 's/^/    /'
    failures=$((failures + 1)); return
  fi
  echo "PASS $name (exit $rc): $(grep -F 'tessera: error:' <<<"$out" | head -n 1)"
}

# Models.
head -c $(( $(stat -c %s "$relu") / 2 )) "$relu" > "$work/truncated.onnx"
head -c 4096 /dev/urandom > "$work/random.onnx"
LC_ALL=C sed 's/Relu/Zzzz/g' "$relu" > "$work/unknown_op.onnx"
# Inputs for the Relu model.
make_npy "$work/good.npy" '<f4' '(3, 4, 5)' 240
make_npy "$work/rank2.npy" '<f4' '(3, 4)' 48
make_npy "$work/int64.npy" '<i8' '(3, 4, 5)' 480
make_npy "$work/lying.npy" '<f4' '(3, 4, 5)' 100
head -c 300 /dev/urandom > "$work/random.npy"

run() { "$tessera" run "$@" --output-dir "$work/out"; }
expect_error "truncated model" "not a valid ONNX model" run "$work/truncated.onnx" --input x="$work/good.npy"
expect_error "random-bytes model" "not a valid ONNX model" run "$work/random.onnx" --input x="$work/good.npy"
expect_error "missing model file" "cannot open" run "$work/nonexistent.onnx"
expect_error "unknown op" "unknown op 'Zzzz'" run "$work/unknown_op.onnx" --input x="$work/good.npy"
expect_error "wrong-rank input" "rank" run "$relu" --input x="$work/rank2.npy"
expect_error "wrong-dtype input" "expects f32 but" run "$relu" --input x="$work/int64.npy"
expect_error "missing input" "missing input 'x'" run "$relu"
expect_error "unknown input name" "no input 'nope'" run "$relu" --input x="$work/good.npy" --input nope="$work/good.npy"
expect_error "lying .npy header" "the header says" run "$relu" --input x="$work/lying.npy"
expect_error "random-bytes .npy" "not a .npy file" run "$relu" --input x="$work/random.npy"
expect_error "missing .npy" "cannot open" run "$relu" --input x="$work/nonexistent.npy"
expect_error "bench truncated model" "not a valid ONNX model" "$tessera" bench "$work/truncated.onnx"
expect_error "bench bad shape cycle" "is not a shape" "$tessera" bench "$relu" --shape-cycle x=3x4x5,3xfour
expect_error "bench shape cycle, wrong rank" "rank" "$tessera" bench "$relu" --shape-cycle x=3x4x5,3x4
expect_error "conformance on a non-directory" "not a directory" "$tessera" conformance "$work/nonexistent"
expect_error "unknown option" "unknown option" "$tessera" run "$relu" --frobnicate
# An input shape past the per-tensor limit is refused before anything is allocated.
det="$(dirname "$0")/../../third_party/models/paddleocr/ch_PP-OCRv4_det_infer.onnx"
if [ -f "$det" ]; then
  expect_error "huge input shape" "maxTensorElements" "$tessera" bench "$det" --shape x=1x3x100000x100000
else
  echo "SKIP huge input shape: $det not found (scripts/setup.sh fetches it)"
fi

# The good input must work, so the failures above are about the input and nothing else.
if ! "$tessera" run "$relu" --input x="$work/good.npy" --output-dir "$work/out" > /dev/null; then
  echo "FAIL good input: tessera run failed"; failures=$((failures + 1))
elif [ ! -f "$work/out/y.npy" ]; then
  echo "FAIL good input: no $work/out/y.npy"; failures=$((failures + 1))
else
  echo "PASS good input"
fi

if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all checks passed"
