#!/usr/bin/env python3
"""ctest wrapper: the whole ONNX backend node test suite compiled with `--target opencl` (the GPU
lowering, its fallback GPU schedules and the OpenCL C printer) and run on the runtime's OpenCL
device (PoCL's CPU device in CI), with --specialize-inputs as the CPU ratchet
(tests/python/test_conformance.py); the tests with specialised inputs are rerun plainly with
`--target opencl` too.

A ratchet (conformance_ratchet.json, entries "opencl" and "opencl-plain"): fails if the number of
passed tests or the pass rate over ALL node tests of the pinned onnx version (skipped tests count
as not passed) drops below its floor, or if the suite is not the pinned one
(conformance_wrapper.py). The log goes to opencl_conformance.log and the run to
opencl_conformance.json in the working directory (the build dir under ctest); the latest full run
is committed as docs/conformance/opencl.json.
Environment: INGOT_CONFORMANCE_JOBS, the number of parallel workers (default: all cores).

Cost (2026-12-07, 2 cores, -j 2, PoCL 3.1, an empty PoCL kernel cache, beside a build): 394 s
wall, 547 CPU s. The runs go through one `ingot run --batch -` process per worker
(scripts/batch_run.py), and the runtime keeps one OpenCL context per device, so PoCL parses its
kernel library once per worker instead of once per test. Before that, one process per run cost
1216 s wall and 1112 CPU s (2026-12-05), PoCL's first build in each process being ~0.7 of each
test's ~0.9 s.

History: until issue 45 this ratchet covered 43 op families of the suite (a --filter), at an
in-scope rate: measured 2026-12-03 with onnx 1.23.2 and PoCL 3.1, 605 passed, 1 failed, 213
skipped (0.998); over the whole suite without specialisation 1047 of 1346 in-scope tests passed."""
import argparse
import sys

import conformance_wrapper

ap = argparse.ArgumentParser()
ap.add_argument("--ingot", required=True)
args = ap.parse_args()
sys.exit(conformance_wrapper.run(args.ingot, "opencl_conformance", target="opencl"))
