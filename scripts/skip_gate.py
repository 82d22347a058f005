#!/usr/bin/env python3
"""The skip gate: after a ctest run, prints every skipped test with its reason and fails when a
skip is not allowed by scripts/skip-allow.txt on this host.

Usage: skip_gate.py --build-dir DIR [--ingot PATH] [--allow FILE] -- ctest ARGS...
       skip_gate.py --build-dir DIR [--ingot PATH] [--allow FILE] --junit FILE

The first form runs ctest with `--output-junit DIR/Testing/skip-gate.xml` added, then gates that
file; it exits with ctest's status if ctest failed, else 1 if the gate failed, else 0 (so
scripts/test-all runs every ctest preset through it). The second gates an existing JUnit file. A test is skipped when ctest says so: exit status 77 where
SKIP_RETURN_CODE is 77 (tests/CMakeLists.txt), GTEST_SKIP (gtest_discover_tests' skip regex), or
disabled. Its reason is the GTEST_SKIP message, else the last output line with the word SKIP
(every exit-77 path of tests/python prints one), else the last output line.

Each allow-list entry is `TEST | REASON | CONDITION`: TEST a regex the whole test name matches,
REASON a regex found in the reason, CONDITION what must hold on this host for the skip to be
allowed, checked here, never taken on trust:
  sanitizer        DIR's CMakeCache.txt has INGOT_SANITIZE or INGOT_TSAN on
  lacks:F1,F2      `ingot device-info --json` lists at least one of the CPU features as absent
  has-all:F1,F2    device-info lists every one of them (a skip for a CPU that has everything)
  arch-not:A1,A2   the host's machine (platform.machine()) is none of these
  env:NAME=VALUE   the environment sets NAME to VALUE (an opt-out scripts/test-all documents)
A skip no entry allows (no entry, or none whose condition holds) fails the gate: exit 1.
"""
import argparse
import json
import os
import platform
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_ALLOW = os.path.join(HERE, "skip-allow.txt")
CONDITION_KINDS = ("sanitizer", "lacks", "has-all", "arch-not", "env")


class GateError(Exception):
    """A broken input (missing JUnit file, malformed allow-list line): exit 2, one line."""


def skip_reason(output):
    """The reason a skipped test gave, from its output."""
    lines = [ln.rstrip() for ln in (output or "").splitlines()]
    # GTEST_SKIP() << msg prints "file:line: Skipped", then msg, then a blank line.
    for i, ln in enumerate(lines):
        if ln.endswith(": Skipped"):
            msg = []
            for m in lines[i + 1:]:
                if not m.strip() or m.startswith("[  SKIPPED ]"):
                    break
                msg.append(m.strip())
            if msg:
                return " ".join(msg)
    marked = [ln for ln in lines if re.search(r"\bSKIP\b", ln)]
    if marked:
        return marked[-1].strip()
    rest = [ln for ln in lines if ln.strip()]
    return rest[-1].strip() if rest else "(the test printed no reason)"


def skipped_tests(junit_path):
    """[(test name, reason)] of the skipped and disabled tests in ctest's JUnit file."""
    try:
        root = ET.parse(junit_path).getroot()
    except (OSError, ET.ParseError) as e:
        raise GateError(f"cannot read the JUnit file {junit_path}: {e}")
    out = []
    for case in root.iter("testcase"):
        name = case.get("name", "?")
        if case.get("status") == "disabled":
            out.append((name, "disabled (ctest DISABLED property)"))
        elif case.find("skipped") is not None:
            out.append((name, skip_reason(case.findtext("system-out"))))
    return out


def load_allow(path):
    """[(line number, test regex, reason regex, condition)] from the allow-list file."""
    entries = []
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        raise GateError(f"cannot read the allow-list {path}: {e.strerror}")
    for n, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        parts = [p.strip() for p in line.split("|")]
        kind = parts[-1].split(":", 1)[0] if len(parts) == 3 else ""
        if len(parts) != 3 or not all(parts) or kind not in CONDITION_KINDS:
            raise GateError(f"{path}:{n}: want 'TEST | REASON | CONDITION' with a condition "
                            f"of {', '.join(CONDITION_KINDS)}")
        try:
            entries.append((n, re.compile(parts[0]), re.compile(parts[1]), parts[2]))
        except re.error as e:
            raise GateError(f"{path}:{n}: bad regex: {e}")
    return entries


