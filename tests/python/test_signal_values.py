#!/usr/bin/env python3
"""ctest wrapper: DFT with its axis, and STFT with its frame_step and frame_length, given at run
time (issue 17) against ONNX Runtime.

One artifact per form (complex to complex, real to one-sided, inverse, inverse one-sided, a fixed
dft_length) is run along every axis the input allows, negative ones included: the artifact reads
the axis before each run (a value symbol), and where the transform changes its dim's length
(one-sided, dft_length) every dim it may run along is a value symbol. An axis out of range, or
the last dim (the real/imaginary parts), is refused at run time with one line.

STFT with a run-time frame_step and frame_length (the frame and bin counts value symbols), and
with a window and a run-time step, several values on one artifact; a step of 0 and a frame
longer than the signal are refused.

MelWeightMatrix with every input given at run time: several bin counts, DFT lengths, rates and
band edges on one artifact; a bin count of 0 is refused.

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


def stft_model(window):
    inputs = ["signal", "step", "window" if window else "", "" if window else "frame"]
    while inputs[-1] == "":
        inputs.pop()
    graph_inputs = [helper.make_tensor_value_info("signal", TensorProto.FLOAT, [2, 64, 1]),
                    helper.make_tensor_value_info("step", TensorProto.INT64, [])]
    if window:
        graph_inputs.append(helper.make_tensor_value_info("window", TensorProto.FLOAT, [16]))
    else:
        graph_inputs.append(helper.make_tensor_value_info("frame", TensorProto.INT64, []))
    g = helper.make_graph([helper.make_node("STFT", inputs, ["y"])], "g", graph_inputs,
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    return m


def check_stft(exe, tmp, rng):
    signal = rng.standard_normal((2, 64, 1)).astype(np.float32)
    for window in (False, True):
        m = stft_model(window)
        what = "window, step at run time" if window else "step and frame length at run time"
        art = compile_model(exe, m, os.path.join(tmp, f"stft{int(window)}.onnx"), f"STFT ({what})")
        if art is None:
            continue
        if window:
            w = np.hanning(16).astype(np.float32)
            feeds = [{"signal": signal, "step": np.array(s, np.int64), "window": w}
                     for s in (8, 1, 5, 48)]
        else:
            feeds = [{"signal": signal, "step": np.array(s, np.int64),
                      "frame": np.array(f, np.int64)}
                     for s, f in ((8, 16), (1, 7), (16, 64), (3, 10), (100, 2))]
        bad = mismatches(exe, art, session(m), feeds, tmp,
                         lambda f: ", ".join(f"{k} {int(v)}" for k, v in f.items() if v.size == 1),
                         rtol=1e-4, atol=1e-4)
        record(f"STFT ({what}): {len(feeds)} value sets on one artifact match ONNX Runtime",
               not bad, "; ".join(bad))
        if not window:
            for s, f, why in ((0, 16, "a step of 0"), (8, 65, "a frame longer than the signal")):
                ok, err = refused(exe, art, {"signal": signal, "step": np.array(s, np.int64),
                                             "frame": np.array(f, np.int64)}, tmp, "'y.")
                record(f"STFT with {why} refused with one line", ok, err)


def check_mel(exe, tmp):
    names = ["bins", "length", "rate", "lo", "hi"]
    types = [TensorProto.INT64, TensorProto.INT64, TensorProto.INT64, TensorProto.FLOAT,
             TensorProto.FLOAT]
    g = helper.make_graph([helper.make_node("MelWeightMatrix", names, ["y"])], "g",
                          [helper.make_tensor_value_info(n, t, []) for n, t in zip(names, types)],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    art = compile_model(exe, m, os.path.join(tmp, "mel.onnx"),
                        "MelWeightMatrix (every input at run time)")
    if art is None:
        return

    def feed(bins, length, rate, lo, hi):
        return {"bins": np.array(bins, np.int64), "length": np.array(length, np.int64),
                "rate": np.array(rate, np.int64), "lo": np.array(lo, np.float32),
                "hi": np.array(hi, np.float32)}
    feeds = [feed(8, 16, 8192, 0, 4096), feed(4, 64, 16000, 20, 8000), feed(1, 2, 100, 0, 50),
             feed(13, 33, 22050, 100, 9000)]
    bad = mismatches(exe, art, session(m), feeds, tmp,
                     lambda f: f"bins {int(f['bins'])} length {int(f['length'])}")
    record(f"MelWeightMatrix: {len(feeds)} value sets on one artifact match ONNX Runtime", not bad,
           "; ".join(bad))
    ok, err = refused(exe, art, feed(0, 16, 8192, 0, 4096), tmp, "'y.v")
    record("MelWeightMatrix with 0 bins refused with one line", ok, err)


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
        check_stft(exe, tmp, rng)
        check_mel(exe, tmp)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
