#!/usr/bin/python3
"""Writes custom_op.onnx: x -> com.example::ScaledTanh(x, B; alpha, beta) -> Relu -> y.

ScaledTanh is not an ONNX op: y = alpha * tanh(beta * x) + B[c], with B a per-channel
initializer. The example program registers it.
Usage: make_model.py OUT.onnx
"""
import sys

import onnx
from onnx import TensorProto, helper

x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, "H", "W"])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 3, "H", "W"])
bias = helper.make_tensor("B", TensorProto.FLOAT, [3], [0.1, -0.2, 0.3])
nodes = [
    helper.make_node("ScaledTanh", ["x", "B"], ["t"], name="scaled_tanh", domain="com.example",
                     alpha=1.5, beta=0.75),
    helper.make_node("Relu", ["t"], ["y"], name="relu"),
]
graph = helper.make_graph(nodes, "custom_op_example", [x], [y], initializer=[bias])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13),
                                                helper.make_opsetid("com.example", 1)])
onnx.save(model, sys.argv[1])
