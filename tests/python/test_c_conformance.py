#!/usr/bin/env python3
"""ctest wrapper: the whole ONNX backend node test suite compiled with `--target c` (the C99
printer, built by the host C compiler into the runtime's shared library), with --specialize-inputs
as the CPU ratchet (tests/python/test_conformance.py). A ratchet: fails if the in-scope pass rate
drops below MIN_PASS_RATE.
Measured 2026-12-04 with onnx 1.23.2 and GCC 12: 1307 passed, 39 failed, 538 skipped; rate 0.9710.
The failures: control flow and ImageDecoder (unsupported on every target), a float16 attention
one ulp off (float16 computed in float32), and DFT's inverse where ONNX's expected 1.9e-7 is
float noise that libm's more exact sin/cos does not reproduce (3e-15).
Environment: INGOT_C_CONFORMANCE_MIN_PASS_RATE overrides the ratchet, INGOT_CONFORMANCE_JOBS the
number of parallel workers (default: all cores)."""
import argparse
import os
import subprocess
import sys

MIN_PASS_RATE = 0.965

HERE = os.path.dirname(os.path.abspath(__file__))
RUNNER = os.path.join(HERE, "..", "..", "scripts", "conformance.py")

ap = argparse.ArgumentParser()
ap.add_argument("--ingot", required=True)
args = ap.parse_args()

rate = float(os.environ.get("INGOT_C_CONFORMANCE_MIN_PASS_RATE", MIN_PASS_RATE))
cmd = [sys.executable, RUNNER, "--ingot", args.ingot, "--target", "c", "--specialize-inputs",
       "--quiet-pass", "--expect-min-pass-rate", str(rate), "--failure-summary", "15",
       "-j", os.environ.get("INGOT_CONFORMANCE_JOBS", str(os.cpu_count() or 1))]
print(" ".join(cmd), flush=True)
with open("c_conformance.log", "w") as log:
    p = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, text=True)
with open("c_conformance.log") as log:
    lines = log.read().splitlines()
start = next((i for i, line in enumerate(lines) if line.endswith(" skipped")
              and " passed, " in line), max(0, len(lines) - 20))
print("\n".join(l for l in lines if l.startswith("FAIL")))
print("\n".join(lines[start:]))
print(f"(full log: {os.path.abspath('c_conformance.log')}; ratchet: pass rate >= {rate})")
sys.exit(p.returncode)
