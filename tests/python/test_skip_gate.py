#!/usr/bin/env python3
"""ctest wrapper: scripts/skip_gate.py (issue 45, item 4) fails a run with a skip it does not allow.

Each case runs a real ctest on a hand-written CTestTestfile.cmake in a temporary folder, through
the gate exactly as scripts/test-all does (`skip_gate.py --build-dir DIR -- ctest ...`):
- a Python-style skip (exit 77, SKIP_RETURN_CODE) that no entry lists fails the gate (exit 1),
  and the test's name and its SKIP line are printed; so does a disabled test;
- a GTEST_SKIP-style skip listed with `lacks:FEATURE` fails on a host whose device-info (a fake
  ingot) reports the feature and passes where it does not; likewise `has-all:`, `sanitizer`
  (the build folder's CMakeCache.txt), `arch-not:` and `env:`;
- with the real ingot's device-info, `lacks:` a feature this CPU has fails;
- a failing test keeps ctest's exit status, also when every skip is allowed;
- scripts/skip-allow.txt parses, and under it a missing tool (a Cortex-M skip) and the
  sanitizer-only skip in a release build both fail;
- scripts/test-all runs every `ctest --preset` through the gate.
Prints one line per check and `N passed, N failed`; exits 1 if any check failed.
"""
import argparse
import json
import os
import platform
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
GATE = os.path.join(ROOT, "scripts", "skip_gate.py")
sys.path.insert(0, HERE)
from work_dirs import work_dir  # noqa: E402

# A py test that skips (exit 77), a GTest case that skips, one that passes.
TESTFILE = """
add_test(py_test_widget "{py}" "-c" "print('checking'); print('SKIP: no widget installed'); \
raise SystemExit(77)")
set_tests_properties(py_test_widget PROPERTIES SKIP_RETURN_CODE 77)
add_test(Nibble.Avx512 "{py}" "-c" "print('[ RUN      ] Nibble.Avx512'); \
print('x_test.cpp:3: Skipped'); print('this CPU has no AVX-512'); print(); \
print('[  SKIPPED ] Nibble.Avx512 (0 ms)')")
set_tests_properties(Nibble.Avx512 PROPERTIES SKIP_REGULAR_EXPRESSION "\\\\[  SKIPPED \\\\]")
add_test(passes "{py}" "-c" "pass")
"""


def make_project(d, extra=""):
    with open(os.path.join(d, "CTestTestfile.cmake"), "w") as f:
        f.write(TESTFILE.format(py=sys.executable) + extra)


def fake_ingot(d, features):
    """An `ingot` whose `device-info --json` reports these features."""
    path = os.path.join(d, "fake_ingot")
    with open(path, "w") as f:
        f.write(f"#!/bin/sh\necho '{json.dumps({'cpu': 'fake', 'features': features})}'\n")
    os.chmod(path, 0o755)
    return path


def gate(d, allow_lines, ingot=None, env=None, allow_file=None):
    """Runs the gate over ctest in d; (exit status, output)."""
    allow = allow_file or os.path.join(d, "allow.txt")
    if allow_file is None:
        with open(allow, "w") as f:
            f.write("# test allow-list\n" + "\n".join(allow_lines) + "\n")
    cmd = [sys.executable, GATE, "--build-dir", d, "--allow", allow]
    if ingot:
        cmd += ["--ingot", ingot]
    cmd += ["--", "ctest", "--test-dir", d]
    p = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, **(env or {})))
    return p.returncode, p.stdout + p.stderr


