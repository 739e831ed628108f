#!/usr/bin/python3
"""`tessera run` on a model whose planning needs an input's value (ONNX Split with its
`split` sizes a graph input): it must plan from the values given, run Split on the backend
asked for without uploading the sizes, and write the right parts, on every backend present.
Usage: check_run.py --tessera build/tessera    (exit 77: ONNX test data not installed)"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "conformance"))
from check_conformance import device_problem  # noqa: E402

CASE = "/usr/share/libonnx-testdata/data/node/test_split_variable_parts_1d/model.onnx"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tessera", required=True)
    args = ap.parse_args()
    if not os.path.exists(CASE):
        print("SKIP: %s not found (run scripts/setup.sh)" % CASE)
        return 77
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        x = np.arange(1, 7, dtype=np.float32)
        np.save(os.path.join(tmp, "x.npy"), x)
        np.save(os.path.join(tmp, "split.npy"), np.array([1, 5], dtype=np.int64))
        for b in ("cpu", "vulkan", "opencl"):
            problem = device_problem(args.tessera, b)
            if problem:
                print("SKIP %s: %s" % (b, problem))
                continue
            out = os.path.join(tmp, b)
            r = subprocess.run([args.tessera, "run", CASE, "--backend", b, "--plan", "--output-dir", out,
                                "--input", "input=" + os.path.join(tmp, "x.npy"),
                                "--input", "split=" + os.path.join(tmp, "split.npy")],
                               capture_output=True, text=True)
            if r.returncode != 0:
                print("FAIL %s: exit %d: %s" % (b, r.returncode, (r.stdout + r.stderr).strip()))
                failures += 1
                continue
            got = [np.load(os.path.join(out, "output_%d.npy" % i)) for i in (1, 2)]
            if not (np.array_equal(got[0], x[:1]) and np.array_equal(got[1], x[1:])):
                print("FAIL %s: parts %s, expected %s and %s" % (b, got, x[:1], x[1:]))
                failures += 1
                continue
            # The sizes are read on the host while planning: never copied to a GPU.
            if "inserted copy 'split'" in r.stdout:
                print("FAIL %s: the split sizes were uploaded:\n%s" % (b, r.stdout))
                failures += 1
                continue
            if "Split 'Split_0' -> %s" % b not in r.stdout:
                print("FAIL %s: Split did not run on %s:\n%s" % (b, b, r.stdout))
                failures += 1
                continue
            print("PASS %s" % b)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
