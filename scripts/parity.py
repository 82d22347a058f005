#!/usr/bin/env python3
"""Compares ingot with ONNX Runtime on models from make_models.py.

For each model: build it (cached in --workdir), run ONNX Runtime on seeded random inputs, then
`ingot compile` + `ingot run --inputs --outputs --print-time`, and compare every output with
compare_outputs(): ingot must produce exactly ORT's output names, each with ORT's dtype and
shape; a NaN or Inf in either side's output fails (in ORT's output it means the test input is
bad, and it is reported as such); float outputs need rel_err = max|ingot - ort| / max|ort|
<= --tol (default 1e-3), integer and bool outputs must be equal.

Usage: parity.py --ingot PATH [--models resnet50,mobilenetv2,bert] [--workdir DIR] [--tol 1e-3]
                 [--target "llvm -mcpu=x86-64-v3"] [--dtype float16]
--target compiles for that target instead of the host (its code must run here: e.g. the AVX2
code and 8-lane channel blocks of x86-64-v3 on an AVX-512 host). --dtype float16 compiles the
float32 models computed in float16 (`ingot compile --dtype float16`; compare with a --tol of
float16's precision, 1e-2).
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


def _nonfinite(a):
    """Number of NaN/Inf elements of a float array (0 for other dtypes)."""
    if a.dtype.kind not in "fc":
        return 0
    return int(a.size - np.count_nonzero(np.isfinite(a)))


def compare_outputs(ref, got, tol):
    """Checks ingot's outputs against ONNX Runtime's: -> (ok, message).

    ref, got: {output name: numpy array} from ORT and from ingot. Fails (ok False, the message
    naming the output) when an output is missing or extra, when dtype or shape differ, when ORT's
    output holds NaN/Inf (a bad test input: the comparison would prove nothing), when ingot's
    holds NaN/Inf, when an integer/bool output differs anywhere, or when a float output's
    rel_err = max|got - ref| / max|ref| exceeds tol. On success the message is
    "rel_err X (tol T)", X the worst over all outputs.
    """
    if not ref:
        return False, "ONNX Runtime produced no outputs"
    missing = [n for n in ref if n not in got]
    if missing:
        return False, (f"output '{missing[0]}' missing from ingot's outputs "
                       f"({sorted(got)})")
    extra = [n for n in got if n not in ref]
    if extra:
        return False, f"ingot has output '{extra[0]}' that ONNX Runtime does not ({sorted(ref)})"
    worst = 0.0
    for name, r in ref.items():
        g = np.asarray(got[name])
        r = np.asarray(r)
        if g.dtype != r.dtype:
            return False, f"output '{name}': dtype {g.dtype} from ingot, {r.dtype} from ORT"
        if g.shape != r.shape:
            return False, (f"output '{name}': shape {list(g.shape)} from ingot, "
                           f"{list(r.shape)} from ORT")
        bad = _nonfinite(r)
        if bad:
            return False, (f"output '{name}': ONNX Runtime's reference has {bad} NaN/Inf of "
                           f"{r.size} values (bad test input; nothing to compare)")
        bad = _nonfinite(g)
        if bad:
            return False, f"output '{name}': ingot's output has {bad} NaN/Inf of {g.size} values"
        if r.size == 0:
            continue
        if r.dtype.kind not in "fc":
            diff = int(np.count_nonzero(g != r))
            if diff:
                return False, f"output '{name}': {diff} of {r.size} {r.dtype} values differ"
            continue
        denom = max(float(np.abs(r).max()), 1e-30)
        err = float(np.abs(g.astype(np.float64) - r.astype(np.float64)).max()) / denom
        if not err <= tol:  # also catches a NaN err, should one get through
            return False, f"output '{name}': rel_err {err:.2e} > tol {tol:g}"
        worst = max(worst, err)
    return True, f"rel_err {worst:.2e} (tol {tol:g})"


def target_tag(target, dtype=None):
    """A file-name suffix for artifacts of a --target and --dtype ("" for the host's float32)."""
    tag = "" if not target else "." + re.sub(r"[^A-Za-z0-9]+", "_", target).strip("_")
    return tag + ("" if dtype in (None, "float32") else "." + dtype)


def check_model(name, ingot, workdir, tol, threads, path=None, feeds=None, target=None,
                repeat=3, dtype=None):
    """path/feeds default to make_models' NAME.onnx in workdir and make_models.make_inputs;
    target: compile for that target string (default: the host); dtype: ingot compile --dtype."""
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

    tag = target_tag(target, dtype)
    inputs_npz = os.path.join(workdir, f"{name}.inputs.npz")
    outputs_npz = os.path.join(workdir, f"{name}{tag}.outputs.npz")
    artifact = os.path.join(workdir, f"{name}{tag}.so")
    np.savez(inputs_npz, **feeds)
    if os.path.exists(outputs_npz):
        os.remove(outputs_npz)
    cmd = [ingot, "compile", path, "-o", artifact]
    if target:
        cmd += ["--target", target]
    if dtype:
        cmd += ["--dtype", dtype]
    shapes = input_shapes_arg(model, feeds)
    if shapes:
        cmd += ["--input-shapes", shapes]
    p, t_compile = run(cmd)
    if p.returncode != 0:
        return False, f"compile failed: {p.stderr.strip()}"
    p, _ = run([ingot, "run", artifact, "--inputs", inputs_npz, "--outputs", outputs_npz,
                "--print-time", "--repeat", str(repeat), "--num-threads", str(threads)])
    if p.returncode != 0:
        return False, f"run failed: {p.stderr.strip()}"
    m = re.search(r"mean \(ms\).*\n\s*([\d.]+)\s+([\d.]+)", p.stdout)
    timing = f"mean {m.group(1)} ms, median {m.group(2)} ms" if m else "no timing"
    with np.load(outputs_npz) as z:
        got = {k: z[k] for k in z.files}
    ok, msg = compare_outputs(ref, got, tol)
    return ok, f"{msg}; compile {t_compile:.1f} s; ingot {timing}"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ingot", required=True)
    ap.add_argument("--models", default="resnet50,mobilenetv2,bert")
    ap.add_argument("--workdir", default="models")
    ap.add_argument("--tol", type=float, default=1e-3)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--target", default=None, help="ingot compile --target (default: the host)")
    ap.add_argument("--repeat", type=int, default=3, help="timed runs per model")
    ap.add_argument("--dtype", default=None, help="ingot compile --dtype (default: float32)")
    args = ap.parse_args(argv)
    os.makedirs(args.workdir, exist_ok=True)
    failed = 0
    on = f" [{args.target}]" if args.target else ""
    on += f" [--dtype {args.dtype}]" if args.dtype else ""
    for name in args.models.split(","):
        ok, msg = check_model(name, args.ingot, args.workdir, args.tol, args.threads,
                              target=args.target, repeat=args.repeat, dtype=args.dtype)
        failed += not ok
        print(f"{'PASS' if ok else 'FAIL'} {name}{on}: {msg}", flush=True)
    n = len(args.models.split(","))
    print(f"parity: {n - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
