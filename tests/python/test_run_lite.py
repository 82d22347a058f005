#!/usr/bin/env python3
"""tools/ingot_run_lite on this machine: artifacts compiled for the host run through the lite
runner (runtime library + libc only, inputs and outputs as .npy) and match ONNX Runtime within
--tol, and --profile prints a time per run for every kernel; bad invocations (unknown input, wrong shape or dtype, missing file) fail with one
"error:" line and exit 1. The same runner is cross-built for aarch64 by test_aarch64_qemu.py.

Usage: test_run_lite.py --ingot PATH [--runner PATH] [--tol 1e-4]
Prints one PASS/FAIL line per check and a closing "N passed, N failed".
"""
import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "scripts"))
import make_models  # noqa: E402
import parity  # noqa: E402


def find_runner(ingot):
    for p in Path(ingot).resolve().parents:
        cand = p / "tools" / "ingot_run_lite" / "ingot_run_lite"
        if cand.exists():
            return cand
    return None


def run_model(name, ingot, runner, work, tol):
    make_models.main([str(work), "--models", name])
    path = work / f"{name}.onnx"
    model = onnx.load(str(path))
    feeds = make_models.make_inputs(model)
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    ref = dict(zip([o.name for o in sess.get_outputs()], sess.run(None, feeds)))
    art = work / f"{name}.so"
    cmd = [ingot, "compile", str(path), "-o", str(art)]
    shapes = parity.input_shapes_arg(model, feeds)
    if shapes:
        cmd += ["--input-shapes", shapes]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        return False, f"compile failed: {p.stderr.strip()}"
    out = work / f"{name}.out"
    out.mkdir()
    rcmd = [str(runner), str(art), "-o", str(out), "--repeat", "2", "--profile"]
    # Bind the first input by position and the others by name (both forms of -i).
    for i, (k, v) in enumerate(feeds.items()):
        f = work / f"{name}.in{i}.npy"
        np.save(f, v)
        rcmd += ["-i", str(f) if i == 0 else f"{k}={f}"]
    p = subprocess.run(rcmd, capture_output=True, text=True)
    if p.returncode != 0:
        return False, f"runner failed: {p.stderr.strip()}"
    # --profile: one line per kernel, with a time per run and a rate.
    profiled = re.findall(r"^kernel (\S+): ([\d.]+) ms per run, ([\d.e+-]+) GFLOP/s$", p.stdout,
                          re.M)
    inspect = subprocess.run([ingot, "inspect", str(art)], capture_output=True, text=True)
    kernels = re.search(r"^kernels: +(\d+)", inspect.stdout, re.M)
    if not profiled or not kernels or len(profiled) != int(kernels.group(1)):
        return False, f"--profile printed {len(profiled)} kernel lines: {p.stdout!r}"
    got = {}
    for line in (out / "outputs.txt").read_text().splitlines():
        k, out_name = line.split("\t", 1)
        got[out_name] = np.load(out / f"{k}.npy")
    return parity.compare_outputs(ref, got, tol, tol, atol_scale="rms", finite_ref=True)


def expect_error(runner, args, needle):
    p = subprocess.run([str(runner)] + args, capture_output=True, text=True)
    lines = p.stderr.strip().splitlines()
    if p.returncode != 1 or len(lines) != 1 or not lines[0].startswith("error: ") \
            or needle not in lines[0]:
        return False, f"exit {p.returncode}, stderr {p.stderr.strip()!r} (wanted '{needle}')"
    return True, lines[0]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ingot", required=True)
    ap.add_argument("--runner", default=None)
    ap.add_argument("--tol", type=float, default=1e-4)
    args = ap.parse_args(argv)
    runner = Path(args.runner) if args.runner else find_runner(args.ingot)
    if runner is None or not runner.exists():
        print("FAIL: tools/ingot_run_lite/ingot_run_lite not found next to the ingot build")
        print("0 passed, 1 failed")
        return 1
    results = []
    with tempfile.TemporaryDirectory(prefix="ingot-run-lite-") as tmp:
        work = Path(tmp)
        for name in ("tiny_cnn", "tiny_bert", "gemm_odd"):
            results.append((name, *run_model(name, args.ingot, runner, work, args.tol)))
        art = work / "tiny_cnn.so"
        x = work / "tiny_cnn.in0.npy"
        good = np.load(x)
        np.save(work / "wrong_shape.npy", good[:, :, :-1])
        np.save(work / "wrong_dtype.npy", good.astype(np.float64))
        # Fuzzer findings (fuzz/regressions/npy_lite_fuzzer): a header that claims 3.6 GB of
        # header, and one whose shape claims more data than the file has, are refused before
        # anything of that size is allocated.
        huge_header = HERE.parents[1] / "fuzz" / "regressions" / "npy_lite_fuzzer" / \
            "header_length_3_6GB.npy"
        raw = work / "short.npy"
        raw.write_bytes(x.read_bytes().replace(b"(1, 3, 32, 32)", b"(9, 3, 32, 32)", 1))
        checks = [
            ("fuzzed header length", [str(art), "-i", str(huge_header)],
             "header length 3674210419 exceeds the file's 8 remaining bytes"),
            ("shape beyond the file", [str(art), "-i", str(raw)],
             "shorter than the data its header describes"),
            ("unknown input", [str(art), "-i", f"nope={x}"], "the model has no input 'nope'"),
            ("wrong shape", [str(art), "-i", str(work / "wrong_shape.npy")], "holds float32 ["),
            ("wrong dtype", [str(art), "-i", str(work / "wrong_dtype.npy")], "holds float64 ["),
            ("missing file", [str(art), "-i", str(work / "none.npy")], "cannot open"),
            ("input not set", [str(art)], "input"),
            ("not an artifact", [str(x)], "not a shared library"),
        ]
        for label, a, needle in checks:
            results.append((label, *expect_error(runner, a, needle)))
    passed = sum(ok for _, ok, _ in results)
    for label, ok, msg in results:
        print(f"{'PASS' if ok else 'FAIL'} {label}: {msg}")
    print(f"{passed} passed, {len(results) - passed} failed")
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
