#!/usr/bin/python3
"""Runs every case of the ONNX node-test folder (in scope or not) and fails if any crashed
or timed out: out-of-scope cases must end in a clear SKIP or FAIL, never a crash. On a GPU
backend with no device it exits 77 (skipped), saying why.

Usage: check_no_crash.py --tessera build/tessera [--backend cpu] [--data-dir DIR]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tessera", required=True)
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--data-dir", default="/usr/share/libonnx-testdata/data/node")
    args = ap.parse_args()
    if not os.path.isdir(args.data_dir):
        print(f"FAIL: {args.data_dir} not found (run scripts/setup.sh)")
        return 1
    if args.backend != "cpu":
        devices = subprocess.run([args.tessera, "devices"], capture_output=True, text=True).stdout
        section = devices.split(args.backend + ":", 1)[1] if args.backend + ":" in devices else ""
        section = section.split("\n\n", 1)[0]
        if "[0]" not in section:
            print(f"SKIP: no {args.backend} device: {section.strip()}")
            return 77
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "report.json")
        proc = subprocess.run([args.tessera, "conformance", args.data_dir, "--backend", args.backend,
                               "--json", report], capture_output=True, text=True)
        if proc.returncode not in (0, 1) or not os.path.exists(report):
            print(f"FAIL: tessera conformance exited {proc.returncode}\n{proc.stderr[-2000:]}")
            return 1
        with open(report) as f:
            cases = json.load(f)["cases"]
    crashed = [c for c in cases if "crashed" in c["reason"] or "timed out" in c["reason"]]
    for c in crashed:
        print(f"CRASH {c['name']}: {c['reason']}")
    counts = {s: sum(1 for c in cases if c["status"] == s) for s in ("PASS", "FAIL", "SKIP")}
    print(f"{len(cases)} cases: {counts['PASS']} passed, {counts['FAIL']} failed, "
          f"{counts['SKIP']} skipped, {len(crashed)} crashed or timed out")
    return 1 if crashed or len(cases) < 900 else 0


if __name__ == "__main__":
    sys.exit(main())
