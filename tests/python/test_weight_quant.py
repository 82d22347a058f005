#!/usr/bin/env python3
"""ctest wrapper: weight-only quantization (`--quantize-weights int8|int4 --group-size G`,
issue 17) against ONNX Runtime.

The model (symbolic `seq`, compiled with --dim-bounds) has every reader the pass rewrites:
- a MatMul with a constant [K, N] weight (B read directly; N = 200, a partial column block);
- a Gemm with transB and a bias;
- a tied embedding: Gather(E, ids) and MatMul(h, Transpose(E)) of the same constant E, compiled
  twice: as is (constant folding makes the small E^T a constant of its own, so the Gather stays
  float) and with fold_constants disabled (tied, as GPT-2's LM head: the Gather dequantizes);
- a Gemm with a weight of 40 columns (few columns: the dot form).
The reference is independent of ingot: NumPy quantizes each weight with the documented scheme
(symmetric, one scale per group of G along the reduced dim, max |w| / 127 or / 7, rounding half
away from zero), the dequantized weights replace the initializers, and ONNX Runtime runs that
model. ingot's outputs must match it (scripts/parity.py's compare_outputs): every element within
atol + 1e-5*|ref|, atol = 1e-5 x each output's RMS. The compile's summary
line must report the quantized weights and the byte reduction of their integers and scales, and
with --accuracy-inputs each output's max/mean error against float32 as computed here from ONNX
Runtime's float32 outputs. Bad option values give one error line and no file. Prints one line per check and
`N passed, N failed`; exits 1 on a failure.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import parity  # noqa: E402  (compare_outputs, the one output checker)

results = []
K, V, GROUP = 64, 150, 32


def record(name, ok, detail=""):
    results.append(ok)
    print(f"{'PASS' if ok else 'FAIL'} {name}{': ' + detail if detail else ''}", flush=True)


def weights():
    rng = np.random.default_rng(21)
    return {
        "W": rng.standard_normal((K, 200)).astype(np.float32),       # MatMul B = W
        "Wt": rng.standard_normal((96, K)).astype(np.float32),       # Gemm transB: B = Wt^T
        "bt": rng.standard_normal(96).astype(np.float32),
        "E": rng.standard_normal((V, K)).astype(np.float32),         # tied: Gather + MatMul E^T
        "Ws": rng.standard_normal((96, 40)).astype(np.float32),      # Gemm, 40 columns
    }


def build(path, w):
    """A weight "Eg" (the reference's float embedding) is read by the Gather in E's place."""
    nodes = [
        helper.make_node("Gather", ["Eg" if "Eg" in w else "E", "ids"], ["emb"], axis=0),
        helper.make_node("Reshape", ["emb", "flat"], ["h"]),                # [seq, K]
        helper.make_node("MatMul", ["h", "W"], ["y1"]),                     # [seq, 200]
        helper.make_node("Gemm", ["h", "Wt", "bt"], ["y2"], transB=1),      # [seq, 96]
        helper.make_node("Gemm", ["y2", "Ws"], ["y4"]),                     # [seq, 40]
        helper.make_node("Transpose", ["E"], ["Et"], perm=[1, 0]),
        helper.make_node("MatMul", ["h", "Et"], ["y3"]),                    # [seq, V]
    ]
    inits = [numpy_helper.from_array(a, n) for n, a in w.items()]
    inits.append(numpy_helper.from_array(np.array([-1, K], np.int64), "flat"))
    g = helper.make_graph(
        nodes, "wq", [helper.make_tensor_value_info("ids", TensorProto.INT64, [1, "seq"])],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in ("y1", "y3", "y4")],
        inits)
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path)


def fake_quant(b, bits):
    """b: the logical [K, N] operand; returns its dequantized value."""
    qmax = 127 if bits == 8 else 7
    k, n = b.shape
    g = b.reshape(k // GROUP, GROUP, n)
    amax = np.abs(g).max(axis=1, keepdims=True)
    scale = np.where(amax > 0, amax / np.float32(qmax), np.float32(1)).astype(np.float32)
    x = g / scale
    q = np.clip(np.sign(x) * np.floor(np.abs(x) + 0.5), -qmax, qmax)
    return (q.astype(np.float32) * scale).reshape(k, n).astype(np.float32)


def expected_ratio(bits):
    """float32 bytes over the quantized weights': one byte (int8) or half a byte (int4) per
    element, one float32 scale per group per column (the graph's row-major integers; the
    schedule's panels pad the last one in the artifact). For GPT-2 small's shapes and groups of
    128 that is 3.88x and 7.53x."""
    shapes = [(K, 200), (K, 96), (K, V), (96, 40)]  # (K, N) of each product's B
    fp32 = sum(k * n * 4 for k, n in shapes)
    quant = sum(k * n * bits // 8 + (k // GROUP) * n * 4 for k, n in shapes)
    return fp32 / quant


def reference(w, bits, tied):
    """Tied: E quantized for the Gather and the MatMul alike. Untied (constant folding made the
    small E^T a constant of its own): the Gather reads the float E."""
    r = {"W": fake_quant(w["W"], bits), "Wt": fake_quant(w["Wt"].T, bits).T, "bt": w["bt"],
         "E": fake_quant(w["E"].T, bits).T, "Ws": fake_quant(w["Ws"], bits)}
    if not tied:
        r["Eg"] = w["E"]
    return r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ingot", required=True)
    args = ap.parse_args()
    import onnxruntime as ort

    exe = os.path.abspath(args.ingot)
    w = weights()
    with tempfile.TemporaryDirectory() as tmp:
        model = os.path.join(tmp, "wq.onnx")
        build(model, w)
        # fold_constants off keeps E^T a Transpose of E, folded into the MatMul: the tied case
        # (as GPT-2's LM head, too large to fold).
        for bits, tied in ((8, False), (4, False), (8, True), (4, True)):
            name = f"int{bits}{' tied' if tied else ''}"
            art = os.path.join(tmp, f"wq{bits}{tied}.so")
            extra = ["--disabled-pass", "fold_constants"] if tied else []
            r = subprocess.run([exe, "compile", model, "-o", art, "--dim-bounds", "seq:1..16",
                                "--quantize-weights", f"int{bits}", "--group-size", str(GROUP)] +
                               extra, capture_output=True, text=True)
            record(f"{name}: compile", r.returncode == 0, r.stderr.strip())
            if r.returncode != 0:
                continue
            m = re.search(r"quantized (\d+) weights .*\(([0-9.]+)x smaller\)", r.stdout)
            want_ratio = expected_ratio(bits)
            record(f"{name}: summary reports 4 weights and {want_ratio:.2f}x fewer bytes",
                   bool(m) and int(m.group(1)) == 4 and abs(float(m.group(2)) - want_ratio) < 0.01,
                   r.stdout.splitlines()[0] if r.stdout else "")
            ref_model = os.path.join(tmp, f"ref{bits}{tied}.onnx")
            build(ref_model, reference(w, bits, tied))
            sess = ort.InferenceSession(ref_model, providers=["CPUExecutionProvider"])
            for seq in (1, 5, 16):
                ids = np.random.default_rng(seq).integers(-V, V, (1, seq)).astype(np.int64)
                want = dict(zip(["y1", "y3", "y4"], sess.run(None, {"ids": ids})))
                np.savez(os.path.join(tmp, "in.npz"), ids=ids)
                r = subprocess.run([exe, "run", art, "--inputs", os.path.join(tmp, "in.npz"),
                                    "--outputs", os.path.join(tmp, "out.npz")],
                                   capture_output=True, text=True)
                if r.returncode != 0:
                    record(f"{name}: seq={seq}", False, r.stderr.strip())
                    continue
                with np.load(os.path.join(tmp, "out.npz")) as f:
                    got = {k: f[k] for k in f.files}
                # The outputs are sums of 64-96 products of order-1 values (RMS 7-75): an element
                # near zero carries the rounding of its terms, so atol is rtol times the output's
                # RMS.
                ok, msg = parity.compare_outputs(want, got, 1e-5, 1e-5, atol_scale="rms",
                                                 finite_ref=True)
                record(f"{name}: seq={seq} equals ONNX Runtime on the dequantized weights", ok, msg)
        # The accuracy report: its numbers against ONNX Runtime's float32 outputs and ingot's
        # quantized ones, computed here.
        ids = np.random.default_rng(9).integers(0, V, (1, 7)).astype(np.int64)
        acc = os.path.join(tmp, "acc.npz")
        np.savez(acc, ids=ids)
        art = os.path.join(tmp, "acc.so")
        r = subprocess.run([exe, "compile", model, "-o", art, "--dim-bounds", "seq:1..16",
                            "--quantize-weights", "int4", "--group-size", str(GROUP),
                            "--accuracy-inputs", acc], capture_output=True, text=True)
        reported = {m.group(1): (float(m.group(2)), float(m.group(3))) for m in re.finditer(
            r"output '(\w+)' against float32 on .*: max relative error ([0-9.e+-]+), mean "
            r"([0-9.e+-]+)", r.stdout)}
        ok = r.returncode == 0 and sorted(reported) == ["y1", "y3", "y4"]
        detail = r.stderr.strip() or ""
        if ok:
            fp32 = dict(zip(["y1", "y3", "y4"], ort.InferenceSession(
                model, providers=["CPUExecutionProvider"]).run(None, {"ids": ids})))
            subprocess.run([exe, "run", art, "--inputs", acc, "--outputs",
                            os.path.join(tmp, "q.npz")], check=True, capture_output=True)
            q = np.load(os.path.join(tmp, "q.npz"))
            for n, (mx, mean) in reported.items():
                d = np.abs(q[n].astype(np.float64) - fp32[n])
                want_mx = d.max() / np.abs(fp32[n]).max()
                want_mean = d.sum() / np.abs(fp32[n]).sum()
                ok = ok and abs(mx - want_mx) <= 0.01 * want_mx and \
                    abs(mean - want_mean) <= 0.01 * want_mean and want_mx > 1e-3
                detail += f"{n}: {mx:.3g}/{mean:.3g} (here {want_mx:.3g}/{want_mean:.3g}) "
        record("int4: --accuracy-inputs reports each output's error against float32", ok, detail)
        np.savez(os.path.join(tmp, "wrong.npz"), x=ids)
        for opts, want in ((["--accuracy-inputs", acc], "--accuracy-inputs needs --quantize-weights"),
                           (["--quantize-weights", "int8", "--accuracy-inputs",
                             os.path.join(tmp, "wrong.npz")], "no array for input 'ids'"),
                           (["--quantize-weights", "int3"], "--quantize-weights must be int8 or int4"),
                           (["--quantize-weights", "int8", "--group-size", "7"],
                            "--group-size must be an even number >= 2, got 7")):
            art = os.path.join(tmp, "bad.so")
            r = subprocess.run([exe, "compile", model, "-o", art, "--dim-bounds", "seq:1..16"] +
                               opts, capture_output=True, text=True)
            record(f"error: {' '.join(opts)}",
                   r.returncode == 1 and want in r.stderr and r.stderr.count("\n") == 1 and
                   not os.path.exists(art), r.stderr.strip())
    print(f"{sum(results)} passed, {len(results) - sum(results)} failed")
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()
