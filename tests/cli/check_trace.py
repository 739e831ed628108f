#!/usr/bin/python3
"""`tessera run --trace` and `tessera diff` from the command line:
  - the trace of the PaddleOCR detector holds one .npy per node output and nothing else but
    trace.json and index.tsv, each file matching its entry (shape, dtype, min/max/mean), one
    entry per planned node (folded ones marked), on every backend present;
  - `tessera diff` finds nothing on the classifier for each GPU backend against the CPU
    (exit 0), and its --json parses;
  - with ONNX Runtime's intermediate tensors as the reference (tests/models/ort_trace.py),
    every node output of Tessera's CPU run is compared and within tolerance;
  - bad command lines are refused clearly.
Usage: check_trace.py --tessera build/tessera    (exit 77: models or test data missing)"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "conformance"))
from check_conformance import device_problem  # noqa: E402

MODELS = os.path.join(ROOT, "third_party", "models", "paddleocr")
DET = os.path.join(MODELS, "ch_PP-OCRv4_det_infer.onnx")
CLS = os.path.join(MODELS, "ch_ppocr_mobile_v2.0_cls_infer.onnx")

failures = []


def fail(msg):
    print("FAIL " + msg)
    failures.append(msg)


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def check_trace_dir(tessera, backend, tmp, x):
    out = os.path.join(tmp, "trace-" + backend)
    r = run([tessera, "run", DET, "--backend", backend, "--input", "x=" + x, "--output-dir",
             os.path.join(tmp, "out-" + backend), "--trace", out, "--plan"])
    if r.returncode != 0:
        return fail("%s: run --trace exited %d: %s" % (backend, r.returncode, r.stderr.strip()))
    trace = json.load(open(os.path.join(out, "trace.json")))
    entries = trace["entries"]
    files = {e["file"] for e in entries}
    on_disk = set(os.listdir(out))
    if on_disk != files | {"trace.json", "index.tsv"}:
        fail("%s: the trace directory holds %s besides the entries' files" %
             (backend, sorted(on_disk - files - {"trace.json", "index.tsv"})) +
             (" and misses %s" % sorted(files - on_disk) if files - on_disk else ""))
    if len(files) != len(entries) or len({e["output"] for e in entries}) != len(entries):
        fail("%s: %d entries for %d files / outputs" % (backend, len(entries), len(files)))
    planned = [l for l in r.stdout.splitlines() if " -> " in l and not l.startswith(("inserted", "output ", "trace:"))]
    if len({e["node"] for e in entries}) != len(planned):
        fail("%s: %d traced nodes, %d planned" % (backend, len({e["node"] for e in entries}), len(planned)))
    folded_planned = sum(1 for l in planned if l.endswith("-> folded (constant)"))
    folded_traced = len({e["node"] for e in entries if e["folded"]})
    if folded_planned != folded_traced:
        fail("%s: %d folded nodes planned, %d marked in the trace" % (backend, folded_planned, folded_traced))
    for e in entries:
        a = np.load(os.path.join(out, e["file"]))
        if list(a.shape) != e["shape"]:
            fail("%s: %s has shape %s, trace.json says %s" % (backend, e["file"], a.shape, e["shape"]))
        if a.size and np.issubdtype(a.dtype, np.floating) and np.isfinite(a).all():
            if not np.isclose(a.min(), e["min"], rtol=1e-6) or not np.isclose(a.max(), e["max"], rtol=1e-6) \
                    or not np.isclose(a.mean(), e["mean"], rtol=1e-4, atol=1e-6):
                fail("%s: %s stats differ from its file" % (backend, e["file"]))
        if not e["folded"] and e["backend"] not in (backend, "cpu"):
            fail("%s: %s ran on %s" % (backend, e["node"], e["backend"]))
    final = [e for e in entries if e["output"] == "sigmoid_0.tmp_0"]
    if final:
        y = np.load(os.path.join(tmp, "out-" + backend, "sigmoid_0.tmp_0.npy"))
        if not np.array_equal(np.load(os.path.join(out, final[0]["file"])), y):
            fail("%s: the traced graph output differs from the one written by run" % backend)
    print("trace %s: %d node outputs of %d nodes (%d folded)" % (backend, len(entries), len(planned), folded_traced))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tessera", required=True)
    args = ap.parse_args()
    if not os.path.exists(DET) or not os.path.exists(CLS):
        print("SKIP: the PaddleOCR models are missing (run scripts/setup.sh)")
        return 77
    backends = [b for b in ("cpu", "vulkan", "opencl") if not device_problem(args.tessera, b)]
    with tempfile.TemporaryDirectory() as tmp:
        rng = np.random.default_rng(3)
        det_x, cls_x = os.path.join(tmp, "det.npy"), os.path.join(tmp, "cls.npy")
        np.save(det_x, rng.uniform(-1, 1, (1, 3, 160, 192)).astype(np.float32))
        np.save(cls_x, rng.uniform(-1, 1, (1, 3, 48, 192)).astype(np.float32))
        for b in backends:
            check_trace_dir(args.tessera, b, tmp, det_x)
        for b in backends:
            if b == "cpu":
                continue
            r = run([args.tessera, "diff", CLS, "--backend", b, "--input", "x=" + cls_x, "--json"])
            try:
                d = json.loads(r.stdout)
            except ValueError:
                fail("diff %s --json is not JSON (exit %d): %s" % (b, r.returncode, r.stdout[:300] + r.stderr))
                continue
            if r.returncode != 0 or d["first"] is not None:
                fail("diff %s: exit %d, first divergent %s" % (b, r.returncode, d["first"]))
            elif not all(v["compared"] for v in d["values"]):
                fail("diff %s: not every value compared" % b)
            else:
                print("diff %s: %d values within tolerance of the CPU" % (b, len(d["values"])))
        ort = os.path.join(tmp, "ort")
        r = run(["/usr/bin/python3", os.path.join(ROOT, "tests", "models", "ort_trace.py"), CLS,
                 "--input", "x=" + cls_x, "--output-dir", ort])
        if r.returncode != 0:
            fail("ort_trace.py exited %d: %s" % (r.returncode, r.stderr.strip()[-500:]))
        else:
            r = run([args.tessera, "diff", CLS, "--backend", "cpu", "--reference", ort, "--input", "x=" + cls_x, "--json"])
            d = json.loads(r.stdout) if r.returncode in (0, 3) else None
            if r.returncode != 0 or not d or not all(v["compared"] for v in d["values"]):
                fail("diff against ONNX Runtime: exit %d %s" % (r.returncode, (r.stdout + r.stderr)[-500:]))
            else:
                print("diff cpu vs ONNX Runtime: %d node outputs compared, all within tolerance" % len(d["values"]))
        for cmd, needle, code in (
                ([args.tessera, "diff", CLS], "--backend is required", 2),
                ([args.tessera, "diff", CLS, "--backend", "cpu", "--reference", os.path.join(tmp, "nowhere"),
                  "--input", "x=" + cls_x],
                 "index.tsv", 1),
                ([args.tessera, "diff", CLS, "--backend", "cpu", "--rtol", "-1"], "--rtol expects a non-negative number", 2),
                ([args.tessera, "diff", DET, "--backend", "cpu"], "--shape x=", 1)):
            r = run(cmd)
            if r.returncode != code or needle not in r.stderr:
                fail("%s: exit %d (want %d), stderr %r (want %r)" % (" ".join(cmd[1:]), r.returncode, code,
                                                                  r.stderr.strip(), needle))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
