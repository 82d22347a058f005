#!/usr/bin/env python3
"""ctest wrapper: ONNX Runtime's block-quantized weight format, com.microsoft MatMulNBits (issue
48), against ONNX Runtime on the same files. ONNX Runtime's own quantizer
(onnxruntime.quantization.matmul_nbits_quantizer) writes them from a float MLP built here
(x [1, S, K] -> MatMul -> Relu -> MatMul), in the forms an LLM quantized by its tools ships in:
4 and 8 bits, symmetric (no zero points) and asymmetric (packed zero points), blocks of 32 to
128, a float16 model, a K that is not whole blocks (then ingot dequantizes at import), and the
sequence dimension symbolic (--dim-bounds). ONNX Runtime runs accuracy_level 0 (float32
activations, as ingot computes), so both dequantize the same integers: every element within
rtol 1e-4 of ONNX Runtime's, with an absolute floor of 1e-4 of the output's RMS (float16: its own
rounding, rtol 2e-3). The whole-block models must run the weight-only kernels (WQMatMul in the
compile report), not a float fallback. Prints one line per check and `N passed, N failed`.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))
import parity  # noqa: E402  (compare_outputs, the one output checker)

results = []


def record(name, ok, detail=""):
    results.append(ok)
    print(f"{'PASS' if ok else 'FAIL'} {name}{': ' + detail if detail else ''}", flush=True)


def mlp(path, k, n, dtype):
    rng = np.random.default_rng(0)
    np_t = np.float16 if dtype == TensorProto.FLOAT16 else np.float32
    w1 = numpy_helper.from_array((rng.standard_normal((k, n)) * 0.05).astype(np_t), "w1")
    w2 = numpy_helper.from_array((rng.standard_normal((n, k)) * 0.05).astype(np_t), "w2")
    nodes = [helper.make_node("MatMul", ["x", "w1"], ["h"]),
             helper.make_node("Relu", ["h"], ["r"]),
             helper.make_node("MatMul", ["r", "w2"], ["y"])]
    g = helper.make_graph(nodes, "mlp", [helper.make_tensor_value_info("x", dtype, [1, "S", k])],
                          [helper.make_tensor_value_info("y", dtype, [1, "S", k])], [w1, w2])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, path)


def quantize(src, dst, bits, symmetric, block):
    from onnxruntime.quantization.matmul_nbits_quantizer import (DefaultWeightOnlyQuantConfig,
                                                                 MatMulNBitsQuantizer)
    cfg = DefaultWeightOnlyQuantConfig(block_size=block, is_symmetric=symmetric, bits=bits,
                                       accuracy_level=0)
    q = MatMulNBitsQuantizer(onnx.load(src), algo_config=cfg)
    q.process()
    q.model.save_model_to_file(dst)


def check(ingot, work, label, model, k, dtype, whole_blocks, shape_args):
    import onnxruntime as ort
    ops = sorted({n.op_type for n in onnx.load(model).graph.node})
    if "MatMulNBits" not in ops:
        record(f"{label}: ONNX Runtime's quantizer wrote MatMulNBits", False, ", ".join(ops))
        return
    so = os.path.join(work, "m.so")
    r = subprocess.run([ingot, "compile", model, "-o", so, "--report"] + shape_args,
                       capture_output=True, text=True)
    if r.returncode != 0:
        record(f"{label} compiles", False, r.stderr.strip())
        return
    kernels = r.stdout.count("WQMatMul")
    record(f"{label} runs the weight-only kernels" if whole_blocks else
           f"{label} compiles (K not whole blocks: dequantized at import)",
           kernels > 0 if whole_blocks else True, f"{kernels} WQMatMul in the report")
    sess = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    np_t = np.float16 if dtype == TensorProto.FLOAT16 else np.float32
    rtol = 2e-3 if dtype == TensorProto.FLOAT16 else 1e-4
    for seq in (1, 5):
        x = np.random.default_rng(seq).standard_normal((1, seq, k)).astype(np_t)
        inp, outp = os.path.join(work, "in.npz"), os.path.join(work, "out.npz")
        np.savez(inp, x=x)
        run = subprocess.run([ingot, "run", so, "--inputs", inp, "--outputs", outp],
                             capture_output=True, text=True)
        if run.returncode != 0:
            record(f"{label} S={seq} runs", False, run.stderr.strip())
            continue
        ref = {"y": sess.run(None, {"x": x})[0]}
        with np.load(outp) as f:
            got = {n: f[n] for n in f.files}
        ok, msg = parity.compare_outputs(ref, got, rtol, rtol, atol_scale="rms", finite_ref=True)
        record(f"{label} S={seq} vs ONNX Runtime (accuracy_level 0)", ok, msg)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ingot", required=True)
    args = ap.parse_args()
    cases = [  # bits, symmetric, K, N, block, dtype
        (4, True, 256, 384, 128, TensorProto.FLOAT),
        (4, False, 256, 384, 32, TensorProto.FLOAT),
        (8, True, 256, 384, 64, TensorProto.FLOAT),
        (8, False, 256, 384, 128, TensorProto.FLOAT),
        (4, False, 128, 64, 32, TensorProto.FLOAT16),
        (4, False, 200, 96, 32, TensorProto.FLOAT),  # the first product's K = 200: 6.25 blocks
    ]
    with tempfile.TemporaryDirectory(prefix="ingot-nbits-") as work:
        for bits, sym, k, n, block, dtype in cases:
            kind = "float16" if dtype == TensorProto.FLOAT16 else "float32"
            label = (f"{bits}-bit {'symmetric' if sym else 'zero points'}, K={k} N={n} "
                     f"blocks of {block}, {kind}")
            src = os.path.join(work, "f.onnx")
            mlp(src, k, n, dtype)
            model = os.path.join(work, "q.onnx")
            quantize(src, model, bits, sym, block)
            check(args.ingot, work, label, model, k, dtype, k % block == 0,
                  ["--dim-bounds", "S:1..64"])
    passed = sum(results)
    print(f"{passed} passed, {len(results) - passed} failed")
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
