#!/usr/bin/python3
"""Writes custom_op.onnx: x -> com.example::ScaledTanh(alpha, beta) -> Relu -> y.

ScaledTanh is not an ONNX op: y = alpha * tanh(beta * x). The example program registers it.
Usage: make_model.py OUT.onnx
"""
import sys

import onnx
from onnx import TensorProto, helper

x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, "H", "W"])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 3, "H", "W"])
nodes = [
    helper.make_node("ScaledTanh", ["x"], ["t"], name="scaled_tanh", domain="com.example",
                     alpha=1.5, beta=0.75),
    helper.make_node("Relu", ["t"], ["y"], name="relu"),
]
graph = helper.make_graph(nodes, "custom_op_example", [x], [y])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13),
                                                helper.make_opsetid("com.example", 1)])
onnx.save(model, sys.argv[1])
