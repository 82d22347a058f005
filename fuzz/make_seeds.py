#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora into fuzz/corpus/<target>/: small ONNX models (one per
common op family, plus the bundled example), .npz archives (stored and deflated, several dtypes)
and .npy files, and, when --ingot is given, a compiled artifact of a two-node model.

Usage: fuzz/make_seeds.py [--ingot PATH]
"""
import argparse
import io
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "corpus"


def model(nodes, inputs, outputs, inits=(), opset=17):
    g = helper.make_graph(nodes, "seed", inputs, outputs, list(inits))
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])


def vi(name, shape, t=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, t, shape)


def onnx_seeds():
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array(rng.standard_normal((4, 3, 3, 3)).astype(np.float32), "w")
    yield "relu", model([helper.make_node("Relu", ["x"], ["y"])], [vi("x", [1, 4])], [vi("y", [1, 4])])
    yield "conv", model([helper.make_node("Conv", ["x", "w"], ["y"], pads=[1, 1, 1, 1])],
                        [vi("x", ["N", 3, 8, 8])], [vi("y", ["N", 4, 8, 8])], [w])
    m = numpy_helper.from_array(rng.standard_normal((8, 5)).astype(np.float32), "m")
    yield "matmul_softmax", model(
        [helper.make_node("MatMul", ["x", "m"], ["t"]), helper.make_node("Softmax", ["t"], ["y"], axis=-1)],
        [vi("x", [2, 8])], [vi("y", [2, 5])], [m])
    shape = numpy_helper.from_array(np.array([2, -1], np.int64), "s")
    yield "reshape_gather", model(
        [helper.make_node("Reshape", ["x", "s"], ["r"]),
         helper.make_node("Gather", ["r", "i"], ["y"], axis=1)],
        [vi("x", [2, 3, 4]), vi("i", [2], TensorProto.INT64)], [vi("y", [2, 2])], [shape])
    yield "reduce_concat", model(
        [helper.make_node("ReduceMean", ["x"], ["a"], axes=[1], keepdims=1),
         helper.make_node("Concat", ["a", "x"], ["y"], axis=1)],
        [vi("x", [2, 3])], [vi("y", [2, 4])], opset=13)
    example = HERE.parent / "examples" / "tiny_cnn.onnx"
    if example.exists():
        yield "tiny_cnn", onnx.load(str(example))


def npz_bytes(arrays, compressed):
    buf = io.BytesIO()
    (np.savez_compressed if compressed else np.savez)(buf, **arrays)
    return buf.getvalue()


def npy_bytes(a):
    buf = io.BytesIO()
    np.save(buf, a)
    return buf.getvalue()


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--ingot")
    args = ap.parse_args(argv)
    dirs = {t: CORPUS / t for t in ("onnx_import_fuzzer", "npz_fuzzer", "npy_lite_fuzzer",
                                     "artifact_loader_fuzzer")}
    for d in dirs.values():
        d.mkdir(parents=True, exist_ok=True)
    for name, m in onnx_seeds():
        (dirs["onnx_import_fuzzer"] / f"{name}.onnx").write_bytes(m.SerializeToString())
    arrays = {"x": np.arange(12, dtype=np.float32).reshape(3, 4),
              "ids": np.array([[1, 5, 7]], np.int64), "mask": np.array([True, False]),
              "h": np.array([0.5, -2], np.float16), "s": np.float64(3.5)}
    (dirs["npz_fuzzer"] / "stored.npz").write_bytes(npz_bytes(arrays, False))
    (dirs["npz_fuzzer"] / "deflated.npz").write_bytes(npz_bytes(arrays, True))
    for k, a in arrays.items():
        for t in ("npz_fuzzer", "npy_lite_fuzzer"):
            (dirs[t] / f"{k}.npy").write_bytes(npy_bytes(a))
    if args.ingot:
        with tempfile.TemporaryDirectory() as tmp:
            src = Path(tmp) / "seed.onnx"
            onnx.save(model([helper.make_node("Relu", ["x"], ["r"]),
                             helper.make_node("Add", ["r", "x"], ["y"])],
                            [vi("x", [4, 16])], [vi("y", [4, 16])]), str(src))
            out = dirs["artifact_loader_fuzzer"] / "relu_add.so"
            subprocess.run([args.ingot, "compile", str(src), "-o", str(out),
                            "--target", "llvm -mcpu=x86-64"], check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
