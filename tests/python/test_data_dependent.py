#!/usr/bin/env python3
"""ctest wrapper: outputs whose size the input *data* decides (issue 17, item 2) against ONNX
Runtime.

NonZero and Compress compile without --specialize-inputs. The artifact sizes the data-dependent
dim at its bound before the run (every element; every slice along Compress's axis), a counting
kernel writes the true size during the run, and the kernels after it run over that size; the
runtime reports the true output shape. Each model is compiled once and run on several inputs,
with a symbolic batch too (--dim-bounds), and its outputs and their shapes compared with ONNX
Runtime's:
  - NonZero of a graph input: zeros here and there, none, all;
  - the masking idiom GatherND(x, Transpose(NonZero(x > 0))) and a sum of what it keeps, so that
    kernels downstream of the count loop over it;
  - Compress along axis 0, along axis 1 and with no axis, with a run-time condition, one
    shorter than the axis among them, followed by an elementwise op;
  - Unique, sorted and in order of first occurrence, with no axis and along axes 0, 1 and -1,
    with all four outputs or Y alone, on inputs with many repeats, none and all equal, and a
    symbolic dim;
  - NonMaxSuppression with corner and centre boxes, a symbolic box count, run-time limits and
    thresholds (a limit of 0 included) and without its optional score threshold, the selected
    rows then gathered from the scores (GatherND) so that a kernel downstream reads the count.
Targets that cannot serve a data-dependent size (c) refuse it with one line.

Prints one line per check and `N passed, N failed`; exits 1 on a failure.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import parity  # noqa: E402  (compare_outputs, the one output checker)

results = []


def record(name, ok, detail=""):
    results.append(ok)
    print(f"{'PASS' if ok else 'FAIL'} {name}{': ' + detail if detail else ''}", flush=True)


def make(nodes, inputs, outputs, opset=13):
    g = helper.make_graph(nodes, "g", inputs,
                          [helper.make_tensor_value_info(o, t, None) for o, t in outputs])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m


def non_zero_model():
    return make([helper.make_node("NonZero", ["x"], ["idx"]),
                 helper.make_node("Greater", ["x", "zero"], ["pos"]),
                 helper.make_node("NonZero", ["pos"], ["where"]),
                 helper.make_node("Transpose", ["where"], ["where_t"], perm=[1, 0]),
                 helper.make_node("GatherND", ["x", "where_t"], ["kept"]),
                 helper.make_node("ReduceSum", ["kept"], ["total"], keepdims=0)],
                [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 5]),
                 helper.make_tensor_value_info("zero", TensorProto.FLOAT, [])],
                [("idx", TensorProto.INT64), ("kept", TensorProto.FLOAT),
                 ("total", TensorProto.FLOAT)])


def compress_model(axis):
    attrs = {} if axis is None else {"axis": axis}
    return make([helper.make_node("Compress", ["x", "c"], ["y"], **attrs),
                 helper.make_node("Neg", ["y"], ["z"])],
                [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 6]),
                 helper.make_tensor_value_info("c", TensorProto.BOOL, ["L"])],
                [("z", TensorProto.FLOAT)])


def unique_model(axis, is_sorted, outputs):
    attrs = {"sorted": is_sorted}
    if axis is not None:
        attrs["axis"] = axis
    names = ["y", "indices", "inverse", "counts"][:outputs]
    types = [TensorProto.FLOAT] + [TensorProto.INT64] * 3
    return make([helper.make_node("Unique", ["x"], names, **attrs)],
                [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4])],
                list(zip(names, types)), opset=11)


def nms_model(center, with_threshold):
    ins = ["boxes", "scores", "max_out", "iou"] + (["thr"] if with_threshold else [])
    inputs = [helper.make_tensor_value_info("boxes", TensorProto.FLOAT, [2, "N", 4]),
              helper.make_tensor_value_info("scores", TensorProto.FLOAT, [2, 3, "N"]),
              helper.make_tensor_value_info("max_out", TensorProto.INT64, [1]),
              helper.make_tensor_value_info("iou", TensorProto.FLOAT, [1])]
    if with_threshold:
        inputs.append(helper.make_tensor_value_info("thr", TensorProto.FLOAT, [1]))
    return make([helper.make_node("NonMaxSuppression", ins, ["sel"], center_point_box=center),
                 helper.make_node("GatherND", ["scores", "sel"], ["picked"])],
                inputs, [("sel", TensorProto.INT64), ("picked", TensorProto.FLOAT)], opset=11)


def compile_model(exe, tmp, name, m, extra=()):
    path = os.path.join(tmp, f"{name}.onnx")
    onnx.save(m, path)
    art = path.replace(".onnx", ".so")
    r = subprocess.run([exe, "compile", path, "-o", art, *extra], capture_output=True, text=True)
    record(f"{name} compiles", r.returncode == 0, r.stderr.strip()[-300:])
    return (path, art) if r.returncode == 0 else (path, None)


def compare_runs(exe, tmp, name, path, art, feed_sets):
    import onnxruntime as ort
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    names = [o.name for o in sess.get_outputs()]
    bad = []
    for feeds in feed_sets:
        inp, outp = os.path.join(tmp, "in.npz"), os.path.join(tmp, "out.npz")
        np.savez(inp, **feeds)
        r = subprocess.run([exe, "run", art, "--inputs", inp, "--outputs", outp],
                           capture_output=True, text=True)
        shapes = {k: v.shape for k, v in feeds.items()}
        if r.returncode != 0:
            bad.append(f"{shapes}: {r.stderr.strip()}")
            continue
        with np.load(outp) as f:
            got = {k: f[k] for k in f.files}
        ok, msg = parity.compare_outputs(dict(zip(names, sess.run(None, feeds))), got, 1e-5, 1e-5)
        if not ok:
            bad.append(f"{shapes}: {msg}")
    record(f"{name}: {len(feed_sets)} inputs on one artifact match ONNX Runtime", not bad,
           "; ".join(bad[:3]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ingot", required=True)
    args = ap.parse_args()
    exe = os.path.abspath(args.ingot)
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        path, art = compile_model(exe, tmp, "nonzero", non_zero_model(),
                                  ["--dim-bounds", "N:1..8"])
        if art:
            feeds = []
            for n, density in ((3, 0.5), (8, 0.3), (1, 0.0), (5, 1.0), (8, 0.0), (2, 0.9)):
                x = rng.standard_normal((n, 5)).astype(np.float32)
                x[rng.random((n, 5)) >= density] = 0
                feeds.append({"x": x, "zero": np.array(0, np.float32)})
            compare_runs(exe, tmp, "NonZero and the masking idiom", path, art, feeds)
        for axis in (0, 1, -1, None):
            path, art = compile_model(exe, tmp, f"compress_{axis}", compress_model(axis),
                                      ["--dim-bounds", "L:1..30"])
            if not art:
                continue
            feeds = []
            x = rng.standard_normal((4, 6)).astype(np.float32)
            for length, p in ((4 if axis == 0 else 6, 0.5), (2, 1.0), (3, 0.0), (24, 0.4),
                              (30, 0.7)):
                if axis is not None and length > (4 if axis == 0 else 6):
                    continue  # ORT refuses a condition longer than the axis
                feeds.append({"x": x, "c": rng.random(length) < p})
            compare_runs(exe, tmp, f"Compress (axis {axis})", path, art, feeds)
        for axis, is_sorted, outputs in ((None, 1, 4), (None, 0, 4), (0, 1, 4), (1, 0, 4),
                                         (-1, 1, 4), (None, 1, 1), (0, 0, 1)):
            name = f"unique_axis{axis}_sorted{is_sorted}_{outputs}"
            path, art = compile_model(exe, tmp, name, unique_model(axis, is_sorted, outputs),
                                      ["--dim-bounds", "N:1..6"])
            if not art:
                continue
            feeds = []
            for n, levels in ((6, 3), (1, 5), (4, 1), (5, 100)):
                x = rng.integers(0, levels, (n, 4)).astype(np.float32)
                if axis == 0:  # repeat whole rows too
                    x[n // 2:] = x[:n - n // 2]
                feeds.append({"x": x})
            compare_runs(exe, tmp, f"Unique (axis {axis}, sorted {is_sorted}, {outputs} outputs)",
                         path, art, feeds)
        for center, with_threshold in ((0, True), (1, True), (0, False)):
            name = f"nms_center{center}_threshold{int(with_threshold)}"
            path, art = compile_model(exe, tmp, name, nms_model(center, with_threshold),
                                      ["--dim-bounds", "N:1..40"])
            if not art:
                continue
            feeds = []
            for n, max_out, iou, thr in ((40, 5, 0.5, 0.2), (7, 100, 0.3, 0.0), (1, 3, 0.5, 0.9),
                                         (25, 0, 0.5, 0.1), (40, 40, 0.0, 0.5)):
                lo = rng.random((2, n, 2)).astype(np.float32)
                size = (0.05 + 0.4 * rng.random((2, n, 2))).astype(np.float32)
                boxes = np.concatenate([lo, lo + size] if center == 0 else [lo, size], axis=2)
                if center == 0:  # corners in either order
                    flip = rng.random((2, n)) < 0.3
                    boxes[flip] = boxes[flip][:, [2, 3, 0, 1]]
                f = {"boxes": boxes, "scores": rng.random((2, 3, n)).astype(np.float32),
                     "max_out": np.array([max_out], np.int64),
                     "iou": np.array([iou], np.float32)}
                if with_threshold:
                    f["thr"] = np.array([thr], np.float32)
                feeds.append(f)
            compare_runs(exe, tmp, f"NonMaxSuppression (center_point_box {center}, "
                         f"{'with' if with_threshold else 'no'} score threshold)", path, art, feeds)
        # The c target cannot serve a size decided during the run: one line.
        p = os.path.join(tmp, "nz_static.onnx")
        m = make([helper.make_node("NonZero", ["x"], ["y"])],
                 [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 4])],
                 [("y", TensorProto.INT64)])
        onnx.save(m, p)
        r = subprocess.run([exe, "compile", p, "--target", "c", "-o", p + ".c"],
                           capture_output=True, text=True)
        lines = r.stderr.strip().splitlines()
        record("the c target refuses NonZero with one line",
               r.returncode != 0 and len(lines) == 1 and "internal" not in lines[0]
               and not os.path.exists(p + ".c"), r.stderr.strip())
    failed = results.count(False)
    print(f"{len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
