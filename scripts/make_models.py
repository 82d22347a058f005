#!/usr/bin/env python3
"""Builds the parity/benchmark models with onnx.helper and random weights (no framework needed).

Models (all float32):
  resnet50     ResNet-50-shaped: opset 13, Conv + unfolded BatchNormalization + Relu bottlenecks
               [3,4,6,3], MaxPool, GlobalAveragePool, Flatten, Gemm; symbolic batch "N".
  mobilenetv2  MobileNetV2-shaped: opset 13, inverted residuals with depthwise Conv (group=C),
               BatchNormalization, Clip(0,6) as ReLU6, GlobalAveragePool, Flatten, Gemm.
  bert         BERT-base-shaped encoder, 4 layers, hidden 768, 12 heads, seq 128: Gather
               embeddings, decomposed LayerNorm, erf-GELU, MatMul/Transpose/Reshape/Softmax,
               additive attention mask.
  bert_base    the same generator at BERT-base's geometry (BERT_BASE): 12 layers, hidden 768,
               12 heads, FFN 3072, seq 128, batch 1 (vocab 2048, as bert: only the Gather's
               table is smaller than BERT's 30522; ~87M parameters, ~350 MB).
  tiny_cnn / tiny_mlp / tiny_bert  small versions of the above for quick tests.
  conv3d_odd / conv1d_odd  small 3-D (R3D / R(2+1)D blocks) and 1-D convolution chains.
  depthwise_odd  depthwise convs with strides, dilation, asymmetric pads, 7x7, odd maps.
  inception_tiny / densenet_tiny / squeezenet_tiny  branchy CNNs for the blocked layout's pooling
               and Concat (graph pass layout_nchwc, Concat in place): conv branches of different
               kernels, MaxPool/AveragePool with pads, ceil_mode, dilation and count_include_pad,
               nested Concats, channel counts that are no multiple of the block (NCHW Concat).

Usage: make_models.py OUTDIR [--models a,b,c]
"""
import argparse
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


