#!/usr/bin/env python3
"""artifact_ab: two artifacts of one model (say, before and after a schedule change) timed in one
process, alternating call by call, kernel by kernel.

A shared machine drifts by tens of percent over seconds (other guests on the core's sibling
thread, memory traffic), and separate `ingot run` processes, even alternating, see different
phases of it. This runs `ingot measure --per-kernel A.so B.so`: both artifacts loaded once in one
process, bound to the same fixed-seed random inputs, and run in turn (A B, then B A, ...) with
the kernel profile reset before each call. It prints each kernel's fastest call on either side
and their ratio (A/B > 1: B is faster), kernels only one side has marked "A only" / "B only",
the sums over the kernels both have, over those one side only has and over all kernels of
either side, and the whole call's fastest and median. The raw record (both sides' per-kernel
fastest calls and whole-call times) goes to docs/perf-runs/artifact_ab-*.json
(bench/perf_record.py; --record-dir, --no-record).

  bench/artifact_ab.py A.so B.so [--iters N] [--threads T] [--min-ms X] [--ingot PATH]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import perf_record  # noqa: E402


def ratio(x, y):
    return f"{x / y:6.3f}" if y > 0 else f"{'-':>6s}"


def compare_kernels(ka, kb):
    """The kernels of either side: ([(name, A ms or None, B ms or None)] in A's order then B's
    own, {"shared": (A sum, B sum), "one side only": (A's own kernels' sum, B's)})."""
    names = list(ka) + [k for k in kb if k not in ka]
    rows = [(n, ka.get(n), kb.get(n)) for n in names]
    shared = [(x, y) for _, x, y in rows if x is not None and y is not None]
    return rows, {"shared": (sum(x for x, _ in shared), sum(y for _, y in shared)),
                  "one side only": (sum(x for _, x, y in rows if y is None),
                                    sum(y for _, x, y in rows if x is None))}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--iters", type=int, default=40, help="calls of each (default 40)")
    p.add_argument("--threads", type=int, default=0, help="runtime threads (default: the runtime's)")
    p.add_argument("--min-ms", type=float, default=0.1,
                   help="list kernels whose fastest call on either side takes at least this "
                        "(default 0.1)")
    p.add_argument("--ingot", default=os.path.join(ROOT, "build/release/tools/ingot/ingot"))
    perf_record.add_arguments(p)
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
    per_kernel, sums = compare_kernels(a["kernels"], b["kernels"])
    for name, ka, kb in per_kernel:
        if max(k for k in (ka, kb) if k is not None) < args.min_ms:
            continue
        if kb is None:
            print(f"{name:44s} {ka:9.4f} {'-':>9s} (A only)")
        elif ka is None:
            print(f"{name:44s} {'-':>9s} {kb:9.4f} (B only)")
        else:
            print(f"{name:44s} {ka:9.4f} {kb:9.4f} {ratio(ka, kb)}")
    (shared_a, shared_b), (only_a, only_b) = sums["shared"], sums["one side only"]
    rows = [("sum of the fastest calls (shared kernels)", shared_a, shared_b),
            ("sum over kernels one side only has", only_a, only_b),
            ("sum over all kernels of either side", shared_a + only_a, shared_b + only_b),
            ("whole call, fastest", a["ms"], b["ms"]),
            ("whole call, median", a["median_ms"], b["median_ms"])]
    for label, x, y in rows:
        print(f"{label:44s} {x:9.4f} {y:9.4f} {ratio(x, y)}")
    perf_record.write(args, "artifact_ab", args.ingot, {
        "a": {"artifact": args.a, **a}, "b": {"artifact": args.b, **b},
        "sums_ms": {label: [x, y] for label, x, y in rows}}, iters=args.iters,
        threads=args.threads or "runtime default")


if __name__ == "__main__":
    main()
