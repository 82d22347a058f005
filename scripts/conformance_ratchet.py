"""The conformance ratchet: minimum pass counts and pass rates per target (issue 45).

A ratchet file (tests/python/conformance_ratchet.json) names the onnx version whose node tests it
counts (the one scripts/install-deps pins), the number of node tests of that version, and per
entry a minimum pass count and a minimum pass rate, the rate over ALL node tests (skipped ones
count as not passed, so a wider scope exclusion or a test whose data failed to generate lowers
it; the count does not move with the suite's size). Entries are named after the target: "llvm"
(the host), "c", "opencl", ...; "<target>-plain" holds the same run without --specialize-inputs
(conformance.py --specialize-inputs reruns the tests with specialised inputs plainly, and a run
without --specialize-inputs is checked against it alone).
"""
import json


def load(path):
    with open(path) as fh:
        return json.load(fh)


def keys(target, specialize):
    """The ratchet entries a run checks: [(key, which summary)]."""
    base = target or "llvm"
    if specialize:
        return [(base, "specialised"), (f"{base}-plain", "plain")]
    return [(f"{base}-plain", "plain")]


def _numbers(summary, which):
    if which == "plain" and summary["specialize_inputs"]:
        return summary["plain"]["passed"], summary["plain"]["pass_rate"]
    return summary["passed"], summary["pass_rate"]


def report(ratchet, target, summary):
    """Lines that set each checked number beside its floor."""
    lines = []
    for key, which in keys(target, summary["specialize_inputs"]):
        e = ratchet["ratchets"].get(key)
        if e is None:
            continue
        passed, rate = _numbers(summary, which)
        lines.append(f"ratchet {key}: {passed} passed (minimum {e['min_passed']}), pass rate "
                     f"over all node tests {rate:.4f} (minimum {e['min_pass_rate']})")
    return lines


def check(ratchet, target, summary, onnx_version):
    """-> the list of broken floors (empty when the run holds every one)."""
    out = []
    if ratchet["onnx"] != onnx_version:
        out.append(f"the ratchet counts the node tests of onnx {ratchet['onnx']} (the version "
                   f"scripts/install-deps pins), this is onnx {onnx_version}")
    if summary["node_tests"] != ratchet["node_tests"]:
        out.append(f"{summary['node_tests']} node tests ran, the suite of onnx "
                   f"{ratchet['onnx']} has {ratchet['node_tests']}")
    checked = 0
    for key, which in keys(target, summary["specialize_inputs"]):
        e = ratchet["ratchets"].get(key)
        if e is None:
            continue
        checked += 1
        passed, rate = _numbers(summary, which)
        if passed < e["min_passed"]:
            out.append(f"ratchet {key}: {passed} passed, below the minimum {e['min_passed']}")
        if rate < e["min_pass_rate"]:
            out.append(f"ratchet {key}: pass rate over all node tests {rate:.4f}, below the "
                       f"minimum {e['min_pass_rate']}")
    if not checked:
        out.append(f"the ratchet file has no entry for target {target or 'llvm'} "
                   f"({', '.join(k for k, _ in keys(target, summary['specialize_inputs']))})")
    return out