class Builder:
    def __init__(self, name, seed=0):
        self.name = name
        self.nodes, self.inits = [], []
        self.rng = np.random.default_rng(seed)
        self.count = 0

    def fresh(self, prefix):
        self.count += 1
        return f"{prefix}_{self.count}"

    def const(self, arr, prefix="w"):
        n = self.fresh(prefix)
        self.inits.append(numpy_helper.from_array(np.asarray(arr), n))
        return n

    def weight(self, shape, scale=None, prefix="w"):
        fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else int(shape[0])
        scale = scale if scale is not None else np.sqrt(2.0 / max(fan_in, 1))
        return self.const((self.rng.standard_normal(shape) * scale).astype(np.float32), prefix)

    def op(self, op_type, inputs, n_out=1, **attrs):
        name = self.fresh(op_type.lower())
        outs = [f"{name}_out{i}" if n_out > 1 else f"{name}_out" for i in range(n_out)]
        self.nodes.append(helper.make_node(op_type, inputs, outs, name=name, **attrs))
        return outs if n_out > 1 else outs[0]

    def model(self, inputs, outputs, opset):
        graph = helper.make_graph(self.nodes, self.name, inputs, outputs, self.inits)
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="ingot-make_models")
        m.ir_version = 8
        return m

    # --- layers -------------------------------------------------------------------------
    def bn(self, x, c):
        scale = self.const((1.0 + 0.1 * self.rng.standard_normal(c)).astype(np.float32), "bn_s")
        bias = self.const((0.1 * self.rng.standard_normal(c)).astype(np.float32), "bn_b")
        mean = self.const((0.1 * self.rng.standard_normal(c)).astype(np.float32), "bn_m")
        var = self.const((1.0 + 0.2 * self.rng.random(c)).astype(np.float32), "bn_v")
        return self.op("BatchNormalization", [x, scale, bias, mean, var], epsilon=1e-5)

    def conv_bn(self, x, cin, cout, k, stride=1, group=1, act="relu"):
        w = self.weight([cout, cin // group, k, k])
        y = self.op("Conv", [x, w], kernel_shape=[k, k], strides=[stride, stride],
                    pads=[k // 2] * 4, group=group)
        y = self.bn(y, cout)
        if act == "relu":
            y = self.op("Relu", [y])
        elif act == "relu6":
            y = self.op("Clip", [y, self.const(np.float32(0.0), "lo"), self.const(np.float32(6.0), "hi")])
        return y

    def linear(self, x, din, dout):
        w = self.weight([din, dout], scale=1.0 / np.sqrt(din))
        b = self.const((0.02 * self.rng.standard_normal(dout)).astype(np.float32), "b")
        return self.op("Add", [self.op("MatMul", [x, w]), b])

    def layer_norm(self, x, d):
        """Decomposed LayerNorm as exporters emit it."""
        mean = self.op("ReduceMean", [x], axes=[-1], keepdims=1)
        xc = self.op("Sub", [x, mean])
        var = self.op("ReduceMean", [self.op("Pow", [xc, self.const(np.float32(2.0), "two")])],
                      axes=[-1], keepdims=1)
        den = self.op("Sqrt", [self.op("Add", [var, self.const(np.float32(1e-12), "eps")])])
        y = self.op("Div", [xc, den])
        g = self.const((1.0 + 0.1 * self.rng.standard_normal(d)).astype(np.float32), "ln_g")
        b = self.const((0.1 * self.rng.standard_normal(d)).astype(np.float32), "ln_b")
        return self.op("Add", [self.op("Mul", [y, g]), b])

    def gelu_erf(self, x):
        e = self.op("Erf", [self.op("Div", [x, self.const(np.float32(np.sqrt(2.0)), "sqrt2")])])
        one_plus = self.op("Add", [e, self.const(np.float32(1.0), "one")])
        return self.op("Mul", [self.op("Mul", [x, one_plus]), self.const(np.float32(0.5), "half")])


def resnet(blocks=(3, 4, 6, 3), width=64, image=224, classes=1000, name="resnet50"):
    b = Builder(name, seed=1)
    x = "input"
    y = b.conv_bn(x, 3, width, 7, stride=2)
    y = b.op("MaxPool", [y], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    cin = width
    for stage, n in enumerate(blocks):
        mid = width * (2 ** stage)
        cout = mid * 4
        for i in range(n):
            stride = 2 if (i == 0 and stage > 0) else 1
            h = b.conv_bn(y, cin, mid, 1)
            h = b.conv_bn(h, mid, mid, 3, stride=stride)
            h = b.conv_bn(h, mid, cout, 1, act=None)
            if i == 0:
                sc = b.conv_bn(y, cin, cout, 1, stride=stride, act=None)
            else:
                sc = y
            y = b.op("Relu", [b.op("Add", [h, sc])])
            cin = cout
    y = b.op("Flatten", [b.op("GlobalAveragePool", [y])], axis=1)
    w = b.weight([classes, cin], scale=1.0 / np.sqrt(cin))
    bias = b.const(np.zeros(classes, np.float32), "fc_b")
    y = b.op("Gemm", [y, w, bias], transB=1)
    inp = helper.make_tensor_value_info("input", TensorProto.FLOAT, ["N", 3, image, image])
    out = helper.make_tensor_value_info(y, TensorProto.FLOAT, ["N", classes])
    m = b.model([inp], [out], 13)
    m.graph.output[0].name = y
    return m


def mobilenetv2(image=224, classes=1000, width_mult=1.0, name="mobilenetv2",
                settings=((1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2),
                          (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)), last=1280):
    b = Builder(name, seed=2)
    cin = int(32 * width_mult)
    y = b.conv_bn("input", 3, cin, 3, stride=2, act="relu6")
    for t, c, n, s in settings:
        cout = int(c * width_mult)
        for i in range(n):
            stride = s if i == 0 else 1
            hidden = cin * t
            h = y
            if t != 1:
                h = b.conv_bn(h, cin, hidden, 1, act="relu6")
            h = b.conv_bn(h, hidden, hidden, 3, stride=stride, group=hidden, act="relu6")
            h = b.conv_bn(h, hidden, cout, 1, act=None)
            y = b.op("Add", [y, h]) if (stride == 1 and cin == cout) else h
            cin = cout
    y = b.conv_bn(y, cin, last, 1, act="relu6")
    y = b.op("Flatten", [b.op("GlobalAveragePool", [y])], axis=1)
    w = b.weight([classes, last], scale=1.0 / np.sqrt(last))
    y = b.op("Gemm", [y, w, b.const(np.zeros(classes, np.float32), "fc_b")], transB=1)
    inp = helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, image, image])
    out = helper.make_tensor_value_info(y, TensorProto.FLOAT, [1, classes])
    return b.model([inp], [out], 13)


# BERT-base (Devlin et al.): the geometry of make_models' bert_base; bert is the same at 4 layers.
BERT_BASE = dict(layers=12, hidden=768, heads=12, seq=128, ffn=3072)


def bert(layers=4, hidden=768, heads=12, seq=128, ffn=3072, vocab=2048, name="bert"):
    b = Builder(name, seed=3)
    dh = hidden // heads
    word = b.weight([vocab, hidden], scale=0.02)
    pos = b.const((0.02 * b.rng.standard_normal((seq, hidden))).astype(np.float32), "pos")
    x = b.op("Add", [b.op("Gather", [word, "input_ids"], axis=0), pos])
    x = b.layer_norm(x, hidden)
    # (1 - mask) * -10000, shaped [1,1,1,seq]
    m = b.op("Cast", ["attention_mask"], to=TensorProto.FLOAT)
    m = b.op("Unsqueeze", [m, b.const(np.array([1, 2], np.int64), "ax")])
    m = b.op("Mul", [b.op("Sub", [b.const(np.float32(1.0), "one"), m]),
                     b.const(np.float32(-10000.0), "neg")])
    split_shape = b.const(np.array([1, seq, heads, dh], np.int64), "shape")
    merge_shape = b.const(np.array([1, seq, hidden], np.int64), "shape")
    for _ in range(layers):
        def heads_of(t, perm):
            return b.op("Transpose", [b.op("Reshape", [t, split_shape])], perm=perm)
        q = heads_of(b.linear(x, hidden, hidden), [0, 2, 1, 3])
        k = heads_of(b.linear(x, hidden, hidden), [0, 2, 3, 1])
        v = heads_of(b.linear(x, hidden, hidden), [0, 2, 1, 3])
        s = b.op("Div", [b.op("MatMul", [q, k]), b.const(np.float32(np.sqrt(dh)), "scale")])
        p = b.op("Softmax", [b.op("Add", [s, m])], axis=-1)
        ctx = b.op("Transpose", [b.op("MatMul", [p, v])], perm=[0, 2, 1, 3])
        ctx = b.op("Reshape", [ctx, merge_shape])
        x = b.layer_norm(b.op("Add", [b.linear(ctx, hidden, hidden), x]), hidden)
        f = b.linear(b.gelu_erf(b.linear(x, hidden, ffn)), ffn, hidden)
        x = b.layer_norm(b.op("Add", [f, x]), hidden)
    ids = helper.make_tensor_value_info("input_ids", TensorProto.INT64, [1, seq])
    mask = helper.make_tensor_value_info("attention_mask", TensorProto.INT64, [1, seq])
    out = helper.make_tensor_value_info(x, TensorProto.FLOAT, [1, seq, hidden])
    return b.model([ids, mask], [out], 13)


def single_matmul(m=1024, k=1024, n=1024, name="matmul1024"):
    """One MatMul with a constant weight (the schedule benchmark's GEMM)."""
    b = Builder(name)
    y = b.op("MatMul", ["x", b.weight([k, n], scale=1.0 / np.sqrt(k))])
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [m, k])
    out = helper.make_tensor_value_info(y, TensorProto.FLOAT, [m, n])
    return b.model([x], [out], 13)


def conv_chain(name="conv_chain_odd"):
    """A chain of convolutions for the blocked layout (graph pass layout_nchwc): channel counts
    that leave padding lanes (24, 40, 48), batch 2, asymmetric pads, strides, a dilated and a
    depthwise conv, a residual Add, a pool between convs and a second output taken mid-chain."""
    b = Builder(name)

    def conv(x, cin, cout, k, stride=1, pads=None, group=1, dilation=1):
        ins = [x, b.weight([cout, cin // group, k, k]),
               b.const((0.1 * b.rng.standard_normal(cout)).astype(np.float32), "bias")]
        pads = pads if pads is not None else [dilation * (k // 2)] * 4
        return b.op("Conv", ins, kernel_shape=[k, k], strides=[stride, stride], pads=pads,
                    group=group, dilations=[dilation, dilation])

    h = b.op("Relu", [conv("x", 5, 24, 3)])
    h = b.op("Clip", [conv(h, 24, 24, 3, stride=2, group=24), b.const(np.float32(0.0), "lo"),
                      b.const(np.float32(6.0), "hi")])
    mid = conv(h, 24, 40, 1)
    h = conv(mid, 40, 40, 3, pads=[0, 1, 2, 1], group=40)
    h = b.op("Relu", [b.op("Add", [conv(h, 40, 40, 3, pads=[1, 2, 1, 0]), mid])])
    h = b.op("MaxPool", [h], kernel_shape=[2, 2], strides=[2, 2])
    y = conv(h, 40, 48, 3, stride=2, dilation=2)
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 5, 31, 27])
    outs = [helper.make_tensor_value_info(y, TensorProto.FLOAT, [2, 48, 4, 4]),
            helper.make_tensor_value_info(mid, TensorProto.FLOAT, [2, 40, 16, 14])]
    return b.model([x], outs, 13)


def grouped_convs(name="grouped_convs"):
    """Grouped convolutions (ResNeXt / RegNet style) for the blocked layout: groups narrower than
    a vector (4 and 8 channels: the narrow-group kernel), as wide as one or several vectors, more outputs
    than inputs per group, strided and dilated, a residual summand, groups of 8 in 40 channels
    (the last 16-lane block half padding), batch 2, and a group width (3) that fits no block, so
    that conv stays in NCHW."""
    b = Builder(name)

    def conv(x, cin, cout, k, group=1, stride=1, dilation=1):
        ins = [x, b.weight([cout, cin // group, k, k]),
               b.const((0.1 * b.rng.standard_normal(cout)).astype(np.float32), "bias")]
        return b.op("Conv", ins, kernel_shape=[k, k], strides=[stride, stride],
                    pads=[dilation * (k // 2)] * 4, group=group, dilations=[dilation, dilation])

    stem = b.op("Relu", [conv("x", 3, 64, 3)])
    h = b.op("Relu", [conv(stem, 64, 64, 3, group=16)])           # 4 channels per group
    h = b.op("Relu", [b.op("Add", [conv(h, 64, 64, 1), stem])])
    h = b.op("Relu", [conv(h, 64, 64, 3, group=4, stride=2)])     # 16 per group, strided
    h = b.op("Relu", [conv(h, 64, 128, 3, group=2, dilation=2)])  # 32 -> 64 per group
    h = conv(h, 128, 128, 3, group=8)                              # 16 per group
    h = b.op("Relu", [conv(h, 128, 40, 1)])
    h = b.op("Relu", [conv(h, 40, 40, 3, group=5)])  # 8 per group: AVX-512 pads the last block
    h = b.op("Relu", [b.op("Add", [conv(h, 40, 40, 3, group=10), h])])  # 4 per group, summand
    h = b.op("Relu", [conv(h, 40, 24, 1)])
    y = conv(h, 24, 24, 3, group=8)                                # 3 per group: stays NCHW
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 15, 15])
    out = helper.make_tensor_value_info(y, TensorProto.FLOAT, [2, 24, 8, 8])
    return b.model([x], [out], 13)


def depthwise_odd(name="depthwise_odd"):
    """Depthwise convolutions (groups = channels) in the blocked layout with the shapes that
    reach every path of the kernel: 3x3 stride 2 on odd maps, 5x5 dilation 2, 3x5 with
    asymmetric pads, 7x7 (ConvNeXt) with a residual summand, a map narrower than the kernel,
    channel counts in one-vector (72), two-vector (144) and rounded-up (24) blocks; interior
    columns in register tiles and a shorter last tile, borders masked."""
    b = Builder(name)

    def dw(x, c, kh, kw, stride=1, dilation=1, pads=None):
        pads = pads or [dilation * (kh // 2), dilation * (kw // 2)] * 2
        ins = [x, b.weight([c, 1, kh, kw]),
               b.const((0.1 * b.rng.standard_normal(c)).astype(np.float32), "bias")]
        return b.op("Conv", ins, kernel_shape=[kh, kw], strides=[stride, stride], pads=pads,
                    group=c, dilations=[dilation, dilation])

    def pw(x, cin, cout):
        return b.op("Relu", [b.op("Conv", [x, b.weight([cout, cin, 1, 1])], kernel_shape=[1, 1])])

    h = pw("x", 3, 72)
    h = b.op("Relu", [dw(h, 72, 3, 3, stride=2)])                   # 45x47 -> 23x24
    h = pw(h, 72, 144)
    h = b.op("Relu", [dw(h, 144, 5, 5, dilation=2)])                # 23x24
    h = pw(h, 144, 24)
    h = b.op("Relu", [dw(h, 24, 3, 5, pads=[0, 1, 2, 3])])          # 23x24 -> 23x24
    h = pw(h, 24, 96)
    h = b.op("Add", [dw(h, 96, 7, 7), h])                           # residual summand
    h = pw(h, 96, 40)
    h = b.op("MaxPool", [h], kernel_shape=[4, 4], strides=[4, 4])  # 5x6
    y = dw(h, 40, 7, 7)                                             # map narrower than 7x7
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 45, 47])
    out = helper.make_tensor_value_info(y, TensorProto.FLOAT, [1, 40, 5, 6])
    return b.model([x], [out], 13)


def _with_inferred_outputs(m):
    """Fills the graph outputs' shapes by ONNX shape inference (they are built without)."""
    inferred = onnx.shape_inference.infer_shapes(m, strict_mode=True).graph
    shapes = {vi.name: vi for vi in list(inferred.value_info) + list(inferred.output)}
    for o in m.graph.output:
        o.CopyFrom(shapes[o.name])
        assert o.type.tensor_type.HasField("shape"), o.name
    return m


def conv_nd(b, x, cin, cout, k, stride=1, pads=None, dilation=1, bias=True):
    """A Conv of len(k) spatial dims (ints broadcast); pads default to 'same' for stride 1."""
    n = len(k)
    stride = [stride] * n if isinstance(stride, int) else list(stride)
    dilation = [dilation] * n if isinstance(dilation, int) else list(dilation)
    if pads is None:
        pads = [d * (kk // 2) for kk, d in zip(k, dilation)] * 2
    ins = [x, b.weight([cout, cin] + list(k))]
    if bias:
        ins.append(b.const((0.1 * b.rng.standard_normal(cout)).astype(np.float32), "bias"))
    return b.op("Conv", ins, kernel_shape=list(k), strides=stride, pads=pads, dilations=dilation)


def video_blocks(name="conv3d_odd"):
    """3-D convolutions for the blocked layout (NCDHWc), small and with odd sizes: an R3D-style
    stem (3x3x3, stride (1,2,2), BatchNormalization, Relu) and basic block (two 3x3x3 convs,
    residual Add, Relu), an R(2+1)D-style pair ((1,3,3) stride (1,2,2) then (3,1,1) stride
    (2,1,1), 21 mid channels) with a strided 1x1x1 downsample, a dilated conv with asymmetric
    pads, channel counts that leave padding lanes (21, 24, 40), batch 2, global average pooling,
    and a second output taken mid-chain."""
    b = Builder(name, seed=3)

    def conv_bn(x, cin, cout, k, act=True, **kw):
        y = b.bn(conv_nd(b, x, cin, cout, k, bias=False, **kw), cout)
        return b.op("Relu", [y]) if act else y

    h = conv_bn("x", 3, 24, (3, 3, 3), stride=(1, 2, 2))
    r = conv_bn(conv_bn(h, 24, 24, (3, 3, 3)), 24, 24, (3, 3, 3), act=False)
    mid = b.op("Relu", [b.op("Add", [r, h])])
    s = conv_bn(mid, 24, 21, (1, 3, 3), stride=(1, 2, 2), pads=[0, 1, 1, 0, 1, 1])
    s = conv_bn(s, 21, 40, (3, 1, 1), act=False, stride=(2, 1, 1), pads=[1, 0, 0, 1, 0, 0])
    sc = conv_bn(mid, 24, 40, (1, 1, 1), act=False, stride=(2, 2, 2), pads=[0] * 6)
    y = b.op("Relu", [b.op("Add", [s, sc])])
    y = conv_nd(b, y, 40, 40, (2, 2, 3), dilation=(1, 2, 1), pads=[1, 2, 0, 0, 1, 1])
    y = b.op("GlobalAveragePool", [b.op("Relu", [y])])
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 5, 9, 11])
    outs = [helper.make_tensor_value_info(v, TensorProto.FLOAT, None) for v in (y, mid)]
    return _with_inferred_outputs(b.model([x], outs, 13))


def conv1d_chain(name="conv1d_odd"):
    """1-D convolutions in the blocked layout: 6 -> 20 -> 20 channels, a strided dilated conv
    with asymmetric pads, a residual Add, Relu and global max pooling; batch 2."""
    b = Builder(name, seed=4)
    h = b.op("Relu", [conv_nd(b, "x", 6, 20, (5,))])
    y = conv_nd(b, h, 20, 20, (3,), stride=2, dilation=2, pads=[1, 3])
    y = conv_nd(b, y, 20, 20, (3,))
    y = b.op("Relu", [b.op("Add", [y, conv_nd(b, h, 20, 20, (1,), stride=2, pads=[0, 0])])])
    y = b.op("GlobalMaxPool", [y])
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 6, 37])
    return _with_inferred_outputs(
        b.model([x], [helper.make_tensor_value_info(y, TensorProto.FLOAT, None)], 13))
class BranchyBuilder(Builder):
    """Conv (with bias) + Relu branches for the Inception / DenseNet / SqueezeNet-like models."""

    def conv(self, x, cin, cout, k, stride=1, pads=None, relu=True):
        kh, kw = k if isinstance(k, tuple) else (k, k)
        ins = [x, self.weight([cout, cin, kh, kw]),
               self.const((0.1 * self.rng.standard_normal(cout)).astype(np.float32), "bias")]
        pads = pads if pads is not None else [kh // 2, kw // 2, kh // 2, kw // 2]
        y = self.op("Conv", ins, kernel_shape=[kh, kw], strides=[stride, stride], pads=pads)
        return self.op("Relu", [y]) if relu else y

    def pool(self, op, x, k, stride, pads=(0, 0, 0, 0), ceil_mode=0, **attrs):
        return self.op(op, [x], kernel_shape=[k, k], strides=[stride, stride], pads=list(pads),
                       ceil_mode=ceil_mode, **attrs)

    def concat(self, xs):
        return self.op("Concat", xs, axis=1)

    def head(self, x, cin, classes):
        y = self.op("Flatten", [self.op("GlobalAveragePool", [x])], axis=1)
        w = self.weight([classes, cin], scale=1.0 / np.sqrt(cin))
        return self.op("Gemm", [y, w, self.const(np.zeros(classes, np.float32), "fc_b")], transB=1)


def inception_tiny(name="inception_tiny"):
    """Inception-v3-like: a stem, a block of 1x1 / 3x3 / 5x5 / pool branches (all channel counts
    multiples of every block: blocked Concat), a reduction block (stride-2 conv and a dilated,
    end-padded MaxPool of the block input), a block whose 1x3 and 3x1 branches are concatenated
    inside the outer Concat (nested) and a block with a 20-channel branch (no block divides it:
    NCHW Concat)."""
    b = BranchyBuilder(name, seed=4)
    x = b.conv("x", 3, 32, 3)                                             # 18x18
    x = b.pool("MaxPool", x, 3, 2, ceil_mode=1)                           # 9x9 (floor: 8x8)
    br = [b.conv(x, 32, 32, 1),
          b.conv(b.conv(x, 32, 32, 1), 32, 64, 3),
          b.conv(b.conv(x, 32, 16, 1), 16, 32, 5),
          b.conv(b.pool("AveragePool", x, 3, 1, (1, 1, 1, 1), count_include_pad=1), 32, 32, 1)]
    x = b.concat(br)                                                      # 160 x 9x9
    x = b.concat([b.conv(x, 160, 32, 3, stride=2, pads=[0, 0, 0, 0]),
                  b.pool("MaxPool", x, 2, 2, (0, 0, 1, 1), dilations=[2, 2])])
    c = 192                                                               # 4x4
    t = b.conv(x, c, 32, 1)
    nested = b.concat([b.conv(t, 32, 32, (1, 3)), b.conv(t, 32, 32, (3, 1))])
    x = b.concat([b.conv(x, c, 64, 1), nested,
                  b.conv(b.pool("AveragePool", x, 3, 1, (1, 1, 1, 1)), c, 32, 1)])
    c = 160
    x = b.concat([b.conv(x, c, 20, 1), b.conv(x, c, 32, 3),
                  b.pool("MaxPool", x, 3, 1, (1, 1, 1, 1))])
    y = b.head(x, 20 + 32 + c, 10)
    inp = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 18, 18])
    out = helper.make_tensor_value_info(y, TensorProto.FLOAT, [1, 10])
    return b.model([inp], [out], 13)


def densenet_tiny(name="densenet_tiny"):
    """DenseNet-like: a dense block in nested form (each layer's input is the previous Concat,
    extended by the layer's output: one buffer holds every feature map), growth 16 on a 32-channel
    stem (AVX-512: blocks 32 and 16 meet), a transition (1x1 conv, ceil-mode AveragePool 2x2 with
    count_include_pad), a dense block in torchvision's form (every layer concatenates the whole
    feature list again, so features feed several Concats and are copied into all but one) and a
    pre-activation BatchNormalization + Relu before the head."""
    b = BranchyBuilder(name, seed=5)
    growth = 16

    def layer(x, cin):
        return b.conv(b.conv(x, cin, 32, 1), 32, growth, 3)

    x = b.conv("x", 3, 32, 3)                                             # 18x18
    x = b.pool("MaxPool", x, 3, 2, (1, 1, 1, 1))                          # 9x9
    c = 32
    for _ in range(3):
        x = b.concat([x, layer(x, c)])
        c += growth
    # 5x5 (floor: 4x4); the last window overhangs the input, which count_include_pad never counts
    x = b.pool("AveragePool", b.conv(x, c, 32, 1), 2, 2, ceil_mode=1, count_include_pad=1)
    feats, c = [x], 32
    for _ in range(2):
        feats.append(layer(b.concat(feats) if len(feats) > 1 else feats[0], c))
        c += growth
    x = b.op("Relu", [b.bn(b.concat(feats), c)])
    y = b.head(x, c, 10)
    inp = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 18, 18])
    out = helper.make_tensor_value_info(y, TensorProto.FLOAT, [1, 10])
    return b.model([inp], [out], 13)


def squeezenet_tiny(name="squeezenet_tiny"):
    """SqueezeNet-1.1-like with batch 2 (each Concat a kernel: the slices interleave): Fire
    modules (1x1 squeeze, 1x1 + 3x3 expand, concatenated), ceil-mode MaxPools between them, a last
    Fire of 20 + 20 channels (no block divides 20: NCHW Concat) and a 1x1 conv classifier."""
    b = BranchyBuilder(name, seed=6)

    def fire(x, cin, squeeze, expand):
        s = b.conv(x, cin, squeeze, 1)
        return b.concat([b.conv(s, squeeze, expand, 1), b.conv(s, squeeze, expand, 3)])

    x = b.conv("x", 3, 32, 3, stride=2, pads=[0, 0, 0, 0])                # 10x10
    x = b.pool("MaxPool", x, 3, 2, ceil_mode=1)                           # 5x5 (floor: 4x4)
    x = fire(x, 32, 8, 16)
    x = fire(x, 32, 8, 32)
    x = b.pool("MaxPool", x, 3, 2, ceil_mode=1)                           # 2x2
    x = fire(x, 64, 16, 20)
    x = b.conv(x, 40, 10, 1)
    y = b.op("Flatten", [b.op("GlobalAveragePool", [x])], axis=1)
    inp = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 21, 21])
    out = helper.make_tensor_value_info(y, TensorProto.FLOAT, [2, 10])
    return b.model([inp], [out], 13)


