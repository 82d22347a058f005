#!/usr/bin/env python3
"""One decoder artifact at the extremes of its bounds, against ONNX Runtime (issue 17: "one
artifact serves every sequence length from 1 to 1024").

For a model from scripts/export_decoder.py (its .config.json beside it) and an artifact compiled
with --dim-bounds, runs `ingot run` at each (seq, past) binding and compares every output (logits
and presents) with ONNX Runtime on the same random inputs: shapes equal, and the largest error
relative to the output's largest magnitude. Exits 1 when a binding fails or an error exceeds
--tolerance.

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
            got = np.load(outp)
            want = sess.run(None, f)
            shapes = all(got[n].shape == w.shape for n, w in zip(names, want))
            err = max(float(np.max(np.abs(got[n] - w))) / max(1e-30, float(np.max(np.abs(w))))
                      for n, w in zip(names, want))
            good = shapes and err <= a.tolerance
            ok = ok and good
            print(f"seq={seq} past={past}: {'PASS' if good else 'FAIL'} {len(names)} outputs, "
                  f"shapes equal {shapes}, max rel err {err:.2e} ({time.time() - t:.1f} s)",
                  flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
