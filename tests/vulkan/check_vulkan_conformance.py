#!/usr/bin/python3
"""Runs the in-scope ONNX node tests on the CPU and on Vulkan and fails when a case that
passes on the CPU does not pass on Vulkan (unless tests/vulkan/known_failures.txt lists it),
or when fewer of the float-only cases than --min-all-on-vulkan ran every node on Vulkan.
With --validation the Khronos validation layer is on (TESSERA_VULKAN_VALIDATION=1): the
backend turns any validation error into a failing case. Exit 77 (skip) without a device.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "conformance"))
from placement import ran_summary  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = "/usr/share/libonnx-testdata/data/node"


def lines(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [l.split("#", 1)[0].strip() for l in f if l.split("#", 1)[0].strip()]


def conformance(tessera, backend, listfile, env):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, backend + ".json")
        r = subprocess.run([tessera, "conformance", DATA, "--list", listfile, "--backend", backend, "--json", out],
                           capture_output=True, text=True, env=env)
        if not os.path.exists(out):
            print("FAIL: `tessera conformance --backend %s` wrote no report (exit %d)\n%s" %
                  (backend, r.returncode, (r.stdout + r.stderr)[-3000:]))
            sys.exit(1)
        with open(out) as f:
            return {c["name"]: c for c in json.load(f)["cases"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tessera", required=True)
    ap.add_argument("--list", default=os.path.join(ROOT, "tests/conformance/onnx_node_in_scope.txt"))
    ap.add_argument("--float-only", default=os.path.join(ROOT, "tests/conformance/onnx_node_float_only.txt"))
    ap.add_argument("--known-failures", default=os.path.join(ROOT, "tests/vulkan/known_failures.txt"))
    ap.add_argument("--min-all-on-vulkan", type=int, default=0)
    ap.add_argument("--validation", action="store_true")
    a = ap.parse_args()
    if not os.path.isdir(DATA):
        print("SKIP: no ONNX test data in " + DATA)
        return 77
    env = dict(os.environ)
    env.setdefault("XDG_RUNTIME_DIR", "/tmp")
    if a.validation:
        env["TESSERA_VULKAN_VALIDATION"] = "1"
    devices = subprocess.run([a.tessera, "devices"], capture_output=True, text=True, env=env).stdout
    section = devices.split("vulkan:", 1)[1] if "vulkan:" in devices else ""
    if "[0]" not in section:
        print("SKIP: no Vulkan device: " + section.strip())
        return 77
    if a.validation and "validation layer: on" not in section:
        print("FAIL: TESSERA_VULKAN_VALIDATION=1 did not turn the validation layer on:\n" + section)
        return 1
    known = set(lines(a.known_failures))
    cpu = conformance(a.tessera, "cpu", a.list, env)
    vk = conformance(a.tessera, "vulkan", a.list, env)
    bad = []
    for name, c in sorted(cpu.items()):
        if c["status"] != "PASS":
            continue
        v = vk.get(name)
        if (not v or v["status"] != "PASS") and name not in known:
            bad.append("%s: %s" % (name, v["reason"] if v else "missing from the Vulkan report"))
    for name in sorted(known):
        if name in vk and vk[name]["status"] == "PASS":
            print("note: known failure %s now passes; remove it from %s" % (name, a.known_failures))
    float_only = lines(a.float_only)
    all_on = [n for n in float_only if n in vk and vk[n]["status"] == "PASS" and vk[n]["nodes"] and all(x["backend"] == "vulkan" for x in vk[n]["nodes"])]
    folded_only = [n for n in float_only if n in vk and n not in all_on and
                   all(x["backend"] == "vulkan" or x["op"] == "Constant" for x in vk[n]["nodes"])]
    passed = sum(1 for c in vk.values() if c["status"] == "PASS")
    print("vulkan%s: %d/%d pass (cpu %d); float-only cases with every node on Vulkan: %d/%d "
          "(%d more where only folded Constant nodes are reported as cpu)" %
          (" (validation on)" if a.validation else "", passed, len(vk),
           sum(1 for c in cpu.values() if c["status"] == "PASS"), len(all_on), len(float_only), len(folded_only)))
    print("vulkan: " + ran_summary(vk.values(), "vulkan"))
    for b in bad:
        print("FAIL " + b)
    if bad:
        return 1
    if len(all_on) < a.min_all_on_vulkan:
        print("FAIL: only %d float-only cases ran every node on Vulkan (floor %d)" % (len(all_on), a.min_all_on_vulkan))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