def aspp_tiny(name="aspp_tiny"):
    """DeepLab-style atrous spatial pyramid on a small map: 3x3 convs at dilations 1, 4 (outer taps
    reach part of the map), 8 (only the centre tap reaches: trim_conv_taps makes it 1x1) and
    (8, 2) (rows trimmed, columns kept), a strided dilated conv, concatenated and mixed by a 1x1."""
    b = Builder(name)

    def conv(x, cin, cout, dil, stride=1):
        ins = [x, b.weight([cout, cin, 3, 3]),
               b.const((0.1 * b.rng.standard_normal(cout)).astype(np.float32), "bias")]
        return b.op("Relu", [b.op("Conv", ins, kernel_shape=[3, 3], strides=[stride, stride],
                                  pads=[dil[0], dil[1]] * 2, dilations=list(dil))])

    branches = [conv("x", 16, 16, d) for d in [(1, 1), (4, 4), (8, 8), (8, 2)]]
    h = b.op("Concat", branches, axis=1)
    y = b.op("Conv", [h, b.weight([24, 64, 1, 1])], kernel_shape=[1, 1])
    z = conv("x", 16, 16, (6, 6), stride=2)
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16, 6, 6])
    outs = [helper.make_tensor_value_info(y, TensorProto.FLOAT, [1, 24, 6, 6]),
            helper.make_tensor_value_info(z, TensorProto.FLOAT, [1, 16, 3, 3])]
    return b.model([x], outs, 13)


