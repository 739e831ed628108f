#!/bin/bash
# `tessera` on a machine with no OpenCL platform (the ICD loader pointed at an empty vendor
# folder): `devices` says why, `--backend opencl` fails with the reason, `--backend auto`
# runs on another backend (the CPU here) and says OpenCL is unavailable.
set -u
tessera=$1
case_dir=/usr/share/libonnx-testdata/data/node/test_relu
empty=$(mktemp -d)
trap 'rm -rf "$empty"' EXIT
export OCL_ICD_VENDORS=$empty
unset OPENCL_VENDOR_PATH
fail() { echo "FAIL: $*"; exit 1; }

out=$("$tessera" devices 2>&1) || fail "tessera devices exited non-zero: $out"
echo "$out" | grep -A1 '^opencl:' | grep -q 'unavailable: no OpenCL platform' ||
  fail "tessera devices does not say why OpenCL is unavailable:
$out"
[ -d "$case_dir" ] || { echo "SKIP: no ONNX test data"; exit 0; }
out=$("$tessera" conformance "$case_dir" --backend opencl 2>&1) && fail "--backend opencl succeeded without a platform"
echo "$out" | grep -qi 'opencl unavailable' || fail "--backend opencl does not say why: $out"
out=$("$tessera" conformance "$case_dir" --backend auto 2>&1) || fail "--backend auto failed: $out"
echo "$out" | grep -q 'opencl backend not used: no OpenCL platform' || fail "--backend auto does not mention OpenCL: $out"
echo "$out" | grep -q '^PASS test_relu' || fail "--backend auto did not pass: $out"
echo "PASS: without an OpenCL platform the backend reports why and the CPU runs"
