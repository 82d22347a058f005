#!/usr/bin/env python3
"""Builds a keyword-spotting DS-CNN (the MLPerf Tiny / ARM ML-KWS "DS-CNN small" shape) as ONNX
with random weights from a fixed seed, and an input: a 49x10 MFCC map -> conv 10x4 stride 2 with
64 channels -> four depthwise-separable blocks (3x3 depthwise + 1x1 pointwise, 64 channels, each
conv followed by batch norm and ReLU) -> global average pool -> 12 classes.

  make_ds_cnn.py OUT_DIR   writes OUT_DIR/ds_cnn.onnx and OUT_DIR/ds_cnn.inputs.npz
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

CHANNELS = 64
CLASSES = 12


def build(rng):
    nodes, inits = [], []

    def const(name, array):
        inits.append(numpy_helper.from_array(array.astype(np.float32), name))
        return name

    def conv_bn_relu(x, name, cin, cout, kernel, stride, pads, group=1):
        fan_in = cin // group * kernel[0] * kernel[1]
        w = const(name + "_w", rng.standard_normal((cout, cin // group) + kernel) *
                  np.sqrt(2.0 / fan_in))
        b = const(name + "_b", rng.standard_normal(cout) * 0.05)
        nodes.append(helper.make_node("Conv", [x, w, b], [name + "_conv"], kernel_shape=list(kernel),
                                      strides=list(stride), pads=pads, group=group))
        scale = const(name + "_scale", 1.0 + 0.1 * rng.standard_normal(cout))
        bias = const(name + "_bias", 0.1 * rng.standard_normal(cout))
        mean = const(name + "_mean", 0.1 * rng.standard_normal(cout))
        var = const(name + "_var", 1.0 + 0.1 * np.abs(rng.standard_normal(cout)))
        nodes.append(helper.make_node("BatchNormalization", [name + "_conv", scale, bias, mean, var],
                                      [name + "_bn"], epsilon=1e-3))
        nodes.append(helper.make_node("Relu", [name + "_bn"], [name]))
        return name

    x = conv_bn_relu("input", "conv1", 1, CHANNELS, (10, 4), (2, 2), [4, 1, 5, 2])
    for i in range(4):
        x = conv_bn_relu(x, f"dw{i}", CHANNELS, CHANNELS, (3, 3), (1, 1), [1, 1, 1, 1],
                         group=CHANNELS)
        x = conv_bn_relu(x, f"pw{i}", CHANNELS, CHANNELS, (1, 1), (1, 1), [0, 0, 0, 0])
    nodes.append(helper.make_node("GlobalAveragePool", [x], ["pool"]))
    nodes.append(helper.make_node("Flatten", ["pool"], ["flat"], axis=1))
    w = const("fc_w", rng.standard_normal((CHANNELS, CLASSES)) * np.sqrt(1.0 / CHANNELS))
    b = const("fc_b", rng.standard_normal(CLASSES) * 0.05)
    nodes.append(helper.make_node("Gemm", ["flat", w, b], ["logits"]))
    graph = helper.make_graph(
        nodes, "ds_cnn",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 1, 49, 10])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, CLASSES])], inits)
    model = helper.make_model(graph, producer_name="ingot-examples",
                              opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(2026)
    onnx.save(build(rng), os.path.join(out, "ds_cnn.onnx"))
    mfcc = rng.standard_normal((1, 1, 49, 10)).astype(np.float32)
    np.savez(os.path.join(out, "ds_cnn.inputs.npz"), input=mfcc)
    print(f"wrote {out}/ds_cnn.onnx and {out}/ds_cnn.inputs.npz")


if __name__ == "__main__":
    main()
