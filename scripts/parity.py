#!/usr/bin/env python3
"""Compares ingot with ONNX Runtime on models from make_models.py.

For each model: build it (cached in --workdir), run ONNX Runtime on seeded random inputs, then
`ingot compile` + `ingot run --inputs --outputs --print-time`, and compare every output with
compare_outputs(), the one output checker of the Python tests and benchmarks: ingot must produce
exactly ORT's output names, each with ORT's dtype and shape; a NaN or Inf in either side's output
fails (in ORT's output it means the test input is bad, and it is reported as such); every float
element needs |ingot - ort| <= atol + rtol * |ort| (--tol is rtol, default 1e-3; atol defaults to
--tol times the output's RMS magnitude, the scale of a sum's rounding, or is --atol absolutely),
integer and bool outputs must be equal.

Usage: parity.py --ingot PATH [--models resnet50,mobilenetv2,bert] [--workdir DIR] [--tol 1e-3]
                 [--atol A]
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


def _nonfinite_mismatch(name, r, g, ref_name, got_name):
    """None when r and g hold NaN at the same positions and the same +-Inf at the same
    positions; else the message naming the first position that differs."""
    rn, gn = np.isnan(r), np.isnan(g)
    ri, gi = np.isinf(r), np.isinf(g)
    bad = (rn != gn) | (ri != gi) | (ri & gi & (np.sign(r) != np.sign(g)))
    if not bad.any():
        return None
    idx = tuple(int(i) for i in np.argwhere(bad)[0])
    return (f"output '{name}': NaN/Inf differ at {int(bad.sum())} of {r.size} positions, first "
            f"at {list(idx)}: {got_name} {g[idx]!r}, {ref_name} {r[idx]!r}")


def bfloat16_dtype():
    """ml_dtypes' bfloat16 (onnx depends on ml_dtypes and gives bfloat16 tensors in it)."""
    import ml_dtypes
    return np.dtype(ml_dtypes.bfloat16)


def load_npz(path):
    """{name: array} of an .npz file, with ingot's bfloat16 members as bfloat16: numpy with
    ml_dtypes saves bfloat16 as the raw 2-byte descr '<V2', which np.load reads as '|V2'
    (docs/cli.md)."""
    with np.load(path) as z:
        out = {k: z[k] for k in z.files}
    for k, v in out.items():
        if v.dtype.kind == "V" and v.dtype.itemsize == 2 and v.dtype.names is None:
            out[k] = v.view(bfloat16_dtype())
    return out


def rms(a):
    """The root-mean-square magnitude of an array's finite elements (0 when it has none)."""
    a = np.asarray(a)
    a = a[np.isfinite(a)].astype(np.float64) if a.dtype.kind in "fc" else a.astype(np.float64)
    return float(np.sqrt(np.mean(np.abs(a) ** 2))) if a.size else 0.0