def verdict(out, name):
    """The gate's line for test `name`."""
    return next((ln for ln in out.splitlines() if ln.startswith("SKIP (") and f" {name}: " in ln),
                "")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ingot", required=True)
    args = ap.parse_args()
    results = []

    def check(name, ok, detail=""):
        results.append(bool(ok))
        print(f"{'PASS' if ok else 'FAIL'} {name}{': ' + detail if detail and not ok else ''}",
              flush=True)

    nibble = r"Nibble\.Avx512 | no AVX-512 | "
    widget = r"py_test_widget | no widget | "
    with tempfile.TemporaryDirectory(prefix="ingot-skip-gate-") as d:
        make_project(d)
        has = fake_ingot(d, "sse3,avx,avx2,fma,avx512f")
        sub = os.path.join(d, "lacking")
        os.makedirs(sub)
        lacks = fake_ingot(sub, "sse3,avx,avx2,fma")

        rc, out = gate(d, [nibble + "lacks:avx512f"], ingot=lacks)
        v = verdict(out, "py_test_widget")
        check("an unlisted exit-77 skip fails the gate, named with its SKIP line",
              rc == 1 and "NOT ALLOWED" in v and "SKIP: no widget installed" in v
              and "not allowed: py_test_widget" in out, f"exit {rc}\n{out}")
        check("the GTEST_SKIP message is the reason",
              "this CPU has no AVX-512" in verdict(out, "Nibble.Avx512"), out)

        rc, out = gate(d, [nibble + "lacks:avx512f", widget + "lacks:avx512f"], ingot=has)
        check("a listed lacks:avx512f skip fails where device-info has avx512f",
              rc == 1 and "NOT ALLOWED" in verdict(out, "Nibble.Avx512")
              and "this CPU has avx512f" in out, f"exit {rc}\n{out}")
        rc, out = gate(d, [nibble + "lacks:avx512f", widget + "lacks:avx512f"], ingot=lacks)
        check("the same skips pass where device-info lacks avx512f",
              rc == 0 and "2 skipped, 0 not allowed" in out, f"exit {rc}\n{out}")
        rc, out = gate(d, [nibble + "lacks:avx512f", widget + "lacks:avx512f",
                           r"Nibble\.Avx512 | a different reason | lacks:avx512f"], ingot=lacks)
        check("an entry for the test with another reason does not cover it", rc == 0, out)
        rc, out = gate(d, [r"Nibble\.Avx512 | other reason | lacks:avx512f",
                           widget + "lacks:avx512f"], ingot=lacks)
        check("a listed test with an unlisted reason fails",
              rc == 1 and "NOT ALLOWED" in verdict(out, "Nibble.Avx512"), f"exit {rc}\n{out}")

        both = [nibble + "has-all:avx2,avx512f", widget + "has-all:avx2,avx512f"]
        rc_has, _ = gate(d, both, ingot=has)
        rc_lacks, out = gate(d, both, ingot=lacks)
        check("has-all: passes only where every feature is present", rc_has == 0 and rc_lacks == 1,
              f"exits {rc_has}, {rc_lacks}\n{out}")

        san = [nibble + "sanitizer", widget + "sanitizer"]
        cache = os.path.join(d, "CMakeCache.txt")
        with open(cache, "w") as f:
            f.write("INGOT_SANITIZE:BOOL=OFF\n")
        rc_off, out = gate(d, san)
        with open(cache, "w") as f:
            f.write("INGOT_SANITIZE:BOOL=ON\n")
        rc_on, _ = gate(d, san)
        check("sanitizer passes only in a build folder configured with a sanitizer",
              rc_off == 1 and rc_on == 0 and "is not a sanitizer build" in out,
              f"exits {rc_off}, {rc_on}\n{out}")
        os.remove(cache)

        here = platform.machine()
        rc_here, _ = gate(d, [nibble + f"arch-not:{here}", widget + f"arch-not:{here}"])
        rc_else, _ = gate(d, [nibble + "arch-not:no-such-arch", widget + "arch-not:no-such-arch"])
        check(f"arch-not:{here} fails on this {here} host, arch-not:other passes",
              rc_here == 1 and rc_else == 0, f"exits {rc_here}, {rc_else}")

        opt = [nibble + "env:INGOT_SKIP_TORCH=1", widget + "env:INGOT_SKIP_TORCH=1"]
        rc_unset, _ = gate(d, opt, env={"INGOT_SKIP_TORCH": "0"})
        rc_set, _ = gate(d, opt, env={"INGOT_SKIP_TORCH": "1"})
        check("env: passes only with the variable set", rc_unset == 1 and rc_set == 0,
              f"exits {rc_unset}, {rc_set}")

        # The real device-info (its cache kept in the build folder, not the home folder).
        ingot = os.path.abspath(args.ingot)
        env = {"INGOT_DEVICE_INFO": os.path.join(work_dir(ingot, "skip_gate"), "device-info.json")}
        p = subprocess.run([ingot, "device-info", "--json"], capture_output=True, text=True,
                           env=dict(os.environ, **env))
        feats = json.loads(p.stdout)["features"].split(",") if p.returncode == 0 else []
        real = next((f for f in feats if f), None)
        if real is None:
            check("ingot device-info lists a feature of this CPU", False, p.stderr)
        else:
            rc, out = gate(d, [nibble + f"lacks:{real}", widget + f"lacks:{real}"], ingot=ingot,
                           env=env)
            check(f"with the real device-info, lacks:{real} (which this CPU has) fails",
                  rc == 1 and f"this CPU has {real}" in out, f"exit {rc}\n{out}")

        make_project(d, f'add_test(broken "{sys.executable}" "-c" "raise SystemExit(3)")\n')
        rc, out = gate(d, [nibble + "arch-not:no-such-arch", widget + "arch-not:no-such-arch"])
        check("a failing test keeps ctest's exit status with every skip allowed",
              rc not in (0, 1) and "2 skipped, 0 not allowed" in out, f"exit {rc}\n{out}")

        # The committed allow-list, with a skip it must refuse on any host.
        real_allow = os.path.join(ROOT, "scripts", "skip-allow.txt")
        make_project(d, f'add_test(py_test_cortex_m "{sys.executable}" "-c" "print(\'SKIP: '
                        f'arm-none-eabi-gcc not installed\'); raise SystemExit(77)")\n'
                        'set_tests_properties(py_test_cortex_m PROPERTIES SKIP_RETURN_CODE 77)\n'
                        f'add_test(RuntimeLibrary.StrippedSizeIsSmall "{sys.executable}" "-c" '
                        '"print(\'x.cpp:1: Skipped\'); print(\'the size promise is the release '
                        'build\' + chr(39) + \'s; sanitizer builds are instrumented\'); print(); '
                        'print(\'[  SKIPPED ] x\')")\n'
                        'set_tests_properties(RuntimeLibrary.StrippedSizeIsSmall PROPERTIES '
                        'SKIP_REGULAR_EXPRESSION "\\\\[  SKIPPED \\\\]")\n')
        rc, out = gate(d, [], ingot=has, allow_file=real_allow)
        check("skip-allow.txt parses and refuses a missing-tool skip and a release-build "
              "sanitizer skip",
              rc == 1 and "NOT ALLOWED" in verdict(out, "py_test_cortex_m")
              and "NOT ALLOWED" in verdict(out, "RuntimeLibrary.StrippedSizeIsSmall")
              and "error" not in out, f"exit {rc}\n{out}")

    # scripts/test-all: every ctest run goes through the gate.
    with open(os.path.join(ROOT, "scripts", "test-all")) as f:
        lines = [ln.split("#", 1)[0] for ln in f.read().splitlines()]
    ctest = [ln for ln in lines if re.search(r"\bctest\s+-", ln)]
    presets = [ln for ln in lines if re.search(r"\bctest_gated\s+(ci|asan|tsan)\b", ln)]
    check("scripts/test-all runs ctest only through skip_gate.py, for ci, asan and tsan",
          ctest and all("skip_gate.py" in ln for ln in ctest) and len(presets) == 3,
          f"ctest lines: {ctest}; presets: {presets}")

    print(f"{sum(results)} passed, {len(results) - sum(results)} failed")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
