#!/usr/bin/env python3
"""ctest wrapper: the products the dense matmul rule packs (issue 46: lowering describes the
product as one block, the schedule decides B's panels, A's packing and the tiles), against ONNX
Runtime.

Each case is a one-product model (some with a bias and a Relu after it, which the graph fuses
into the product) at shapes with tails: rows past the register tile (M = 13), columns past the
panel width (N = 70), K not a multiple of anything. Cases:
- MatMul, constant B, A of rank 3 (its leading dims are the rows), + bias + Relu;
- Gemm transB = 1 with a bias row (the transposed constant B in panels);
- Gemm beta = 0.5 with a bias row; Gemm alpha = 0.5 (fold_gemm_alpha scales B);
- MatMul with a run-time 2-D B (packed in the kernel);
- batched MatMul, both run-time, rank 4 (batch dims flattened), and with B read through a
  Transpose that fold_transpose_matmul folds into the product (Q K^T);
- a batched product with A read through a Transpose (A packed from its transposed view);
- attention's views that move the heads dim ([1, seq, heads, dim] read as [1, heads, seq, dim])
  for B and for A (not flattened), with batch 1 and with batch 2 (two batch dims of extent > 1,
  which the rule fuses into one loop);
- A read through a Transpose with a constant 2-D B (its leading dims batches sharing B);
- x x^T, one tensor as both operands;
- one row (M = 1: no A packing).
For each: the compile must report the rule dense_matmul for the product's kernel (`--dump
traces`), and every output must match ORT per element (scripts/parity.py compare_outputs,
rtol 1e-5, atol 1e-5 x the output's RMS). Prints one line per check and `N passed, N failed`;
exits 1 on a failure.
"""
import argparse
import os
import subprocess
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import parity  # noqa: E402  (compare_outputs, the one output checker)
import work_dirs  # noqa: E402

results = []
rng = np.random.default_rng(46)


def record(name, ok, detail=""):
    results.append(ok)
    print(f"{'PASS' if ok else 'FAIL'} {name}{': ' + detail if detail else ''}", flush=True)


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def model(nodes, inputs, consts, out_shape):
    g = helper.make_graph(
        nodes, "p",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, list(v.shape)) for n, v in inputs.items()],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, out_shape)],
        [numpy_helper.from_array(v, n) for n, v in consts.items()])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    return m