class Host:
    """What the conditions are checked against; device-info runs once, only when needed."""

    def __init__(self, build_dir, ingot):
        self.build_dir = build_dir
        self.ingot = ingot
        self._features = None

    def features(self):
        if self._features is None:
            if not self.ingot or not os.path.exists(self.ingot):
                raise GateError(f"no ingot binary to run device-info ({self.ingot}): pass --ingot")
            p = subprocess.run([self.ingot, "device-info", "--json"], capture_output=True,
                               text=True)
            try:
                self._features = set(json.loads(p.stdout)["features"].split(","))
            except (ValueError, KeyError):
                raise GateError(f"{self.ingot} device-info --json gave no feature list "
                                f"(exit {p.returncode}): {p.stderr.strip()[-200:]}")
        return self._features

    def sanitizer(self):
        try:
            with open(os.path.join(self.build_dir, "CMakeCache.txt")) as f:
                cache = f.read()
        except OSError:
            return None
        for var in ("INGOT_SANITIZE", "INGOT_TSAN"):
            if re.search(rf"^{var}:BOOL=(ON|1|TRUE|YES)$", cache, re.M | re.I):
                return var
        return None

    def holds(self, condition):
        """(holds, why): whether a condition is true here, with what showed it."""
        kind, _, arg = condition.partition(":")
        names = [a.strip() for a in arg.split(",") if a.strip()]
        if kind == "sanitizer":
            var = self.sanitizer()
            return (var is not None,
                    f"{var}=ON in {self.build_dir}" if var else
                    f"{self.build_dir} is not a sanitizer build")
        if kind in ("lacks", "has-all"):
            have = self.features()
            absent = [f for f in names if f not in have]
            present = [f for f in names if f in have]
            if kind == "lacks":
                return (bool(absent), f"device-info: no {', '.join(absent)}" if absent else
                        f"device-info: this CPU has {', '.join(present)}")
            return (not absent, f"device-info: this CPU has {', '.join(names)}" if not absent
                    else f"device-info: no {', '.join(absent)}")
        if kind == "arch-not":
            m = platform.machine()
            return m not in names, f"this host is {m}"
        if kind == "env":
            var, _, want = arg.partition("=")
            got = os.environ.get(var)
            return got == want, f"{var}={got}" if got is not None else f"{var} is not set"
        return False, f"unknown condition '{condition}'"


def judge(skips, entries, host):
    """[(name, reason, allowed, note)] for each skip."""
    verdicts = []
    for name, reason in skips:
        listed = [e for e in entries if e[1].fullmatch(name) and e[2].search(reason)]
        allowed, notes = False, []
        for n, _, _, cond in listed:
            ok, why = host.holds(cond)
            notes.append(f"allow-list line {n} ({cond}): {why}")
            if ok:
                allowed = True
                notes = notes[-1:]
                break
        if not listed:
            notes.append("not in the allow-list")
        verdicts.append((name, reason, allowed, "; ".join(notes)))
    return verdicts


def run_ctest(cmd, build_dir):
    """Runs cmd (a ctest command) with a JUnit file under build_dir; (exit status, file)."""
    junit = os.path.join(os.path.abspath(build_dir), "Testing", "skip-gate.xml")
    os.makedirs(os.path.dirname(junit), exist_ok=True)
    if os.path.exists(junit):
        os.remove(junit)
    sys.stdout.flush()
    return subprocess.run(cmd + ["--output-junit", junit]).returncode, junit


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    cmd = argv[argv.index("--") + 1:] if "--" in argv else []
    argv = argv[:argv.index("--")] if "--" in argv else argv
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--junit", help="gate this ctest --output-junit file (instead of -- CMD)")
    ap.add_argument("--build-dir", required=True, help="the ctest preset's build folder")
    ap.add_argument("--ingot", help="the ingot CLI for device-info "
                    "(default: BUILD/tools/ingot/ingot, else build/ci's)")
    ap.add_argument("--allow", default=DEFAULT_ALLOW, help="the allow-list (%(default)s)")
    args = ap.parse_args(argv)
    if bool(cmd) == bool(args.junit):
        ap.error("give either -- CTEST_COMMAND... or --junit FILE")
    ingot = args.ingot
    if ingot is None:
        for b in (args.build_dir, os.path.join(HERE, "..", "build", "ci")):
            cand = os.path.join(b, "tools", "ingot", "ingot")
            if os.path.exists(cand):
                ingot = os.path.abspath(cand)
                break
    ctest_rc, junit = run_ctest(cmd, args.build_dir) if cmd else (0, args.junit)
    try:
        verdicts = judge(skipped_tests(junit), load_allow(args.allow),
                         Host(args.build_dir, ingot))
    except GateError as e:
        print(f"skip gate: error: {e}")
        return ctest_rc or 2
    bad = [v for v in verdicts if not v[2]]
    for name, reason, allowed, note in verdicts:
        print(f"{'SKIP (allowed)' if allowed else 'SKIP (NOT ALLOWED)'} {name}: {reason} "
              f"[{note}]")
    print(f"skip gate ({args.build_dir}): {len(verdicts)} skipped, {len(bad)} not allowed"
          + (f": {', '.join(v[0] for v in bad)}" if bad else ""))
    return ctest_rc or (1 if bad else 0)


if __name__ == "__main__":
    sys.exit(main())
