#!/usr/bin/python3
"""Writes the hand-made regression inputs of the loader fuzz target into
tests/fuzz/regressions/loader/: each is a model that once crashed Tessera or cost it
gigabytes (the hardening issue's outside probe). Inputs libFuzzer finds are copied there as
they are. Plain protobuf encoding, no onnx module needed. Run it again only to add a case."""
import os
import struct

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "regressions", "loader")


def varint(v):
    v &= (1 << 64) - 1
    out = b""
    while v >= 0x80:
        out += bytes([(v & 0x7F) | 0x80])
        v >>= 7
    return out + bytes([v])


def field(num, wire, payload):
    key = varint((num << 3) | wire)
    if wire == 0:
        return key + varint(payload)
    if wire == 2:
        return key + varint(len(payload)) + payload
    if wire == 5:
        return key + payload
    raise ValueError(wire)


def s(num, text):
    return field(num, 2, text.encode() if isinstance(text, str) else text)


def value_info(name, dims):
    shape = b"".join(field(1, 2, field(1, 0, d)) for d in dims)
    tensor_type = field(1, 0, 1) + field(2, 2, shape)  # elem_type FLOAT
    return s(1, name) + field(2, 2, field(1, 2, tensor_type))


def int_attr(name, v):
    return s(1, name) + field(3, 0, v) + field(20, 0, 2)


def node(op, inputs, outputs, attrs=()):
    return b"".join(s(1, i) for i in inputs) + b"".join(s(2, o) for o in outputs) + s(4, op) + \
        b"".join(field(5, 2, a) for a in attrs)


def model(nodes, inputs, outputs, initializers=()):
    g = b"".join(field(1, 2, n) for n in nodes) + s(2, "g") + \
        b"".join(field(5, 2, t) for t in initializers) + \
        b"".join(field(11, 2, value_info(*i)) for i in inputs) + \
        b"".join(field(12, 2, value_info(*o)) for o in outputs)
    opset = field(2, 0, 17)
    return field(1, 0, 8) + field(7, 2, g) + field(8, 2, opset)


def write(name, data):
    os.makedirs(HERE, exist_ok=True)
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data)


# DepthToSpace with blocksize 2^62: blocksize^2 wrapped to 0, then C % 0 raised SIGFPE.
write("depthtospace_blocksize_2p62.onnx",
      model([node("DepthToSpace", ["x"], ["y"], [int_attr("blocksize", 1 << 62)])],
            [("x", [1, 4, 2, 2])], [("y", [1, 1, 4, 4])]))
# An initializer whose dims claim 2^31 floats over 12 bytes: once 19 s and 8 GiB before failing.
w = field(1, 0, 1 << 16) + field(1, 0, 1 << 15) + field(2, 0, 1) + s(8, "w") + field(9, 2, b"\0" * 12)
write("initializer_claims_2p31_elements.onnx",
      model([node("Add", ["x", "w"], ["y"])], [("x", [1])], [("y", [1])], [w]))
# Tile whose repeats overflow int64 when multiplied by the dims.
reps = field(1, 0, 2) + field(2, 0, 7) + s(8, "r") + field(9, 2, struct.pack("<2q", 1 << 62, 1 << 62))
write("tile_repeats_overflow.onnx",
      model([node("Tile", ["x", "r"], ["y"])], [("x", [4, 4])], [("y", [4, 4])], [reps]))
print("wrote", sorted(os.listdir(HERE)))
