#!/usr/bin/env python3
"""One decoder artifact at the extremes of its bounds, against ONNX Runtime (issue 17: "one
artifact serves every sequence length from 1 to 1024").

For a model from scripts/export_decoder.py (its .config.json beside it) and an artifact compiled
with --dim-bounds, runs `ingot run` at each (seq, past) binding and compares every output (logits
and presents) with ONNX Runtime on the same random inputs through scripts/parity.py's
compare_outputs: names, dtypes and shapes equal, NaN/Inf nowhere in ORT's outputs and in the same
places in ingot's, every element within atol + rtol * |ref| (rtol = --tolerance, atol =
--tolerance x the output's RMS: the logits and caches are sums of many terms).
Exits 1 when a binding fails. A correctness check, not a benchmark: it times nothing but the
wall time of each binding's check (no raw record).

Usage: decoder_lengths.py MODEL.onnx ARTIFACT.so [--ingot PATH]
                          [--bindings 1024:0,1:1023,512:511,7:1000] [--tolerance 1e-4]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "scripts"))
import parity  # noqa: E402  (compare_outputs)


def main():
    import onnxruntime as ort
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("artifact")
    ap.add_argument("--ingot", default="build/release/tools/ingot/ingot")
    ap.add_argument("--bindings", default="1024:0,1:1023,512:511,7:1000")
    ap.add_argument("--tolerance", type=float, default=1e-4)
    a = ap.parse_args()
    cfg = json.load(open(os.path.splitext(a.model)[0] + ".config.json"))
    so = ort.SessionOptions()
    so.intra_op_num_threads = 2
    sess = ort.InferenceSession(a.model, so, providers=["CPUExecutionProvider"])
    names = [o.name for o in sess.get_outputs()]
    rng = np.random.default_rng(0)
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        for b in a.bindings.split(","):
            seq, past = (int(v) for v in b.split(":"))
            f = {"input_ids": rng.integers(0, cfg["vocab"], (1, seq), dtype=np.int64)}
            for i in range(cfg["layers"]):
                for kind in ("key", "value"):
                    f[f"past_{kind}_{i}"] = rng.standard_normal(
                        (1, cfg["kv_heads"], past, cfg["head_dim"])).astype(np.float32)
            inp, outp = os.path.join(tmp, "in.npz"), os.path.join(tmp, "out.npz")
            np.savez(inp, **f)
            t = time.time()
            r = subprocess.run([a.ingot, "run", a.artifact, "--inputs", inp, "--outputs", outp],
                               capture_output=True, text=True)
            if r.returncode != 0:
                print(f"seq={seq} past={past}: FAIL {r.stderr.strip()}")
                ok = False
                continue
            with np.load(outp) as z:
                got = {k: z[k] for k in z.files}
            want = dict(zip(names, sess.run(None, f)))
            good, msg = parity.compare_outputs(want, got, a.tolerance, a.tolerance,
                                               atol_scale="rms", finite_ref=True)
            ok = ok and good
            print(f"seq={seq} past={past}: {'PASS' if good else 'FAIL'} {len(names)} outputs, "
                  f"{msg} ({time.time() - t:.1f} s)", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
