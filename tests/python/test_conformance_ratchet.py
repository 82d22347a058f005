#!/usr/bin/env python3
"""ctest wrapper: the conformance ratchet fails when it must (issue 45), without running ingot.

- scripts/conformance_ratchet.check: a run at the floors passes; one test fewer passed, a pass
  rate over all node tests below the floor, a smaller suite (a test lost to a data-generation
  error), another onnx version, and a target without an entry each fail; without
  --specialize-inputs the "-plain" entry is the one checked, with it both are;
- tests/python/conformance_ratchet.json holds a minimum pass count and a minimum pass rate for
  each of llvm, llvm-plain, c and opencl, each rate at most its count over the suite, and counts
  the node tests of the onnx version that scripts/install-deps pins.
- end to end, with --ingot: scripts/conformance.py --ratchet over a two-test suite (test_add,
  test_relu, copied from the node test data; run without --specialize-inputs, so against the
  "llvm-plain" entry) exits 0 at its floors and 1, naming the floor, with either floor one step
  above the run (a pass count of 3, a pass rate of 1.01).
Prints one line per check; exits 1 if any failed.
"""
import argparse
import copy
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import conformance_ratchet  # noqa: E402

RATCHET = {"onnx": "1.0.0", "node_tests": 100,
           "ratchets": {"llvm": {"min_passed": 80, "min_pass_rate": 0.8},
                        "llvm-plain": {"min_passed": 70, "min_pass_rate": 0.7}}}


def summary(passed=80, plain=70, total=100, specialize=True):
    return {"node_tests": total, "passed": passed, "pass_rate": passed / total,
            "specialize_inputs": specialize,
            "plain": {"passed": plain, "pass_rate": plain / total}}


def broken(s, target=None, ratchet=RATCHET, version="1.0.0"):
    return conformance_ratchet.check(ratchet, target, s, version)


def checks():
    yield "at the floors: passes", broken(summary()) == []
    yield "one pass fewer: fails", any("79 passed" in m for m in broken(summary(passed=79)))
    yield "one plain pass fewer: fails", any("llvm-plain" in m
                                             for m in broken(summary(plain=69)))
    r = copy.deepcopy(RATCHET)
    r["ratchets"]["llvm"]["min_pass_rate"] = 0.81
    yield "rate below its floor, count above: fails", any("pass rate" in m for m in broken(
        summary(), ratchet=r))
    # a failing test lost to data generation: the count holds, the suite size does not
    yield "smaller suite: fails", any("99 node tests" in m
                                      for m in broken(summary(total=99)))
    yield "other onnx: fails", any("onnx 1.0.0" in m for m in broken(summary(), version="1.1"))
    yield "no entry for the target: fails", any("no entry" in m
                                                for m in broken(summary(), target="c"))
    plain_only = summary(passed=70, specialize=False)
    yield "without --specialize-inputs: the plain entry", broken(plain_only) == []
    yield "without --specialize-inputs: a plain drop fails", broken(
        summary(passed=69, specialize=False)) != []

    with open(os.path.join(HERE, "conformance_ratchet.json")) as fh:
        real = json.load(fh)
    with open(os.path.join(ROOT, "scripts", "install-deps")) as fh:
        pin = re.search(r"\bonnx==([0-9.]+)", fh.read())
    yield "the ratchet counts the pinned onnx", pin is not None and real["onnx"] == pin.group(1)
    for key in ("llvm", "llvm-plain", "c", "opencl"):
        e = real["ratchets"].get(key, {})
        ok = (isinstance(e.get("min_passed"), int) and isinstance(e.get("min_pass_rate"), float)
              and 0 < e["min_passed"] <= real["node_tests"]
              and 0 < e["min_pass_rate"] <= e["min_passed"] / real["node_tests"])
        yield f"ratchet file: {key} has a count and a rate", ok


def end_to_end(ingot):
    """scripts/conformance.py --ratchet on a two-test suite: (floors, exit status) pairs."""
    import conformance
    import onnx
    src = conformance.find_data_dir(None)
    with tempfile.TemporaryDirectory(prefix="ingot-ratchet-") as tmp:
        data = os.path.join(tmp, "node")
        for name in ("test_add", "test_relu"):
            shutil.copytree(os.path.join(src, name), os.path.join(data, name))
        for floors in ((2, 1.0), (3, 1.0), (2, 1.01)):
            r = {"onnx": onnx.__version__, "node_tests": 2,
                 "ratchets": {"llvm-plain": {"min_passed": floors[0],
                                             "min_pass_rate": floors[1]}}}
            path = os.path.join(tmp, "ratchet.json")
            with open(path, "w") as fh:
                json.dump(r, fh)
            p = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "conformance.py"),
                                "--ingot", ingot, "--data-dir", data, "--ratchet", path, "-j", "2"],
                               capture_output=True, text=True)
            yield floors, p.returncode, p.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ingot")
    args = ap.parse_args()
    failed = 0
    for name, ok in checks():
        print(("PASS " if ok else "FAIL ") + name)
        failed += not ok
    if args.ingot:
        for (count, rate), rc, out in end_to_end(args.ingot):
            want = 0 if (count, rate) == (2, 1.0) else 1
            ok = rc == want and ("below the minimum" in out) == bool(want)
            print(("PASS " if ok else "FAIL ") + f"conformance.py --ratchet, floors {count} "
                  f"passed / rate {rate} on 2 passing tests: exit {rc} (want {want})")
            if not ok:
                print(out[-600:])
            failed += not ok
    else:
        print("(no --ingot: the end-to-end checks did not run)")
    print(f"{failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
