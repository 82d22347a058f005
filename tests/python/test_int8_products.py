#!/usr/bin/env python3
"""ctest wrapper: the 8-bit products (issue 48; IntMatMul, rule int8_matmul) against exact
references, not ONNX Runtime: on x86 without VNNI ONNX Runtime multiplies uint8 x int8 with
VPMADDUBSW, whose int16 pair sums saturate (a MatMulInteger of 255s and 127s over K = 64 gives
1048544 there, 2072640 exactly; this test prints ONNX Runtime's figure on this machine), so its
outputs are not a reference for exact integer arithmetic.
- MatMulInteger models against numpy's int64 product, element for element (rtol = atol = 0):
  uint8 and int8 activations, a scalar and a per-row zero point, int8 weights with and without a
  zero point of 0, K not a multiple of 4 (the row form), a symbolic row count (--dim-bounds),
  full-range random data and all-extreme data (255 x 127), on llvm and c.
- A two-layer MLP quantized by onnxruntime.quantization.quantize_dynamic (DynamicQuantizeLinear +
  MatMulInteger, per-channel int8 weights) against onnx's reference evaluator (exact integers,
  float32 around them), rtol 1e-4 with an absolute floor of 1e-4 of the output's RMS.
- On a Sapphire Rapids target the product takes the AMX tiles; the artifact runs exactly where
  the CPU has AMX and is refused in one line elsewhere.
The compile reports must show IntMatMul where the weights are int8 constants. Prints one line
per check and `N passed, N failed`.
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
from test_int8 import host_has  # noqa: E402  (/proc/cpuinfo's flags)

results = []


def record(name, ok, detail=""):
    results.append(ok)
    print(f"{'PASS' if ok else 'FAIL'} {name}{': ' + detail if detail else ''}", flush=True)


def matmul_integer(path, m, k, n, a_type, b, a_zp, b_zp):
    """MatMulInteger(a [m, k], b constant[, a_zp[, b_zp]]); m may be a name (symbolic)."""
    inits = [numpy_helper.from_array(b, "b")]
    inputs = ["a", "b"]
    if a_zp is not None or b_zp is not None:
        inputs.append("a_zp" if a_zp is not None else "")
        if a_zp is not None:
            inits.append(numpy_helper.from_array(a_zp, "a_zp"))
    if b_zp is not None:
        inputs.append("b_zp")
        inits.append(numpy_helper.from_array(b_zp, "b_zp"))
    g = helper.make_graph([helper.make_node("MatMulInteger", inputs, ["y"])], "mmi",
                          [helper.make_tensor_value_info("a", a_type, [m, k])],
                          [helper.make_tensor_value_info("y", TensorProto.INT32, [m, n])], inits)
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, path)


def exact(a, b, a_zp, b_zp):
    za = 0 if a_zp is None else a_zp.astype(np.int64).reshape(-1, 1)
    zb = 0 if b_zp is None else b_zp.astype(np.int64)
    return ((a.astype(np.int64) - za) @ (b.astype(np.int64) - zb)).astype(np.int32)


def run(ingot, so, work, feeds):
    inp, outp = os.path.join(work, "in.npz"), os.path.join(work, "out.npz")
    np.savez(inp, **feeds)
    r = subprocess.run([ingot, "run", so, "--inputs", inp, "--outputs", outp],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return None, r.stderr.strip()
    with np.load(outp) as f:
        return {n: f[n] for n in f.files}, ""


def check_matmul_integer(ingot, work, label, k, n, signed_a, per_row, b_zero, data, want_int8,
                         targets=("llvm", "c"), symbolic=False):
    rng = np.random.default_rng(k * 7 + n)
    m = 6
    a_type = TensorProto.INT8 if signed_a else TensorProto.UINT8
    lo, hi = (-128, 128) if signed_a else (0, 256)
    b = rng.integers(-128, 128, (k, n)).astype(np.int8)
    if data == "extreme":
        b[:] = 127
    a_zp_t = np.int8 if signed_a else np.uint8
    a_zp = (rng.integers(lo, hi, m) if per_row else np.array(rng.integers(lo, hi))).astype(a_zp_t)
    b_zp = np.array(0, np.int8) if b_zero else None
    path = os.path.join(work, "mmi.onnx")
    matmul_integer(path, "S" if symbolic else m, k, n, a_type, b, a_zp, b_zp)
    a = rng.integers(lo, hi, (m, k)).astype(a_zp_t)
    if data == "extreme":
        a[:] = hi - 1
    want = exact(a, b, a_zp if per_row else a_zp.reshape(1), b_zp)
    for target in targets:
        so = os.path.join(work, f"mmi.{target}.so")
        shape = ["--dim-bounds", "S:1..64"] if symbolic else []
        r = subprocess.run([ingot, "compile", path, "--target", target, "-o", so, "--report"] +
                           shape, capture_output=True, text=True)
        if r.returncode != 0:
            record(f"{label} [{target}] compiles", False, r.stderr.strip())
            continue
        if want_int8:
            record(f"{label} [{target}] runs IntMatMul", "IntMatMul" in r.stdout)
        got, err = run(ingot, so, work, {"a": a})
        if got is None:
            record(f"{label} [{target}] runs", False, err)
            continue
        ok, msg = parity.compare_outputs({"y": want}, got, 0, 0, ref_name="numpy (int64)")
        record(f"{label} [{target}] exact", ok, msg)


def saturation_note():
    """ONNX Runtime's MatMulInteger of 255s and 127s over K = 64 on this machine (informative)."""
    import onnxruntime as ort
    b = np.full((64, 8), 127, np.int8)
    g = helper.make_graph([helper.make_node("MatMulInteger", ["a", "b"], ["y"])], "s",
                          [helper.make_tensor_value_info("a", TensorProto.UINT8, [1, 64])],
                          [helper.make_tensor_value_info("y", TensorProto.INT32, [1, 8])],
                          [numpy_helper.from_array(b, "b")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    y = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"]).run(
        None, {"a": np.full((1, 64), 255, np.uint8)})[0]
    print(f"note: ONNX Runtime's MatMulInteger of 255 x 127 over K = 64 here: {y[0, 0]} "
          f"(exact {255 * 127 * 64})", flush=True)


def check_dynamic_mlp(ingot, work):
    from onnx.reference import ReferenceEvaluator
    from onnxruntime.quantization import QuantType, quantize_dynamic
    rng = np.random.default_rng(5)
    k, n = 128, 256
    w1 = numpy_helper.from_array((rng.standard_normal((k, n)) * 0.1).astype(np.float32), "w1")
    w2 = numpy_helper.from_array((rng.standard_normal((n, k)) * 0.1).astype(np.float32), "w2")
    nodes = [helper.make_node("MatMul", ["x", "w1"], ["h"]), helper.make_node("Relu", ["h"], ["r"]),
             helper.make_node("MatMul", ["r", "w2"], ["y"])]
    g = helper.make_graph(nodes, "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                                       [1, 16, k])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 16, k])],
                          [w1, w2])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    src, dst = os.path.join(work, "mlp.onnx"), os.path.join(work, "mlp_dyn.onnx")
    onnx.save(m, src)
    quantize_dynamic(src, dst, weight_type=QuantType.QInt8, per_channel=True)
    ops = sorted({nd.op_type for nd in onnx.load(dst).graph.node})
    record("quantize_dynamic wrote MatMulInteger", "MatMulInteger" in ops, ", ".join(ops))
    so = os.path.join(work, "mlp_dyn.so")
    r = subprocess.run([ingot, "compile", dst, "-o", so, "--report"], capture_output=True,
                       text=True)
    if r.returncode != 0:
        record("dynamic MLP compiles", False, r.stderr.strip())
        return
    record("dynamic MLP runs IntMatMul", r.stdout.count("IntMatMul") >= 2,
           f"{r.stdout.count('IntMatMul')} mentions")
    ref_eval = ReferenceEvaluator(dst)
    for t in range(3):
        x = (rng.standard_normal((1, 16, k)) * (1 + t)).astype(np.float32)
        got, err = run(ingot, so, work, {"x": x})
        if got is None:
            record(f"dynamic MLP run {t}", False, err)
            continue
        ref = {"y": ref_eval.run(None, {"x": x})[0]}
        ok, msg = parity.compare_outputs(ref, got, 1e-4, 1e-4, atol_scale="rms", finite_ref=True,
                                         ref_name="onnx reference")
        record(f"dynamic MLP run {t} vs onnx's reference evaluator", ok, msg)


def check_amx_rule(ingot, work):
    """The 8-bit product on a Sapphire Rapids target takes the AMX tiles (rule int8_matmul with
    intrin/amx_tile.h): 32 x 32 tiles over the whole depth, 40 rows (a row tile tail), and the
    artifact needs amx-tile and amx-int8: on a CPU with them it runs exactly, elsewhere the
    runtime refuses it in one line. (The tiles' arithmetic is checked on any CPU by the
    emulation: tests/codegen/amx_tile_test.cpp.)"""
    rng = np.random.default_rng(48)
    m, k, n = 40, 768, 64
    b = rng.integers(-128, 128, (k, n)).astype(np.int8)
    a_zp = np.array(3, np.uint8)
    path = os.path.join(work, "mmi_amx.onnx")
    matmul_integer(path, m, k, n, TensorProto.UINT8, b, a_zp, None)
    so = os.path.join(work, "mmi_amx.so")
    r = subprocess.run([ingot, "compile", path, "--target", "llvm -mcpu=sapphirerapids", "-o", so,
                        "--dump", "traces"], capture_output=True, text=True)
    if r.returncode != 0:
        record("AMX tiles [sapphirerapids] compile", False, r.stderr.strip())
        return
    record("AMX tiles [sapphirerapids] rule int8_matmul takes x86_amx_dot_u8i8_g4_32x32_k192",
           "x86_amx_dot_u8i8_g4_32x32_k192" in r.stdout)
    a = rng.integers(0, 256, (m, k)).astype(np.uint8)
    got, err = run(ingot, so, work, {"a": a})
    if host_has("amx_int8") and host_has("amx_tile"):
        if got is None:
            record("AMX tiles [sapphirerapids] runs on this AMX CPU", False, err)
            return
        ok, msg = parity.compare_outputs({"y": exact(a, b, a_zp.reshape(1), None)}, got, 0, 0,
                                         ref_name="numpy (int64)")
        record("AMX tiles [sapphirerapids] exact on this AMX CPU", ok, msg)
    else:
        one_line = got is None and len(err.splitlines()) == 1 and "amx" in err
        record("AMX tiles [sapphirerapids] refused in one line on this CPU without AMX", one_line,
               err)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ingot", required=True)
    args = ap.parse_args()
    saturation_note()
    with tempfile.TemporaryDirectory(prefix="ingot-int8p-") as work:
        cases = [  # label, K, N, signed A, per-row zp, b zero point given, data, int8 kernels
            ("uint8 x int8, scalar zero point", 256, 96, False, False, False, "random", True),
            ("uint8 x int8, per-row zero points, b_zp 0", 128, 40, False, True, True, "random",
             True),
            ("int8 x int8, scalar zero point", 64, 24, True, False, False, "random", True),
            ("uint8 x int8, all 255 x 127", 256, 16, False, False, False, "extreme", True),
            ("uint8 x int8, K = 30 (row form)", 30, 16, False, False, False, "random", False),
        ]
        for label, k, n, sa, pr, bz, data, want in cases:
            check_matmul_integer(args.ingot, work, label, k, n, sa, pr, bz, data, want)
        check_matmul_integer(args.ingot, work, "uint8 x int8, symbolic rows", 192, 48, False,
                             False, False, "random", True, targets=("llvm",), symbolic=True)
        check_dynamic_mlp(args.ingot, work)
        check_amx_rule(args.ingot, work)
    passed = sum(results)
    print(f"{passed} passed, {len(results) - passed} failed")
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
