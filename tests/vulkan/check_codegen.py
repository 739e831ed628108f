#!/usr/bin/python3
"""Checks tools/codegen/vulkan_shaders.py on its own: declared variants and precisions become
typed identifiers in a header per kernel file, adding a kernel leaves the other headers
untouched, and a shader error fails with glslang's message and the file's name."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GEN = os.path.join(ROOT, "tools/codegen/vulkan_shaders.py")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "src")
        os.makedirs(src)
        shutil.copy(os.path.join(ROOT, "shaders/vulkan/common.glsl"), src)
        with open(os.path.join(src, "probe.comp"), "w") as f:
            f.write("// variants: ONE, TWO ; precision: fp32 fp16 ; subgroup: TWO\n#version 450\n"
                    "#extension GL_GOOGLE_include_directive : require\n#include \"common.glsl\"\n"
                    "TENSOR_OUT(0, y);\nvoid main() {\n#ifdef ONE\n  y[gid()] = ST(1.0);\n#else\n"
                    "  y[gid()] = ST(2.0);\n#endif\n#ifdef SUBGROUP\n  y[gid()] = ST(subgroupAdd(3.0));\n#endif\n}\n")
        out = os.path.join(tmp, "out")
        r = subprocess.run([sys.executable, GEN, "--src", src, "--out", out], capture_output=True, text=True)
        if r.returncode != 0:
            print("FAIL: the generator rejected a valid kernel:\n" + r.stderr)
            return 1
        hpp = open(os.path.join(out, "shaders", "probe.hpp")).read()
        for ident in ("probe_ONE", "probe_TWO", "probe_ONE_FP16", "probe_TWO_FP16", "probe_TWO_SUBGROUP",
                      "probe_TWO_SUBGROUP_FP16"):
            if "extern const ShaderId %s;" % ident not in hpp:
                print("FAIL: %s missing from the generated shaders/probe.hpp" % ident)
                return 1
        cpp = open(os.path.join(out, "VulkanShaders.cpp")).read()
        if 'extern const ShaderId probe_ONE = &kBinaries[' not in cpp:
            print("FAIL: probe_ONE is not defined in VulkanShaders.cpp")
            return 1
        # The plain builds reach their subgroup twins (fp32 to fp32, fp16 to fp16); ONE has none.
        index = {m.group(1): int(m.group(2)) for m in re.finditer(r"ShaderId (\w+) = &kBinaries\[(\d+)\]", cpp)}
        links = {m.group(1): m.group(2) for m in re.finditer(r'\{"(\w+)", k_\w+, \d+, 0x[0-9a-f]+ull, [^,]+, ([^}]+)\}', cpp)}
        want = {"probe_TWO": "&kBinaries[%d]" % index["probe_TWO_SUBGROUP"],
                "probe_TWO_FP16": "&kBinaries[%d]" % index["probe_TWO_SUBGROUP_FP16"], "probe_ONE": "nullptr"}
        for ident, link in want.items():
            if links.get(ident) != link:
                print("FAIL: %s's subgroup build is %s, not %s" % (ident, links.get(ident), link))
                return 1
        # Adding a kernel leaves the other kernels' headers untouched (so nothing that
        # includes them is rebuilt).
        before = os.stat(os.path.join(out, "shaders", "probe.hpp")).st_mtime_ns
        with open(os.path.join(src, "second.comp"), "w") as f:
            f.write("#version 450\n#extension GL_GOOGLE_include_directive : require\n#include \"common.glsl\"\n"
                    "TENSOR_OUT(0, y);\nvoid main() { y[gid()] = ST(3.0); }\n")
        r = subprocess.run([sys.executable, GEN, "--src", src, "--out", out], capture_output=True, text=True)
        if r.returncode != 0 or not os.path.exists(os.path.join(out, "shaders", "second.hpp")):
            print("FAIL: a second kernel was not generated:\n" + r.stderr)
            return 1
        if os.stat(os.path.join(out, "shaders", "probe.hpp")).st_mtime_ns != before:
            print("FAIL: adding a kernel rewrote another kernel's header")
            return 1
        os.remove(os.path.join(src, "second.comp"))
        with open(os.path.join(src, "broken.comp"), "w") as f:
            f.write("#version 450\nvoid main() { no_such_thing = 1; }\n")
        r = subprocess.run([sys.executable, GEN, "--src", src, "--out", out], capture_output=True, text=True)
        if r.returncode == 0 or "broken.comp" not in r.stderr or "no_such_thing" not in r.stderr:
            print("FAIL: a broken kernel must fail naming the file and glslang's error; got exit %d:\n%s" %
                  (r.returncode, r.stderr))
            return 1
    print("codegen: variants, precisions, subgroup builds and errors OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
