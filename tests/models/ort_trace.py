#!/usr/bin/python3
"""Dumps ONNX Runtime's intermediate tensors as a reference for `tessera diff --reference DIR`.

Every node output of the model is made a graph output (types from ONNX shape inference),
the model is run on ONNX Runtime through ort_reference.mjs, and DIR gets one .npy per value
plus DIR/index.tsv (value name, tab, file name), the index `tessera diff` reads.

Usage: ort_trace.py MODEL.onnx --input NAME=FILE.npy... --output-dir DIR [--threads N]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import onnx

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("model")
    ap.add_argument("--input", action="append", default=[], help="NAME=FILE.npy")
    ap.add_argument("--output-dir", required=True)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()

    model = onnx.shape_inference.infer_shapes(onnx.load(args.model))
    typed = {v.name: v for v in list(model.graph.value_info) + list(model.graph.output)}
    outputs = {o.name for o in model.graph.output}
    values = []  # in node order
    for node in model.graph.node:
        for name in node.output:
            if not name:
                continue
            values.append(name)
            if name not in outputs and name in typed and typed[name].type.HasField("tensor_type"):
                model.graph.output.append(typed[name])
                outputs.add(name)
    with tempfile.TemporaryDirectory() as tmp:
        traced = os.path.join(tmp, "traced.onnx")
        onnx.save(model, traced)
        cmd = ["node", os.path.join(HERE, "ort_reference.mjs"), "run", traced, "--output-dir", args.output_dir,
               "--threads", str(args.threads)]
        for i in args.input:
            cmd += ["--input", i]
        r = subprocess.run(cmd)
        if r.returncode != 0:
            return r.returncode
    # ort_reference.mjs names each file after its output, characters outside [A-Za-z0-9._-] as '_'.
    lines = []
    for name in values:
        file = re.sub(r"[^A-Za-z0-9._-]", "_", name) + ".npy"
        if "\t" not in name and "\n" not in name and os.path.exists(os.path.join(args.output_dir, file)):
            lines.append("%s\t%s\n" % (name, file))
    with open(os.path.join(args.output_dir, "index.tsv"), "w") as f:
        f.writelines(lines)
    print("ort_trace: %d of %d node outputs -> %s" % (len(lines), len(values), args.output_dir))
    return 0


if __name__ == "__main__":
    sys.exit(main())