def se_tiny(name="se_tiny"):
    """Squeeze-excite gates as exported models write them: ReduceMean and ReduceMax over the
    spatial axes with keepdims (not GlobalAveragePool), 1x1 convs, HardSigmoid / Sigmoid and a
    per-channel Mul, on 72 channels (padding lanes in 16-lane blocks); batch 1."""
    b = Builder(name)

    def conv(x, cin, cout, k):
        return b.op("Conv", [x, b.weight([cout, cin, k, k])], kernel_shape=[k, k],
                    pads=[k // 2] * 4)

    h = b.op("Relu", [conv("x", 8, 72, 3)])
    m = b.op("ReduceMean", [h], axes=[2, 3], keepdims=1)
    g = b.op("HardSigmoid", [conv(b.op("Relu", [conv(m, 72, 24, 1)]), 24, 72, 1)])
    h = b.op("Mul", [h, g])
    mx = b.op("ReduceMax", [h], axes=[-1, -2], keepdims=1)
    h = b.op("Mul", [h, b.op("Sigmoid", [conv(mx, 72, 72, 1)])])
    y = conv(h, 72, 16, 1)
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 10, 10])
    out = helper.make_tensor_value_info(y, TensorProto.FLOAT, [1, 16, 10, 10])
    return b.model([x], [out], 13)