def compare_outputs(ref, got, rtol, atol=None, *, atol_scale=None, int_atol=0, finite_ref=False,
                    stats=None, ref_name="ONNX Runtime", got_name="ingot"):
    """The one output checker of the Python tests and benchmarks: -> (ok, message).

    ref, got: {output name: numpy array}, the reference's and the checked side's. Fails (ok
    False, the message naming the output and the first offending element) when:
      - an output is missing or extra, or an output's dtype or shape differs;
      - the positions of NaN, +Inf or -Inf differ between the two (node tests that expect NaN
        pass when the checked side has NaN in the same places); with finite_ref=True any NaN/Inf
        in the reference fails too (model parity on random inputs: a reference that overflowed
        proves nothing);
      - a float element breaks |got - ref| <= atol + rtol * |ref|, every element on its own;
        atol defaults to rtol (an absolute floor suited to outputs of order 1); with
        atol_scale="rms" it is atol times each output's own RMS magnitude (rms()), for outputs
        that are sums of many terms (logits, hidden states, convolutions): an element near zero
        carries the rounding of its terms, whose scale is the output's, not its own; with
        atol_scale="max" it is atol times each output's largest |ref|, only for an error that
        follows that magnitude (weight quantization: a fraction of the weights' largest
        magnitude), never for float rounding;
      - an integer element differs by more than int_atol (default 0: exact), a bool differs.
    On success the message is "rel_err R, max |d| D (rtol .., atol ..)": R the largest
    |got - ref| / max(|ref|, atol / rtol) over all float elements (the relative error, measured
    against the crossover magnitude atol/rtol for elements smaller than it) and D the largest
    absolute difference. stats, if a dict, receives {name: {"max_abs", "rel_err",
    "mismatched"}} for every float or integer output compared.
    """
    if atol is None:
        atol = rtol
    scales = {None: lambda r: 1.0, "rms": rms,
              "max": lambda r: float(np.abs(r[np.isfinite(r)]).max(initial=0.0))}
    if atol_scale not in scales:
        raise ValueError(f"compare_outputs: atol_scale {atol_scale!r} is not None, 'rms' or "
                         "'max'")
    base_atol = atol
    if not ref:
        return False, f"{ref_name} produced no outputs"
    missing = [n for n in ref if n not in got]
    if missing:
        return False, (f"output '{missing[0]}' missing from {got_name}'s outputs "
                       f"({sorted(got)})")
    extra = [n for n in got if n not in ref]
    if extra:
        return False, (f"{got_name} has output '{extra[0]}' that {ref_name} does not "
                       f"({sorted(ref)})")
    worst_rel = worst_abs = 0.0
    for name, r in ref.items():
        g = np.asarray(got[name])
        r = np.asarray(r)
        if g.dtype != r.dtype:
            return False, f"output '{name}': dtype {g.dtype} from {got_name}, {r.dtype} from {ref_name}"
        if g.shape != r.shape:
            return False, (f"output '{name}': shape {list(g.shape)} from {got_name}, "
                           f"{list(r.shape)} from {ref_name}")
        if r.size == 0:
            continue
        if r.dtype == bfloat16_dtype():  # compared as floats (numpy has no bfloat16 kind)
            r, g = r.astype(np.float32), g.astype(np.float32)
        if r.dtype.kind == "b" or r.dtype.kind not in "fciu":
            diff = int(np.count_nonzero(g != r))
            if diff:
                idx = tuple(int(i) for i in np.argwhere(g != r)[0])
                return False, (f"output '{name}': {diff} of {r.size} {r.dtype} values differ, "
                               f"first at {list(idx)}: {got_name} {g[idx]!r}, {ref_name} {r[idx]!r}")
            continue
        if r.dtype.kind in "iu":
            d = np.abs(g.astype(np.int64) - r.astype(np.int64))
            bad = d > int_atol
            if stats is not None:
                stats[name] = {"max_abs": float(d.max()), "rel_err": None,
                               "mismatched": int(bad.sum())}
            if bad.any():
                idx = tuple(int(i) for i in np.argwhere(bad)[0])
                return False, (f"output '{name}': {int(bad.sum())} of {r.size} {r.dtype} values "
                               f"differ by more than {int_atol}, first at {list(idx)}: "
                               f"{got_name} {g[idx]!r}, {ref_name} {r[idx]!r}")
            worst_abs = max(worst_abs, float(d.max()))
            continue
        atol = base_atol * scales[atol_scale](r)
        floor = atol / rtol if rtol > 0 else np.inf
        r64 = r.astype(np.complex128 if r.dtype.kind == "c" else np.float64)
        g64 = g.astype(r64.dtype)
        finite = np.isfinite(r64)
        if finite_ref and not finite.all():
            return False, (f"output '{name}': {ref_name}'s reference has "
                           f"{int(r.size - finite.sum())} NaN/Inf of {r.size} values (bad test "
                           "input; nothing to compare)")
        msg = _nonfinite_mismatch(name, r64, g64, ref_name, got_name)
        if msg:
            return False, msg
        # Only the positions where both are finite remain (the others matched above).
        with np.errstate(invalid="ignore", over="ignore"):
            d = np.where(finite, np.abs(np.where(finite, g64, 0) - np.where(finite, r64, 0)), 0.0)
        mag = np.abs(np.where(finite, r64, 0))
        bad = ~(d <= atol + rtol * mag)
        with np.errstate(invalid="ignore", divide="ignore"):
            rel_all = d / np.maximum(mag, floor) if np.isfinite(floor) else d
        rel = float(np.nanmax(np.where(d == 0, 0.0, rel_all)))
        if stats is not None:
            stats[name] = {"max_abs": float(d.max()), "rel_err": rel,
                           "mismatched": int(bad.sum())}
        if bad.any():
            idx = tuple(int(i) for i in np.unravel_index(
                int(np.argmax(np.where(bad, d - rtol * mag, -np.inf))), r.shape))
            return False, (f"output '{name}': {int(bad.sum())} of {r.size} values outside "
                           f"|d| <= {atol:g} + {rtol:g}*|ref| (rel_err {rel:.2e}), worst at "
                           f"{list(idx)}: {got_name} {g[idx]!r}, {ref_name} {r[idx]!r}")
        worst_rel, worst_abs = max(worst_rel, rel), max(worst_abs, float(d.max()))
    scale = {None: "", "rms": " x each output's RMS", "max": " x each output's max |ref|"}[
        atol_scale]
    return True, (f"rel_err {worst_rel:.2e}, max |d| {worst_abs:.2e} (rtol {rtol:g}, "
                  f"atol {base_atol:g}{scale})")


