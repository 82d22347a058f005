#!/usr/bin/env python3
"""ctest wrapper: the ONNX backend node tests of the common op families compiled with
`--target opencl` (the GPU lowering, its fallback GPU schedules and the OpenCL C printer) and run
on the runtime's OpenCL device (PoCL's CPU device in CI), with --specialize-inputs as the CPU
ratchet (tests/python/test_conformance.py). A ratchet: fails if the in-scope pass rate drops
below MIN_PASS_RATE.
Measured 2026-12-03 with onnx 1.23.2 and PoCL 3.1: 605 passed, 1 failed, 213 skipped; rate 0.998
(the one: test_attention_4d_causal_fp16_expanded, 1 float16 ulp: per-thread float16 buffers are
kept in float32 on GPU targets). Over the whole suite without specialisation 1047 of 1346
in-scope tests passed (scripts/conformance.py --target opencl).
Environment: INGOT_OPENCL_CONFORMANCE_MIN_PASS_RATE overrides the ratchet,
INGOT_CONFORMANCE_JOBS the number of parallel workers (default: all cores)."""
import argparse
import os
import subprocess
import sys

MIN_PASS_RATE = 0.98
FAMILIES = ("add|mul|sub|div|relu|sigmoid|tanh|softmax|logsoftmax|gemm|matmul|conv|maxpool|"
            "averagepool|reduce_sum|reduce_mean|reduce_max|transpose|concat|slice|gather|pad|"
            "where|cast|layer_normalization|erf|exp|log|sqrt|pow|clip|mod|argmax|resize|split|"
            "expand|tile|batchnorm|global|cumsum|attention")

HERE = os.path.dirname(os.path.abspath(__file__))
RUNNER = os.path.join(HERE, "..", "..", "scripts", "conformance.py")

ap = argparse.ArgumentParser()
ap.add_argument("--ingot", required=True)
args = ap.parse_args()

rate = float(os.environ.get("INGOT_OPENCL_CONFORMANCE_MIN_PASS_RATE", MIN_PASS_RATE))
cmd = [sys.executable, RUNNER, "--ingot", args.ingot, "--target", "opencl",
       "--filter", f"test_({FAMILIES})", "--specialize-inputs", "--quiet-pass",
       "--expect-min-pass-rate", str(rate), "--failure-summary", "15",
       "-j", os.environ.get("INGOT_CONFORMANCE_JOBS", str(os.cpu_count() or 1))]
print(" ".join(cmd), flush=True)
with open("opencl_conformance.log", "w") as log:
    p = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, text=True)
with open("opencl_conformance.log") as log:
    lines = log.read().splitlines()
start = next((i for i, line in enumerate(lines) if line.endswith(" skipped")
              and " passed, " in line), max(0, len(lines) - 20))
print("\n".join(l for l in lines if l.startswith("FAIL")))
print("\n".join(lines[start:]))
print(f"(full log: {os.path.abspath('opencl_conformance.log')}; ratchet: pass rate >= {rate})")
sys.exit(p.returncode)
