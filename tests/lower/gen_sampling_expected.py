#!/usr/bin/env python3
"""Generates the expected values in sampling_rules_test.cpp with the ONNX reference implementation.

Each case builds a one-node ONNX model with the test's inputs (as float32/int32/int64, the
dtypes the C++ test uses) and attributes, evaluates it with onnx.reference.ReferenceEvaluator and
prints the output as a C++ initializer list, every value formatted with `%.7g` (the test compares
within 1e-4). The printed lists are the `want` values of these tests:

  GridSampleRules.EveryModePaddingAndAlignment   (18 cases: mode x padding_mode x align_corners)
  GridSampleRules.Volumetric                     (4 cases)
  Col2ImRules.StridesPadsDilationsAndOneD        (2 cases)
  RoiAlignRules.ModesCoordinatesAndAdaptiveSampling (8 cases)
  DeformConvRules.GroupsOffsetGroupsMaskAndBias  (2 cases: with offsets/mask/bias, zero offsets)

AffineGridRules checks closed forms and needs no generated values.

Usage: python3 tests/lower/gen_sampling_expected.py [--check tests/lower/sampling_rules_test.cpp]
With --check it also parses the values committed in the test file and exits 1 unless every case
matches the reference (scripts/parity.py's compare_outputs: every value within 1e-6 + 1e-6*|ref|,
NaN/Inf in the same places), so the committed numbers can be verified against this script. Needs numpy and onnx (>= 1.15, for DeformConv in onnx.reference).
"""
import argparse
import os
import re
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import parity  # noqa: E402  (compare_outputs, the one output checker)

OPSET = 20  # GridSample with cubic and volumetric inputs (opset 20), AffineGrid, Col2Im, DeformConv

NP_TO_ONNX = {np.float32: TensorProto.FLOAT, np.int32: TensorProto.INT32,
              np.int64: TensorProto.INT64}


def run_op(op, inputs, **attrs):
    """Evaluates a single `op` node on `inputs` (a list of numpy arrays) with onnx.reference."""
    names = [f"in{i}" for i in range(len(inputs))]
    vis = [helper.make_tensor_value_info(n, NP_TO_ONNX[a.dtype.type], list(a.shape))
           for n, a in zip(names, inputs)]
    out = helper.make_tensor_value_info("y", TensorProto.UNDEFINED, None)
    node = helper.make_node(op, names, ["y"], **attrs)
    graph = helper.make_graph([node], op, vis, [out])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    (y,) = ReferenceEvaluator(model).run(None, dict(zip(names, inputs)))
    return np.asarray(y).ravel()


def f32(values, shape):
    return np.array(values, dtype=np.float64).astype(np.float32).reshape(shape)


