#!/usr/bin/python3
"""Checks tools/codegen/opencl_kernels.py on its own: each program gets a header of its own
with one typed identifier per __kernel, adding a program leaves the other headers untouched
(so only the C++ that uses a program is rebuilt), and bad input fails naming the file."""
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GEN = os.path.join(ROOT, "tools/codegen/opencl_kernels.py")


def generate(out, files):
    return subprocess.run([sys.executable, GEN, "--out-dir", out] + files, capture_output=True, text=True)


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out")
        helper = os.path.join(tmp, "helper.h")
        probe = os.path.join(tmp, "probe.cl")
        write(helper, "#define TWICE(x) (2 * (x))\n")
        write(probe, '#include "helper.h"\n__kernel void first(__global float* y) { y[0] = TWICE(1); }\n'
                     "__kernel void second(__global float* y) { y[0] = 2; }\n")
        r = generate(out, [probe, helper])
        if r.returncode != 0:
            print("FAIL: the generator rejected a valid program:\n" + r.stderr)
            return 1
        hpp = open(os.path.join(out, "kernels", "probe.hpp")).read()
        for k in ("first", "second"):
            if 'inline constexpr KernelId %s{&programs::probe, "%s"};' % (k, k) not in hpp:
                print("FAIL: kernel %s missing from kernels/probe.hpp" % k)
                return 1
        cpp = open(os.path.join(out, "OpenClKernels.cpp")).read()
        if "extern const ProgramSource probe" not in cpp or "(2 * (x))" not in cpp:
            print("FAIL: OpenClKernels.cpp lacks the program or its expanded include")
            return 1
        if "extern const char* const helper;" not in open(os.path.join(out, "kernels", "headers.hpp")).read():
            print("FAIL: the header helper.h is not declared in kernels/headers.hpp")
            return 1
        before = os.stat(os.path.join(out, "kernels", "probe.hpp")).st_mtime_ns
        other = os.path.join(tmp, "other.cl")
        write(other, "__kernel void third(__global float* y) { y[0] = 3; }\n")
        r = generate(out, [probe, other, helper])
        if r.returncode != 0 or not os.path.exists(os.path.join(out, "kernels", "other.hpp")):
            print("FAIL: a second program was not generated:\n" + r.stderr)
            return 1
        if os.stat(os.path.join(out, "kernels", "probe.hpp")).st_mtime_ns != before:
            print("FAIL: adding a program rewrote another program's header")
            return 1
        broken = os.path.join(tmp, "broken.cl")
        write(broken, '#include "missing.h"\n__kernel void k(__global float* y) {}\n')
        r = generate(out, [broken])
        if r.returncode == 0 or "broken.cl" not in r.stderr or "missing.h" not in r.stderr:
            print("FAIL: a missing include must fail naming the file; got exit %d:\n%s" % (r.returncode, r.stderr))
            return 1
    print("codegen: per-program headers, typed kernels, includes and errors OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
