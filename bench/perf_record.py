"""perf_record: the raw record of one CPU benchmark run, as JSON under docs/perf-runs/ (issue 45).

Every timing benchmark of bench/ writes one file per run through `write()`: the machine (the
JSON of `ingot device-info --json`, plus the CPU model, core count and load average from the
OS), the git commit (and whether the work tree had changes), the command line, and the
benchmark's results with every round. GPU runs keep docs/perf-gpu/ (bench/gpu/).

  ap = argparse.ArgumentParser(); perf_record.add_arguments(ap); args = ap.parse_args()
  ...
  perf_record.write(args, "model_bench", ingot, results, rounds_unit="ms")

A file is named BENCH-YYYYmmddTHHMMSSZ.json; --record-dir chooses the folder (tests give a
temporary one), --no-record writes nothing.
"""
import json
import os
import platform
import shlex
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_DIR = os.path.join(ROOT, "docs", "perf-runs")
SCHEMA = 1


def add_arguments(ap):
    """--record-dir and --no-record on a benchmark's argument parser."""
    ap.add_argument("--record-dir", default=DEFAULT_DIR,
                    help="write the run's raw record (JSON: machine, commit, command, every "
                         "round) into this folder (default: %(default)s)")
    ap.add_argument("--no-record", action="store_true", help="write no raw record")


def git_commit(root=ROOT):
    """{"commit": sha or None, "dirty": True when tracked files differ from it}."""
    def git(*cmd):
        p = subprocess.run(["git", "-C", root, *cmd], capture_output=True, text=True)
        return p.stdout.strip() if p.returncode == 0 else None
    sha = git("rev-parse", "HEAD")
    status = git("status", "--porcelain", "--untracked-files=no")
    return {"commit": sha, "dirty": bool(status) if status is not None else None}


def cpu_model():
    """The CPU's model name from /proc/cpuinfo ("" when the OS gives none)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def machine(ingot, refresh=False, device_info=None):
    """The machine: `ingot device-info --json` (its cached measurement unless refresh; or the
    device_info JSON given), with the OS's CPU model, logical CPU count and load average. A
    device-info failure is recorded as "device_info_error" rather than stopping the benchmark."""
    info = {"cpu_model": cpu_model(), "cpu_count": os.cpu_count(), "platform": platform.platform(),
            "load_avg": list(os.getloadavg())}
    if device_info is not None:
        info["device_info"] = device_info
        return info
    cmd = [ingot, "device-info", "--json"] + (["--refresh"] if refresh else [])
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        if p.returncode != 0:
            info["device_info_error"] = (p.stderr or p.stdout).strip()[-500:]
        else:
            info["device_info"] = json.loads(p.stdout)
    except (OSError, ValueError, subprocess.TimeoutExpired) as e:
        info["device_info_error"] = f"{type(e).__name__}: {e}"
    return info


def record(bench, ingot, results, /, argv=None, device_info=None, **extra):
    """The record as a dict: bench name, UTC time, command line, commit, machine, results.
    device_info: a device-info JSON the benchmark already has (e.g. from --refresh) instead of
    asking ingot again; extra: further top-level fields (load averages, ORT version, ...), the
    fields above winning over an extra field of the same name."""
    argv = sys.argv if argv is None else argv
    mach = machine(ingot, device_info=device_info)
    rec = {"schema": SCHEMA, "bench": bench,
           "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
           "command": " ".join(shlex.quote(a) for a in [os.path.relpath(argv[0], ROOT)
                                                        if os.path.isabs(argv[0]) else argv[0],
                                                        *argv[1:]]),
           "python": sys.version.split()[0], **git_commit(), "machine": mach}
    rec.update({k: v for k, v in extra.items() if k not in rec and k != "results"})
    rec["results"] = results
    return rec


def write(args, bench, ingot, results, /, **kwargs):
    """Writes the record into args.record_dir (unless args.no_record) -> its path, or None.
    kwargs go to record()."""
    if getattr(args, "no_record", False):
        return None
    rec = record(bench, ingot, results, **kwargs)
    folder = getattr(args, "record_dir", None) or DEFAULT_DIR
    os.makedirs(folder, exist_ok=True)
    stamp = rec["time"].replace("-", "").replace(":", "")
    path = os.path.join(folder, f"{bench}-{stamp}.json")
    n = 1
    while os.path.exists(path):  # two runs in one second
        n += 1
        path = os.path.join(folder, f"{bench}-{stamp}-{n}.json")
    with open(path, "w") as f:
        json.dump(rec, f, indent=1, default=_plain)
        f.write("\n")
    print(f"# raw record: {os.path.relpath(path, ROOT) if path.startswith(ROOT) else path}",
          file=sys.stderr, flush=True)
    return path


def _plain(v):
    """numpy scalars and arrays as plain JSON values."""
    if hasattr(v, "tolist"):
        return v.tolist()
    if hasattr(v, "item"):
        return v.item()
    raise TypeError(f"not JSON serializable: {type(v).__name__}")
