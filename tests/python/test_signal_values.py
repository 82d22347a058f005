#!/usr/bin/env python3
"""ctest wrapper: DFT with its axis given at run time (opset 20; issue 17) against ONNX Runtime.

One artifact per form (complex to complex, real to one-sided, inverse, inverse one-sided, a fixed
dft_length) is run along every axis the input allows, negative ones included: the artifact reads
the axis before each run (a value symbol), and where the transform changes its dim's length
(one-sided, dft_length) every dim it may run along is a value symbol. An axis out of range, or
the last dim (the real/imaginary parts), is refused at run time with one line.

Prints one line per check and `N passed, N failed`; exits 1 on a failure.
"""
import argparse
import os
import sys
import tempfile

import numpy as np
from onnx import TensorProto, helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ort_check import compile_model, mismatches, record, refused, summary  # noqa: E402


def dft_model(x_shape, attrs, dft_length=None):
    inputs = ["x", "len" if dft_length is not None else "", "axis"]
    inits = [] if dft_length is None else [helper.make_tensor("len", TensorProto.INT64, [],
                                                              [dft_length])]
    g = helper.make_graph(
        [helper.make_node("DFT", inputs, ["y"], **attrs)], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape),
         helper.make_tensor_value_info("axis", TensorProto.INT64, [])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 20)])
    m.ir_version = 9
    return m


def session(m):
    import onnxruntime as ort
    return ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ingot", required=True)
    exe = os.path.abspath(ap.parse_args().ingot)
    rng = np.random.default_rng(7)
    forms = [
        ("complex", [2, 6, 5, 2], {}, None),
        ("real, one-sided", [2, 6, 5, 1], {"onesided": 1}, None),
        ("inverse", [2, 6, 5, 2], {"inverse": 1}, None),
        ("inverse one-sided", [2, 4, 3, 2], {"inverse": 1, "onesided": 1}, None),
        ("dft_length 4", [2, 6, 5, 2], {}, 4),
    ]
    with tempfile.TemporaryDirectory() as tmp:
        for i, (what, shape, attrs, length) in enumerate(forms):
            m = dft_model(shape, attrs, length)
            art = compile_model(exe, m, os.path.join(tmp, f"dft{i}.onnx"),
                                f"DFT ({what}; axis at run time)")
            if art is None:
                continue
            x = rng.standard_normal(shape).astype(np.float32)
            axes = [0, 1, 2, -2, -3]
            feeds = [{"x": x, "axis": np.array(a, np.int64)} for a in axes]
            bad = mismatches(exe, art, session(m), feeds, tmp,
                             lambda f: f"axis {int(f['axis'])}", rtol=1e-4, atol=1e-4)
            record(f"DFT ({what}): axes {axes} on one artifact match ONNX Runtime", not bad,
                   "; ".join(bad))
            if i == 0:
                for a in (3, -1, 4, -5):
                    ok, err = refused(exe, art, {"x": x, "axis": np.array(a, np.int64)}, tmp,
                                      "'y.a'")
                    record(f"DFT axis {a} refused with one line", ok, err)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