def single_gemm(m=13, k=300, n=70, name="gemm_odd"):
    """Gemm with transB, alpha, beta and a bias row; sizes that leave partial tiles."""
    b = Builder(name)
    y = b.op("Gemm", ["x", b.weight([n, k], scale=1.0 / np.sqrt(k)),
                      b.const((0.1 * b.rng.standard_normal(n)).astype(np.float32), "bias")],
             transB=1, alpha=0.5, beta=2.0)
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [m, k])
    out = helper.make_tensor_value_info(y, TensorProto.FLOAT, [m, n])
    return b.model([x], [out], 13)


def single_conv(c=64, oc=None, hw=56, k=3, stride=1, dilation=1, bias=False, group=1,
                name="conv3x3_56", act=None):
    """One Conv (a ResNet-50 layer shape by default: 64->64 3x3 on 56x56); act "relu" or "silu"
    (x * Sigmoid(x)) after it."""
    oc = oc or c
    b = Builder(name)
    ins = ["x", b.weight([oc, c // group, k, k])]
    if bias:
        ins.append(b.const((0.1 * b.rng.standard_normal(oc)).astype(np.float32), "bias"))
    pad = dilation * (k // 2)
    ohw = (hw + 2 * pad - dilation * (k - 1) - 1) // stride + 1
    y = b.op("Conv", ins, kernel_shape=[k, k], strides=[stride, stride], pads=[pad] * 4,
             dilations=[dilation, dilation], group=group)
    if act == "relu":
        y = b.op("Relu", [y])
    elif act == "silu":
        y = b.op("Mul", [y, b.op("Sigmoid", [y])])
    elif act:
        raise ValueError(f"single_conv: act {act!r} is not relu or silu")
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, c, hw, hw])
    out = helper.make_tensor_value_info(y, TensorProto.FLOAT, [1, oc, ohw, ohw])
    return b.model([x], [out], 13)


MODELS = {
    "resnet50": lambda: resnet(),
    "mobilenetv2": lambda: mobilenetv2(),
    "bert": lambda: bert(),
    "bert_base": lambda: bert(**BERT_BASE, name="bert_base"),
    "tiny_cnn": lambda: resnet(blocks=(1, 1), width=8, image=32, classes=10, name="tiny_cnn"),
    "tiny_mobilenet": lambda: mobilenetv2(image=32, classes=10, width_mult=0.25, name="tiny_mobilenet",
                                          settings=((1, 16, 1, 1), (6, 24, 2, 2)), last=64),
    "tiny_bert": lambda: bert(layers=1, hidden=64, heads=4, seq=16, ffn=128, vocab=50, name="tiny_bert"),
    # Single-op models: the schedule benchmarks (issue 3) and odd shapes for parity.
    "matmul1024": lambda: single_matmul(),
    "conv3x3_56": lambda: single_conv(),
    "conv3x3_28": lambda: single_conv(c=128, hw=28, name="conv3x3_28"),
    "conv3x3_14": lambda: single_conv(c=256, hw=14, name="conv3x3_14"),
    "conv3x3_7": lambda: single_conv(c=512, hw=7, name="conv3x3_7"),
    "conv1x1_56": lambda: single_conv(c=64, oc=256, hw=56, k=1, name="conv1x1_56"),
    # ConvNeXt's depthwise 7x7 and ResNeXt's grouped 3x3 (8 and 4 channels per group).
    "dwconv7x7_56": lambda: single_conv(c=96, hw=56, k=7, group=96, name="dwconv7x7_56"),
    "gconv3x3_g32_28": lambda: single_conv(c=256, hw=28, group=32, name="gconv3x3_g32_28"),
    "gconv3x3_g32_56": lambda: single_conv(c=128, hw=56, group=32, name="gconv3x3_g32_56"),
    "gemm_odd": lambda: single_gemm(),
    "conv_chain_odd": lambda: conv_chain(),
    "grouped_convs": lambda: grouped_convs(),
    "depthwise_odd": lambda: depthwise_odd(),
    "aspp_tiny": lambda: aspp_tiny(),
    "se_tiny": lambda: se_tiny(),


    "conv3d_odd": lambda: video_blocks(),
    "conv1d_odd": lambda: conv1d_chain(),
    "inception_tiny": lambda: inception_tiny(),
    "densenet_tiny": lambda: densenet_tiny(),
    "squeezenet_tiny": lambda: squeezenet_tiny(),
    "conv_odd": lambda: single_conv(c=5, oc=20, hw=13, k=3, stride=2, dilation=2, bias=True,
                                    name="conv_odd"),
}

# Inputs for a model: name -> numpy array (batch bound to 1 for symbolic dims).
def make_inputs(model, seed=0):
    rng = np.random.default_rng(seed)
    feeds = {}
    for vi in model.graph.input:
        dims = [d.dim_value if d.dim_value > 0 else 1 for d in vi.type.tensor_type.shape.dim]
        et = vi.type.tensor_type.elem_type
        if vi.name == "input_ids":
            vocab = next(i for i in model.graph.initializer if i.name.startswith("w_")).dims[0]
            feeds[vi.name] = rng.integers(0, vocab, size=dims, dtype=np.int64)
        elif vi.name == "attention_mask":
            mask = np.ones(dims, np.int64)
            mask[..., dims[-1] * 3 // 4:] = 0  # padded tail
            feeds[vi.name] = mask
        elif et == TensorProto.FLOAT:
            feeds[vi.name] = rng.standard_normal(dims).astype(np.float32)
        else:
            raise ValueError(f"no input generator for {vi.name}")
    return feeds


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outdir")
    ap.add_argument("--models", default=",".join(MODELS))
    args = ap.parse_args(argv)
    os.makedirs(args.outdir, exist_ok=True)
    for name in args.models.split(","):
        path = os.path.join(args.outdir, f"{name}.onnx")
        m = MODELS[name]()
        onnx.checker.check_model(m)
        onnx.save(m, path)
        print(f"wrote {path} ({os.path.getsize(path) / 1e6:.1f} MB)")


if __name__ == "__main__":
    sys.exit(main())
