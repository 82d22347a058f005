#!/usr/bin/env python3
"""Builds a keyword-spotting DS-CNN (the MLPerf Tiny / ARM ML-KWS "DS-CNN small" shape) as ONNX
with random weights from a fixed seed, and an input: a 49x10 MFCC map -> conv 10x4 stride 2 with
64 channels -> four depthwise-separable blocks (3x3 depthwise + 1x1 pointwise, 64 channels, each
conv followed by batch norm and ReLU) -> global average pool -> 12 classes.

  make_ds_cnn.py OUT_DIR [--int8]
      writes OUT_DIR/ds_cnn.onnx and OUT_DIR/ds_cnn.inputs.npz; with --int8 also
      OUT_DIR/ds_cnn_int8.onnx: the same network (batch norm folded into the convs, as a quantizer
      takes it) quantized by ONNX Runtime's static quantizer to int8 activations and per-channel
      int8 weights in the QDQ form, calibrated on 32 random inputs.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

CHANNELS = 64
CLASSES = 12


def build(rng, fold_bn=False):
    nodes, inits = [], []

    def const(name, array):
        inits.append(numpy_helper.from_array(array.astype(np.float32), name))
        return name

    def conv_bn_relu(x, name, cin, cout, kernel, stride, pads, group=1):
        fan_in = cin // group * kernel[0] * kernel[1]
        w = rng.standard_normal((cout, cin // group) + kernel) * np.sqrt(2.0 / fan_in)
        b = rng.standard_normal(cout) * 0.05
        scale = 1.0 + 0.1 * rng.standard_normal(cout)
        shift = 0.1 * rng.standard_normal(cout)
        mean = 0.1 * rng.standard_normal(cout)
        var = 1.0 + 0.1 * np.abs(rng.standard_normal(cout))
        if fold_bn:  # the form a quantizer takes: batch norm folded into the conv
            s = scale / np.sqrt(var + 1e-3)
            w, b = w * s.reshape(-1, 1, 1, 1), (b - mean) * s + shift
        conv_out = name + ("_conv" if not fold_bn else "_folded")
        nodes.append(helper.make_node("Conv", [x, const(name + "_w", w), const(name + "_b", b)],
                                      [conv_out], kernel_shape=list(kernel),
                                      strides=list(stride), pads=pads, group=group))
        if not fold_bn:
            nodes.append(helper.make_node(
                "BatchNormalization",
                [conv_out, const(name + "_scale", scale), const(name + "_bias", shift),
                 const(name + "_mean", mean), const(name + "_var", var)], [name + "_bn"],
                epsilon=1e-3))
            conv_out = name + "_bn"
        nodes.append(helper.make_node("Relu", [conv_out], [name]))
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


def quantize_int8(float_model, out_path):
    from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType,
                                          quantize_static)

    class Calibration(CalibrationDataReader):
        def __init__(self):
            rng = np.random.default_rng(7)
            self.batches = iter([{"input": rng.standard_normal((1, 1, 49, 10)).astype(np.float32)}
                                 for _ in range(32)])

        def get_next(self):
            return next(self.batches, None)

    quantize_static(float_model, out_path, Calibration(), quant_format=QuantFormat.QDQ,
                    per_channel=True, activation_type=QuantType.QInt8,
                    weight_type=QuantType.QInt8)


def main():
    args = [a for a in sys.argv[1:] if a != "--int8"]
    if len(args) != 1:
        sys.exit(__doc__)
    out = args[0]
    os.makedirs(out, exist_ok=True)
    onnx.save(build(np.random.default_rng(2026)), os.path.join(out, "ds_cnn.onnx"))
    mfcc = np.random.default_rng(99).standard_normal((1, 1, 49, 10)).astype(np.float32)
    np.savez(os.path.join(out, "ds_cnn.inputs.npz"), input=mfcc)
    print(f"wrote {out}/ds_cnn.onnx and {out}/ds_cnn.inputs.npz")
    if "--int8" in sys.argv[1:]:
        folded = os.path.join(out, "ds_cnn_folded.onnx")
        onnx.save(build(np.random.default_rng(2026), fold_bn=True), folded)
        quantize_int8(folded, os.path.join(out, "ds_cnn_int8.onnx"))
        print(f"wrote {out}/ds_cnn_int8.onnx")


if __name__ == "__main__":
    main()
