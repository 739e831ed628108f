#!/usr/bin/python3
"""Seeds for the cache-file fuzz target: intact entries for the key the target uses
("fuzz-key"), broken ones, and OpenCL tuning lines. Usage: make_cache_seeds.py DIR"""
import os
import sys

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


def fnv1a64(data, h=0xcbf29ce484222325):
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def entry(key, data):
    return b"TESSERA-CACHE-2\n%016x %d %016x\n" % (fnv1a64(key), len(data), fnv1a64(data)) + data


seeds = {
    "intact": entry(b"fuzz-key", bytes(range(256)) * 4),
    "intact-empty": entry(b"fuzz-key", b""),
    "other-key": entry(b"other", b"payload"),
    "truncated": entry(b"fuzz-key", b"x" * 100)[:-10],
    "old-format": b"TESSERA-OPENCL-BINARY-1\nkey\nkey\nkey\n" + b"\0" * 64,
    "tuning": b"conv2d -DX=1@1024x64x1|16 4 1|0123456789abcdef\nrelu@4096x1x1|64 1 1|fedcba9876543210\n",
}
for name, data in seeds.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
