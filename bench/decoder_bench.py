#!/usr/bin/env python3
"""Decoder step times, ingot against ONNX Runtime, like with like (docs/perf.md Table 7).

For a model from scripts/export_decoder.py (its .config.json beside it), times one prefill call
(seq = --prompt, past = 0) and one decode call (seq = 1, past = --past) for each weight format
of --weights, on bench/model_bench.py's method:
  float32  ingot's float32 artifact        beside ORT on the float32 model
  int8     ingot --quantize-weights int8   beside ORT's dynamic quantization (int8 weights per
                                           column, uint8 activations: MatMulInteger) and
                                           ORT's MatMulNBits at 8 bits
  int4     ingot --quantize-weights int4   beside ORT's MatMulNBits at 4 bits
  ort-nbits8, ort-nbits4   ingot compiling ORT's own MatMulNBits file (the same integers,
                           block size and symmetry as the ORT side it runs beside)
ingot's weights are symmetric with one scale per --group-size (128) weights along K; the
MatMulNBits models use the same block size and symmetry (bench/ort_quant.py makes them) and run
at --ort-accuracy-level 4, ORT's fast CPU path (activations quantized to int8 per block; ingot
keeps them float32; at level 0 ORT 1.32 has no fast 8-bit kernel, see bench/ort_quant.py).
Each ingot artifact is compiled here with --dim-bounds "seq:1..1024 past:0..1023" into
--workdir (reused while newer than the model and the ingot binary); no --kv-cache.

The caches are handled the same way on both sides: bound. Every input, the past key/value caches
included, is bound once before timing and every output, the presents included, is written into
a buffer allocated once: ingot inside `ingot run --print-time --number 1` (inputs bound to the
session without a copy, outputs in the session's buffers, each Session::run timed alone), ORT
with IOBinding (OrtValues over preallocated arrays, each run_with_iobinding timed alone). On both
sides a step reads the past caches and writes the presents (the model's Concat); neither copies
presents back into pasts, and ingot's --kv-cache states (no Concat at all) are not used, since
ORT's CPU path has no counterpart.

Before timing, the outputs (logits and every present) of each side on the step's inputs are
compared with ORT float32's by scripts/parity.py's compare_outputs: names, dtypes, shapes, no
NaN/Inf, every element within atol + rtol * |ref|. float32 (ingot): rtol = atol = --tol
(default 1e-4). Quantized (ingot and ORT alike, each against ORT float32): rtol = T and, per
output, atol = T x that output's largest |ref| (logits and caches have their own scales), with
T = --int8-tol (default 0.1) or --int4-tol (default 0.5): the random-weight models' int4 logits
differ from float32 by up to about 0.3-0.45 of their largest magnitude on both sides (docs/perf.md
Table 7 gives each side's figure). A side that fails is reported FAILED with the reason and not
timed; the exit status is then 1.

Timing: --rounds rounds; in each, every side of the row (ingot and one or two ORT models) runs
N calls after one warm-up and reports the median per-call time; the order of the sides rotates
from round to round. N is the same for all sides of a row, sized so the slowest side's round
takes about --round-s. Reported: the median over rounds of each side's medians and of the
per-round ratio ingot/ORT (< 1: ingot faster). The decode bound is the bytes one decode step
streams (the artifact's constants from `ingot inspect`, less the float32 tables only a Gather
reads) over the all-thread read bandwidth `ingot device-info --refresh` measures in this run.
The run's raw record (every round) goes to docs/perf-runs/ (bench/perf_record.py).

Usage: decoder_bench.py MODEL.onnx [--ingot PATH] [--weights float32,int8,int4] [--threads 2]
           [--prompt 32] [--past 128] [--rounds 5] [--round-s 1.0] [--workdir DIR]
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import model_bench  # noqa: E402  (ingot_median_ms, OrtBound, ort_session, rotate_rounds)
import ort_quant  # noqa: E402
import parity  # noqa: E402  (compare_outputs)
import perf_record  # noqa: E402

ORT_SIDES = {"float32": ["float32"], "int8": ["dynamic", "nbits8"], "int4": ["nbits4"],
             "ort-nbits8": ["nbits8"], "ort-nbits4": ["nbits4"]}
ORT_LABEL = {"float32": "ORT float32", "dynamic": "ORT int8 dynamic",
             "nbits8": "ORT MatMulNBits 8", "nbits4": "ORT MatMulNBits 4"}
DIM_BOUNDS = "seq:1..1024 past:0..1023"


def feeds(cfg, seq, past, rng):
    f = {"input_ids": rng.integers(0, cfg["vocab"], (1, seq), dtype=np.int64)}
    for i in range(cfg["layers"]):
        for kind in ("key", "value"):
            f[f"past_{kind}_{i}"] = rng.standard_normal(
                (1, cfg["kv_heads"], past, cfg["head_dim"])).astype(np.float32)
    return f


def read_device_info(exe):
    """`ingot device-info --json --refresh`: measured in this run (never a cached number from
    another time, or another machine behind the same CPU name)."""
    r = subprocess.run([exe, "device-info", "--json", "--refresh"], capture_output=True,
                       text=True, check=True)
    return json.loads(r.stdout)


def gather_only_bytes(model):
    """float32 initializers that only Gathers read as their data (embedding tables)."""
    readers = {}
    for n in model.graph.node:
        for i, name in enumerate(n.input):
            readers.setdefault(name, []).append((n.op_type, i))
    total = 0
    for t in model.graph.initializer:
        uses = readers.get(t.name, [])
        if uses and all(op == "Gather" and i == 0 for op, i in uses):
            total += int(np.prod(t.dims)) * 4
    return total


def compile_artifact(args, weights):
    """ingot's artifact for `weights` in --workdir (compiled unless one newer than the model
    and the ingot binary is there) -> (path, compile seconds or None when reused, ingot's
    "quantized N weights ..." line or "")."""
    stem = os.path.splitext(os.path.basename(args.model))[0]
    out = os.path.join(args.workdir, f"{stem}.{weights}.so")
    log = out + ".compile.txt"  # ingot compile's stdout, kept for reuse
    # ort-nbits*: ORT's MatMulNBits file (made by bench/ort_quant.py) is ingot's input.
    source = (ort_quant.make(args.model, weights[4:], args.ort_accuracy_level)
              if weights.startswith("ort-") else args.model)
    newest = max(os.path.getmtime(source), os.path.getmtime(args.ingot))
    seconds = None
    if not (os.path.exists(out) and os.path.exists(log) and os.path.getmtime(out) >= newest):
        cmd = [args.ingot, "compile", source, "-o", out, "--dim-bounds", DIM_BOUNDS]
        if weights in ("int8", "int4"):
            cmd += ["--quantize-weights", weights, "--group-size", str(args.group_size)]
        t = time.time()
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed: {p.stderr.strip()[-1000:]}")
        seconds = time.time() - t
        with open(log, "w") as fh:
            fh.write(p.stdout)
    with open(log) as fh:
        quant = next((ln.strip() for ln in fh if ln.startswith("quantized ")), "")
    return out, seconds, quant


def constants_bytes(exe, artifact):
    r = subprocess.run([exe, "inspect", artifact], capture_output=True, text=True, check=True)
    m = re.search(r"constants:\s+([0-9]+) bytes", r.stdout)
    return int(m.group(1)) if m else None


def tolerance(args, weights):
    return {"float32": args.tol, "int8": args.int8_tol, "int4": args.int4_tol,
            "ort-nbits8": args.int8_tol, "ort-nbits4": args.int4_tol}[weights]


def check(ref, got, weights, tol, got_name):
    """compare_outputs of `got` against ORT float32's `ref` -> (ok, message, per-output stats).
    float32: rtol = atol = tol. Quantized: rtol = tol and atol = tol x each output's largest
    |ref| (atol_scale="max"): weight quantization's error is bounded by a fraction of the
    weights' largest magnitude (scale = max |w| / 127 or / 7 per group), so its effect on an
    output follows that output's largest magnitude, not its RMS (atol_scale="rms" would need a
    tolerance of several RMS for int4). Each output's rel_err is then max |d| / max |ref|."""
    stats = {}
    ok, msg = parity.compare_outputs(ref, got, tol, tol,
                                     atol_scale=None if weights == "float32" else "max",
                                     finite_ref=True, stats=stats, ref_name="ORT float32",
                                     got_name=got_name)
    return ok, msg, stats


