#!/usr/bin/python3
"""ONNX node tests in scope on OpenCL, judged against the CPU.

Runs `tessera conformance` over tests/conformance/onnx_node_in_scope.txt on the CPU and on
OpenCL and fails when
  - a case that passes on the CPU does not pass on OpenCL (unless listed in
    tests/opencl/known_failures.txt, with the reason),
  - fewer of the float-only cases (tests/conformance/onnx_node_float_only.txt) than the
    floor below run every node on OpenCL (a fallback that creeps in is caught),
  - the tool crashed or wrote no report.
Exits 77 (skipped) when no OpenCL device is present, saying why.

Usage: check_opencl_conformance.py --tessera build/tessera [--floor N] [--list CASES]
       [--float-only CASES] [--verbose]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CONFORMANCE = os.path.join(os.path.dirname(HERE), "conformance")
sys.path.insert(0, CONFORMANCE)
from placement import ran_summary  # noqa: E402
DATA = "/usr/share/libonnx-testdata/data/node"
# Float-only cases whose every node runs on OpenCL (of 324). The rest: Constant nodes (folded
# on the host, reported as cpu), 3-D pooling/ConvTranspose, Range.
FLOOR = 300


def read_lines(path):
    if not os.path.exists(path):
        return []
    out = []
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                out.append(line)
    return out


def run(tessera, backend, tmp, case_list):
    report = os.path.join(tmp, backend + ".json")
    cmd = [tessera, "conformance", DATA, "--list", case_list,
           "--backend", backend, "--json", report]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode not in (0, 1) or not os.path.exists(report):
        print("conformance(%s) FAIL: `%s` exited %d without a report:\n%s" %
              (backend, " ".join(cmd), p.returncode, p.stdout[-3000:]))
        return None, p.stdout
    with open(report) as f:
        return {c["name"]: c for c in json.load(f)["cases"]}, p.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tessera", required=True)
    ap.add_argument("--floor", type=int, default=FLOOR)
    ap.add_argument("--list", default=os.path.join(CONFORMANCE, "onnx_node_in_scope.txt"))
    ap.add_argument("--float-only", default=os.path.join(CONFORMANCE, "onnx_node_float_only.txt"))
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    if not os.path.isdir(DATA):
        print("conformance(opencl) FAIL: no ONNX test data in %s" % DATA)
        return 1
    devices = subprocess.run([args.tessera, "devices"], stdout=subprocess.PIPE, text=True).stdout
    section = devices.split("opencl:", 1)[1].split("\nvulkan:", 1)[0] if "opencl:" in devices else ""
    if "unavailable" in section or "not built" in section:
        print("conformance(opencl) SKIP: %s" % section.strip())
        return 77
    known = set(read_lines(os.path.join(HERE, "known_failures.txt")))
    with tempfile.TemporaryDirectory(prefix="tessera-cl-conformance-") as tmp:
        cpu, _ = run(args.tessera, "cpu", tmp, args.list)
        cl, text = run(args.tessera, "opencl", tmp, args.list)
    if cpu is None or cl is None:
        return 1
    if args.verbose:
        print(text)
    problems = []
    regressions = sorted(n for n, c in cpu.items()
                         if c["status"] == "PASS" and cl.get(n, {}).get("status") != "PASS" and n not in known)
    for n in regressions:
        c = cl.get(n)
        print("REGRESSION %s: %s %s" % (n, c["status"] if c else "MISSING", c["reason"][:300] if c else ""))
    if regressions:
        problems.append("%d cases pass on the CPU but not on OpenCL" % len(regressions))
    fixed = sorted(n for n in known if cl.get(n, {}).get("status") == "PASS")
    if fixed:
        print("conformance(opencl) note: known failures that now pass (remove them): " + " ".join(fixed))
    float_only = read_lines(args.float_only)
    all_cl = [n for n in float_only if cl.get(n, {}).get("status") == "PASS" and
              all(node["backend"] == "opencl" for node in cl[n]["nodes"])]
    if len(all_cl) < args.floor:
        problems.append("only %d of %d float-only cases run every node on OpenCL (floor %d)" %
                        (len(all_cl), len(float_only), args.floor))
    passed = lambda r: sum(1 for c in r.values() if c["status"] == "PASS")
    print("conformance(opencl): %d cases: %d pass on OpenCL, %d on the CPU; float-only cases "
          "entirely on OpenCL: %d/%d (floor %d)" % (len(cl), passed(cl), passed(cpu), len(all_cl),
                                                    len(float_only), args.floor))
    print("conformance(opencl): " + ran_summary(cl.values(), "opencl"))
    for p in problems:
        print("conformance(opencl) FAIL: " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
