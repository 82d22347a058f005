#!/usr/bin/env python3
"""Compares ingot with ONNX Runtime on models from make_models.py.

For each model: build it (cached in --workdir), run ONNX Runtime on seeded random inputs, then
`ingot compile` + `ingot run --inputs --outputs --print-time`, and compare every output:
rel_err = max|ingot - ort| / max|ort| must be <= --tol (default 1e-3).

Usage: parity.py --ingot PATH [--models resnet50,mobilenetv2,bert] [--workdir DIR] [--tol 1e-3]
Exit status is non-zero if any model fails to compile, run, or match.
"""
import argparse
import os
import re
import subprocess
import sys
import time

import numpy as np
import onnx
import onnxruntime as ort

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_models  # noqa: E402


def input_shapes_arg(model, feeds):
    """--input-shapes for inputs with symbolic dims, bound to the fed shapes."""
    parts = []
    for vi in model.graph.input:
        dims = vi.type.tensor_type.shape.dim
        if any(d.dim_param or d.dim_value <= 0 for d in dims):
            parts.append(f"{vi.name}:[{','.join(str(s) for s in feeds[vi.name].shape)}]")
    return " ".join(parts)


def run(cmd):
    t = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p, time.time() - t


def check_model(name, ingot, workdir, tol, threads, path=None, feeds=None):
    """path/feeds default to make_models' NAME.onnx in workdir and make_models.make_inputs."""
    if path is None:
        path = os.path.join(workdir, f"{name}.onnx")
        if not os.path.exists(path):
            make_models.main([workdir, "--models", name])
    model = onnx.load(path, load_external_data=False)
    if feeds is None:
        feeds = make_models.make_inputs(model)
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    ref = dict(zip([o.name for o in sess.get_outputs()], sess.run(None, feeds)))

    inputs_npz = os.path.join(workdir, f"{name}.inputs.npz")
    outputs_npz = os.path.join(workdir, f"{name}.outputs.npz")
    artifact = os.path.join(workdir, f"{name}.so")
    np.savez(inputs_npz, **feeds)
    if os.path.exists(outputs_npz):
        os.remove(outputs_npz)
    cmd = [ingot, "compile", path, "-o", artifact]
    shapes = input_shapes_arg(model, feeds)
    if shapes:
        cmd += ["--input-shapes", shapes]
    p, t_compile = run(cmd)
    if p.returncode != 0:
        return False, f"compile failed: {p.stderr.strip()}"
    p, _ = run([ingot, "run", artifact, "--inputs", inputs_npz, "--outputs", outputs_npz,
                "--print-time", "--repeat", "3", "--num-threads", str(threads)])
    if p.returncode != 0:
        return False, f"run failed: {p.stderr.strip()}"
    m = re.search(r"mean \(ms\).*\n\s*([\d.]+)\s+([\d.]+)", p.stdout)
    timing = f"mean {m.group(1)} ms, median {m.group(2)} ms" if m else "no timing"
    got = np.load(outputs_npz)
    worst = 0.0
    for oname, r in ref.items():
        if oname not in got:
            return False, f"output '{oname}' missing from ingot's outputs ({list(got.keys())})"
        g = got[oname]
        if g.shape != r.shape:
            return False, f"output '{oname}': shape {g.shape} vs ORT {r.shape}"
        denom = max(float(np.abs(r).max()), 1e-30)
        worst = max(worst, float(np.abs(g.astype(np.float64) - r).max()) / denom)
    ok = worst <= tol
    return ok, f"rel_err {worst:.2e} (tol {tol:g}); compile {t_compile:.1f} s; ingot {timing}"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ingot", required=True)
    ap.add_argument("--models", default="resnet50,mobilenetv2,bert")
    ap.add_argument("--workdir", default="models")
    ap.add_argument("--tol", type=float, default=1e-3)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    args = ap.parse_args(argv)
    os.makedirs(args.workdir, exist_ok=True)
    failed = 0
    for name in args.models.split(","):
        ok, msg = check_model(name, args.ingot, args.workdir, args.tol, args.threads)
        failed += not ok
        print(f"{'PASS' if ok else 'FAIL'} {name}: {msg}", flush=True)
    n = len(args.models.split(","))
    print(f"parity: {n - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