def target_tag(target, dtype=None):
    """A file-name suffix for artifacts of a --target and --dtype ("" for the host's float32)."""
    tag = "" if not target else "." + re.sub(r"[^A-Za-z0-9]+", "_", target).strip("_")
    return tag + ("" if dtype in (None, "float32") else "." + dtype)


def reference_session(model, threads=None):
    """An ONNX Runtime CPU session that computes reference outputs (model: a path or bytes).

    On x86 CPUs without VNNI, ONNX Runtime's default u8s8 integer kernels add pairs of products
    in saturating int16 (vpmaddubsw), so a quantized model's outputs depend on the host (an AVX2
    Zen 3 runs them 0.15 away from the exact sums where AVX-512 VNNI hosts are exact).
    session.x64quantprecision=1 selects its exact kernels: the reference is the model's
    arithmetic on every host. Float models are unaffected."""
    so = ort.SessionOptions()
    so.add_session_config_entry("session.x64quantprecision", "1")
    if threads:
        so.intra_op_num_threads = threads
    return ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])


def check_model(name, ingot, workdir, tol, threads, path=None, feeds=None, target=None,
                repeat=3, dtype=None, atol=None):
    """path/feeds default to make_models' NAME.onnx in workdir and make_models.make_inputs;
    target: compile for that target string (default: the host); dtype: ingot compile --dtype;
    tol, atol: compare_outputs' rtol and atol (atol None: tol x each output's RMS)."""
    if path is None:
        path = os.path.join(workdir, f"{name}.onnx")
        if not os.path.exists(path):
            make_models.main([workdir, "--models", name])
    model = onnx.load(path, load_external_data=False)
    if feeds is None:
        feeds = make_models.make_inputs(model)
    sess = reference_session(path, threads)
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
    got = load_npz(outputs_npz)
    if atol is None:  # the default: tol x each output's RMS, the scale of its rounding
        ok, msg = compare_outputs(ref, got, tol, tol, atol_scale="rms", finite_ref=True)
    else:
        ok, msg = compare_outputs(ref, got, tol, atol, finite_ref=True)
    return ok, f"{msg}; compile {t_compile:.1f} s; ingot {timing}"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ingot", required=True)
    ap.add_argument("--models", default="resnet50,mobilenetv2,bert")
    ap.add_argument("--workdir", default="models")
    ap.add_argument("--tol", "--rtol", dest="tol", type=float, default=1e-3,
                    help="compare_outputs' rtol (default: %(default)s)")
    ap.add_argument("--atol", type=float, default=None,
                    help="compare_outputs' atol (default: --tol x each output's RMS)")
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
                              target=args.target, repeat=args.repeat, dtype=args.dtype,
                              atol=args.atol)
        failed += not ok
        print(f"{'PASS' if ok else 'FAIL'} {name}{on}: {msg}", flush=True)
    n = len(args.models.split(","))
    print(f"parity: {n - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
