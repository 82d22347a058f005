"""Shared by the Python tests that check ingot against ONNX Runtime: a check record, compile,
run-and-compare over several feeds on one artifact, and the one-line refusal check."""
import os
import subprocess
import sys

import numpy as np
import onnx

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import parity  # noqa: E402  (compare_outputs, the one output checker)

results = []


def record(name, ok, detail=""):
    results.append(ok)
    print(f"{'PASS' if ok else 'FAIL'} {name}{': ' + detail if detail else ''}", flush=True)


def summary():
    """Prints `N passed, N failed`; returns the exit status (1 on a failure)."""
    failed = results.count(False)
    print(f"{len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


def compile_model(exe, m, path, what, extra=()):
    """Saves `m` to `path` (.onnx), compiles it next to it; records `what compiles`. Returns the
    artifact's path, or None when the compile failed."""
    onnx.save(m, path)
    art = path.replace(".onnx", ".so")
    r = subprocess.run([exe, "compile", path, "-o", art, *extra], capture_output=True, text=True)
    record(f"{what} compiles", r.returncode == 0, r.stderr.strip()[-300:])
    return art if r.returncode == 0 else None


def run(exe, art, feeds, tmp):
    """Runs the artifact on `feeds`; returns (outputs as a dict, None) or (None, stderr)."""
    inp, outp = os.path.join(tmp, "in.npz"), os.path.join(tmp, "out.npz")
    np.savez(inp, **feeds)
    r = subprocess.run([exe, "run", art, "--inputs", inp, "--outputs", outp],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return None, r.stderr.strip()
    with np.load(outp) as got:
        return {k: got[k] for k in got.files}, None


def mismatches(exe, art, sess, feeds_list, tmp, label, rtol=1e-5, atol=1e-5, int_atol=0):
    """Runs every feed set on the artifact and on the ONNX Runtime session `sess`; returns one
    line per feed set whose outputs differ (`label(feeds)` names it), as scripts/parity.py's
    compare_outputs judges them: names, dtypes, shapes, NaN/Inf positions, every float element
    within atol + rtol*|ref|, integer elements within int_atol (default exact)."""
    bad = []
    names = [o.name for o in sess.get_outputs()]
    for feeds in feeds_list:
        got, err = run(exe, art, feeds, tmp)
        if err is not None:
            bad.append(f"{label(feeds)}: {err}")
            continue
        want = dict(zip(names, sess.run(None, feeds)))
        ok, msg = parity.compare_outputs(want, got, rtol, atol, int_atol=int_atol)
        if not ok:
            bad.append(f"{label(feeds)}: {msg}")
    return bad


def refused(exe, art, feeds, tmp, must_contain):
    """Whether running `feeds` fails with exactly one line that contains `must_contain`; and
    that line."""
    inp = os.path.join(tmp, "bad.npz")
    np.savez(inp, **feeds)
    r = subprocess.run([exe, "run", art, "--inputs", inp], capture_output=True, text=True)
    lines = r.stderr.strip().splitlines()
    return r.returncode != 0 and len(lines) == 1 and must_contain in lines[0], r.stderr.strip()