def cases():
    """-> list of (test name, case label, values); in the order they appear in the test file."""
    out = []

    # GridSampleRules.EveryModePaddingAndAlignment
    x = f32([i * 0.5 - 3 for i in range(24)], [1, 2, 3, 4])
    grid = f32([-1.3, -0.9, 0.2, 0.35, 1.2, 1.1, 0.7, -1.6, -0.45, 0.9, 2.7, -0.05], [1, 2, 3, 2])
    for mode in ("linear", "nearest", "cubic"):
        for padding in ("zeros", "border", "reflection"):
            for align in (0, 1):
                y = run_op("GridSample", [x, grid], mode=mode, padding_mode=padding,
                           align_corners=align)
                out.append(("GridSampleRules.EveryModePaddingAndAlignment",
                            f"{mode} {padding} {align}", y))

    # GridSampleRules.Volumetric
    x = f32([i * 0.25 for i in range(24)], [1, 1, 2, 3, 4])
    grid = f32([-0.8, 0.3, 0.6, 1.4, -1.2, 0.1], [1, 1, 1, 2, 3])
    for mode, padding, align in (("cubic", "reflection", 0), ("linear", "border", 1),
                                 ("nearest", "zeros", 0), ("linear", "zeros", 0)):
        y = run_op("GridSample", [x, grid], mode=mode, padding_mode=padding, align_corners=align)
        out.append(("GridSampleRules.Volumetric", f"{mode} {padding} {align}", y))

    # Col2ImRules.StridesPadsDilationsAndOneD (image_shape/block_shape are inputs in ONNX)
    x = f32([i % 7 - 2 for i in range(64)], [1, 8, 8])
    y = run_op("Col2Im", [x, np.array([4, 5], np.int64), np.array([2, 2], np.int64)],
               pads=[1, 0, 0, 1], strides=[2, 1], dilations=[1, 2])
    out.append(("Col2ImRules.StridesPadsDilationsAndOneD", "2-D", y))
    x1 = np.arange(1, 13, dtype=np.int32).reshape(1, 3, 4)
    y = run_op("Col2Im", [x1, np.array([6], np.int64), np.array([3], np.int64)],
               pads=[0, 0], strides=[1], dilations=[1])
    out.append(("Col2ImRules.StridesPadsDilationsAndOneD", "1-D", y))

    # RoiAlignRules.ModesCoordinatesAndAdaptiveSampling
    x = f32([(i % 11) * 0.5 for i in range(60)], [2, 1, 5, 6])
    rois = f32([0.3, 0.8, 4.1, 3.6, -1.5, -0.5, 7.5, 6.2, 2, 1, 2.2, 1.1], [3, 4])
    batch = np.array([1, 0, 1], np.int64)
    for mode in ("avg", "max"):
        for ctm in ("half_pixel", "output_half_pixel"):
            for ratio in (0, 2):
                y = run_op("RoiAlign", [x, rois, batch], mode=mode,
                           coordinate_transformation_mode=ctm, output_height=2, output_width=3,
                           sampling_ratio=ratio, spatial_scale=0.8)
                out.append(("RoiAlignRules.ModesCoordinatesAndAdaptiveSampling",
                            f"{mode} {ctm} {ratio}", y))

    # DeformConvRules.GroupsOffsetGroupsMaskAndBias
    x = f32([-0.83, -0.53, 0.6, 0.16, -0.81, -0.13, -0.04, -0.68, 0.47, -0.77, -0.22, 0.03,
             -0.14, 0.17, 0.48, 0.91, -0.43, 0.3, 0.39, -0.41, -1, 0.95, -0.4, -0.37,
             0.78, 0.17, -0.06, 0.55, -0.94, 0.41, -0.25, -0.82, 0.32, 0.86, -0.59, 0.26,
             -0.4, 0.48, 0.44, -0.56, 0.66, 0.32, 0.37, 0.64, -0.14, 0.52, 0.76, -0.8],
            [1, 4, 3, 4])
    w = f32([0.7, -0.21, -0.04, -0.71, 0.4, -0.42, 0.74, -0.45, 0.12, -0.2, 0.23, -0.61, -0.64,
             0.49, 0.5, 0.13], [2, 2, 2, 2])
    offset = f32([1.26, -0.88, 1.05, -0.99, 1.39, 0.37, 0.32, 1.41, 0.86, 0.87, -1.34, -0.39,
                  -1.25, -0.92, -0.86, 1.08, -1.12, -0.61, -0.02, 1.05, 1.4, 0.62, -0.86, 0.13,
                  0.62, -1.34, 0.54, -0.4, 0.27, 0.51, 0.51, 0.07, 0.16, -0.91, -0.01, -1.12,
                  -0.06, 0.11, 0.82, -0.32, -1.44, 0.08, -0.88, 0.72, -0.33, -0.36, 1.23, -0.32,
                  -0.45, -0.46, -0.06, -1.22, 0.14, 1.26, 0.19, 0.73, 1.34, 1.03, 0.73, 0.94,
                  0.96, -0.74, -0.05, -0.47, -0.71, 0.21, -0.55, 0.36, 0.25, -1.19, -0.17, -0.33,
                  0.62, -1.24, -0.99, 0.04, -0.29, 0.5, -0.5, -0.91, 1.3, -0.77, -1.06, -0.66,
                  -0.48, -0.82, 0.11, 1.31, -1.12, -0.25, 0.5, 1.15, 1.5, -1.07, 0.11, 1.14,
                  -1.34, 0.26, -0.98, 0.8, 1.31, 0.11, -1.47, -1.31, -0.25, 1.04, -0.79, 0.51,
                  -0.28, -0.7, 0.61, -0.58, -0.38, 0.8, -0.01, 0.85, 0.05, -1.02, -0.17, 1.12,
                  0.19, 1.39, -1.5, -0.48, 0.81, 0.56, 0.18, 0.49], [1, 16, 4, 2])
    mask = f32([0.88, 0.68, 0.55, 0.56, 0.67, 0.32, 0.67, 0.62, 0.79, 0.48, 0.03, 0.54, 0.86,
                0.64, 0.64, 0.39, 0.36, 0.72, 0.08, 0.87, 0.88, 0.96, 0.14, 0.12, 0.89, 0.4,
                0.27, 0.38, 0.66, 0.16, 0.49, 0.66, 0.72, 0.01, 0.81, 0.43, 0.44, 0.56, 0.28,
                0.89, 0.21, 0.54, 0.17, 0.62, 0.9, 0.88, 0.13, 0.62, 0.89, 0.2, 0.41, 0.71,
                0.74, 0.45, 0.64, 0.67, 0.35, 0.65, 0.58, 0.7, 0.51, 0.34, 0.43, 0.92],
               [1, 8, 4, 2])
    bias = f32([0.5, -0.25], [2])
    attrs = dict(group=2, offset_group=2, kernel_shape=[2, 2], pads=[1, 0, 1, 0], strides=[1, 2],
                 dilations=[1, 1])
    y = run_op("DeformConv", [x, w, offset, bias, mask], **attrs)
    out.append(("DeformConvRules.GroupsOffsetGroupsMaskAndBias", "offsets, mask, bias", y))
    zero = np.zeros([1, 16, 4, 2], np.float32)
    y = run_op("DeformConv", [x, w, zero], **attrs)
    out.append(("DeformConvRules.GroupsOffsetGroupsMaskAndBias", "zero offsets", y))
    return out


