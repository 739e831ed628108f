#!/usr/bin/python3
"""Runs the ONNX node-test cases in scope through `tessera conformance` and judges the result.

It fails when
  - a case fails that known_failures.txt does not list for this backend (a new failure),
  - fewer cases pass than the backend's floor in min_passed.txt (mass SKIPs cannot hide),
  - a listed case is missing from the report, or the tool crashed or wrote no report.
A listed known failure that now passes is reported so the list can shrink; it does not fail.

With --strict (the per-op lists of ops/, one CTest per list and backend) every listed case
must PASS with every node that was not folded into a constant on --backend, and at least one
node run there: a SKIP, a fallback to another backend, or a case folded whole at planning
(nothing ran) counts as a failure, and the floor is the whole list.

The summary line says in how many passing cases the model really ran on --backend (some node
ran there and none fell back elsewhere), and how many passed folded or elsewhere: only the
first kind says anything about that backend's kernels.

known_failures.txt: one case a line, optionally `backend:case` to limit it to one backend;
'#' starts a comment (say why the case fails). min_passed.txt: `backend count` lines.
A GPU backend with no device here exits 77 (skipped) with the reason.

Usage: check_conformance.py --tessera build/tessera [--backend cpu] [--list FILE] [--strict]
                            [--known FILE] [--min-passed N] [--data-dir DIR]
"""
import argparse
import itertools
import json
import os
import subprocess
import sys
import tempfile

from placement import ran_on, ran_summary

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_DATA = "/usr/share/libonnx-testdata/data/node"


def read_lines(path):
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                yield line


def known_failures(path, backend):
    known = set()
    if not os.path.exists(path):
        return known
    for line in read_lines(path):
        scope, sep, case = line.partition(":")
        if not sep:
            known.add(line)
        elif scope == backend:
            known.add(case)
    return known


def floor_for(path, backend):
    if os.path.exists(path):
        for line in read_lines(path):
            parts = line.split()
            if len(parts) == 2 and parts[0] == backend:
                return int(parts[1])
    return None


def device_problem(tessera, backend):
    """Why `backend` cannot run here (None when it can); the CPU always can."""
    if backend == "cpu":
        return None
    out = subprocess.run([tessera, "devices"], stdout=subprocess.PIPE, text=True).stdout
    # The backend's section: its indented lines after "<backend>:".
    section = out.split("\n" + backend + ":\n", 1)[-1] if "\n" + backend + ":\n" in out else ""
    section = "\n".join(itertools.takewhile(lambda line: line.startswith(" "), section.split("\n"))).strip()
    if "[0]" not in section:
        return section or "`tessera devices` lists no %s section" % backend
    if os.environ.get("TESSERA_VULKAN_VALIDATION") == "1" and backend == "vulkan" \
            and "validation layer: on" not in section:
        return "FAIL: TESSERA_VULKAN_VALIDATION=1 did not turn the validation layer on"
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tessera", required=True)
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--list", default=os.path.join(HERE, "onnx_node_in_scope.txt"))
    ap.add_argument("--known", default=os.path.join(HERE, "known_failures.txt"))
    ap.add_argument("--min-passed", type=int, default=None,
                    help="floor on passing cases (default: from min_passed.txt)")
    ap.add_argument("--data-dir", default=DEFAULT_DATA)
    ap.add_argument("--verbose", action="store_true", help="print PASS lines too")
    ap.add_argument("--strict", action="store_true",
                    help="every listed case must pass with all its nodes on --backend")
    args, extra = ap.parse_known_args()  # anything else goes to `tessera conformance`

    tag = "conformance(%s)" % args.backend
    if not os.path.isdir(args.data_dir):
        print("%s FAIL: no ONNX test data in %s: run scripts/setup.sh" % (tag, args.data_dir))
        return 1
    problem = device_problem(args.tessera, args.backend)
    if problem:
        print("%s %s" % (tag, problem if problem.startswith("FAIL") else "SKIP: no device: " + problem))
        return 1 if problem.startswith("FAIL") else 77
    wanted = list(read_lines(args.list))
    known = known_failures(args.known, args.backend)
    floor = args.min_passed
    if floor is None and args.strict:
        floor = len([name for name in wanted if name not in known])
    if floor is None:
        floor = floor_for(os.path.join(HERE, "min_passed.txt"), args.backend)
    if floor is None:
        print("%s FAIL: no floor for backend '%s' in min_passed.txt" % (tag, args.backend))
        return 1

    with tempfile.TemporaryDirectory(prefix="tessera-conformance-") as tmp:
        report = os.path.join(tmp, "report.json")
        cmd = [args.tessera, "conformance", args.data_dir, "--list", args.list,
               "--backend", args.backend, "--json", report] + extra
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for line in p.stdout.splitlines():
            if args.verbose or not line.startswith("PASS "):
                print(line)
        if p.returncode not in (0, 1) or not os.path.exists(report):
            print("%s FAIL: `%s` exited %d without a report" % (tag, " ".join(cmd), p.returncode))
            return 1
        with open(report) as f:
            cases = json.load(f)["cases"]

    status = {}
    for c in cases:
        status[c["name"]] = c["status"]
        if args.strict and c["status"] != "FAIL":
            elsewhere = ["%s on %s" % (n["op"], n["backend"]) for n in c.get("nodes", [])
                         if n["backend"] != args.backend and not n.get("folded")]
            why = ", ".join(elsewhere) or (c.get("reason") if c["status"] == "SKIP" else "") or \
                ("" if ran_on(c, args.backend) else "every node folded at planning: nothing ran on %s" % args.backend)
            if why:
                status[c["name"]] = "FAIL"
                print("FAIL %s (strict: %s)" % (c["name"], why))
    problems = []
    missing = [name for name in wanted if name not in status]
    if missing:
        problems.append("%d listed cases missing from the report: %s" %
                        (len(missing), " ".join(missing[:20])))
    new_failures = sorted(n for n, s in status.items() if s == "FAIL" and n not in known)
    if new_failures:
        problems.append("%d failures not in %s: %s" % (len(new_failures),
                        os.path.basename(args.known), " ".join(new_failures)))
    fixed = sorted(n for n in known if status.get(n) == "PASS")
    if fixed:
        print("%s note: known failures that now pass (remove them from %s): %s" %
              (tag, os.path.basename(args.known), " ".join(fixed)))
    passed = sum(1 for s in status.values() if s == "PASS")
    failed = sum(1 for s in status.values() if s == "FAIL")
    skipped = sum(1 for s in status.values() if s == "SKIP")
    if passed < floor:
        problems.append("only %d cases pass, the floor for %s is %d" % (passed, args.backend, floor))
    print("%s: %d cases: %d passed, %d failed (%d known), %d skipped; floor %d" %
          (tag, len(status), passed, failed, failed - len(new_failures), skipped, floor))
    print("%s: %s" % (tag, ran_summary([dict(c, status=status[c["name"]]) for c in cases], args.backend)))
    for problem in problems:
        print("%s FAIL: %s" % (tag, problem))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
