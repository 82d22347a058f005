"""Shared by the Python tests that check ingot against ONNX Runtime: a check record, compile,
run-and-compare over several feeds on one artifact, and the one-line refusal check."""
import os
import subprocess

import numpy as np
import onnx

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


def mismatches(exe, art, sess, feeds_list, tmp, label, rtol=1e-5, atol=1e-5):
    """Runs every feed set on the artifact and on the ONNX Runtime session `sess`; returns one
    line per feed set whose outputs differ in shape, dtype or value (`label(feeds)` names it)."""
    bad = []
    names = [o.name for o in sess.get_outputs()]
    for feeds in feeds_list:
        got, err = run(exe, art, feeds, tmp)
        if err is not None:
            bad.append(f"{label(feeds)}: {err}")
            continue
        for name, want in zip(names, sess.run(None, feeds)):
            g = got[name]
            if g.shape != want.shape or g.dtype != want.dtype:
                bad.append(f"{label(feeds)}: {name} {g.dtype}{list(g.shape)} vs "
                           f"{want.dtype}{list(want.shape)}")
            elif not np.allclose(g.astype(np.float64), want.astype(np.float64), rtol=rtol,
                                 atol=atol):
                err_at = np.abs(g.astype(np.float64) - want).max()
                bad.append(f"{label(feeds)}: {name} max abs err {err_at:.3g}")
    return bad


def refused(exe, art, feeds, tmp, must_contain):
    """Whether running `feeds` fails with exactly one line that contains `must_contain`; and
    that line."""
    inp = os.path.join(tmp, "bad.npz")
    np.savez(inp, **feeds)
    r = subprocess.run([exe, "run", art, "--inputs", inp], capture_output=True, text=True)
    lines = r.stderr.strip().splitlines()
    return r.returncode != 0 and len(lines) == 1 and must_contain in lines[0], r.stderr.strip()
