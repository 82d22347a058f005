#!/usr/bin/env python3
"""Writes the ONNX fixtures used by tests/frontend/python_fixture_test.cpp with the onnx package
(an independent producer): a small opset-11 conv model whose weights live in external data."""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

here = os.path.dirname(os.path.abspath(__file__))

w = numpy_helper.from_array(np.arange(2 * 3 * 3 * 3, dtype=np.float32).reshape(2, 3, 3, 3) / 8, "w")
b = numpy_helper.from_array(np.array([0.5, -0.5], dtype=np.float32), "b")
pads = numpy_helper.from_array(np.array([0, 0, 1, 1, 0, 0, 1, 1], dtype=np.int64), "pads")
lo = numpy_helper.from_array(np.array(0.0, dtype=np.float32), "lo")
nodes = [
    helper.make_node("Pad", ["x", "pads"], ["xp"], name="pad", mode="edge"),
    helper.make_node("Conv", ["xp", "w", "b"], ["c"], name="conv", kernel_shape=[3, 3]),
    helper.make_node("Clip", ["c", "lo", ""], ["r"], name="clip"),
    helper.make_node("Flatten", ["r"], ["f"], name="flat"),
    helper.make_node("Softmax", ["f"], ["y"], name="sm"),
]
graph = helper.make_graph(
    nodes, "py_fixture",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 4, 4])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 32])],
    initializer=[w, b, pads, lo])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)])
onnx.checker.check_model(model)
onnx.save_model(model, os.path.join(here, "conv_external.onnx"), save_as_external_data=True,
                all_tensors_to_one_file=True, location="conv_external.data", size_threshold=64)
