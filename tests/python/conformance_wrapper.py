"""The body of the conformance ctest wrappers (test_conformance.py, test_c_conformance.py,
test_opencl_conformance.py): runs scripts/conformance.py over the whole ONNX node test suite for
one target with --specialize-inputs and the ratchet (conformance_ratchet.json: a minimum pass
count and a minimum pass rate over all node tests per target, with and without specialisation),
writes the full log and the run's JSON into the working directory (the build dir under ctest;
the generated node tests too, onnx-<version>-node-tests/, and for opencl PoCL's kernel cache,
pocl_cache/, unless POCL_CACHE_DIR is set),
prints the FAIL lines, the summary and the ratchet lines, and exits with the runner's status
(1 when a floor is broken)."""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
RUNNER = os.path.join(HERE, "..", "..", "scripts", "conformance.py")
RATCHET = os.path.join(HERE, "conformance_ratchet.json")


def onnx_version():
    import onnx
    return onnx.__version__


def run(ingot, name, target=None, specialize=True, extra=()):
    """name: the stem of the log and JSON files (conformance -> conformance.log, .json)."""
    log_path, json_path = f"{name}.log", f"{name}.json"
    cmd = [sys.executable, RUNNER, "--ingot", ingot, "--ratchet", RATCHET, "--json", json_path,
           "--quiet-pass", "--failure-summary", "15",
           "-j", os.environ.get("INGOT_CONFORMANCE_JOBS", str(os.cpu_count() or 1)),
           # The generated node tests under the working dir (the build dir), not the home dir;
           # written atomically, so the three wrappers running at once share one copy.
           "--data-dir", os.path.abspath(f"onnx-{onnx_version()}-node-tests"), *extra]
    if target:
        cmd += ["--target", target]
    if specialize:
        cmd.append("--specialize-inputs")
    env = dict(os.environ)
    if target == "opencl":  # PoCL's kernel cache under the working dir, not the home dir
        env.setdefault("POCL_CACHE_DIR", os.path.abspath("pocl_cache"))
    print(" ".join(cmd), flush=True)
    with open(log_path, "w") as log:
        p = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, text=True, env=env)
    with open(log_path) as log:
        lines = log.read().splitlines()
    start = next((i for i, line in enumerate(lines) if line.endswith(" skipped")
                  and " passed, " in line), max(0, len(lines) - 20))
    print("\n".join(line for line in lines[:start] if line.startswith("FAIL")))
    print("\n".join(lines[start:]))
    print(f"(full log: {os.path.abspath(log_path)}; the run: {os.path.abspath(json_path)}; "
          f"ratchet: {RATCHET})")
    return p.returncode
