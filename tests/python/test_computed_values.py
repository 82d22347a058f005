#!/usr/bin/env python3
"""ctest wrapper: shape-deciding inputs *computed* from graph inputs at run time (issue 17)
against ONNX Runtime.

A Pad's pads, a Slice's bounds, a Range's limit, a Reshape's or ConstantOfShape's shape or a
Resize's scales that other nodes compute from the caller's values (Cast, arithmetic, Max,
Concat, Gather, Slice, Split, as the expanded forms of ops write them) compile without
--specialize-inputs: the artifact's value function evaluates those nodes element by element
before each run. Each model is compiled once and run with several values; the outputs and
their shapes are compared with ONNX Runtime. Also: a MatMul whose right operand has a run-time
column count (a symbolic lane loop under static rows: an internal error before), and values
that give no valid shape refused with one line.

Prints one line per check and `N passed, N failed`; exits 1 on a failure.
"""
import argparse
import os
import sys
import tempfile

import numpy as np
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ort_check import compile_model, mismatches, record, refused, summary  # noqa: E402


def make(nodes, inputs, outputs, inits=(), opset=18):
    g = helper.make_graph(nodes, "g", inputs, [helper.make_tensor_value_info(o, TensorProto.FLOAT, None)
                                                for o in outputs], list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m


def inp(name, dtype, shape):
    return helper.make_tensor_value_info(name, dtype, shape)


def const(name, value):
    return numpy_helper.from_array(np.array(value), name)


def session(m):
    import onnxruntime as ort
    return ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])


def check(exe, tmp, name, m, feeds, extra=(), **tol):
    file = "".join(c if c.isalnum() else "_" for c in name)[:60]
    art = compile_model(exe, m, os.path.join(tmp, file + ".onnx"), name, extra)
    if art is None:
        return None
    label = lambda f: ", ".join(f"{k}={v.tolist()}" for k, v in f.items() if v.size <= 8)
    bad = mismatches(exe, art, session(m), feeds, tmp, label, **tol)
    record(f"{name}: {len(feeds)} value sets on one artifact match ONNX Runtime", not bad,
           "; ".join(bad))
    return art


def check_centre_pad(exe, tmp, rng):
    """CenterCropPad's expanded form: pads = Concat(l, r) from Max(Shape(x), shape) - Shape(x);
    then Slice with starts and ends from Shape(padded) and shape."""
    nodes = [
        helper.make_node("Shape", ["x"], ["xs"]),
        helper.make_node("Max", ["xs", "shape"], ["padded_sh"]),
        helper.make_node("Sub", ["padded_sh", "xs"], ["amount"]),
        helper.make_node("Div", ["amount", "two"], ["left"]),
        helper.make_node("Sub", ["amount", "left"], ["right"]),
        helper.make_node("Concat", ["left", "right"], ["pads"], axis=0),
        helper.make_node("Pad", ["x", "pads"], ["p"]),
        helper.make_node("Shape", ["p"], ["ps"]),
        helper.make_node("Sub", ["ps", "shape"], ["diff"]),
        helper.make_node("Div", ["diff", "two"], ["starts"]),
        helper.make_node("Add", ["starts", "shape"], ["ends"]),
        helper.make_node("Slice", ["p", "starts", "ends"], ["y"]),
    ]
    m = make(nodes, [inp("x", TensorProto.FLOAT, [3, 5, 6]), inp("shape", TensorProto.INT64, [3])],
             ["y"], [const("two", np.int64(2))])
    x = rng.standard_normal((3, 5, 6)).astype(np.float32)
    feeds = [{"x": x, "shape": np.array(s, np.int64)}
             for s in ([3, 2, 9], [1, 8, 1], [3, 5, 6], [4, 7, 3], [2, 1, 1])]
    check(exe, tmp, "centre crop-and-pad through Max/Sub/Div/Concat/Pad/Slice", m, feeds)


def check_range_window(exe, tmp):
    """A window's expanded form: Range(0, Cast(size) - (1 - periodic), 1) times an angle."""
    nodes = [
        helper.make_node("Cast", ["size"], ["n"], to=TensorProto.FLOAT),
        helper.make_node("Sub", ["n", "one"], ["n1"]),
        helper.make_node("Range", ["zero", "n1", "one"], ["r"]),
        helper.make_node("Div", ["tau", "n1"], ["step"]),
        helper.make_node("Mul", ["r", "step"], ["angle"]),
        helper.make_node("Cos", ["angle"], ["y"]),
    ]
    m = make(nodes, [inp("size", TensorProto.INT64, [])], ["y"],
             [const("zero", np.float32(0)), const("one", np.float32(1)),
              const("tau", np.float32(2 * np.pi))])
    feeds = [{"size": np.array(s, np.int64)} for s in (10, 2, 33, 5)]
    art = check(exe, tmp, "Range over Cast(size) - 1", m, feeds)
    if art is not None:
        ok, err = refused(exe, art, {"size": np.array(2 ** 40, np.int64)}, tmp, "r.v0")
        record("a Range length past its bound refused with one line", ok, err)


