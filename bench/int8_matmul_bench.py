#!/usr/bin/env python3
"""MatMulInteger (uint8 A [128, 768] x int8 constant B, scalar zero point 113), the shapes of
BERT-base's products: ingot's 8-bit product (IntMatMul, rule int8_matmul; docs/int8.md) against
ONNX Runtime on the same file. 2 threads; --rounds alternating rounds of 30 calls per side (ingot
`run --print-time` median, ORT's median per round). Outputs: ingot checked against numpy's int64
product at rtol = atol = 0 by scripts/parity.py's compare_outputs; ORT's largest distance from it
printed (its uint8 x int8 sums
saturate without VNNI). Writes the record to docs/perf-runs/int8_matmulinteger_<isa>-<date>.txt.

Usage: bench/int8_matmul_bench.py [--ingot PATH] [--rounds 5] [--workdir DIR]
"""
import argparse
import datetime
import os
import subprocess
import sys
import time

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import parity  # noqa: E402  (compare_outputs, the one output checker)
sys.path.insert(0, os.path.join(ROOT, "bench"))
import model_bench  # noqa: E402  (default_ingot)


def make(workdir, name, m, k, n):
    rng = np.random.default_rng(0)
    b = rng.integers(-127, 128, (k, n)).astype(np.int8)
    g = helper.make_graph(
        [helper.make_node("MatMulInteger", ["a", "b", "az"], ["y"])], name,
        [helper.make_tensor_value_info("a", TensorProto.UINT8, [m, k])],
        [helper.make_tensor_value_info("y", TensorProto.INT32, [m, n])],
        [numpy_helper.from_array(b, "b"), numpy_helper.from_array(np.array(113, np.uint8), "az")])
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    base = os.path.join(workdir, name)
    onnx.save(model, base + ".onnx")
    a = rng.integers(0, 256, (m, k)).astype(np.uint8)
    np.savez(base + ".in.npz", a=a)
    np.savez(base + ".ref.npz", y=((a.astype(np.int64) - 113) @ b.astype(np.int64)).astype(np.int32))
    return base


def ingot_median(ingot, so, inputs):
    out = subprocess.run([ingot, "run", so, "--inputs", inputs, "--repeat", "30",
                          "--num-threads", "2", "--print-time"], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    head = next(i for i, line in enumerate(out) if "median" in line)
    return float(out[head + 1].split()[1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ingot", default=model_bench.default_ingot())
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--workdir", default="/tmp/ingot-int8-bench")
    args = ap.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    isa = subprocess.run([args.ingot, "device-info"], capture_output=True, text=True).stdout
    isa = "avx512" if "avx512" in isa else "avx2"
    lines = [f"# command: {' '.join(sys.argv)}", f"# onnxruntime {ort.__version__}, 2 threads, "
             f"{args.rounds} alternating rounds"]
    for name, m, k, n in [("mmi_ffn", 128, 768, 3072), ("mmi_square", 128, 768, 768)]:
        base = make(args.workdir, name, m, k, n)
        so = base + ".so"
        subprocess.run([args.ingot, "compile", base + ".onnx", "-o", so], check=True,
                       capture_output=True)
        subprocess.run([args.ingot, "run", so, "--inputs", base + ".in.npz", "--outputs",
                        base + ".out.npz"], check=True, capture_output=True)
        with np.load(base + ".out.npz") as got, np.load(base + ".ref.npz") as want:
            ok, msg = parity.compare_outputs({"y": want["y"]}, {"y": got["y"]}, 0, 0,
                                             ref_name="numpy (int64)")
        check = f"check {'ok' if ok else 'FAILED'}: {msg}"
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 2
        sess = ort.InferenceSession(base + ".onnx", opts, providers=["CPUExecutionProvider"])
        a = np.load(base + ".in.npz")["a"]
        ref = np.load(base + ".ref.npz")["y"].astype(np.int64)
        ort_err = int(np.abs(sess.run(None, {"a": a})[0].astype(np.int64) - ref).max())
        ing, orts = [], []
        for _ in range(args.rounds):
            ing.append(ingot_median(args.ingot, so, base + ".in.npz"))
            t = []
            for _ in range(30):
                s = time.perf_counter()
                sess.run(None, {"a": a})
                t.append(time.perf_counter() - s)
            orts.append(1000 * float(np.median(t)))
        mi, mo = float(np.median(ing)), float(np.median(orts))
        lines.append(f"{name} {m}x{k}x{n}: ingot rounds {[round(v, 3) for v in ing]} ms, "
                     f"ORT rounds {[round(v, 3) for v in orts]} ms")
        lines.append(f"  ingot median {mi:.3f} ms ({2 * m * k * n / mi / 1e6:.0f} GOP/s), ORT "
                     f"median {mo:.3f} ms, ingot/ORT {mi / mo:.2f}; ingot {check}; ORT's largest "
                     f"distance from the exact product {ort_err}")
    text = "\n".join(lines) + "\n"
    print(text, end="")
    day = datetime.date.today().strftime("%Y%m%d")
    with open(os.path.join(ROOT, "docs", "perf-runs",
                           f"int8_matmulinteger_{isa}-{day}.txt"), "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
