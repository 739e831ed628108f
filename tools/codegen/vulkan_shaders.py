#!/usr/bin/env python3
"""Compiles every shaders/vulkan/*.comp (and each variant it declares) to SPIR-V with
glslang, validates it with spirv-val, and writes the SPIR-V into the library with a typed
identifier for each build.

A kernel declares its variants in its first lines:

    // variants: MAX, AVG ; precision: fp32 fp16

Each variant name is defined as a macro (-DMAX) for its build, and fp16 adds -DFP16. The
identifiers are `vkshaders::<file>` (no variants) or `vkshaders::<file>_<VARIANT>`, with
`_FP16` appended for the fp16 build, so a missing variant is a compile error.

Kernels whose work-group trees (workgroup.glsl) can start in subgroups also declare which
variants get a SUBGROUP build (-DSUBGROUP; `*`: every one):

    // variants: THREAD, GROUP ; precision: fp32 fp16 ; subgroup: GROUP

That build is `<identifier>_SUBGROUP` (then `_FP16`), reached from the plain one through
ShaderBinary::subgroup: the backend runs it where the device has subgroup arithmetic. Each kernel
file's identifiers are declared in their own header, shaders/<file>.hpp (include it as
"vulkan/shaders/<file>.hpp"); one VulkanShaders.cpp holds every binary. A header is rewritten
only when its content changes, so adding a kernel rebuilds only the C++ that includes it.

Run by the build (cmake/Vulkan.cmake); by hand:
    python3 tools/codegen/vulkan_shaders.py --src shaders/vulkan --out build/gen/vulkan
"""
import argparse
import hashlib
import os
import re
import subprocess
import sys

from generated_file import write_if_changed

DECL = re.compile(r"^//\s*variants:\s*([^;]*)(?:;\s*precision:\s*([^;]*))?(?:;\s*subgroup:\s*(.*))?$")


def names(text):
    return [v.strip() for v in text.replace(",", " ").split() if v.strip()]


def parse_decl(path):
    variants, precisions, subgroup = [""], ["fp32"], []
    with open(path) as f:
        for line in f.readlines()[:5]:
            m = DECL.match(line.strip())
            if m:
                variants = names(m.group(1)) or [""]
                if m.group(2):
                    precisions = m.group(2).split()
                if m.group(3):
                    subgroup = variants if m.group(3).strip() == "*" else names(m.group(3))
    for p in precisions:
        if p not in ("fp32", "fp16"):
            sys.exit(f"{path}: unknown precision '{p}' (fp32 or fp16)")
    for v in subgroup:
        if v not in variants:
            sys.exit(f"{path}: subgroup build of unknown variant '{v}'")
    return variants, precisions, subgroup


