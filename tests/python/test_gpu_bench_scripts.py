#!/usr/bin/env python3
"""ctest wrapper: the prepared GPU benchmark (bench/gpu/prepare.py, run.sh, run_bench.py) works
end to end, checked on PoCL: the "check" set (a 64^3 fp16 GEMM, tiny_cnn, tiny_bert with
--dtype float16) prepared for --target opencl and run through ingot_run_lite; every entry must
pass against ONNX Runtime and print its kernels' times. The device machine runs the same
scripts with --target cuda (docs/perf.md, "GPU targets")."""
import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
ap = argparse.ArgumentParser()
ap.add_argument("--ingot", required=True)
args = ap.parse_args()
runner = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(args.ingot))),
                      "ingot_run_lite", "ingot_run_lite")
with tempfile.TemporaryDirectory(prefix="gpu-bench-") as tmp:
    prep = os.path.join(tmp, "prep")
    p = subprocess.run([sys.executable, os.path.join(ROOT, "bench/gpu/prepare.py"), "--ingot",
                        args.ingot, "--runner", runner, "--set", "check", "--target", "opencl",
                        "--gemm-n", "64", "--out", prep, "--models", os.path.join(tmp, "m")],
                       capture_output=True, text=True)
    print(p.stdout.strip(), p.stderr.strip())
    if p.returncode != 0:
        sys.exit("FAIL prepare")
    out = os.path.join(tmp, "out")
    p = subprocess.run(["bash", os.path.join(ROOT, "bench/gpu/run.sh"), prep, "--repeat", "2"],
                       capture_output=True, text=True, env={**os.environ, "OUT": out})
    print(p.stdout.strip(), p.stderr.strip())
    log = open(os.path.join(out, "gpu_bench.log")).read() if os.path.exists(
        os.path.join(out, "gpu_bench.log")) else ""
    ok = p.returncode == 0 and "gpu bench: 3 passed, 0 failed" in log and "kernels" in log
    print("PASS" if ok else "FAIL", "gpu bench scripts")
    sys.exit(0 if ok else 1)
