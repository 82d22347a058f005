#!/usr/bin/env python3
"""compile_time: how long `ingot compile` takes on whole models, and where the time goes.

For each model, `ingot compile MODEL --print-pass-times` runs --repeat times (each binary in turn
when --baseline is given, alternating, so both see the same drift of a shared machine); the table
gives the median of each column over the runs:
  total    wall time of the whole process (parse, compile, link, write), timed around it
  import   ONNX parse and import            (ingot's "stage import")
  fold     constant folding                 ("stage fold_constants": the evaluation time, with
           the count of nodes folded, batches and libraries built for them)
  lower    lowering, schedules, loop passes ("stage lower" + "stage schedule")
  codegen  LLVM, all kernels                ("stage codegen": wall time, kernels on all threads)
  link     LLD                              ("stage link")
Every run writes its raw record (machine, commit, command, every compile's columns) to
docs/perf-runs/compile_time-*.json (bench/perf_record.py; --record-dir, --no-record).
A column a binary does not report is "-" (builds before the split of codegen and link report
both in "codegen"; their folding is inside the untimed inference).

Models: names from scripts/make_models.py (resnet50, bert_base: BERT-base, 12 layers, hidden
768, seq 128; bert: 4 layers, ...), names from scripts/export_models.py (convnext_tiny, vit_b_16,
...: torchvision with random weights, skipped with a note when torch/torchvision are missing),
or .onnx paths. Symbolic input dims are bound to 1.

Examples:
  bench/compile_time.py --ingot build/release/tools/ingot/ingot
  bench/compile_time.py --ingot build/release/tools/ingot/ingot --baseline /tmp/old/ingot \\
      --models resnet50,bert_base,convnext_tiny --repeat 3 --markdown compile_time.md
  bench/compile_time.py --ingot build/release/tools/ingot/ingot --target "llvm -mcpu=znver3"
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from bench_models import model_path  # noqa: E402
import perf_record  # noqa: E402

DEFAULT_MODELS = "resnet50,bert_base,convnext_tiny"
COLUMNS = ["total", "import", "fold", "lower", "codegen", "link"]


def input_shapes_arg(path):
    """--input-shapes binding every symbolic input dim to 1 ("" when all are static)."""
    import onnx
    m = onnx.load(path, load_external_data=False)
    inits = {t.name for t in m.graph.initializer}
    parts = []
    for vi in m.graph.input:
        if vi.name in inits:
            continue
        dims = vi.type.tensor_type.shape.dim
        if any(d.dim_param or d.dim_value <= 0 for d in dims):
            shape = [d.dim_value if d.dim_value > 0 else 1 for d in dims]
            parts.append(f"{vi.name}:[{','.join(str(s) for s in shape)}]")
    return " ".join(parts)


STAGE = re.compile(r"^stage (\S+)\s+([\d.]+) ms(?:\s+\((.*)\))?$")


def compile_once(ingot, path, shapes, out, target=None):
    """One compile: {column: seconds} and the fold detail text."""
    cmd = [ingot, "compile", path, "-o", out, "--print-pass-times"]
    if target:
        cmd += ["--target", target]
    if shapes:
        cmd += ["--input-shapes", shapes]
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit(f"error: {' '.join(cmd)} failed:\n{p.stderr.strip()[-2000:]}")
    stages, detail = {}, ""
    for line in p.stdout.splitlines():
        m = STAGE.match(line.strip())
        if m:
            stages[m.group(1)] = float(m.group(2)) / 1000
            if m.group(1) == "fold_constants":
                detail = m.group(3) or ""
    row = {"total": wall, "import": stages.get("import"), "fold": stages.get("fold_constants"),
           "codegen": stages.get("codegen"), "link": stages.get("link")}
    if "lower" in stages:
        row["lower"] = stages["lower"] + stages.get("schedule", 0.0)
    return row, detail


def fmt(v):
    return "-" if v is None else f"{v:.2f}"


def fold_summary(detail):
    """'99 nodes in 38 batches' from the fold_constants detail."""
    m = re.search(r"(\d+) nodes evaluated in (\d+) batches, (\d+) modules(?:, (\d+) declined)?; "
                  r"(\d+) identities", detail)
    if not m:
        return ""
    s = f"{m.group(1)} nodes in {m.group(3)} libraries, {m.group(5)} identities"
    return s + (f", {m.group(4)} declined" if m.group(4) else "")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ingot", default=os.path.join(ROOT, "build/release/tools/ingot/ingot"))
    ap.add_argument("--baseline", help="another ingot binary, timed alternately with --ingot")
    ap.add_argument("--models", default=DEFAULT_MODELS)
    ap.add_argument("--workdir", default=os.path.join(tempfile.gettempdir(), "ingot-compile-bench"))
    ap.add_argument("--repeat", type=int, default=3, help="compiles per model and binary")
    ap.add_argument("--markdown", help="also write the table to this file")
    ap.add_argument("--target", help='--target for every compile, e.g. "llvm -mcpu=znver3" '
                    "(AVX2 code on any x86 machine); default: the host")
    perf_record.add_arguments(ap)
    args = ap.parse_args(argv)
    os.makedirs(args.workdir, exist_ok=True)
    binaries = [("ingot", args.ingot)] + ([("baseline", args.baseline)] if args.baseline else [])
    lines = ["| model | binary | " + " | ".join(f"{c} (s)" for c in COLUMNS) + " | folded |",
             "|---|---|" + "---:|" * len(COLUMNS) + "---|"]
    print(f"{os.cpu_count()} CPUs; median of {args.repeat} compiles per row", flush=True)
    results = []
    for name in args.models.split(","):
        path = model_path(name, args.workdir)
        if path is None:
            continue
        shapes = input_shapes_arg(path)
        out = os.path.join(args.workdir, f"{os.path.basename(path)}.so")
        runs = {label: [] for label, _ in binaries}
        details = {}
        for _ in range(args.repeat):
            for label, binary in binaries:
                row, detail = compile_once(binary, path, shapes, out, args.target)
                runs[label].append(row)
                details[label] = detail
        for label, _ in binaries:
            med = {c: (statistics.median(r[c] for r in runs[label])
                       if all(r.get(c) is not None for r in runs[label]) else None)
                   for c in COLUMNS}
            line = (f"| {name} | {label} | " + " | ".join(fmt(med[c]) for c in COLUMNS) +
                    f" | {fold_summary(details[label])} |")
            lines.append(line)
            print(line, flush=True)
            results.append({"model": name, "binary": label, "path": binary,
                            "median_s": med, "runs_s": runs[label],
                            "folded": details[label]})
        if os.path.exists(out):
            os.remove(out)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    perf_record.write(args, "compile_time", args.ingot, results, repeat=args.repeat,
                      target=args.target or "host")
    return 0


if __name__ == "__main__":
    sys.exit(main())
