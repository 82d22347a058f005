#!/usr/bin/env python3
"""ctest wrapper: the ONNX backend node tests (scripts/conformance.py) on the whole suite, for the
host (llvm target), with --specialize-inputs, as an AOT user compiles: inputs that decide shapes
(Reshape shape, Slice starts, Pad pads, axes, ...) are specialised to each data set's values with
`ingot compile --specialize-inputs` and still fed at run time (the artifact's guard checks them);
the tests with such inputs are also rerun plainly.

A ratchet (conformance_ratchet.json, entries "llvm" and "llvm-plain"): fails if the number of
passed tests or the pass rate over ALL node tests of the pinned onnx version (skipped tests count
as not passed) drops below its floor, with or without specialisation, or if the suite is not the
pinned one (conformance_wrapper.py, scripts/conformance_ratchet.py). When coverage grows, raise
the floors to the newly measured numbers (the log's `ratchet` lines print them beside the floors).
The log goes to conformance.log and the run (every test's status, per-op counts, versions,
machine) to conformance.json in the working directory (the build dir under ctest); the latest
full run is committed as docs/conformance/llvm.json.
Environment: INGOT_CONFORMANCE_JOBS, the number of parallel workers (default: all cores);
INGOT_CONFORMANCE_SPECIALIZE_INPUTS=0 runs without --specialize-inputs (checked against
"llvm-plain" alone).

History (in-scope rates; the ratchet held the in-scope rate only until issue 45):
Measured 2026-11-29 with onnx 1.23.2: 616 passed, 751 failed, 517 skipped; rate 0.4506
(with --constant-inputs: 772 passed, rate 0.5647).
2026-12-04, with float64, int16 and uint16/32/64 interfaces in scope: 1442 passed, 41 failed,
401 skipped; rate 0.9724 (137 more tests in scope, all passing; ratchet raised to 0.965).
2026-12-04, session 26: 1461 passed, 22 failed, 401 skipped (rate 0.9852); without specialisation
1376 passed, rate 0.9278 (1172, 0.808, before value symbols and control flow); ratchets raised to
0.98 and 0.92.
Session 27: 1482 passed, 22 failed, 380 skipped (0.9854; the data-dependent output tests, NonZero,
Compress, Unique and NonMaxSuppression, now in scope); without specialisation 1409 passed, rate
0.9368 (Pad and CenterCropPad read at run time too), then 1413 (0.9395, AffineGrid); the plain
ratchet raised to 0.93.
Session 28: without specialisation 1474 (0.9801; Resize, the signal ops, computed shape values);
plain ratchet 0.975. Session 29: 1479 (0.9834; Col2Im's image_shape and block_shape at run time);
plain ratchet 0.98.
Issue 45: the ratchet holds a minimum pass count and the pass rate over all node tests.
"""
import argparse
import os
import sys

import conformance_wrapper

ap = argparse.ArgumentParser()
ap.add_argument("--ingot", required=True)
args = ap.parse_args()
sys.exit(conformance_wrapper.run(
    args.ingot, "conformance",
    specialize=os.environ.get("INGOT_CONFORMANCE_SPECIALIZE_INPUTS", "1") != "0"))
