#!/usr/bin/env python3
"""ctest wrapper: bfloat16 end to end (issue 48), against references independent of ingot.
- bfloat16 tensors across the artifact's interface and in kernels, on llvm and c: a model that
  widens a bfloat16 input, scales it and rounds it back, against ml_dtypes' conversions
  (round to nearest even) element for element, exactly: NaN, infinities, ties, subnormals,
  overflow to infinity. Its bfloat16 output comes back in numpy-with-ml_dtypes' .npz form
  ('<V2', docs/cli.md); tools/ingot_run_lite reads and writes the same .npy form. A Pad of
  bfloat16 copies bits exactly (signalling NaNs' payloads too).
- `--dtype bfloat16` on an MLP (MatMul + Add + Relu, then Gemm with a bias), for the host (its
  products VDPBF16PS where it has AVX512-BF16) and, on an x86 host with AVX2, for
  `-mcpu=haswell` (the portable pair product): against a numpy
  emulation of what the option computes (weights and product inputs rounded to bfloat16 by
  ml_dtypes, the products in float64), rtol 1e-5 with an absolute floor of 1e-5 of the output's
  RMS (ingot accumulates in float32); against ONNX Runtime's float32 run at the issue's tolerance
  (rtol 2e-2, atol 2e-2 of the output's largest magnitude); and it must differ from float32 by
  more than float32 rounding (the option is applied). Products the bfloat16 rule does not tile
  (a Gemm with transB over K = 255, a MatMul over K = 129) hold to the same emulation. The
  artifact of a 512 x 1024 weight is at least 0.9 MiB smaller than float32's (weights stored as
  bfloat16).
- `--dtype bfloat16` on a CNN (a stem over 3 channels, a residual bottleneck of 1x1 and
  3x3 convs, a depthwise conv, a stride-2 conv into 40 channels: the blocked convs of bfloat16
  products), host
  and `-mcpu=haswell`: against the same kind of emulation at 2e-3 of the output's RMS (an
  intermediate rounded to bfloat16 after ingot's float32 sum may land a step from the float64
  sum's), against ONNX Runtime's float32 at the issue's tolerance, and not float32.
- `--dtype bfloat16` with a bad value is one clear error.
Prints one line per check and `N passed, N failed`.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import ml_dtypes
import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))
import parity  # noqa: E402  (compare_outputs, the one output checker; load_npz)

BF16 = np.dtype(ml_dtypes.bfloat16)
results = []


def record(name, ok, detail=""):
    results.append(ok)
    print(f"{'PASS' if ok else 'FAIL'} {name}{': ' + detail if detail else ''}", flush=True)


def save(graph, path, opset=17):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, path)


def compiled(ingot, model, so, label, *extra):
    """Compiles `model` into `so`; a failure is recorded as "LABEL compiles" -> whether it did."""
    ok, err = compile_model(ingot, model, so, *extra)
    if not ok:
        record(f"{label} compiles", False, err)
    return ok


def ran(ingot, so, work, feeds, label):
    """Runs `so` on `feeds` -> (outputs, their .npy descrs), or None, recorded as "LABEL runs"."""
    got, descrs = run(ingot, so, work, feeds)
    if got is None:
        record(f"{label} runs", False, descrs)
        return None
    return got, descrs


def compile_model(ingot, model, so, *extra):
    r = subprocess.run([ingot, "compile", model, "-o", so, *extra], capture_output=True,
                       text=True)
    return r.returncode == 0, r.stderr.strip()


def run(ingot, so, work, feeds):
    inp, outp = os.path.join(work, "in.npz"), os.path.join(work, "out.npz")
    np.savez(inp, **feeds)
    r = subprocess.run([ingot, "run", so, "--inputs", inp, "--outputs", outp],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return None, r.stderr.strip()
    return parity.load_npz(outp), npz_descrs(outp)


def npz_descrs(path):
    """{member: the 'descr' its .npy header spells} (np.load reads '<V2' back as '|V2')."""
    out = {}
    with zipfile.ZipFile(path) as z:
        for name in z.namelist():
            head = z.read(name)[:256].decode("latin-1")
            m = re.search(r"'descr': *'([^']*)'", head)
            out[name[:-4] if name.endswith(".npy") else name] = m.group(1) if m else None
    return out


def special_values():
    """float32 values whose bfloat16 rounding is a corner case, then random ones."""
    one = np.float32(1.0)
    ulp = np.float32(2.0 ** -7)  # bfloat16's spacing at 1
    v = [0.0, -0.0, 1.0, -1.0, one + ulp / 2, one + 3 * ulp / 2, one + ulp / 2 + 2.0 ** -20,
         np.inf, -np.inf, np.nan, 3.0e38, -3.0e38, 1.0e-39, -2.5e-40, 65504.0, 1.0 / 3.0]
    rng = np.random.default_rng(7)
    rand = rng.standard_normal(64 - len(v)) * np.exp(rng.uniform(-20, 20, 64 - len(v)))
    return np.concatenate([np.array(v, np.float32), rand.astype(np.float32)]).reshape(8, 8)


def check_interface(ingot, work):
    # x (bfloat16) -> float32 -> * 3 -> bfloat16 (y); and x widened (w, float32)
    nodes = [helper.make_node("Cast", ["x"], ["xf"], to=TensorProto.FLOAT),
             helper.make_node("Mul", ["xf", "three"], ["s"]),
             helper.make_node("Cast", ["s"], ["y"], to=TensorProto.BFLOAT16),
             helper.make_node("Identity", ["xf"], ["w"])]
    g = helper.make_graph(nodes, "bf16_io",
                          [helper.make_tensor_value_info("x", TensorProto.BFLOAT16, [8, 8])],
                          [helper.make_tensor_value_info("y", TensorProto.BFLOAT16, [8, 8]),
                           helper.make_tensor_value_info("w", TensorProto.FLOAT, [8, 8])],
                          [numpy_helper.from_array(np.array(3.0, np.float32), "three")])
    path = os.path.join(work, "bf16_io.onnx")
    save(g, path)
    # the input: the corner cases rounded to bfloat16 by ml_dtypes (not by ingot)
    x = special_values().astype(BF16)
    with np.errstate(over="ignore"):  # 3e38 * 3 overflows to infinity, as it must
        want = {"y": (x.astype(np.float32) * np.float32(3)).astype(BF16),
                "w": x.astype(np.float32)}
    for target in ("llvm", "c"):
        so, label = os.path.join(work, f"bf16_io.{target}.so"), f"bfloat16 interface [{target}]"
        result = compiled(ingot, path, so, label, "--target", target) and ran(
            ingot, so, work, {"x": x}, label)
        if not result:
            continue
        got, descrs = result
        record(f"bfloat16 interface [{target}] writes its bfloat16 output as '<V2'",
               descrs.get("y") == "<V2" and descrs.get("w") == "<f4", str(descrs))
        ok, msg = parity.compare_outputs(want, got, 0.0, 0.0, ref_name="ml_dtypes")
        record(f"bfloat16 interface [{target}] exact (NaN, inf, ties, subnormals, overflow)",
               ok, msg)
        if target == "llvm":
            check_lite_runner(ingot, so, work, x, want)


def check_pad_copies_bits(ingot, work):
    """A Pad of bfloat16 (a data movement: the blocked convs' padding under --dtype bfloat16)
    copies its input's bits: a signalling NaN's payload, -0 and subnormals unchanged."""
    g = helper.make_graph([helper.make_node("Pad", ["x", "pads"], ["y"], mode="constant")],
                          "bf16_pad",
                          [helper.make_tensor_value_info("x", TensorProto.BFLOAT16, [8, 8])],
                          [helper.make_tensor_value_info("y", TensorProto.BFLOAT16, [10, 11])],
                          [numpy_helper.from_array(np.array([1, 2, 1, 1], np.int64), "pads")])
    path, so = os.path.join(work, "bf16_pad.onnx"), os.path.join(work, "bf16_pad.so")
    save(g, path)
    bits = special_values().astype(BF16).view(np.uint16).copy()
    bits[0, :3] = [0x7f81, 0xff85, 0x8000]  # signalling NaNs with payloads, -0
    x = bits.view(BF16)
    result = compiled(ingot, path, so, "bfloat16 Pad") and ran(ingot, so, work, {"x": x},
                                                               "bfloat16 Pad")
    if not result:
        return
    # (Compared as the bits' integers, exactly: a NaN's payload is part of what must match.)
    want = {"y": np.pad(bits, ((1, 1), (2, 1)))}
    got = {"y": np.asarray(result[0]["y"]).view(np.uint16)}
    ok, msg = parity.compare_outputs(want, got, 0, 0, ref_name="numpy's pad of the bits")
    record("bfloat16 Pad copies its input's bits (NaN payloads, -0, subnormals)", ok, msg)


def check_lite_runner(ingot, so, work, x, want):
    """tools/ingot_run_lite reads and writes bfloat16 .npy files ('<V2') too."""
    runner = next((p / "tools" / "ingot_run_lite" / "ingot_run_lite"
                   for p in Path(ingot).resolve().parents
                   if (p / "tools" / "ingot_run_lite" / "ingot_run_lite").exists()), None)
    if runner is None:
        record("ingot_run_lite found next to the ingot build", False)
        return
    xin, out = os.path.join(work, "x.npy"), os.path.join(work, "lite.out")
    os.makedirs(out, exist_ok=True)
    np.save(xin, x)
    r = subprocess.run([str(runner), so, "-i", xin, "-o", out], capture_output=True, text=True)
    if r.returncode != 0:
        record("ingot_run_lite runs the bfloat16 interface", False, r.stderr.strip())
        return
    got = {}
    for line in Path(out, "outputs.txt").read_text().splitlines():
        k, name = line.split("\t", 1)
        got[name] = np.load(os.path.join(out, f"{k}.npy"))
        if got[name].dtype.kind == "V":
            got[name] = got[name].view(BF16)
    ok, msg = parity.compare_outputs(want, got, 0.0, 0.0, ref_name="ml_dtypes",
                                     got_name="ingot_run_lite")
    record("ingot_run_lite reads and writes bfloat16 .npy ('<V2') exactly", ok, msg)


def mlp_model(path, k, h, n, rng):
    w1 = (rng.standard_normal((k, h)) / np.sqrt(k)).astype(np.float32)
    b1 = (rng.standard_normal(h) * 0.1).astype(np.float32)
    w2 = (rng.standard_normal((h, n)) / np.sqrt(h)).astype(np.float32)
    b2 = (rng.standard_normal(n) * 0.1).astype(np.float32)
    nodes = [helper.make_node("MatMul", ["x", "w1"], ["p"]),
             helper.make_node("Add", ["p", "b1"], ["q"]),
             helper.make_node("Relu", ["q"], ["r"]),
             helper.make_node("Gemm", ["r", "w2", "b2"], ["y"])]
    g = helper.make_graph(nodes, "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                                       [4, k])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, n])],
                          [numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(b1, "b1"),
                           numpy_helper.from_array(w2, "w2"), numpy_helper.from_array(b2, "b2")])
    save(g, path)
    return w1, b1, w2, b2


def bf(a):
    """a rounded to bfloat16 by ml_dtypes, as float64."""
    return np.asarray(a, np.float32).astype(BF16).astype(np.float64)


def check_mlp(ingot, work, target):
    """target: None (the host: VDPBF16PS where it has AVX512-BF16) or an AVX2 target (the
    portable pair product)."""
    rng = np.random.default_rng(11)
    path = os.path.join(work, "mlp.onnx")
    w1, b1, w2, b2 = mlp_model(path, 256, 192, 40, rng)
    so = os.path.join(work, "mlp.bf16.so")
    tag = f" [{target or 'host'}]"
    if not compiled(ingot, path, so, "--dtype bfloat16 MLP" + tag, "--dtype", "bfloat16",
                    *(["--target", target] if target else [])):
        return
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    for t in range(2):
        x = (rng.standard_normal((4, 256)) * (1 + t)).astype(np.float32)
        result = ran(ingot, so, work, {"x": x}, f"--dtype bfloat16 MLP run {t}" + tag)
        if not result:
            continue
        got = result[0]
        # the option's arithmetic: products of bfloat16-rounded operands, the rest float
        h = np.maximum(bf(x) @ bf(w1) + b1, 0)
        emulated = {"y": (bf(h) @ bf(w2) + b2).astype(np.float32)}
        ok, msg = parity.compare_outputs(emulated, got, 1e-5, 1e-5, atol_scale="rms",
                                         finite_ref=True, ref_name="bfloat16 emulation")
        record(f"--dtype bfloat16 MLP run {t} vs numpy's bfloat16 emulation" + tag, ok, msg)
        f32 = {"y": sess.run(None, {"x": x})[0]}
        ok, msg = parity.compare_outputs(f32, got, 2e-2, 2e-2, atol_scale="max",
                                         finite_ref=True, ref_name="ONNX Runtime float32")
        record(f"--dtype bfloat16 MLP run {t} vs ONNX Runtime float32 (rtol 2e-2)" + tag, ok, msg)
        applied = not parity.compare_outputs(f32, got, 1e-4, 1e-4, atol_scale="rms")[0]
        record(f"--dtype bfloat16 MLP run {t} is not float32 (the products are bfloat16)" + tag,
               applied)


def check_other_product_forms(ingot, work):
    """Products the bfloat16 rule does not tile (its form: [rows, K] x [K, N], K even) still
    compute the option's arithmetic: a Gemm with transB (B read as [N, K], ResNet's classifier)
    over an odd K, and a MatMul over an odd K."""
    rng = np.random.default_rng(23)
    cases = {
        "gemm_transb_k255": (255, lambda x, w, b: bf(x) @ bf(w).T + b, (40, 255),
                             [helper.make_node("Gemm", ["x", "w", "b"], ["y"], transB=1)]),
        "matmul_k129": (129, lambda x, w, b: bf(x) @ bf(w) + b, (129, 20),
                        [helper.make_node("MatMul", ["x", "w"], ["p"]),
                         helper.make_node("Add", ["p", "b"], ["y"])]),
    }
    for label, (k, emulate, wshape, nodes) in cases.items():
        w = (rng.standard_normal(wshape) / np.sqrt(k)).astype(np.float32)
        n = wshape[0] if label.startswith("gemm") else wshape[1]
        b = (rng.standard_normal(n) * 0.1).astype(np.float32)
        g = helper.make_graph(nodes, label,
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, k])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, n])],
                              [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
        path, so = os.path.join(work, label + ".onnx"), os.path.join(work, label + ".so")
        save(g, path)
        x = rng.standard_normal((3, k)).astype(np.float32)
        what = f"--dtype bfloat16 {label}"
        result = (compiled(ingot, path, so, what, "--dtype", "bfloat16") and
                  ran(ingot, so, work, {"x": x}, what))
        if not result:
            continue
        got = result[0]
        ok, msg = parity.compare_outputs({"y": emulate(x, w, b).astype(np.float32)}, got, 1e-5,
                                         1e-5, atol_scale="rms", finite_ref=True,
                                         ref_name="bfloat16 emulation")
        record(f"--dtype bfloat16 {label} vs numpy's bfloat16 emulation", ok, msg)


def conv_nchw(x, w, b, stride=1, pad=0):
    """float64 2-D convolution (groups 1), NCHW x, OIHW w."""
    x = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    oh, ow = (h - kh) // stride + 1, (wd - kw) // stride + 1
    y = np.zeros((n, o, oh, ow))
    for i in range(kh):
        for j in range(kw):
            patch = x[:, :, i:i + stride * oh:stride, j:j + stride * ow:stride]
            y += np.einsum("nchw,oc->nohw", patch, w[:, :, i, j])
    return y + b.reshape(1, -1, 1, 1)


def depthwise_nchw(x, w, b, pad=1):
    """float64 depthwise 2-D convolution, stride 1: w [C, 1, k, k]."""
    k = w.shape[-1]
    x = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = x.shape[2] - k + 1, x.shape[3] - k + 1
    y = np.zeros((x.shape[0], x.shape[1], oh, ow))
    for i in range(k):
        for j in range(k):
            y += x[:, :, i:i + oh, j:j + ow] * w[:, 0, i, j].reshape(1, -1, 1, 1)
    return y + b.reshape(1, -1, 1, 1)


def cnn_model(path, rng):
    """stem 3x3 3->16 (odd channels: one block of 4 lanes) + Relu; a bottleneck 16->32 1x1,
    32->32 3x3, 32->16 1x1 + the stem's output + Relu; a 3x3 depthwise conv + Relu (float32
    sums, a bfloat16 output: its reader is converted); then 3x3 stride 2 16->40 (partial output
    blocks)."""
    shapes = {"ws": (16, 3, 3, 3), "wa": (32, 16, 1, 1), "wb": (32, 32, 3, 3),
              "wc": (16, 32, 1, 1), "we": (16, 1, 3, 3), "wd": (40, 16, 3, 3)}
    ws = {k: (rng.standard_normal(s) / np.sqrt(np.prod(s[1:]))).astype(np.float32)
          for k, s in shapes.items()}
    bs = {"b" + k[1]: (rng.standard_normal(s[0]) * 0.1).astype(np.float32)
          for k, s in shapes.items()}
    nodes = [helper.make_node("Conv", ["x", "ws", "bs"], ["s0"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["s0"], ["s"]),
             helper.make_node("Conv", ["s", "wa", "ba"], ["a0"]),
             helper.make_node("Relu", ["a0"], ["a"]),
             helper.make_node("Conv", ["a", "wb", "bb"], ["b0"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["b0"], ["b"]),
             helper.make_node("Conv", ["b", "wc", "bc"], ["c0"]),
             helper.make_node("Add", ["c0", "s"], ["c1"]),
             helper.make_node("Relu", ["c1"], ["c"]),
             helper.make_node("Conv", ["c", "we", "be"], ["e0"], pads=[1, 1, 1, 1], group=16),
             helper.make_node("Relu", ["e0"], ["e"]),
             helper.make_node("Conv", ["e", "wd", "bd"], ["y"], pads=[1, 1, 1, 1],
                              strides=[2, 2])]
    inits = [numpy_helper.from_array(v, k) for k, v in {**ws, **bs}.items()]
    g = helper.make_graph(nodes, "cnn",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 14, 14])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 40, 7, 7])],
                          inits)
    save(g, path)
    return ws, bs


def emulated_cnn(x, ws, bs):
    """What --dtype bfloat16 computes (docs/bfloat16.md): every conv (the stem's 3 input
    channels too) over bfloat16-rounded inputs and weights, summed exactly (float64
    here, float32 in ingot), bias and summand float32; a conv read only by such convs (a, b,
    the depthwise e) stores its result rounded to bfloat16, which its readers would round to
    anyway; the depthwise conv reads float32 (c) and sums it in float32."""
    relu = lambda v: np.maximum(v, 0)  # noqa: E731
    s = relu(conv_nchw(bf(x), bf(ws["ws"]), bs["bs"], pad=1)).astype(np.float32)
    a = bf(relu(conv_nchw(bf(s), bf(ws["wa"]), bs["ba"])))
    b = bf(relu(conv_nchw(bf(a), bf(ws["wb"]), bs["bb"], pad=1)))
    c = relu(conv_nchw(bf(b), bf(ws["wc"]), bs["bc"]) + s).astype(np.float32)
    e = bf(relu(depthwise_nchw(c, ws["we"], bs["be"])))
    return conv_nchw(e, bf(ws["wd"]), bs["bd"], stride=2, pad=1).astype(np.float32)


def check_cnn(ingot, work, target):
    """--dtype bfloat16 on convolutions (blocked convs of bfloat16 products): target None (the
    host) or an AVX2 target (the portable pair product)."""
    rng = np.random.default_rng(31)
    path = os.path.join(work, "cnn.onnx")
    ws, bs = cnn_model(path, rng)
    tag = f" [{target or 'host'}]"
    so = os.path.join(work, "cnn.bf16.so")
    if not compiled(ingot, path, so, "--dtype bfloat16 CNN" + tag, "--dtype", "bfloat16",
                    *(["--target", target] if target else [])):
        return
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    for t in range(2):
        x = (rng.standard_normal((1, 3, 14, 14)) * (1 + t)).astype(np.float32)
        result = ran(ingot, so, work, {"x": x}, f"--dtype bfloat16 CNN run {t}" + tag)
        if not result:
            continue
        got = result[0]
        # (Rounding an intermediate to bfloat16 after a float32 rather than an exact sum may
        # land one step away where the sum is near a rounding boundary: measured up to 8e-4 of
        # the RMS; 2e-3 allowed.)
        ok, msg = parity.compare_outputs({"y": emulated_cnn(x, ws, bs)}, got, 1e-3, 2e-3,
                                         atol_scale="rms", finite_ref=True,
                                         ref_name="bfloat16 emulation")
        record(f"--dtype bfloat16 CNN run {t} vs numpy's bfloat16 emulation" + tag, ok, msg)
        f32 = {"y": sess.run(None, {"x": x})[0]}
        ok, msg = parity.compare_outputs(f32, got, 2e-2, 2e-2, atol_scale="max",
                                         finite_ref=True, ref_name="ONNX Runtime float32")
        record(f"--dtype bfloat16 CNN run {t} vs ONNX Runtime float32 (rtol 2e-2)" + tag, ok, msg)
        applied = not parity.compare_outputs(f32, got, 1e-3, 1e-3, atol_scale="rms")[0]
        record(f"--dtype bfloat16 CNN run {t} is not float32 (the convs are bfloat16)" + tag,
               applied)


def host_runs_avx2():
    flags = open("/proc/cpuinfo").read() if os.path.exists("/proc/cpuinfo") else ""
    return " avx2" in flags and " fma" in flags


def check_weight_bytes(ingot, work):
    rng = np.random.default_rng(5)
    path = os.path.join(work, "wide.onnx")
    w = rng.standard_normal((512, 1024)).astype(np.float32)
    g = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"])], "wide",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 512])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 1024])],
                          [numpy_helper.from_array(w, "w")])
    save(g, path)
    sizes = {}
    for dtype in ("float32", "bfloat16"):
        so = os.path.join(work, f"wide.{dtype}.so")
        if not compiled(ingot, path, so, f"512x1024 weight with --dtype {dtype}", "--dtype", dtype):
            return
        sizes[dtype] = os.path.getsize(so)
    saved = sizes["float32"] - sizes["bfloat16"]
    record("--dtype bfloat16 stores the 2 MiB weight in half (>= 0.9 MiB smaller)",
           saved >= 0.9 * 2 ** 20, f"float32 {sizes['float32']} B, bfloat16 {sizes['bfloat16']} B")


def check_bad_dtype(ingot, work):
    path = os.path.join(work, "mlp.onnx")
    so = os.path.join(work, "bad.so")
    r = subprocess.run([ingot, "compile", path, "-o", so, "--dtype", "bfloat8"],
                       capture_output=True, text=True)
    lines = r.stderr.strip().splitlines()
    record("--dtype bfloat8 is one clear error and no artifact",
           r.returncode != 0 and len(lines) == 1 and "bfloat16" in lines[0] and
           "--dtype" in lines[0] and not os.path.exists(so), r.stderr.strip())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ingot", required=True)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="ingot-bf16-") as work:
        check_interface(args.ingot, work)
        check_pad_copies_bits(args.ingot, work)
        check_mlp(args.ingot, work, None)
        if host_runs_avx2():
            check_mlp(args.ingot, work, "llvm -mcpu=haswell")
        else:  # (said, not counted: the host path above ran the same checks)
            print("NOTE the -mcpu=haswell MLP needs an x86 host with AVX2 and FMA: not run")
        check_cnn(args.ingot, work, None)
        if host_runs_avx2():
            check_cnn(args.ingot, work, "llvm -mcpu=haswell")
        check_other_product_forms(args.ingot, work)
        check_weight_bytes(args.ingot, work)
        check_bad_dtype(args.ingot, work)
    passed = sum(results)
    print(f"{passed} passed, {len(results) - passed} failed")
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
