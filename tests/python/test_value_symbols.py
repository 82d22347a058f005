#!/usr/bin/env python3
"""ctest wrapper: shape-deciding graph inputs served at run time (value symbols, issue 17 step 7)
against ONNX Runtime.

A Reshape whose `shape` is a graph input compiles without --specialize-inputs: the artifact
computes the output dims from the input's values before each run (its value function), and the
kernels downstream run over those dims as over any symbolic dim. One artifact is run with several
`shape` values (0 copying a dim, -1 inferring one, reordered and extended ranks) and compared with
ONNX Runtime, outputs and their shapes; with a symbolic batch (--dim-bounds) too. Values that give
no valid shape are refused at run time with one line naming the dim.

Reductions whose `axes` is a graph input (ReduceSum, ReduceMean, ReduceMax, ReduceLogSumExp, with
keepdims 1 and 0) run any axes the caller gives, negative ones included, on one artifact; an axis
out of range or repeated is refused at run time.

Squeeze and Unsqueeze with `axes`, Expand with `shape`, ConstantOfShape with its shape, TopK
with its K, Split with its sizes and Tile with its repeats given at run time: one model holds
all seven; several value sets are compared with ONNX Runtime, and
values that give no valid shape (squeezing a dim that is not 1, an Expand shape that does not
broadcast, a negative ConstantOfShape dim, K beyond the axis, sizes that do not add up) are
refused.

Slice with its starts, ends, axes and steps (or only its ends) given at run time: negative
steps, negative axes, ends beyond the dim and empty slices against ONNX Runtime; a step of 0 is
refused.

MaxUnpool with its output_shape given at run time, padded shapes among them, against ONNX
Runtime where it agrees with the ONNX reference (no padding) and the reference evaluator
elsewhere; an output_shape below the unpooled size or of other channels is refused.

Col2Im with its image_shape and block_shape given at run time: 1-D, 2-D and 3-D blocks with
strides, dilations and pads, several shapes on one artifact each, against ONNX Runtime; a block
grid that does not give the input's column count, or a block size that does not divide its
channels, is refused.

Prints one line per check and `N passed, N failed`; exits 1 on a failure.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx

from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import parity  # noqa: E402  (compare_outputs, the one output checker)
from ort_check import compile_model, mismatches, record, refused, summary  # noqa: E402


def model(batch):
    """y = Relu(Reshape(x, shape)) * 2; z = Reshape(x, shape2) @ W (a product over a run-time
    row count); x is [batch, 3, 4]."""
    w = np.arange(12, dtype=np.float32).reshape(4, 3) / 10
    nodes = [
        helper.make_node("Reshape", ["x", "shape"], ["r"]),
        helper.make_node("Relu", ["r"], ["rr"]),
        helper.make_node("Mul", ["rr", "two"], ["y"]),
        helper.make_node("Reshape", ["x", "shape2"], ["m"]),
        helper.make_node("MatMul", ["m", "W"], ["z"]),
    ]
    g = helper.make_graph(
        nodes, "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, 3, 4]),
         helper.make_tensor_value_info("shape", TensorProto.INT64, [3]),
         helper.make_tensor_value_info("shape2", TensorProto.INT64, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None),
         helper.make_tensor_value_info("z", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(np.float32(2), "two"), numpy_helper.from_array(w, "W")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    return m


def reduce_model(op, keepdims):
    g = helper.make_graph(
        [helper.make_node(op, ["x", "axes"], ["y"], keepdims=keepdims)], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4, 5]),
         helper.make_tensor_value_info("axes", TensorProto.INT64, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    m.ir_version = 8
    return m


def check_reductions(exe, tmp, rng):
    import onnxruntime as ort
    x = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    for op in ("ReduceSum", "ReduceMean", "ReduceMax", "ReduceLogSumExp"):
        for keepdims in (1, 0):
            path = os.path.join(tmp, f"{op}{keepdims}.onnx")
            onnx.save(reduce_model(op, keepdims), path)
            art = path.replace(".onnx", ".so")
            r = subprocess.run([exe, "compile", path, "-o", art], capture_output=True, text=True)
            if r.returncode != 0:
                record(f"{op} keepdims={keepdims} compiles", False, r.stderr.strip()[-300:])
                continue
            sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
            bad = []
            for axes in ([0, 1], [1, 3], [-1, 0], [2, -3], [3, 2]):
                feeds = {"x": x, "axes": np.array(axes, np.int64)}
                inp, outp = os.path.join(tmp, "in.npz"), os.path.join(tmp, "out.npz")
                np.savez(inp, **feeds)
                r = subprocess.run([exe, "run", art, "--inputs", inp, "--outputs", outp],
                                   capture_output=True, text=True)
                if r.returncode != 0:
                    bad.append(f"axes {axes}: {r.stderr.strip()}")
                    continue
                got, want = np.load(outp)["y"], sess.run(None, feeds)[0]
                ok, msg = parity.compare_outputs({"y": want}, {"y": got}, 1e-5, 1e-5)
                if not ok:
                    bad.append(f"axes {axes}: {msg}")
            record(f"{op} keepdims={keepdims}: 5 axes sets on one artifact", not bad,
                   "; ".join(bad))
            for axes in ([0, 4], [1, -3]):
                inp = os.path.join(tmp, "bad.npz")
                np.savez(inp, x=x, axes=np.array(axes, np.int64))
                r = subprocess.run([exe, "run", art, "--inputs", inp], capture_output=True,
                                   text=True)
                lines = r.stderr.strip().splitlines()
                record(f"{op} keepdims={keepdims}: axes {axes} refused",
                       r.returncode != 0 and len(lines) == 1 and "y.k0" in lines[0],
                       r.stderr.strip())


def shapes_model():
    nodes = [
        helper.make_node("Squeeze", ["x", "sq"], ["s"]),
        helper.make_node("Unsqueeze", ["x", "usq"], ["u"]),
        helper.make_node("Expand", ["v", "es"], ["e"]),
        helper.make_node("ConstantOfShape", ["cs"], ["c"],
                         value=numpy_helper.from_array(np.array([1.5], np.float32))),
        helper.make_node("Sigmoid", ["e"], ["es_out"]),
        helper.make_node("TopK", ["t", "k"], ["tv", "ti"], axis=1),
        helper.make_node("Split", ["w", "sp"], ["p1", "p2"], axis=0),
        helper.make_node("Tile", ["v", "reps"], ["tl"]),
    ]
    g = helper.make_graph(
        nodes, "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 1, 4]),
         helper.make_tensor_value_info("sq", TensorProto.INT64, [1]),
         helper.make_tensor_value_info("usq", TensorProto.INT64, [2]),
         helper.make_tensor_value_info("v", TensorProto.FLOAT, [3, 1]),
         helper.make_tensor_value_info("es", TensorProto.INT64, [3]),
         helper.make_tensor_value_info("cs", TensorProto.INT64, [2]),
         helper.make_tensor_value_info("t", TensorProto.FLOAT, [2, 6]),
         helper.make_tensor_value_info("k", TensorProto.INT64, [1]),
         helper.make_tensor_value_info("w", TensorProto.FLOAT, [7, 2]),
         helper.make_tensor_value_info("sp", TensorProto.INT64, [2]),
         helper.make_tensor_value_info("reps", TensorProto.INT64, [2])],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, None)
         for n in ("s", "u", "es_out", "c", "tv", "p1", "p2", "tl")]
        + [helper.make_tensor_value_info("ti", TensorProto.INT64, None)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    m.ir_version = 8
    return m


def check_shape_ops(exe, tmp, rng):
    import onnxruntime as ort
    path = os.path.join(tmp, "shapes.onnx")
    onnx.save(shapes_model(), path)
    art = os.path.join(tmp, "shapes.so")
    r = subprocess.run([exe, "compile", path, "-o", art], capture_output=True, text=True)
    record("Squeeze/Unsqueeze/Expand/ConstantOfShape/TopK compile", r.returncode == 0,
           r.stderr.strip()[-300:])
    if r.returncode != 0:
        return
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    x = rng.standard_normal((1, 3, 1, 4)).astype(np.float32)
    v = rng.standard_normal((3, 1)).astype(np.float32)
    t = rng.permutation(12).reshape(2, 6).astype(np.float32)  # distinct: no ties
    w = rng.standard_normal((7, 2)).astype(np.float32)
    cases = [([0], [0, 5], [2, 3, 5], [2, 3], 3, [3, 4], [2, 3]),
             ([-2], [-1, 1], [1, 3, 1], [0, 4], 0, [0, 7], [0, 1]),
             ([2], [3, 0], [4, 1, 7], [1, 1], 6, [7, 0], [1, 4])]
    for sq, usq, es, cs, k, sp, reps in cases:
        feeds = {"x": x, "sq": np.array(sq, np.int64), "usq": np.array(usq, np.int64), "v": v,
                 "es": np.array(es, np.int64), "cs": np.array(cs, np.int64), "t": t,
                 "k": np.array([k], np.int64), "w": w, "sp": np.array(sp, np.int64),
                 "reps": np.array(reps, np.int64)}
        inp, outp = os.path.join(tmp, "in.npz"), os.path.join(tmp, "out.npz")
        np.savez(inp, **feeds)
        r = subprocess.run([exe, "run", art, "--inputs", inp, "--outputs", outp],
                           capture_output=True, text=True)
        name = (f"squeeze {sq} unsqueeze {usq} expand {es} constant {cs} topk {k} split {sp} "
                f"tile {reps}")
        if r.returncode != 0:
            record(name, False, r.stderr.strip()[-300:])
            continue
        with np.load(outp) as f:
            got = {k: f[k] for k in f.files}
        want = dict(zip(["s", "u", "es_out", "c", "tv", "p1", "p2", "tl", "ti"],
                        sess.run(None, feeds)))
        # Squeeze, Unsqueeze, Expand, ConstantOfShape, TopK, Split, Tile only move values: exact;
        # es_out is a Sigmoid of the expanded values (ingot's and ORT's differ by an ulp).
        sig = "es_out"
        ok, msg = parity.compare_outputs({sig: want.pop(sig)}, {sig: got.pop(sig)}, 1e-5, 1e-6)
        if ok:
            ok, msg = parity.compare_outputs(want, got, 0, 0)
        record(name, ok, "" if ok else msg)
    for sq, usq, es, cs, k, sp, dim in (([1], [0, 1], [2, 3, 5], [2, 3], 1, [3, 4], "s.v0"),
                                        ([0], [0, 0], [2, 3, 5], [2, 3], 1, [3, 4], "u.v0"),
                                        ([0], [0, 1], [2, 4, 5], [2, 3], 1, [3, 4], "e.v1"),
                                        ([0], [0, 1], [2, 3, 5], [2, -1], 1, [3, 4], "c.v1"),
                                        ([0], [0, 1], [2, 3, 5], [2, 3], 7, [3, 4], "tv.v1"),
                                        ([0], [0, 1], [2, 3, 5], [2, 3], 1, [3, 3], "p1.v0"),
                                        ([0], [0, 1], [2, 3, 5], [2, 3], 1, [3, 4], "tl.v1")):
        inp = os.path.join(tmp, "bad.npz")
        np.savez(inp, x=x, sq=np.array(sq, np.int64), usq=np.array(usq, np.int64), v=v,
                 es=np.array(es, np.int64), cs=np.array(cs, np.int64), t=t,
                 k=np.array([k], np.int64), w=w, sp=np.array(sp, np.int64),
                 reps=np.array([1, -1] if dim == "tl.v1" else [1, 1], np.int64))
        r = subprocess.run([exe, "run", art, "--inputs", inp], capture_output=True, text=True)
        lines = r.stderr.strip().splitlines()
        record(f"invalid values refused naming {dim}",
               r.returncode != 0 and len(lines) == 1 and f"'{dim}" in lines[0], r.stderr.strip())


def check_slice(exe, tmp, rng):
    """Slice with starts, ends, axes and steps all given at run time, and with only the ends."""
    import onnxruntime as ort
    for given in ("all", "ends"):
        ins = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 6])]
        inits = []
        for name in ("starts", "ends", "axes", "steps"):
            if given == "all" or name == "ends":
                ins.append(helper.make_tensor_value_info(name, TensorProto.INT64, [2]))
            else:
                inits.append(numpy_helper.from_array(
                    np.array({"starts": [1, 0], "axes": [0, 1], "steps": [1, 2]}[name],
                             np.int64), name))
        g = helper.make_graph(
            [helper.make_node("Slice", ["x", "starts", "ends", "axes", "steps"], ["y"]),
             helper.make_node("Neg", ["y"], ["z"])], "g", ins,
            [helper.make_tensor_value_info("z", TensorProto.FLOAT, None)], inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
        m.ir_version = 8
        path = os.path.join(tmp, f"slice_{given}.onnx")
        onnx.save(m, path)
        art = path.replace(".onnx", ".so")
        r = subprocess.run([exe, "compile", path, "-o", art], capture_output=True, text=True)
        record(f"Slice ({given} at run time) compiles", r.returncode == 0, r.stderr.strip()[-300:])
        if r.returncode != 0:
            continue
        sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        x = rng.standard_normal((4, 6)).astype(np.float32)
        cases = ([([1, 0], [3, 6], [0, 1], [1, 2]), ([-1, 5], [-5, -7], [0, 1], [-1, -2]),
                  ([0, 2], [100, 4], [-1, -2], [3, 1]), ([3, 0], [1, 6], [0, 1], [1, 1])]
                 if given == "all" else [([0], [3, 5]), ([0], [-1, 100]), ([0], [0, 0])])
        bad = []
        for case in cases:
            feeds = {"x": x}
            if given == "all":
                for name, vals in zip(("starts", "ends", "axes", "steps"), case):
                    feeds[name] = np.array(vals, np.int64)
            else:
                feeds["ends"] = np.array(case[1], np.int64)
            inp, outp = os.path.join(tmp, "in.npz"), os.path.join(tmp, "out.npz")
            np.savez(inp, **feeds)
            r = subprocess.run([exe, "run", art, "--inputs", inp, "--outputs", outp],
                               capture_output=True, text=True)
            if r.returncode != 0:
                bad.append(f"{case}: {r.stderr.strip()}")
                continue
            got, want = np.load(outp)["z"], sess.run(None, feeds)[0]
            ok, msg = parity.compare_outputs({"z": want}, {"z": got}, 0, 0)  # a copy: exact
            if not ok:
                bad.append(f"{case}: {msg}")
        record(f"Slice ({given} at run time): {len(cases)} value sets on one artifact", not bad,
               "; ".join(bad))
        if given == "all":
            inp = os.path.join(tmp, "bad.npz")
            np.savez(inp, x=x, starts=np.array([0, 0], np.int64), ends=np.array([2, 2], np.int64),
                     axes=np.array([0, 1], np.int64), steps=np.array([1, 0], np.int64))
            r = subprocess.run([exe, "run", art, "--inputs", inp], capture_output=True, text=True)
            lines = r.stderr.strip().splitlines()
            record("Slice step 0 refused", r.returncode != 0 and len(lines) == 1 and "'y." in lines[0],
                   r.stderr.strip())


def check_pad(exe, tmp, rng):
    """Pad with its pads (and axes, constant_value) given at run time, in every mode, negative
    pads cropping, on a symbolic batch; pads that leave a dim negative and repeated axes are
    refused."""
    import onnxruntime as ort
    for mode in ("constant", "edge", "reflect", "wrap"):
        for with_axes in (False, True):
            ins = [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 5, 6]),
                   helper.make_tensor_value_info("pads", TensorProto.INT64,
                                                 [4 if with_axes else 6])]
            names = ["x", "pads"]
            if mode == "constant":
                ins.append(helper.make_tensor_value_info("v", TensorProto.FLOAT, []))
                names.append("v")
            if with_axes:
                ins.append(helper.make_tensor_value_info("axes", TensorProto.INT64, [2]))
                names += [""] * (3 - len(names)) + ["axes"]
            g = helper.make_graph(
                [helper.make_node("Pad", names, ["y"], mode=mode),
                 helper.make_node("Relu", ["y"], ["z"])], "g", ins,
                [helper.make_tensor_value_info("z", TensorProto.FLOAT, None)])
            m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 19)])
            m.ir_version = 9
            tag = f"pad_{mode}_{'axes' if with_axes else 'all'}"
            path = os.path.join(tmp, f"{tag}.onnx")
            onnx.save(m, path)
            art = path.replace(".onnx", ".so")
            r = subprocess.run([exe, "compile", path, "-o", art, "--dim-bounds", "N:1..4"],
                               capture_output=True, text=True)
            record(f"Pad ({mode}, {'axes' if with_axes else 'all dims'} at run time) compiles",
                   r.returncode == 0, r.stderr.strip()[-300:])
            if r.returncode != 0:
                continue
            sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
            # (reflect needs pads below the dim; wrap and the others take any.)
            cases = ([[0, 1, 2, 1, 0, 3], [1, 0, -2, 0, 2, 0], [0, 0, 0, 0, 0, 0],
                      [2, 4, 5, 1, 3, 4]] if not with_axes else
                     [[1, 2, 3, 4], [-1, 0, 2, -3], [0, 4, 0, 5]])
            bad = []
            for n, pads in zip((2, 2 if mode == "reflect" else 1, 4, 3), cases):
                feeds = {"x": rng.standard_normal((n, 5, 6)).astype(np.float32),
                         "pads": np.array(pads, np.int64)}
                if mode == "constant":
                    feeds["v"] = np.array(0.75, np.float32)
                if with_axes:
                    feeds["axes"] = np.array([-1, 1] if n % 2 else [0, 2], np.int64)
                inp, outp = os.path.join(tmp, "in.npz"), os.path.join(tmp, "out.npz")
                np.savez(inp, **feeds)
                r = subprocess.run([exe, "run", art, "--inputs", inp, "--outputs", outp],
                                   capture_output=True, text=True)
                try:
                    want = sess.run(None, feeds)[0]
                except Exception:  # ORT refuses (reflect pads past the length): so must ingot
                    lines = r.stderr.strip().splitlines()
                    if r.returncode == 0 or len(lines) != 1 or "invalid" not in lines[0]:
                        bad.append(f"{pads}: ONNX Runtime refuses, ingot: {r.stderr.strip()}")
                    continue
                if r.returncode != 0:
                    bad.append(f"{pads}: {r.stderr.strip()}")
                    continue
                got = np.load(outp)["z"]
                ok, msg = parity.compare_outputs({"z": want}, {"z": got}, 0, 0)  # a copy: exact
                if not ok:
                    bad.append(f"{pads}: {msg}")
            record(f"Pad ({mode}, {'axes' if with_axes else 'all dims'}): {len(cases)} value sets "
                   "on one artifact match ONNX Runtime", not bad, "; ".join(bad))
            if mode == "constant" and not with_axes:
                for pads, what in (([0, -3, 0, 0, -3, 0], "a negative dim"),):
                    feeds = {"x": rng.standard_normal((2, 5, 6)).astype(np.float32),
                             "pads": np.array(pads, np.int64), "v": np.array(0, np.float32)}
                    inp = os.path.join(tmp, "bad.npz")
                    np.savez(inp, **feeds)
                    r = subprocess.run([exe, "run", art, "--inputs", inp], capture_output=True,
                                       text=True)
                    lines = r.stderr.strip().splitlines()
                    record(f"Pad pads giving {what} refused with one line",
                           r.returncode != 0 and len(lines) == 1 and "'y.v1'" in lines[0]
                           and "invalid" in lines[0],
                           r.stderr.strip())
            if mode == "constant" and with_axes:
                feeds = {"x": rng.standard_normal((2, 5, 6)).astype(np.float32),
                         "pads": np.array([1, 1, 1, 1], np.int64), "v": np.array(0, np.float32),
                         "axes": np.array([1, -2], np.int64)}
                inp = os.path.join(tmp, "bad.npz")
                np.savez(inp, **feeds)
                r = subprocess.run([exe, "run", art, "--inputs", inp], capture_output=True,
                                   text=True)
                lines = r.stderr.strip().splitlines()
                record("Pad with a repeated axis refused with one line",
                       r.returncode != 0 and len(lines) == 1 and "invalid" in lines[0],
                       r.stderr.strip())


def check_static_pad_crops(exe, tmp, rng):
    """Constant pads that crop one side of a dim and pad the other: wrap and reflect read the
    cropped region, as ONNX Runtime does (the same nest as run-time pads)."""
    import onnxruntime as ort
    bad = []
    for mode in ("wrap", "reflect", "edge", "constant"):
        g = helper.make_graph(
            [helper.make_node("Pad", ["x", "pads"], ["y"], mode=mode)], "g",
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 5, 6])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
            [numpy_helper.from_array(np.array([0, -2, 2, 1, 1, -3], np.int64), "pads")])
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 19)])
        m.ir_version = 9
        path = os.path.join(tmp, f"static_pad_{mode}.onnx")
        onnx.save(m, path)
        art = path.replace(".onnx", ".so")
        r = subprocess.run([exe, "compile", path, "-o", art], capture_output=True, text=True)
        if r.returncode != 0:
            bad.append(f"{mode}: {r.stderr.strip()}")
            continue
        x = rng.standard_normal((3, 5, 6)).astype(np.float32)
        inp, outp = os.path.join(tmp, "in.npz"), os.path.join(tmp, "out.npz")
        np.savez(inp, x=x)
        r = subprocess.run([exe, "run", art, "--inputs", inp, "--outputs", outp],
                           capture_output=True, text=True)
        want = ort.InferenceSession(path, providers=["CPUExecutionProvider"]).run(
            None, {"x": x})[0]
        got = np.load(outp)["y"] if r.returncode == 0 else None
        ok, msg = (False, r.stderr.strip()) if got is None else \
            parity.compare_outputs({"y": want}, {"y": got}, 0, 0)  # Pad copies: exact
        if not ok:
            bad.append(f"{mode}: {msg}")
    record("Pad with constant pads cropping one side and padding the other (4 modes) matches "
           "ONNX Runtime", not bad, "; ".join(bad))


def check_center_crop_pad(exe, tmp, rng):
    """CenterCropPad with its shape given at run time: crops, pads and both, odd differences (the
    leading side gets the floor), with and without axes; a negative size is refused."""
    import onnxruntime as ort
    for axes in (None, [-1, 1]):
        attrs = {} if axes is None else {"axes": axes}
        g = helper.make_graph(
            [helper.make_node("CenterCropPad", ["x", "shape"], ["y"], **attrs),
             helper.make_node("Neg", ["y"], ["z"])], "g",
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 5, 6]),
             helper.make_tensor_value_info("shape", TensorProto.INT64, [3 if axes is None else 2])],
            [helper.make_tensor_value_info("z", TensorProto.FLOAT, None)])
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
        m.ir_version = 8
        what = "all dims" if axes is None else f"axes {axes}"
        art = compile_model(exe, m, os.path.join(tmp, f"ccp_{axes is None}.onnx"),
                            f"CenterCropPad ({what}, shape at run time)")
        if art is None:
            continue
        sess = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
        cases = ([[3, 2, 9], [1, 8, 1], [3, 5, 6], [4, 0, 3]] if axes is None else
                 [[3, 8], [9, 2], [6, 5], [1, 1]])
        x = rng.standard_normal((3, 5, 6)).astype(np.float32)
        feeds = [{"x": x, "shape": np.array(shape, np.int64)} for shape in cases]
        bad = mismatches(exe, art, sess, feeds, tmp, lambda f: f"{f['shape'].tolist()}",
                         rtol=1e-5, atol=1e-8)
        record(f"CenterCropPad ({what}): {len(cases)} shapes on one artifact match ONNX Runtime",
               not bad, "; ".join(bad))
        if axes is None:
            ok, err = refused(exe, art, {"x": x, "shape": np.array([3, -1, 6], np.int64)}, tmp,
                              "'y.v1'")
            record("CenterCropPad with a negative size refused with one line", ok, err)


def check_affine_grid(exe, tmp, rng):
    """AffineGrid with its size given at run time (2-D and 3-D, align_corners 0 and 1), several
    sizes on one artifact, a size of 1 among them without align_corners; a size[0] that is not
    theta's batch is refused. (With align_corners a dim of 1 has no agreed grid: the ONNX
    reference gives -1, as ingot does, PyTorch 0 and ONNX Runtime 1; it is left out.)"""
    import onnxruntime as ort
    for r, align in ((2, 0), (2, 1), (3, 1)):
        g = helper.make_graph(
            [helper.make_node("AffineGrid", ["theta", "size"], ["grid"], align_corners=align)],
            "g", [helper.make_tensor_value_info("theta", TensorProto.FLOAT, [2, r, r + 1]),
                  helper.make_tensor_value_info("size", TensorProto.INT64, [r + 2])],
            [helper.make_tensor_value_info("grid", TensorProto.FLOAT, None)])
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 20)])
        m.ir_version = 9
        art = compile_model(exe, m, os.path.join(tmp, f"affine_{r}_{align}.onnx"),
                            f"AffineGrid ({r}-D, align_corners {align}, size at run time)")
        if art is None:
            continue
        sess = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
        theta = rng.standard_normal((2, r, r + 1)).astype(np.float32)
        sizes = ([[2, 3, 4, 5], [2, 1, 1, 7], [2, 3, 6, 1]] if r == 2 else
                 [[2, 1, 3, 4, 5], [2, 2, 1, 2, 3]])
        if align:
            sizes = [sz for sz in sizes if min(sz[2:]) > 1] + [[2] * (r + 2)]
        feeds = [{"theta": theta, "size": np.array(size, np.int64)} for size in sizes]
        bad = mismatches(exe, art, sess, feeds, tmp, lambda f: f"{f['size'].tolist()}",
                         rtol=1e-5, atol=1e-5)
        record(f"AffineGrid ({r}-D, align_corners {align}): {len(sizes)} sizes on one artifact "
               "match ONNX Runtime", not bad, "; ".join(bad))
        if r == 2 and align == 0:
            ok, err = refused(exe, art, {"theta": theta, "size": np.array([3, 3, 4, 5], np.int64)},
                              tmp, "invalid")
            record("AffineGrid with size[0] other than theta's batch refused with one line", ok,
                   err)


def check_max_unpool(exe, tmp, rng):
    """MaxUnpool with its output_shape given at run time: the unpooled 4x4 padded to several
    shapes on one artifact; a shape below the unpooled size, or of other channels, is refused."""
    import onnxruntime as ort
    g = helper.make_graph(
        [helper.make_node("MaxUnpool", ["x", "i", "shape"], ["y"], kernel_shape=[2, 2],
                          strides=[2, 2])], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 2, 2]),
         helper.make_tensor_value_info("i", TensorProto.INT64, [1, 2, 2, 2]),
         helper.make_tensor_value_info("shape", TensorProto.INT64, [4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 11)])
    m.ir_version = 8
    art = compile_model(exe, m, os.path.join(tmp, "unpool.onnx"),
                        "MaxUnpool (output_shape at run time)")
    if art is None:
        return
    x = rng.standard_normal((1, 2, 2, 2)).astype(np.float32)
    i = np.array([0, 3, 9, 14, 17, 18, 28, 31], np.int64).reshape(1, 2, 2, 2)
    feeds = [{"x": x, "i": i, "shape": np.array(s, np.int64)}
             for s in ([1, 2, 4, 4], [1, 2, 5, 5], [1, 2, 4, 7], [1, 2, 6, 4])]
    # Padded shapes: ONNX Runtime reads the indices as offsets into the padded output, the ONNX
    # reference (whose node-test data ingot matches) into the unpooled one, so the reference
    # evaluator is the peer there; ONNX Runtime where the two agree (no padding).
    from onnx.reference import ReferenceEvaluator

    class Reference:
        def __init__(self, model):
            self.ev = ReferenceEvaluator(model)

        def get_outputs(self):
            return sess.get_outputs()

        def run(self, _names, feed):
            return self.ev.run(None, feed)

    sess = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    bad = mismatches(exe, art, sess, feeds[:1], tmp, lambda f: f"shape {f['shape'].tolist()}")
    bad += mismatches(exe, art, Reference(m), feeds[1:], tmp,
                      lambda f: f"shape {f['shape'].tolist()}")
    record(f"MaxUnpool: {len(feeds)} output shapes on one artifact match ONNX Runtime (unpadded) "
           "and the ONNX reference (padded)", not bad, "; ".join(bad))
    ok, err = refused(exe, art, {"x": x, "i": i, "shape": np.array([1, 2, 3, 4], np.int64)}, tmp,
                      "'y.v2'")
    record("MaxUnpool with an output_shape below the unpooled size refused with one line", ok, err)
    ok, err = refused(exe, art, {"x": x, "i": i, "shape": np.array([1, 3, 4, 4], np.int64)}, tmp,
                      "'y.v1'")
    record("MaxUnpool with an output_shape of other channels refused with one line", ok, err)


def check_col2im(exe, tmp, rng):
    """Col2Im with its image_shape and block_shape given at run time."""
    import onnxruntime as ort
    cases = [  # (rank, attrs, [(channels, image, block)])
        (2, {}, [(3, [4, 5], [2, 2]), (2, [4, 5], [3, 2]), (6, [4, 5], [1, 1])]),
        (2, {"strides": [2, 1], "dilations": [1, 2], "pads": [1, 0, 1, 2]},
         [(2, [5, 3], [2, 2]), (4, [5, 3], [3, 1])]),
        (1, {"strides": [3]}, [(2, [9], [2]), (2, [6], [3])]),
        (3, {}, [(2, [3, 4, 3], [2, 2, 2]), (8, [4, 5, 3], [1, 1, 1])]),
    ]

    def columns(attrs, image, block):  # x's dims: C * prod(block) and the block grid's size
        r = len(image)
        pads = attrs.get("pads", [0] * 2 * r)
        grid = 1
        for d in range(r):
            span = attrs.get("dilations", [1] * r)[d] * (block[d] - 1) + 1
            grid *= (image[d] + pads[d] + pads[r + d] - span) // attrs.get("strides", [1] * r)[d] + 1
        return int(np.prod(block)), grid
    for rank, attrs, shapes in cases:
        g = helper.make_graph(
            [helper.make_node("Col2Im", ["x", "image", "block"], ["y"], **attrs)], "g",
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, "C", "L"]),
             helper.make_tensor_value_info("image", TensorProto.INT64, [rank]),
             helper.make_tensor_value_info("block", TensorProto.INT64, [rank])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
        m.ir_version = 8
        what = f"Col2Im {rank}-D {attrs or ''} (image_shape and block_shape at run time)"
        art = compile_model(exe, m, os.path.join(tmp, f"col2im{rank}{len(attrs)}.onnx"), what,
                            ["--dim-bounds", "C:1..64 L:1..64"])
        if art is None:
            continue
        feeds = []
        for channels, image, block in shapes:
            size, grid = columns(attrs, image, block)
            feeds.append({"x": rng.standard_normal((1, channels * size, grid)).astype(np.float32),
                          "image": np.array(image, np.int64), "block": np.array(block, np.int64)})
        sess = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
        bad = mismatches(exe, art, sess, feeds, tmp,
                         lambda f: f"image {f['image'].tolist()} block {f['block'].tolist()}")
        record(f"{what}: {len(feeds)} shapes on one artifact match ONNX Runtime", not bad,
               "; ".join(bad))
        if rank == 2 and not attrs:
            x = rng.standard_normal((1, 12, 12)).astype(np.float32)
            ok, err = refused(exe, art, {"x": x, "image": np.array([5, 5], np.int64),
                                         "block": np.array([2, 2], np.int64)}, tmp, "'y.")
            record("Col2Im whose block grid is not the column count refused with one line", ok,
                   err)
            ok, err = refused(exe, art, {"x": x, "image": np.array([4, 5], np.int64),
                                         "block": np.array([5, 1], np.int64)}, tmp, "'y.")
            record("Col2Im whose block size does not divide the channels refused with one line",
                   ok, err)


def main():
    import onnxruntime as ort
    ap = argparse.ArgumentParser()
    ap.add_argument("--ingot", required=True)
    exe = os.path.abspath(ap.parse_args().ingot)
    rng = np.random.default_rng(3)
    with tempfile.TemporaryDirectory() as tmp:
        for batch, extra in ((2, []), ("N", ["--dim-bounds", "N:1..8"])):
            path = os.path.join(tmp, f"m_{batch}.onnx")
            onnx.save(model(batch), path)
            art = os.path.join(tmp, f"m_{batch}.so")
            r = subprocess.run([exe, "compile", path, "-o", art, *extra], capture_output=True,
                               text=True)
            record(f"batch {batch}: compiles without --specialize-inputs", r.returncode == 0,
                   r.stderr.strip()[-300:])
            if r.returncode != 0:
                continue
            sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
            cases = [(2, [2, 12, 1], [-1, 4]), (2, [0, -1, 2], [6, 4]), (2, [4, 3, 2], [-1, 4]),
                     (2, [24, 1, 1], [-1, 4]), (2, [1, 1, -1], [6, -1])]
            if batch == "N":
                cases += [(5, [5, -1, 6], [-1, 4]), (1, [1, 3, 4], [3, 4]), (8, [0, 0, 4], [-1, 4])]
            for n, shape, shape2 in cases:
                feeds = {"x": rng.standard_normal((n, 3, 4)).astype(np.float32),
                         "shape": np.array(shape, np.int64), "shape2": np.array(shape2, np.int64)}
                inp, outp = os.path.join(tmp, "in.npz"), os.path.join(tmp, "out.npz")
                np.savez(inp, **feeds)
                r = subprocess.run([exe, "run", art, "--inputs", inp, "--outputs", outp],
                                   capture_output=True, text=True)
                name = f"batch {batch}: x [{n},3,4] shape {shape} shape2 {shape2}"
                if r.returncode != 0:
                    record(name, False, r.stderr.strip()[-300:])
                    continue
                with np.load(outp) as f:
                    got = {k: f[k] for k in f.files}
                want = dict(zip(["y", "z"], sess.run(None, feeds)))
                ok, msg = parity.compare_outputs(want, got, 1e-5, 1e-5)
                record(name, ok, "" if ok else msg)
            for shape, shape2, dim, why in (
                    ([5, 5, 1], [-1, 4], "r.v", "sizes do not multiply out"),
                    ([-1, -1, 24], [-1, 4], "r.v", "two -1"),
                    ([2, -3, 4], [-1, 4], "r.v", "an entry below -1"),
                    ([2, 12, 1], [0, -1], "m.v", "a MatMul K that is not W's 4")):
                feeds = {"x": np.zeros((2, 3, 4), np.float32), "shape": np.array(shape, np.int64),
                         "shape2": np.array(shape2, np.int64)}
                inp = os.path.join(tmp, "bad.npz")
                np.savez(inp, **feeds)
                r = subprocess.run([exe, "run", art, "--inputs", inp], capture_output=True,
                                   text=True)
                lines = r.stderr.strip().splitlines()
                ok = r.returncode != 0 and len(lines) == 1 and dim in lines[0]
                record(f"batch {batch}: shape {shape} shape2 {shape2} ({why}) is refused", ok,
                       r.stderr.strip())
        check_reductions(exe, tmp, rng)
        check_shape_ops(exe, tmp, rng)
        check_slice(exe, tmp, rng)
        check_pad(exe, tmp, rng)
        check_static_pad_crops(exe, tmp, rng)
        check_center_crop_pad(exe, tmp, rng)
        check_affine_grid(exe, tmp, rng)
        check_max_unpool(exe, tmp, rng)
        check_col2im(exe, tmp, rng)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
