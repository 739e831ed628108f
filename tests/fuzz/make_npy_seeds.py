#!/usr/bin/python3
"""Seeds for the .npy fuzz target: every dtype and version of header the reader accepts,
plus a few broken ones. Usage: make_npy_seeds.py DIR"""
import os
import struct
import sys

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


def npy(version, descr, shape, data, fortran=False):
    header = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (descr, fortran, shape)
    pre = 10 if version == 1 else 12
    header += " " * ((64 - (pre + len(header) + 1) % 64) % 64) + "\n"
    size = struct.pack("<H", len(header)) if version == 1 else struct.pack("<I", len(header))
    return b"\x93NUMPY" + bytes([version, 0]) + size + header.encode() + data


seeds = {
    "f4.npy": npy(1, "<f4", "(2, 3)", b"\0" * 24),
    "f2.npy": npy(1, "<f2", "(3,)", b"\0" * 6),
    "i8.npy": npy(2, "<i8", "(1, 2, 1)", b"\0" * 16),
    "i4.npy": npy(3, "<i4", "()", b"\0" * 4),
    "u1.npy": npy(1, "|u1", "(5,)", b"\1" * 5),
    "b1.npy": npy(1, "|b1", "(2, 2)", b"\1\0\1\0"),
    "f8.npy": npy(1, "<f8", "(0, 4)", b""),
    "fortran.npy": npy(1, "<f4", "(2, 2)", b"\0" * 16, True),
    "short.npy": npy(1, "<f4", "(4, 4)", b"\0" * 10),
    "huge.npy": npy(1, "<f4", "(4294967296, 4294967296)", b""),
}
for name, data in seeds.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