def ingot_outputs(args, artifact, inputs_npz, outputs_npz):
    """ingot's outputs on the step's inputs, and one probe time (ms) to size N with."""
    if os.path.exists(outputs_npz):
        os.remove(outputs_npz)
    ms = model_bench.ingot_median_ms(args.ingot, artifact, inputs_npz, args.threads, 1,
                                     outputs_npz)
    with np.load(outputs_npz) as z:
        return {k: z[k] for k in z.files}, ms


def bench_row(args, weights, step, f, ref, sessions, artifact, inputs_npz):
    """One row: ingot's artifact and the ORT sessions of `weights` on one step's feeds.
    sessions: {ORT kind: InferenceSession}. -> the row dict (every round included)."""
    name, seq, past = step
    rtol = tolerance(args, weights)
    row = {"weights": weights, "step": name, "seq": seq, "past": past, "tol": rtol,
           "checks": {}}
    got, probe = ingot_outputs(args, artifact, inputs_npz, inputs_npz + ".out.npz")
    failed = []
    ok, msg, stats = check(ref, got, weights, rtol, "ingot")
    row["checks"]["ingot"] = {"ok": ok, "message": msg, "outputs": stats}
    if not ok:
        failed.append(f"ingot: {msg}")
    timers = {"ingot": None}
    bounds = {}
    for kind, sess in sessions.items():
        out = dict(zip([o.name for o in sess.get_outputs()], sess.run(None, f)))
        if kind != "float32":
            ok, msg, stats = check(ref, out, weights, rtol, ORT_LABEL[kind])
            row["checks"][kind] = {"ok": ok, "message": msg, "outputs": stats}
            if not ok:
                failed.append(f"{ORT_LABEL[kind]}: {msg}")
        bounds[kind] = model_bench.OrtBound(sess, f, out)
    if failed:
        row.update(status="FAILED", error="; ".join(failed))
        return row
    probes = [probe] + [b.median_ms(3) for b in bounds.values()]
    rep = max(1, min(args.max_repeat, int(args.round_s * 1e3 / max(max(probes), 1e-3))))
    timers["ingot"] = lambda: model_bench.ingot_median_ms(args.ingot, artifact, inputs_npz,
                                                          args.threads, rep)
    for kind, b in bounds.items():
        timers[kind] = (lambda b=b: b.median_ms(rep))
    rounds = model_bench.rotate_rounds(timers, args.rounds, args.pause_s)
    row.update(status="ok", repeat=rep, rounds=args.rounds, ms_rounds=rounds,
               ms={k: statistics.median(v) for k, v in rounds.items()})
    row["ratio"] = {k: statistics.median(i / o for i, o in zip(rounds["ingot"], rounds[k]))
                    for k in bounds}
    row["ratio_range"] = {k: [min(i / o for i, o in zip(rounds["ingot"], rounds[k])),
                              max(i / o for i, o in zip(rounds["ingot"], rounds[k]))]
                          for k in bounds}
    return row