def cases():
    out = []
    a = {"a": f32(2, 13, 37)}
    out.append(("matmul constant B, rank-3 A, bias, relu",
                [helper.make_node("MatMul", ["a", "w"], ["p"]),
                 helper.make_node("Add", ["p", "bias"], ["q"]),
                 helper.make_node("Relu", ["q"], ["y"])],
                a, {"w": f32(37, 70), "bias": f32(70)}, [2, 13, 70]))
    out.append(("gemm transB with a bias row",
                [helper.make_node("Gemm", ["a", "w", "c"], ["y"], transB=1)],
                {"a": f32(13, 37)}, {"w": f32(70, 37), "c": f32(70)}, [13, 70]))
    out.append(("gemm beta 0.5",
                [helper.make_node("Gemm", ["a", "w", "c"], ["y"], beta=0.5)],
                {"a": f32(13, 37)}, {"w": f32(37, 70), "c": f32(1, 70)}, [13, 70]))
    out.append(("gemm alpha 0.5 (folded into the constant B)",
                [helper.make_node("Gemm", ["a", "w", "c"], ["y"], alpha=0.5, transB=1)],
                {"a": f32(13, 37)}, {"w": f32(70, 37), "c": f32(70)}, [13, 70]))
    out.append(("matmul run-time 2-D B",
                [helper.make_node("MatMul", ["a", "b"], ["y"])],
                {"a": f32(2, 13, 37), "b": f32(37, 70)}, {}, [2, 13, 70]))
    out.append(("batched rank 4, both run-time",
                [helper.make_node("MatMul", ["a", "b"], ["y"])],
                {"a": f32(2, 3, 13, 37), "b": f32(2, 3, 37, 70)}, {}, [2, 3, 13, 70]))
    out.append(("batched, B through a transpose (Q K^T)",
                [helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 1, 3, 2]),
                 helper.make_node("MatMul", ["q", "kt"], ["y"])],
                {"q": f32(2, 3, 13, 37), "k": f32(2, 3, 70, 37)}, {}, [2, 3, 13, 70]))
    out.append(("batched, A through a transpose",
                [helper.make_node("Transpose", ["a"], ["at"], perm=[0, 2, 1]),
                 helper.make_node("MatMul", ["at", "b"], ["y"])],
                {"a": f32(3, 37, 13), "b": f32(3, 37, 70)}, {}, [3, 13, 70]))
    out.append(("batched, B a view that moves the heads (P V)",
                [helper.make_node("Transpose", ["v"], ["vt"], perm=[0, 2, 1, 3]),
                 helper.make_node("MatMul", ["p", "vt"], ["y"])],
                {"p": f32(1, 3, 13, 37), "v": f32(1, 37, 3, 70)}, {}, [1, 3, 13, 70]))
    out.append(("batched, A a view that moves the heads",
                [helper.make_node("Transpose", ["q"], ["qt"], perm=[0, 2, 1, 3]),
                 helper.make_node("MatMul", ["qt", "k"], ["y"])],
                {"q": f32(1, 13, 3, 37), "k": f32(1, 3, 37, 70)}, {}, [1, 3, 13, 70]))
    out.append(("batch 2, B a view that moves the heads (two batch dims, fused)",
                [helper.make_node("Transpose", ["v"], ["vt"], perm=[0, 2, 1, 3]),
                 helper.make_node("MatMul", ["p", "vt"], ["y"])],
                {"p": f32(2, 3, 13, 37), "v": f32(2, 37, 3, 70)}, {}, [2, 3, 13, 70]))
    out.append(("A through a transpose, constant 2-D B (batches share B)",
                [helper.make_node("Transpose", ["a"], ["at"], perm=[1, 0, 2]),
                 helper.make_node("MatMul", ["at", "w"], ["y"])],
                {"a": f32(13, 2, 37)}, {"w": f32(37, 70)}, [2, 13, 70]))
    out.append(("x x^T (one tensor as both operands)",
                [helper.make_node("Transpose", ["x"], ["xt"], perm=[1, 0]),
                 helper.make_node("MatMul", ["x", "xt"], ["y"])],
                {"x": f32(13, 37)}, {}, [13, 13]))
    out.append(("one row",
                [helper.make_node("MatMul", ["a", "w"], ["y"])],
                {"a": f32(1, 300)}, {"w": f32(300, 45)}, [1, 45]))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ingot", required=True)
    args = ap.parse_args()
    exe = os.path.abspath(args.ingot)
    tmp = work_dirs.work_dir(exe, "dense_products")
    for k, (name, nodes, inputs, consts, out_shape) in enumerate(cases()):
        path = os.path.join(tmp, f"p{k}.onnx")
        onnx.save(model(nodes, inputs, consts, out_shape), path)
        ref = ort.InferenceSession(path, providers=["CPUExecutionProvider"]).run(None, inputs)[0]
        art, xs, ys = (os.path.join(tmp, f"p{k}{e}") for e in (".so", ".in.npz", ".out.npz"))
        np.savez(xs, **inputs)
        r = subprocess.run([exe, "compile", path, "-o", art, "--dump", "traces"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            record(name, False, "compile: " + r.stderr.strip())
            continue
        record(f"{name}: rule dense_matmul", "rule dense_matmul" in r.stdout,
               "; ".join(l for l in r.stdout.splitlines() if l.startswith("# kernel")))
        r = subprocess.run([exe, "run", art, "--inputs", xs, "--outputs", ys],
                           capture_output=True, text=True)
        if r.returncode != 0:
            record(name, False, "run: " + r.stderr.strip())
            continue
        ok, msg = parity.compare_outputs({"y": ref}, dict(np.load(ys)), 1e-5, atol_scale="rms",
                                         finite_ref=True)
        record(f"{name}: matches ORT", ok, msg)
    print(f"{sum(results)} passed, {len(results) - sum(results)} failed")
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()
