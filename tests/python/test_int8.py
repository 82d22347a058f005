#!/usr/bin/env python3
"""ctest wrapper: quantized models (issue 16, part 4) against ONNX Runtime, on the llvm and c
targets. ONNX Runtime's static quantizer makes them from float models built here:
- the DS-CNN of examples/cortex-m, int8 activations and per-channel int8 weights (QDQ form);
- a small net with uint8 activations and per-tensor uint8 weights (asymmetric zero points):
  stride-2 and grouped convs, a Relu the quantizer keeps or folds, a Gemm with transB;
- the same net in the QOperator form (QLinearConv, QLinearMatMul), which the importer runs in
  exact float64 arithmetic rather than through fuse_qdq;
- a residual net with ONNX Runtime's defaults (uint8 x per-channel int8), whose convs the llvm
  targets run as 8-bit blocked convs (QConvNCHWc): on the host, as AVX2 int16 pairs
  (-mcpu=haswell) and, on a VNNI host, as 512-bit VPDPBUSD quads (-mcpu=icelake-server).
The residual net's Add, fused into its conv's epilogue, gives the unfused graph's outputs bit for
bit. Each runs on 8 random inputs; every output must be within one quantization step of ONNX
Runtime's (the fixed-point requantization rounds half up where ONNX Runtime rounds half to even
in float), and the QDQ models' compile reports must show the integer kernels (QConv, QMatMul):
otherwise the float fallback would pass unnoticed. Prints one line per check and
`N passed, N failed`; exits 1 if any check failed.
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
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "examples", "cortex-m"))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import make_ds_cnn  # noqa: E402
import parity  # noqa: E402  (compare_outputs, the one output checker)

results = []


def record(name, ok, detail=""):
    results.append(ok)
    print(f"{'PASS' if ok else 'FAIL'} {name}{': ' + detail if detail else ''}", flush=True)


def small_net(path, gemm, batch_norm=False):
    rng = np.random.default_rng(11)
    inits, nodes = [], []

    def const(name, a):
        inits.append(numpy_helper.from_array(a.astype(np.float32), name))
        return name

    def conv(x, name, cin, cout, k, stride, group):
        w = const(name + "_w", rng.standard_normal((cout, cin // group, k, k)) * 0.3)
        b = const(name + "_b", rng.standard_normal(cout) * 0.1)
        nodes.append(helper.make_node("Conv", [x, w, b], [name], kernel_shape=[k, k],
                                      strides=[stride, stride], pads=[k // 2] * 4, group=group))
        if batch_norm:  # unfolded, as a model before ONNX Runtime's quant_pre_process
            bn = [const(f"{name}_bn_{p}", v) for p, v in
                  (("s", 1 + 0.2 * rng.standard_normal(cout)), ("b", 0.1 * rng.standard_normal(cout)),
                   ("m", 0.1 * rng.standard_normal(cout)), ("v", 0.5 + rng.random(cout)))]
            nodes.append(helper.make_node("BatchNormalization", [name] + bn, [name + "_bn"]))
            name += "_bn"
        nodes.append(helper.make_node("Relu", [name], [name + "_relu"]))
        return name + "_relu"

    x = conv("x", "c1", 3, 16, 3, 2, 1)
    x = conv(x, "c2", 16, 16, 3, 1, 4)
    x = conv(x, "c3", 16, 8, 1, 1, 1)
    nodes.append(helper.make_node("Flatten", [x], ["flat"], axis=1))
    w = rng.standard_normal((10, 8 * 6 * 6)) * 0.05
    b = rng.standard_normal(10) * 0.1
    if gemm:  # (ONNX Runtime's QOperator form of a Gemm is its contrib op QGemm)
        nodes.append(helper.make_node("Gemm", ["flat", const("fc_w", w), const("fc_b", b)],
                                      ["logits"], transB=1))
    else:  # (and a bias Add would be its contrib op QLinearAdd)
        nodes.append(helper.make_node("MatMul", ["flat", const("fc_w", w.T)], ["logits"]))
    g = helper.make_graph(nodes, "small_int8",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 12, 12])],
                          [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, 10])],
                          inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    onnx.save(m, path)


def residual_net(path):
    """ONNX Runtime's default quantization target: uint8 activations x per-channel int8 weights.
    Channel counts that are not whole vectors (24, 40, 20), a 3-channel stem at stride 2, zero
    padding (the activation's zero point once quantized), a residual Add, a depthwise conv at
    stride 2 and a pooled Gemm."""
    rng = np.random.default_rng(5)
    inits, nodes = [], []

    def const(name, a):
        inits.append(numpy_helper.from_array(a.astype(np.float32), name))
        return name

    def conv(x, name, cin, cout, k, stride, relu=True, group=1):
        w = const(name + "_w", rng.standard_normal((cout, cin // group, k, k)) *
                  (1.5 / np.sqrt(cin // group * k * k)))
        b = const(name + "_b", rng.standard_normal(cout) * 0.1)
        nodes.append(helper.make_node("Conv", [x, w, b], [name], kernel_shape=[k, k],
                                      strides=[stride, stride], pads=[k // 2] * 4, group=group))
        if not relu:
            return name
        nodes.append(helper.make_node("Relu", [name], [name + "_relu"]))
        return name + "_relu"

    x = conv("x", "stem", 3, 24, 3, 2)
    y = conv(x, "expand", 24, 40, 1, 1)
    z = conv(y, "body", 40, 40, 3, 1, relu=False)
    nodes.append(helper.make_node("Add", [y, z], ["sum"]))
    nodes.append(helper.make_node("Relu", ["sum"], ["sum_relu"]))
    x = conv("sum_relu", "depthwise", 40, 40, 3, 2, group=40)
    x = conv(x, "down", 40, 20, 3, 1)
    nodes.append(helper.make_node("GlobalAveragePool", [x], ["pool"]))
    nodes.append(helper.make_node("Flatten", ["pool"], ["flat"], axis=1))
    nodes.append(helper.make_node("Gemm", ["flat", const("fc_w", rng.standard_normal((10, 20)) * 0.3),
                                           const("fc_b", rng.standard_normal(10) * 0.1)],
                                  ["logits"], transB=1))
    g = helper.make_graph(nodes, "residual_int8",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 20, 20])],
                          [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, 10])],
                          inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    onnx.save(m, path)


def host_has(flag):
    try:
        with open("/proc/cpuinfo") as f:
            return any(flag in line.split() for line in f if line.startswith("flags"))
    except OSError:
        return False


def quantize(src, dst, shape, fmt, activation, weight, per_channel):
    from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType,
                                          quantize_static)
    name = onnx.load(src).graph.input[0].name

    class Calibration(CalibrationDataReader):
        def __init__(self):
            rng = np.random.default_rng(3)
            self.it = iter([{name: rng.standard_normal(shape).astype(np.float32)}
                            for _ in range(16)])

        def get_next(self):
            return next(self.it, None)

    quantize_static(src, dst, Calibration(),
                    quant_format=QuantFormat.QDQ if fmt == "qdq" else QuantFormat.QOperator,
                    activation_type=getattr(QuantType, activation),
                    weight_type=getattr(QuantType, weight), per_channel=per_channel)


def output_step(model):
    """The scale of the DequantizeLinear producing the graph output (one quantization step)."""
    m = onnx.load(model)
    out = m.graph.output[0].name
    inits = {i.name: numpy_helper.to_array(i) for i in m.graph.initializer}
    for n in m.graph.node:
        if out in n.output and n.op_type == "DequantizeLinear":
            return float(np.max(inits[n.input[1]]))
    return None


def check_model(ingot, work, label, model, shape, expect_int_kernels, targets=("llvm", "c"),
                blocked_convs=0, compile_args=()):
    """blocked_convs: how many 8-bit blocked convolutions (QConvNCHWc kernels) each llvm
    target's report must show."""
    sess = parity.reference_session(model)
    in_name = sess.get_inputs()[0].name
    step = output_step(model)
    for target in targets:
        so = os.path.join(work, f"{label}.{target.replace(' ', '_')}.so")
        r = subprocess.run([ingot, "compile", model, "--target", target, "-o", so, "--report",
                            *compile_args], capture_output=True, text=True)
        if r.returncode != 0:
            record(f"{label} [{target}] compiles", False, r.stderr.strip())
            continue
        kernels = r.stdout
        if expect_int_kernels:
            names = ("QConv", "QMatMul", "IntMatMul")
            record(f"{label} [{target}] runs integer kernels", any(n in kernels for n in names),
                   ", ".join(f"{kernels.count(n)} {n}" for n in names))
        if blocked_convs and target.startswith("llvm"):
            kernel_lines = [l for l in kernels.splitlines() if "_QConvNCHWc " in l]
            record(f"{label} [{target}] runs {blocked_convs} 8-bit blocked convs",
                   len(kernel_lines) == blocked_convs, f"{len(kernel_lines)} QConvNCHWc kernels")
        rng = np.random.default_rng(21)
        # The outputs are dequantized: every element within one quantization step of ONNX
        # Runtime's, absolutely (rtol 0; the 1.0001 absorbs the float rounding of k * step).
        atol = 1.0001 * step if step else 1e-5
        ok, msg, exact, largest = True, "", 0, 0.0
        for t in range(8):
            x = (rng.standard_normal(shape) * (1 + t % 3)).astype(np.float32)
            inp = os.path.join(work, "in.npz")
            outp = os.path.join(work, "out.npz")
            np.savez(inp, **{in_name: x})
            run = subprocess.run([ingot, "run", so, "--inputs", inp, "--outputs", outp],
                                 capture_output=True, text=True)
            if run.returncode != 0:
                ok, msg = False, f"run {t}: {run.stderr.strip()}"
                break
            ref = dict(zip([o.name for o in sess.get_outputs()], sess.run(None, {in_name: x})))
            with np.load(outp) as f:
                got = {k: f[k] for k in f.files}
            stats = {}
            ok, msg = parity.compare_outputs(ref, got, 0, atol, finite_ref=True, stats=stats)
            if not ok:
                msg = f"run {t}: {msg}"
                break
            exact += all(v["max_abs"] == 0 for v in stats.values())
            largest = max([largest] + [v["max_abs"] for v in stats.values()])
        record(f"{label} [{target}] vs ONNX Runtime within one step", ok,
               msg if not ok else f"max |diff| {largest:.3g} (step {step:.3g}, atol {atol:.3g}), "
               f"{exact}/8 runs bit-exact")


def check_fused_residual(ingot, work, model, shape):
    """The residual block's DequantizeLinear + Add + QuantizeLinear runs in the 8-bit conv's
    epilogue (graph pass fuse_qconv_residual) with the separate kernels' arithmetic: the fused
    and the unfused (--disabled-pass fuse_qconv_residual) artifacts agree bit for bit."""
    arts = {}
    for label, extra in (("fused", []), ("unfused", ["--disabled-pass", "fuse_qconv_residual"])):
        so = os.path.join(work, f"residual_{label}.so")
        r = subprocess.run([ingot, "compile", model, "-o", so, "--print-ir-after",
                            "fuse_qconv_residual", *extra], capture_output=True, text=True)
        if r.returncode != 0:
            record(f"residual ({label}) compiles", False, r.stderr.strip())
            return
        arts[label] = (so, sum("= QConvNCHWc(" in l and "z_scale" in l
                               for l in (r.stdout + r.stderr).splitlines()))
    record("residual: the Add runs in the 8-bit conv's epilogue (fuse_qconv_residual)",
           arts["fused"][1] == 1 and arts["unfused"][1] == 0,
           f"{arts['fused'][1]} fused, {arts['unfused'][1]} without the pass")
    sess = parity.reference_session(model)
    in_name = sess.get_inputs()[0].name
    rng = np.random.default_rng(33)
    for t in range(4):
        np.savez(os.path.join(work, "in.npz"),
                 **{in_name: (rng.standard_normal(shape) * (1 + t)).astype(np.float32)})
        outs = {}
        for label, (so, _) in arts.items():
            out = os.path.join(work, f"out_{label}.npz")
            run = subprocess.run([ingot, "run", so, "--inputs", os.path.join(work, "in.npz"),
                                  "--outputs", out], capture_output=True, text=True)
            if run.returncode != 0:
                record(f"residual ({label}) runs", False, run.stderr.strip())
                return
            with np.load(out) as f:
                outs[label] = {k: f[k] for k in f.files}
        ok, msg = parity.compare_outputs(outs["unfused"], outs["fused"], 0, 0,
                                         ref_name="unfused", got_name="fused")
        record(f"residual run {t}: fused and unfused bit for bit", ok, msg)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ingot", required=True)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="ingot-int8-") as work:
        subprocess.run([sys.executable, os.path.join(ROOT, "examples", "cortex-m", "make_ds_cnn.py"),
                        work, "--int8"], check=True, capture_output=True)
        ds = os.path.join(work, "ds_cnn_int8.onnx")
        check_model(args.ingot, work, "ds_cnn_int8 (QDQ, int8, per-channel)", ds, (1, 1, 49, 10),
                    True)
        fp32 = os.path.getsize(os.path.join(work, "ds_cnn.onnx"))
        r = subprocess.run([args.ingot, "compile", ds, "--target", "c", "--output-format", "mlf",
                            "-o", os.path.join(work, "ds.tar")], capture_output=True, text=True)
        r32 = subprocess.run([args.ingot, "compile", os.path.join(work, "ds_cnn.onnx"), "--target",
                              "c", "--output-format", "mlf", "-o", os.path.join(work, "ds32.tar")],
                             capture_output=True, text=True)

        def constants(out):
            line = [l for l in out.splitlines() if l.startswith("flash:")][0]
            return int(line.split("constants ")[1].split()[0])
        c8, c32 = constants(r.stdout), constants(r32.stdout)
        record("int8 constants at most a third of fp32's", 3 * c8 <= c32,
               f"{c8} vs {c32} bytes (ONNX file {fp32} bytes)")

        small = os.path.join(work, "small.onnx")
        small_net(small, gemm=True)
        qdq = os.path.join(work, "small_qdq_u8.onnx")
        quantize(small, qdq, (1, 3, 12, 12), "qdq", "QUInt8", "QUInt8", False)
        check_model(args.ingot, work, "small (QDQ, uint8, per-tensor)", qdq, (1, 3, 12, 12), True)
        # ONNX Runtime's defaults (uint8 activations, int8 per-channel weights) on a model whose
        # BatchNormalizations were not folded first: the quantizer gives their scale and bias
        # [1] scales with scalar zero points (once an internal error in ingot, issue 48).
        small_bn = os.path.join(work, "small_bn.onnx")
        small_net(small_bn, gemm=True, batch_norm=True)
        qbn = os.path.join(work, "small_bn_qdq.onnx")
        quantize(small_bn, qbn, (1, 3, 12, 12), "qdq", "QUInt8", "QInt8", True)
        record("the unfolded model has BatchNormalization",
               "BatchNormalization" in {n.op_type for n in onnx.load(qbn).graph.node})
        # (Its Gemm, with symmetric int8 weights, runs the 8-bit product IntMatMul; on llvm its
        # groups = 1 convs the 8-bit blocked conv, elsewhere float arithmetic: QConv's plain
        # loops take one 8-bit family.)
        check_model(args.ingot, work, "small (QDQ, BatchNormalization, uint8 x int8)", qbn,
                    (1, 3, 12, 12), True, blocked_convs=2)
        # The 8-bit blocked convs on each dot-product form the host can run: the default
        # (VPDPBUSD quads on a VNNI host), int16 pairs on AVX2, and VNNI's 512-bit quads.
        res = os.path.join(work, "residual.onnx")
        residual_net(res)
        qres = os.path.join(work, "residual_qdq.onnx")
        quantize(res, qres, (1, 3, 20, 20), "qdq", "QUInt8", "QInt8", True)
        targets = ["llvm", "c"]
        if host_has("avx2") and host_has("fma"):
            targets.append("llvm -mcpu=haswell")
        if host_has("avx512_vnni") and host_has("avx512bw") and host_has("avx512vl"):
            targets.append("llvm -mcpu=icelake-server")
        check_model(args.ingot, work, "residual (QDQ, uint8 x int8 per-channel)", qres,
                    (1, 3, 20, 20), True, targets=tuple(targets), blocked_convs=5)
        check_fused_residual(args.ingot, work, qres, (1, 3, 20, 20))
        # Tuned: every candidate of the 8-bit convs builds (their int32 sums, a scratch tensor as
        # lowered, are local memory in some candidates and workspace in others), and the tuned
        # artifact still agrees with ONNX Runtime.
        records = os.path.join(work, "residual_tune.json")
        t = subprocess.run([args.ingot, "tune", qres, "--trials", "24", "-o", records],
                           capture_output=True, text=True)
        failed = [l for l in (t.stdout + t.stderr).splitlines() if "failed" in l]
        record("residual (QDQ) tunes with every candidate built", t.returncode == 0 and not failed,
               (failed or [t.stderr.strip()])[0] if t.returncode != 0 or failed else
               t.stdout.strip().splitlines()[-2])
        check_model(args.ingot, work, "residual (QDQ, tuned)", qres, (1, 3, 20, 20), True,
                    targets=("llvm",), blocked_convs=5, compile_args=("--tuning-records", records))
        small_mm = os.path.join(work, "small_mm.onnx")
        small_net(small_mm, gemm=False)
        qop = os.path.join(work, "small_qop.onnx")
        quantize(small_mm, qop, (1, 3, 12, 12), "qop", "QUInt8", "QInt8", True)
        ops = {n.op_type for n in onnx.load(qop).graph.node}
        record("the QOperator model has QLinearConv and QLinearMatMul",
               {"QLinearConv", "QLinearMatMul"} <= ops, ", ".join(sorted(ops)))
        check_model(args.ingot, work, "small (QOperator, QLinearConv)", qop, (1, 3, 12, 12), False)
    passed = sum(results)
    print(f"{passed} passed, {len(results) - passed} failed")
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