def print_row(r, cfg):
    head = f"{cfg['model']:<8} {r['weights']:<8} {r['step']:<8} {r['seq']:>4} {r['past']:>5}"
    if r["status"] != "ok":
        print(f"{head}  FAILED: {r['error']}", flush=True)
        return
    others = "  ".join(f"{ORT_LABEL[k]} {r['ms'][k]:.2f} ms, ingot/ORT {r['ratio'][k]:.2f} "
                       f"[{r['ratio_range'][k][0]:.2f}..{r['ratio_range'][k][1]:.2f}]"
                       for k in r["ratio"])
    tok = r["seq"] * 1e3 / r["ms"]["ingot"]
    print(f"{head}  ingot {r['ms']['ingot']:.2f} ms ({tok:.1f} tok/s)  {others}", flush=True)


def check_figure(row, side):
    """The largest rel_err of a side's check over its outputs (float32: compare_outputs' own;
    quantized: max |d| / max |ref|)."""
    c = row["checks"].get(side)
    if not c or not c["ok"] or not c.get("outputs"):
        return "-" if not c else ("pass" if c["ok"] else "FAILED")
    return f"{max(o['rel_err'] or 0.0 for o in c['outputs'].values()):.2e}"


def markdown(rows, cfg, variants):
    """Table 7's rows: one per weight format and ORT side, prefill and decode side by side."""
    lines = ["| model | weights | ORT side | prefill: ingot / ORT ms | ingot/ORT [min..max] "
             "| decode: ingot / ORT ms | ingot/ORT [min..max] | ingot decode tok/s "
             "| ingot decode / bound | check vs ORT float32: ingot / ORT |",
             "|---|---|---|---:|---:|---:|---:|---:|---:|---|"]
    by = {(r["weights"], r["step"]): r for r in rows}
    for weights in dict.fromkeys(r["weights"] for r in rows):
        pre, dec = by.get((weights, "prefill")), by.get((weights, "decode"))
        for kind in ORT_SIDES[weights]:
            cells = []
            for r in (pre, dec):
                if r is None or r["status"] != "ok":
                    cells += [f"FAILED: {r['error']}" if r else "-", ""]
                    continue
                lo, hi = r["ratio_range"][kind]
                cells += [f"{r['ms']['ingot']:.2f} / {r['ms'][kind]:.2f}",
                          f"**{r['ratio'][kind]:.2f}** [{lo:.2f}..{hi:.2f}]"]
            ok = dec is not None and dec["status"] == "ok"
            tok = f"{1e3 / dec['ms']['ingot']:.0f}" if ok else "-"
            bound = f"{dec['ingot_over_bound']:.2f}x" if ok else "-"
            fig = "-"
            if dec is not None:
                theirs = "(reference)" if kind == "float32" else check_figure(dec, kind)
                fig = f"{check_figure(dec, 'ingot')} / {theirs}"
            lines.append(f"| {cfg['model']} | {weights} | {ORT_LABEL[kind]} | " +
                         " | ".join(cells) + f" | {tok} | {bound} | {fig} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model")
    ap.add_argument("--ingot", default=model_bench.default_ingot())
    ap.add_argument("--weights", default="float32,int8,int4",
                    help="comma-separated: float32, int8, int4, ort-nbits8, ort-nbits4 "
                         "(default: %(default)s)")
    ap.add_argument("--group-size", type=int, default=128,
                    help="ingot --group-size and ORT MatMulNBits block_size (default: 128; "
                         "bench/ort_quant.py makes ORT's models with 128)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--prompt", type=int, default=32)
    ap.add_argument("--past", type=int, default=128)
    ap.add_argument("--rounds", type=int, default=5, help="rotating rounds (default: 5)")
    ap.add_argument("--round-s", type=float, default=1.0,
                    help="target seconds of the slowest side per round (default: 1.0)")
    ap.add_argument("--max-repeat", type=int, default=200, help="cap on calls per round")
    ap.add_argument("--pause-s", type=float, default=0.1, help="pause after each side")
    ap.add_argument("--tol", type=float, default=1e-4,
                    help="float32 check: rtol = atol of ingot vs ORT float32 (default: 1e-4)")
    ap.add_argument("--int8-tol", type=float, default=0.1,
                    help="int8 check, each side vs ORT float32: rtol, and atol as a fraction "
                         "of each output's max |ref| (default: 0.1)")
    ap.add_argument("--int4-tol", type=float, default=0.5,
                    help="int4 check, each side vs ORT float32: rtol, and atol as a fraction "
                         "of each output's max |ref| (default: 0.5)")
    ap.add_argument("--ort-accuracy-level", type=int, default=ort_quant.ACCURACY_LEVEL,
                    help="MatMulNBits accuracy_level (default: %(default)s, ORT's fast CPU "
                         "path; 0 keeps float32 activations)")
    ap.add_argument("--workdir", default=os.path.join(ROOT, "build", "decoder-bench"),
                    help="artifacts and step inputs (default: %(default)s)")
    ap.add_argument("--markdown", help="also write Table 7's rows (markdown) to this file")
    perf_record.add_arguments(ap)
    args = ap.parse_args(argv)
    if args.group_size != ort_quant.BLOCK:
        ap.error(f"--group-size must be {ort_quant.BLOCK}: ORT's MatMulNBits models use it")
    import onnx
    import onnxruntime as ort

    os.makedirs(args.workdir, exist_ok=True)
    cfg = json.load(open(args.model.rsplit(".onnx", 1)[0] + ".config.json"))
    proto = onnx.load(args.model)
    fp32 = sum(int(np.prod(t.dims)) * 4 for t in proto.graph.initializer)
    gather_only = gather_only_bytes(proto)
    del proto
    load_start = os.getloadavg()
    dev = read_device_info(args.ingot)
    bw = float(dev["memory_read_gbs"])
    rng = np.random.default_rng(0)
    steps = [("prefill", args.prompt, 0), ("decode", 1, args.past)]
    step_feeds = [feeds(cfg, seq, past, rng) for _, seq, past in steps]
    stem = os.path.join(args.workdir, os.path.splitext(os.path.basename(args.model))[0])
    inputs = []
    for (name, _, _), f in zip(steps, step_feeds):
        inputs.append(f"{stem}.{name}.inputs.npz")
        np.savez(inputs[-1], **f)
    ref_sess = model_bench.ort_session(args.model, args.threads)
    names = [o.name for o in ref_sess.get_outputs()]
    refs = [dict(zip(names, ref_sess.run(None, f))) for f in step_feeds]
    print(f"model {cfg['model']}: {fp32 / 1e6:.1f} MB of float32 weights, {args.threads} "
          f"threads, read bandwidth {bw:.1f} GB/s (ingot device-info --refresh, all threads), "
          f"{args.rounds} rounds; load average {load_start[0]:.2f}", flush=True)
    rows, variants, failed = [], {}, 0
    for weights in args.weights.split(","):
        artifact, compile_s, quant = compile_artifact(args, weights)
        if quant:
            print(f"ingot {weights}: {quant}", flush=True)
        if quant.startswith("quantized 0 weights"):
            print(f"warning: ingot quantized no weight (K not a multiple of {args.group_size}?): "
                  f"its {weights} rows run float32 weights", flush=True)
        constants = constants_bytes(args.ingot, artifact) or fp32
        streamed = constants - gather_only
        sessions, ort_models = {}, {}
        for kind in ORT_SIDES[weights]:
            if kind == "float32":
                sessions[kind] = ref_sess
            else:
                path = ort_quant.make(args.model, kind, args.ort_accuracy_level)
                sessions[kind] = model_bench.ort_session(path, args.threads)
                ort_models[kind] = {"file": os.path.basename(path),
                                    "ops": ort_quant.count_ops(path)}
        variants[weights] = {"artifact": os.path.basename(artifact), "compile_s": compile_s,
                             "ingot_quantization": quant,
                             "constants_bytes": constants, "streamed_bytes": streamed,
                             "ort_models": ort_models}
        for step, f, ref, npz in zip(steps, step_feeds, refs, inputs):
            row = bench_row(args, weights, step, f, ref, sessions, artifact, npz)
            row["load_avg"] = os.getloadavg()[0]
            if row["status"] == "ok" and step[0] == "decode":
                bound_ms = streamed / (bw * 1e9) * 1e3
                row["bound_ms"] = bound_ms
                row["ingot_over_bound"] = row["ms"]["ingot"] / bound_ms
            failed += row["status"] != "ok"
            rows.append(row)
            print_row(row, cfg)
        del sessions
    print(f"{'weights':<8} {'step':<8} {'ingot ms':>9} {'ORT side':<18} {'ORT ms':>8} "
          f"{'ingot/ORT':>9} {'decode/bound':>12}")
    for r in rows:
        if r["status"] != "ok":
            continue
        for k in r["ratio"]:
            b = f"{r['ingot_over_bound']:.2f}" if "ingot_over_bound" in r else "-"
            print(f"{r['weights']:<8} {r['step']:<8} {r['ms']['ingot']:>9.2f} {ORT_LABEL[k]:<18} "
                  f"{r['ms'][k]:>8.2f} {r['ratio'][k]:>9.2f} {b:>12}")
    load_end = os.getloadavg()
    print(f"load average {load_start[0]:.2f} -> {load_end[0]:.2f}")
    table = markdown(rows, cfg, variants)
    print(table, end="")
    if args.markdown:
        with open(args.markdown, "w") as fh:
            fh.write(table)
    perf_record.write(args, f"decoder_bench-{cfg['model']}", args.ingot, rows,
                      device_info=dev, ort_version=ort.__version__, model=cfg,
                      threads=args.threads, variants=variants,
                      ort_accuracy_level=args.ort_accuracy_level, load_avg_start=load_start,
                      load_avg_end=load_end, float32_weight_bytes=fp32,
                      gather_only_bytes=gather_only)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
