#!/usr/bin/env python3
"""artifact_ab: two artifacts of one model (say, before and after a schedule change) timed in one
process, alternating call by call, kernel by kernel.

A shared machine drifts by tens of percent over seconds (other guests on the core's sibling
thread, memory traffic), and separate `ingot run` processes, even alternating, see different
phases of it. This runs `ingot measure --per-kernel A.so B.so`: both artifacts loaded once in one
process, bound to the same fixed-seed random inputs, and run in turn (A B, then B A, ...) with
the kernel profile reset before each call. It prints each kernel's fastest call on either side
and their ratio (A/B > 1: B is faster), the sum over the kernels both have, and the whole
call's fastest and median.

  bench/artifact_ab.py A.so B.so [--iters N] [--threads T] [--min-ms X] [--ingot PATH]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def ratio(x, y):
    return f"{x / y:6.3f}" if y > 0 else f"{'-':>6s}"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--iters", type=int, default=40, help="calls of each (default 40)")
    p.add_argument("--threads", type=int, default=0, help="runtime threads (default: the runtime's)")
    p.add_argument("--min-ms", type=float, default=0.1,
                   help="list kernels whose fastest A call takes at least this (default 0.1)")
    p.add_argument("--ingot", default=os.path.join(ROOT, "build/release/tools/ingot/ingot"))
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [args.ingot, "measure", args.a, "-o", os.path.join(tmp, "a.npz"), args.b, "-o",
               os.path.join(tmp, "b.npz"), "--repeat", str(args.iters), "--per-kernel"]
        if args.threads > 0:
            cmd += ["--num-threads", str(args.threads)]
        out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"artifact_ab: {' '.join(cmd)} failed: {out.stderr.strip()}")
    lines = [json.loads(l) for l in out.stdout.splitlines() if l.startswith("{")]
    if len(lines) != 2 or any("error" in l for l in lines):
        sys.exit(f"artifact_ab: not measured: {out.stdout.strip()}")
    a, b = lines
    print(f"{args.iters} calls each; per kernel: fastest A, fastest B (ms), A/B")
    sum_a = sum_b = 0.0
    for name, ka in a["kernels"].items():
        kb = b["kernels"].get(name)
        if kb is None:
            if ka >= args.min_ms:
                print(f"{name:44s} {ka:9.4f} {'-':>9s} (A only)")
            continue
        sum_a, sum_b = sum_a + ka, sum_b + kb
        if ka >= args.min_ms:
            print(f"{name:44s} {ka:9.4f} {kb:9.4f} {ratio(ka, kb)}")
    rows = [("sum of the fastest calls (shared kernels)", sum_a, sum_b),
            ("whole call, fastest", a["ms"], b["ms"]),
            ("whole call, median", a["median_ms"], b["median_ms"])]
    for label, x, y in rows:
        print(f"{label:44s} {x:9.4f} {y:9.4f} {ratio(x, y)}")


if __name__ == "__main__":
    main()
