#!/usr/bin/env python3
"""ctest wrapper: the whole ONNX backend node test suite compiled with `--target c` (the C99
printer, built by the host C compiler into the runtime's shared library), with --specialize-inputs
as the CPU ratchet (tests/python/test_conformance.py); the tests with specialised inputs are
rerun plainly with `--target c` too.

A ratchet (conformance_ratchet.json, entries "c" and "c-plain"): fails if the number of passed
tests or the pass rate over ALL node tests of the pinned onnx version (skipped tests count as not
passed) drops below its floor, or if the suite is not the pinned one (conformance_wrapper.py).
The log goes to c_conformance.log and the run to c_conformance.json in the working directory (the
build dir under ctest); the latest full run is committed as docs/conformance/c.json.
Environment: INGOT_CONFORMANCE_JOBS, the number of parallel workers (default: all cores).

History: measured 2026-12-04 with onnx 1.23.2 and GCC 12: 1307 passed, 39 failed, 538 skipped;
in-scope rate 0.9710 (the ratchet held that rate only until issue 45). The failures: control
flow and ImageDecoder (unsupported on every target), a float16 attention one ulp off (float16
computed in float32), and DFT's inverse where ONNX's expected 1.9e-7 is float noise that libm's
more exact sin/cos does not reproduce (3e-15)."""
import argparse
import sys

import conformance_wrapper

ap = argparse.ArgumentParser()
ap.add_argument("--ingot", required=True)
args = ap.parse_args()
sys.exit(conformance_wrapper.run(args.ingot, "c_conformance", target="c"))