def fmt(values):
    return "{" + ", ".join(f"{float(v):.7g}" for v in values) + "}"


def committed_lists(path):
    """The numeric brace lists of the test file that hold expected values, in file order: each
    case's `want` list and the lists passed to expect_near_all."""
    text = open(path).read()
    # Only the parts after each `want`/`cases[]` or `expect_near_all(` hold expected values;
    # inputs (HostTensor initializers) are skipped.
    lists = []
    for m in re.finditer(r"const Case cases\[\] = \{(.*?)\n  \};", text, re.S):
        # each case: {"mode", "padding", align, {values}}
        for c in re.finditer(r"\{\s*\"[^\"]*\",\s*\"[^\"]*\",\s*-?\d+,\s*\{([^{}]*)\}\s*\}",
                             m.group(1)):
            lists.append((m.start(1) + c.start(), c.group(1)))
    for m in re.finditer(r"expect_near_all\(\s*\w+\.values\(\),\s*\{([^{}]*)\}", text):
        lists.append((m.start(), m.group(1)))
    lists.sort(key=lambda pv: pv[0])
    return [[float(v) for v in vals.replace("\n", " ").split(",") if v.strip()]
            for _, vals in lists]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", metavar="TEST_CPP",
                    help="compare with the values committed in this file; exit 1 on a mismatch")
    args = ap.parse_args(argv)
    generated = cases()
    for test, label, y in generated:
        print(f"// {test} [{label}]\n{fmt(y)}")
    if not args.check:
        return 0
    committed = committed_lists(args.check)
    if len(committed) != len(generated):
        print(f"check: {len(committed)} expected-value lists in {args.check}, "
              f"{len(generated)} generated", file=sys.stderr)
        return 1
    bad, rel = 0, []
    for (test, label, y), want in zip(generated, committed):
        want = np.array(want, np.float64)
        if want.shape != y.shape:
            print(f"check: {test} [{label}]: {want.size} committed values, {y.size} generated",
                  file=sys.stderr)
            bad += 1
            continue
        # The committed values are the reference's printed with %.7g (5e-8 relative).
        stats = {}
        ok, msg = parity.compare_outputs({"y": y.astype(np.float64)}, {"y": want}, 1e-6, 1e-6,
                                         stats=stats, ref_name="the reference",
                                         got_name=args.check)
        rel.append(stats["y"]["rel_err"] if stats else float("inf"))
        if not ok:
            print(f"check: {test} [{label}]: {msg}", file=sys.stderr)
            bad += 1
    print(f"check: {len(generated) - bad} of {len(generated)} cases match {args.check} "
          f"(rel_err up to {max(rel, default=0.0):.2g})", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