def compile_one(glslang, spirv_val, src, incdir, defines, out_spv, cache_dir):
    with open(src, "rb") as f:
        text = f.read()
    incs = b""
    for name in sorted(os.listdir(incdir)):
        if name.endswith(".glsl"):
            with open(os.path.join(incdir, name), "rb") as f:
                incs += f.read()
    key = hashlib.sha256(text + incs + " ".join(defines).encode()).hexdigest()
    key_file = out_spv + ".key"
    if os.path.exists(out_spv) and os.path.exists(key_file) and open(key_file).read() == key:
        return
    cmd = [glslang, "-V", "--target-env", "vulkan1.1", "-I" + incdir] + \
          ["-D" + d for d in defines] + ["-o", out_spv, src]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.stderr.write(f"error: glslang failed on {src} (defines: {' '.join(defines) or 'none'}):\n")
        sys.stderr.write(r.stdout + r.stderr)
        sys.exit(1)
    r = subprocess.run([spirv_val, "--target-env", "vulkan1.1", out_spv], capture_output=True, text=True)
    if r.returncode != 0:
        sys.stderr.write(f"error: spirv-val rejected {src} (defines: {' '.join(defines) or 'none'}):\n")
        sys.stderr.write(r.stdout + r.stderr)
        sys.exit(1)
    with open(key_file, "w") as f:
        f.write(key)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--src", required=True, help="folder of .comp/.glsl files")
    ap.add_argument("--out", required=True, help="output folder (VulkanShaders.cpp, shaders/<file>.hpp)")
    ap.add_argument("--glslang", default="glslangValidator")
    ap.add_argument("--spirv-val", default="spirv-val")
    a = ap.parse_args()
    os.makedirs(os.path.join(a.out, "spv"), exist_ok=True)
    os.makedirs(os.path.join(a.out, "shaders"), exist_ok=True)
    comps = sorted(f for f in os.listdir(a.src) if f.endswith(".comp"))
    entries = []  # (identifier, words, fp32 identifier or None, plain identifier or None)
    owner = {}  # identifier -> base name of its kernel file
    for comp in comps:
        base = re.sub(r"[^A-Za-z0-9_]", "_", comp[:-5])
        path = os.path.join(a.src, comp)
        variants, precisions, subgroup = parse_decl(path)
        builds = [(v, False) for v in variants] + [(v, True) for v in subgroup]
        for v, sg in builds:
            for p in precisions:
                plain = base + (("_" + v) if v else "")
                ident = plain + ("_SUBGROUP" if sg else "")
                defines = ([v] if v else []) + (["SUBGROUP"] if sg else []) + (["FP16"] if p == "fp16" else [])
                full = ident + ("_FP16" if p == "fp16" else "")
                spv = os.path.join(a.out, "spv", full + ".spv")
                compile_one(a.glslang, a.spirv_val, path, a.src, defines, spv, a.out)
                with open(spv, "rb") as f:
                    data = f.read()
                words = [int.from_bytes(data[i:i + 4], "little") for i in range(0, len(data), 4)]
                fp16_suffix = "_FP16" if p == "fp16" else ""
                entries.append((full, words, ident if p == "fp16" else None, plain + fp16_suffix if sg else None))
                owner[full] = base
    all_hash = hashlib.sha256()
    for name, words, _, _ in entries:
        all_hash.update(name.encode())
        all_hash.update(b"".join(w.to_bytes(4, "little") for w in words))
    index = {n: i for i, (n, _, _, _) in enumerate(entries)}
    fp16_of = {fp32: n for n, _, fp32, _ in entries if fp32}
    subgroup_of = {plain: n for n, _, _, plain in entries if plain}

    # One header per kernel file, declaring only its identifiers: adding or changing another
    # kernel leaves it untouched, so only the C++ that uses a kernel is rebuilt.
    for comp in comps:
        base = re.sub(r"[^A-Za-z0-9_]", "_", comp[:-5])
        idents = [n for n, _, _, _ in entries if owner[n] == base]
        hpp = ["// Generated by tools/codegen/vulkan_shaders.py from shaders/vulkan/%s: do not edit." % comp,
               "#pragma once", '#include "backends/vulkan/ShaderBinary.hpp"', "",
               "namespace tessera {", "namespace vkshaders {", ""]
        hpp += [f"extern const ShaderId {n};" for n in idents]
        hpp += ["", "}  // namespace vkshaders", "}  // namespace tessera", ""]
        write_if_changed(os.path.join(a.out, "shaders", base + ".hpp"), hpp)

    cpp = ["// Generated by tools/codegen/vulkan_shaders.py: do not edit.",
           '#include "backends/vulkan/ShaderBinary.hpp"', "", "namespace tessera {", "namespace vkshaders {",
           "namespace {"]
    for n, words, _, _ in entries:
        body = ",".join(f"0x{w:08x}u" for w in words)
        cpp.append(f"const uint32_t k_{n}[] = {{{body}}};")
    cpp.append("const ShaderBinary kBinaries[] = {")
    for n, words, _, _ in entries:
        h = hashlib.sha256(b"".join(w.to_bytes(4, "little") for w in words)).hexdigest()[:16]
        fp16 = f"&kBinaries[{index[fp16_of[n]]}]" if n in fp16_of else "nullptr"
        sg = f"&kBinaries[{index[subgroup_of[n]]}]" if n in subgroup_of else "nullptr"
        cpp.append(f'  {{"{n}", k_{n}, {len(words)}, 0x{h}ull, {fp16}, {sg}}},')
    with open(os.path.join(a.src, "common.glsl")) as f:
        prelude = f.read()
    cpp.append("};")
    cpp.append("const char kPrelude[] = " + "\n".join(
        '"' + line.replace("\\", "\\\\").replace('"', '\\"') + '\\n"' for line in prelude.split("\n")) + ";")
    cpp += ["}  // namespace", ""]
    cpp += [f"extern const ShaderId {n} = &kBinaries[{i}];" for i, (n, _, _, _) in enumerate(entries)]
    cpp += ["", "const char* prelude() { return kPrelude; }",
            f"uint64_t allShadersHash() {{ return 0x{all_hash.hexdigest()[:16]}ull; }}", "",
            "}  // namespace vkshaders", "}  // namespace tessera", ""]
    write_if_changed(os.path.join(a.out, "VulkanShaders.cpp"), cpp)


if __name__ == "__main__":
    main()