def check_reshape_gather(exe, tmp, rng):
    """Reshape(x, Concat(Gather(dims, [1, 0]), [-1])): the caller's dims swapped; the result
    feeds a MatMul whose rows are static and whose columns are the run-time -1."""
    nodes = [
        helper.make_node("Gather", ["dims", "swap"], ["sw"], axis=0),
        helper.make_node("Concat", ["sw", "minus1"], ["shape"], axis=0),
        helper.make_node("Reshape", ["x", "shape"], ["r"]),
        helper.make_node("Relu", ["r"], ["y"]),
    ]
    m = make(nodes, [inp("x", TensorProto.FLOAT, [24]), inp("dims", TensorProto.INT64, [2])],
             ["y"], [const("swap", np.array([1, 0], np.int64)),
                     const("minus1", np.array([-1], np.int64))])
    x = rng.standard_normal(24).astype(np.float32)
    feeds = [{"x": x, "dims": np.array(d, np.int64)} for d in ([3, 2], [1, 4], [12, 1], [2, 2])]
    art = check(exe, tmp, "Reshape by Concat(Gather(dims), [-1])", m, feeds)
    if art is not None:
        ok, err = refused(exe, art, {"x": x, "dims": np.array([5, 1], np.int64)}, tmp, "'r.v")
        record("a computed shape that does not divide the elements refused with one line", ok,
               err)
    nodes = [helper.make_node("Reshape", ["b", "shape"], ["bv"]),
             helper.make_node("MatMul", ["a", "bv"], ["y"])]
    m = make(nodes, [inp("a", TensorProto.FLOAT, [2, 3, 4]), inp("b", TensorProto.FLOAT, [48]),
                     inp("shape", TensorProto.INT64, [3])], ["y"])
    a = rng.standard_normal((2, 3, 4)).astype(np.float32)
    b = rng.standard_normal(48).astype(np.float32)
    feeds = [{"a": a, "b": b, "shape": np.array(s, np.int64)} for s in ([2, 4, 6], [2, 4, -1])]
    check(exe, tmp, "MatMul by a run-time reshaped operand (static rows, run-time columns)", m,
          feeds, rtol=1e-4)


def check_split_sizes(exe, tmp):
    """An affine grid's expanded form: Split(size) into N, C, H, W; ConstantOfShape of
    Slice(Concat(...), 2, 4) and Range(0, W); the grid is their broadcast sum."""
    nodes = [
        helper.make_node("Split", ["size"], ["N", "C", "H", "W"], axis=0, num_outputs=4),
        helper.make_node("Concat", ["N", "C", "H", "W"], ["nchw"], axis=0),
        helper.make_node("Slice", ["nchw", "two", "four"], ["hw"]),
        helper.make_node("ConstantOfShape", ["hw"], ["zeros"],
                         value=helper.make_tensor("v", TensorProto.FLOAT, [1], [0.5])),
        helper.make_node("Squeeze", ["W"], ["w"]),
        helper.make_node("Range", ["zero", "w", "one"], ["cols"]),
        helper.make_node("Cast", ["cols"], ["colsf"], to=TensorProto.FLOAT),
        helper.make_node("Add", ["zeros", "colsf"], ["y"]),
    ]
    m = make(nodes, [inp("size", TensorProto.INT64, [4])], ["y"],
             [const("two", np.array([2], np.int64)), const("four", np.array([4], np.int64)),
              const("zero", np.int64(0)), const("one", np.int64(1))])
    feeds = [{"size": np.array(s, np.int64)} for s in ([1, 3, 4, 5], [2, 1, 1, 7], [1, 1, 6, 1])]
    check(exe, tmp, "ConstantOfShape and Range from Split(size)", m, feeds)


def check_resize_scales(exe, tmp, rng):
    """Resize whose scales are Div(Cast(sizes), Cast(Shape(x))): a float computation."""
    nodes = [
        helper.make_node("Shape", ["x"], ["xs"]),
        helper.make_node("Cast", ["xs"], ["xsf"], to=TensorProto.FLOAT),
        helper.make_node("Cast", ["sizes"], ["sf"], to=TensorProto.FLOAT),
        helper.make_node("Div", ["sf", "xsf"], ["scales"]),
        helper.make_node("Resize", ["x", "", "scales"], ["y"], mode="linear"),
    ]
    m = make(nodes, [inp("x", TensorProto.FLOAT, [1, 2, 4, 6]),
                     inp("sizes", TensorProto.INT64, [4])], ["y"])
    x = rng.standard_normal((1, 2, 4, 6)).astype(np.float32)
    feeds = [{"x": x, "sizes": np.array(s, np.int64)}
             for s in ([1, 2, 8, 12], [1, 2, 2, 3], [1, 2, 4, 6], [1, 2, 6, 9])]
    check(exe, tmp, "Resize by scales = Cast(sizes) / Cast(Shape(x))", m, feeds)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ingot", required=True)
    exe = os.path.abspath(ap.parse_args().ingot)
    rng = np.random.default_rng(11)
    with tempfile.TemporaryDirectory() as tmp:
        check_centre_pad(exe, tmp, rng)
        check_range_window(exe, tmp)
        check_reshape_gather(exe, tmp, rng)
        check_split_sizes(exe, tmp)
        check_resize_scales(exe, tmp, rng)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
