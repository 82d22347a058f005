#!/usr/bin/env python3
"""model_bench: the whole path users take, ingot against ONNX Runtime (DESIGN.md section 11).

For each model and thread count T: `ingot compile` it once, check both sides' outputs, then for
several rounds alternate the two timings, so both see the same drift of a shared machine.

Both sides are timed the same way: in-process, around one inference call, on inputs and output
buffers that are already in place, one warm-up call first; a side's time in a round is the median
of the per-call wall times of N calls, the same N for both (sized so that the slower side's round
takes about --round-s).
  ingot:  `ingot run ART.so --inputs X.npz --repeat N --number 1 --print-time --num-threads T`,
          its "median (ms)": the CLI loads the artifact, binds the inputs once, runs one warm-up,
          then times each `Session::run()` alone with steady_clock (no file I/O, no process
          start-up, no output copy in the timed region).
  ORT:    an InferenceSession with intra_op_num_threads=T, inter_op_num_threads=1, sequential
          execution, default graph optimizations; the inputs are bound once as OrtValues and the
          outputs to preallocated OrtValues (IOBinding), and each `sess.run_with_iobinding()` is
          timed alone with time.perf_counter(). The Python-to-C++ call and ORT's own dispatch add
          about 2 us per call (an Identity model on one float measures 1.8 us median on the
          2-vCPU machine of docs/perf.md), negligible next to the models here; no numpy
          conversion of inputs or outputs is timed.
Before timing, the outputs of `ingot run --outputs` are compared with ORT's (sess.run on the same
inputs) by scripts/parity.py's compare_outputs (names, dtypes, shapes, no NaN/Inf in ORT's,
the same NaN/Inf positions, every element within atol + rtol * |ref| with rtol = --tol and
atol = --tol x the output's RMS: atol_scale="rms", as parity.check_model): a mismatch marks the
row FAILED with the reason instead of a time, and the exit status is 1.
Every run writes its raw record (machine, commit, command, every round) to
docs/perf-runs/model_bench-*.json (bench/perf_record.py; --record-dir, --no-record).
Reported per model and T: the median over rounds of each side's median, and the median over
rounds of the per-round ratio ingot/ORT (ratio < 1: ingot is faster). For single-op models also
GFLOP/s and % of the FP32 FMA peak at T threads (T x the per-core peak, from --peak-gflops or from
running the fma_peak benchmark).

Before and after in one run (--baseline-ingot PATH, a second ingot CLI: the "before" build): each
model is compiled by both CLIs (ART.so and ART.baseline.so, the same flags), each artifact runs
with its own CLI (whose runtime is built in) and both outputs go through the same
compare_outputs check against ORT (check_side); the rounds then rotate among the three sides
(ingot, baseline, ORT; each round starts one side later, so --rounds a multiple of 3 lets each
side go first equally often), with one N for all three. Reported besides: the baseline's median
and the median over rounds of the per-round ratio ingot/baseline ("after/before", < 1: the new
build is faster) with its min..max, and a summary line naming every row above 1.03 and every row
not compared (the baseline failed to compile, run or match ORT: it is then left out of the rounds,
and the exit status is 1). The raw record adds each baseline round, both CLIs' paths, their
`--version` and, where a file COMMIT lies next to a binary, its commit. Without --baseline-ingot
nothing changes.

Models: a path to an .onnx file, or a name from scripts/make_models.py, e.g.
  matmul1024   MatMul [1024,1024] x constant [1024,1024]
  conv3x3_56   Conv 64->64 3x3 pad 1 on 1x64x56x56 (ResNet-50 stage 1)
  conv3x3_28   Conv 128->128 3x3 pad 1 on 1x128x28x28 (stage 2)
  conv3x3_14   Conv 256->256 3x3 pad 1 on 1x256x14x14 (stage 3)
  conv3x3_7    Conv 512->512 3x3 pad 1 on 1x512x7x7 (stage 4)
  conv1x1_56   Conv 64->256 1x1 on 1x64x56x56 (stage 1 expansion)
  dwconv7x7_56 depthwise Conv 96ch 7x7 pad 3 on 1x96x56x56 (ConvNeXt-T stage 1)
  gconv3x3_g32_28 / gconv3x3_g32_56  grouped Conv 3x3, 32 groups: 256ch @28x28 (8 per group),
               128ch @56x56 (4 per group) (ResNeXt-50 32x4d stages 2 and 1)
  resnet50, mobilenetv2, bert (4 layers), bert_base (BERT-base: 12 layers, hidden 768, 12 heads,
  seq 128, FFN 3072), tiny_cnn, tiny_mobilenet, tiny_bert
  NAME.dyn     NAME quantized by onnxruntime.quantization.quantize_dynamic (int8 weights per
               channel, MatMulInteger): both sides run that file; outputs checked against onnx's
               reference evaluator, not ORT (whose uint8 x int8 sums saturate without VNNI:
               docs/int8.md), ORT's distance from it in the row (ort_check)
  NAME.qdq     NAME quantized by onnxruntime.quantization (quant_pre_process, then quantize_static
               in the QDQ format: int8 weights per channel, uint8 activations): both sides run
               that file; the reference is ONNX Runtime with its exact integer kernels
               (parity.reference_session; its default ones saturate without VNNI), checked at
               --int8-tol of each output's largest magnitude; ORT's default session is timed
  NAME.qdqraw  the same without quant_pre_process (BatchNormalization left in, the form the
               quantizer writes for a model not pre-processed)
  NAME.bf16    NAME compiled with --dtype bfloat16 (products by constant weights in bfloat16,
               float32 accumulation: docs/bfloat16.md) against ORT's float32 run of NAME (ORT
               has no bfloat16 path on x86); checked at --bf16-tol (rtol, and atol as a fraction
               of each output's largest magnitude)

Examples:
  bench/model_bench.py --models matmul1024,conv3x3_56 --threads 1,2
  bench/model_bench.py --models resnet50,mobilenetv2,bert --threads 1,2 --rounds 5 \\
      --fma-peak build/bench/bench/fma_peak --markdown perf.md --json perf.json
  bench/model_bench.py --ingot build/ci/tools/ingot/ingot --baseline-ingot /work/before/ingot \\
      --models resnet50,mobilenetv2,bert_base --threads 2 --rounds 6      # before/after
"""
import argparse
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

import numpy as np
import onnx
import onnxruntime as ort

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import make_models  # noqa: E402
import parity  # noqa: E402  (compare_outputs)
import perf_record  # noqa: E402
from bench_models import model_path  # noqa: E402

# --- FLOPs --------------------------------------------------------------------------------

def count_flops(model):
    """(total FLOPs of Conv/MatMul/Gemm nodes, number of nodes in the graph); batch bound to 1."""
    m = onnx.shape_inference.infer_shapes(model)
    shapes = {}
    for vi in list(m.graph.input) + list(m.graph.value_info) + list(m.graph.output):
        dims = vi.type.tensor_type.shape.dim
        shapes[vi.name] = [d.dim_value if d.dim_value > 0 else 1 for d in dims]
    for t in m.graph.initializer:
        shapes[t.name] = list(t.dims)
    flops = 0
    for n in m.graph.node:
        if n.op_type == "Conv":
            w, y = shapes.get(n.input[1]), shapes.get(n.output[0])
            if w and y:  # 2 * outputs * (cin/group * kh * kw)
                flops += 2 * int(np.prod(y)) * int(np.prod(w[1:]))
        elif n.op_type in ("MatMul", "Gemm"):
            a, y = shapes.get(n.input[0]), shapes.get(n.output[0])
            if a and y:
                k = a[-1]
                if n.op_type == "Gemm" and any(at.name == "transA" and at.i for at in n.attribute):
                    k = a[0]
                flops += 2 * int(np.prod(y)) * k
    return flops, len(m.graph.node)


# --- the FMA peak -------------------------------------------------------------------------

def target_vector_bits(ingot, target):
    """The vector width ingot resolves `target` to (ingot compile --print-target)."""
    cmd = [ingot, "compile", "--print-target"] + (["--target", target] if target else [])
    p = subprocess.run(cmd, capture_output=True, text=True)
    m = re.search(r"^vector isa:\s+\S+ \((\d+)-bit", p.stdout, re.M)
    if p.returncode != 0 or not m:
        sys.exit(f"error: {' '.join(cmd)}: {p.stderr.strip() or p.stdout.strip()}")
    return int(m.group(1))


def measure_peak(binary, vector_bits=512):
    """Per-core FP32 peak in GFLOP/s from the fma_peak benchmark's JSON, and its raw rates.

    The per-core peak is the best core_GFLOPS (FLOPs per CPU-second of one thread), which a busy
    machine barely disturbs; the wall-clock GFLOPS per thread count are returned for the record.
    For a 256-bit target (AVX2 code) only the ymm rates count: that code's own peak.
    """
    bench = "BM_fma_avx2" if vector_bits < 512 else "BM_fma"
    p = subprocess.run([binary, f"--benchmark_filter={bench}", "--benchmark_format=json",
                        "--benchmark_min_time=0.2"], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"error: {binary} failed: {p.stderr.strip()[-400:]}")
    per_core, wall = 0.0, {}
    for b in json.loads(p.stdout)["benchmarks"]:
        m = re.search(r"threads:(\d+)", b["name"])
        if not m or b.get("error_occurred") or "GFLOPS" not in b:
            continue
        per_core = max(per_core, float(b.get("core_GFLOPS", 0.0)))
        t = int(m.group(1))
        wall[t] = max(wall.get(t, 0.0), float(b["GFLOPS"]))
    if per_core <= 0:
        sys.exit(f"error: {binary} reported no FMA rates")
    return per_core, wall


def measure_wall_peak(binary, vector_bits, threads):
    """The FMA loop's wall-clock GFLOP/s at `threads` threads now (best over its chain counts):
    on a shared machine, what the cores deliver in this minute. None when the benchmark has no
    such rate here (another ISA, a failed run)."""
    isa = "avx2" if vector_bits < 512 else "avx512"
    p = subprocess.run([binary, f"--benchmark_filter=BM_fma_{isa}/.*/threads:{threads}$",
                        "--benchmark_format=json", "--benchmark_min_time=0.1"],
                       capture_output=True, text=True)
    if p.returncode != 0:
        return None
    rates = [float(b["GFLOPS"]) for b in json.loads(p.stdout).get("benchmarks", [])
             if "GFLOPS" in b and not b.get("error_occurred")]
    return max(rates) if rates else None


# --- running both sides -------------------------------------------------------------------

def input_shapes_arg(model, feeds):
    """--input-shapes for inputs with symbolic dims, bound to the fed shapes."""
    parts = []
    for vi in model.graph.input:
        dims = vi.type.tensor_type.shape.dim
        if any(d.dim_param or d.dim_value <= 0 for d in dims):
            parts.append(f"{vi.name}:[{','.join(str(s) for s in feeds[vi.name].shape)}]")
    return " ".join(parts)


def parse_time_summary(text):
    """`ingot run --print-time`'s summary -> {"mean": ms, "median": ms, "max", "min", "std"}.

    The summary is a header line of column names, each "NAME (ms)", then one line of numbers in
    the same order; the columns are read by name from the header, not by position. Raises
    ValueError when the text has no such summary."""
    lines = text.splitlines()
    for i, line in enumerate(lines[:-1]):
        names = re.findall(r"(\w+) \(ms\)", line)
        if "median" not in names:
            continue
        values = re.findall(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|inf", lines[i + 1])
        if len(values) != len(names):
            break
        return {n: float(v) for n, v in zip(names, values)}
    raise ValueError(f"no time summary in ingot's output:\n{text[-500:]}")


def ingot_median_ms(ingot, artifact, inputs_npz, threads, repeat, outputs_npz=None):
    """Median of `repeat` per-call times of Session::run() inside `ingot run` (ms)."""
    cmd = [ingot, "run", artifact, "--inputs", inputs_npz, "--repeat", str(repeat), "--number", "1",
           "--print-time", "--num-threads", str(threads)]
    if outputs_npz:
        cmd += ["--outputs", outputs_npz]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"ingot run failed: {p.stderr.strip()}")
    try:
        return parse_time_summary(p.stdout)["median"]
    except ValueError as e:
        raise RuntimeError(str(e)) from None


def ort_session(path, threads):
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    return ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])


class OrtBound:
    """An ORT session with its inputs bound once and its outputs bound to preallocated buffers
    (shaped like the reference outputs), so a timed call is the inference alone."""

    def __init__(self, sess, feeds, ref):
        self.sess = sess
        self.binding = sess.io_binding()
        self.keep = []  # the arrays behind the OrtValues stay alive
        for name, value in feeds.items():
            arr = np.ascontiguousarray(value)
            self.keep.append(arr)
            self.binding.bind_ortvalue_input(name, ort.OrtValue.ortvalue_from_numpy(arr))
        for name, value in ref.items():
            arr = np.empty_like(value)
            self.keep.append(arr)
            self.binding.bind_ortvalue_output(name, ort.OrtValue.ortvalue_from_numpy(arr))

    def median_ms(self, repeat):
        """Median of `repeat` per-call times of run_with_iobinding (ms), after one warm-up."""
        run, binding = self.sess.run_with_iobinding, self.binding
        run(binding)  # warm-up, as ingot run does
        times = []
        for _ in range(repeat):
            t = time.perf_counter()
            run(binding)
            times.append((time.perf_counter() - t) * 1e3)
        return statistics.median(times)


def rotate_rounds(sides, rounds, pause_s):
    """Times every side once per round for `rounds` rounds, each round starting one side later
    than the last (A B C, B C A, ...), so no side always runs on a warmer or cooler machine.
    sides: {name: function() -> ms}. Returns {name: [ms per round]}."""
    names = list(sides)
    got = {n: [] for n in names}
    for r in range(rounds):
        k = r % len(names)
        for name in names[k:] + names[:k]:
            got[name].append(sides[name]())
            time.sleep(pause_s)  # let ORT's spinning workers go idle
    return got


def alternate_rounds(args, artifact, inputs_npz, bound, threads, probe_i, baseline=None):
    """Times both sides (all three with a baseline) for args.rounds rounds, rotating which goes
    first (rotate_rounds).

    One N for every side, so that the slowest side's round takes about args.round_s (at least
    1, at most args.max_repeat); probe_i is one ingot time (ms) to size N with.
    baseline: (CLI, its artifact, one time of it in ms) of the "before" build, timed as a third
    side with its own CLI, or None.
    Returns (N, {"ingot": medians per round, "ort": ..., "baseline": ... with a baseline});
    timing_fields() turns the rounds into a row's fields.
    """
    probe_o = bound.median_ms(3)
    probes = [probe_i, probe_o] + ([baseline[2]] if baseline else [])
    rep = max(1, min(args.max_repeat, int(args.round_s * 1e3 / max(*probes, 1e-3))))
    sides = {"ingot": lambda: ingot_median_ms(args.ingot, artifact, inputs_npz, threads, rep)}
    if baseline:
        cli, base_artifact = baseline[0], baseline[1]
        sides["baseline"] = lambda: ingot_median_ms(cli, base_artifact, inputs_npz, threads, rep)
    sides["ort"] = lambda: bound.median_ms(rep)
    return rep, rotate_rounds(sides, args.rounds, args.pause_s)


def timing_fields(got):
    """A row's timing fields from alternate_rounds' rounds: each side's median over rounds, its
    every round, and the median (min, max) over rounds of the per-round ratio ingot/ORT; with a
    baseline also baseline/ORT and after/before = ingot/baseline (< 1: the new build is faster)."""
    def ratios(a, b):  # a time below ingot's printed resolution (0.0000 ms) on both: even
        return [x / y if y > 0 else (1.0 if x <= 0 else math.inf)
                for x, y in zip(got[a], got[b])]
    r = ratios("ingot", "ort")
    row = {"ingot_ms": statistics.median(got["ingot"]), "ort_ms": statistics.median(got["ort"]),
           "ratio": statistics.median(r), "ratio_min": min(r), "ratio_max": max(r),
           "ingot_ms_rounds": got["ingot"], "ort_ms_rounds": got["ort"]}
    if "baseline" in got:
        ab = ratios("ingot", "baseline")
        row.update(baseline_ms=statistics.median(got["baseline"]),
                   baseline_ms_rounds=got["baseline"],
                   baseline_ratio=statistics.median(ratios("baseline", "ort")),
                   after_before=statistics.median(ab), after_before_min=min(ab),
                   after_before_max=max(ab), after_before_rounds=ab)
    return row


# --- before/after (--baseline-ingot) ---------------------------------------------------------

AFTER_BEFORE_LIMIT = 1.03  # after/before above this is named in the summary line


def cli_identity(ingot):
    """An ingot CLI for the record: its path, its `--version` line and, when a file COMMIT lies
    next to the binary (e.g. /work/before/COMMIT for a saved "before" build), that commit."""
    path = shutil.which(ingot) or ingot
    info = {"path": os.path.abspath(path) if os.path.exists(path) else ingot}
    try:
        p = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=60)
        info["version"] = (p.stdout.strip() or p.stderr.strip()) if p.returncode == 0 else None
        if p.returncode != 0:
            info["version_error"] = (p.stderr or p.stdout).strip()[-300:]
    except (OSError, subprocess.TimeoutExpired) as e:
        info["version"], info["version_error"] = None, f"{type(e).__name__}: {e}"
    commit = os.path.join(os.path.dirname(os.path.abspath(path)), "COMMIT")
    if os.path.isfile(commit):
        with open(commit) as f:
            info["commit"] = f.read().strip()
    return info


def check_side(cli, artifact, inputs_npz, outputs_npz, threads, ref, tol, stats=None,
               atol_scale="rms"):
    """One run of `artifact` by `cli` (`ingot run --outputs`), its outputs checked against ORT's
    `ref` by parity.compare_outputs (rtol = tol, atol = tol x each output's RMS, or its largest
    magnitude with atol_scale="max"; the reference finite): the one check both the new build and
    the baseline go through.
    Returns (that run's time in ms, ok, message); raises RuntimeError when the run fails."""
    if os.path.exists(outputs_npz):
        os.remove(outputs_npz)
    probe = ingot_median_ms(cli, artifact, inputs_npz, threads, 1, outputs_npz)
    with np.load(outputs_npz) as z:
        got = {k: z[k] for k in z.files}
    ok, msg = parity.compare_outputs(ref, got, tol, tol, atol_scale=atol_scale, finite_ref=True,
                                     stats=stats)
    return probe, ok, msg


def dynamic_reference(path, feeds):
    """The outputs of the dynamically quantized model at `path` by onnx's reference evaluator
    (integers exact; its DequantizeLinear has no opset-13 form, so one is given here)."""
    from onnx.reference import ReferenceEvaluator
    from onnx.reference.op_run import OpRun

    class DequantizeLinear(OpRun):
        op_domain = ""

        def _run(self, x, scale, zero_point=None, axis=None, block_size=None, output_dtype=None):
            along = [1] * x.ndim
            if scale.size > 1:
                along[1 if axis is None else axis] = -1
            shaped = (lambda v: v.astype(np.float32).reshape(along if v.size > 1 else []))
            v = x.astype(np.float32) - (0 if zero_point is None else shaped(zero_point))
            return ((v * shaped(scale)).astype(np.float32),)

    model = onnx.load(path)
    ev = ReferenceEvaluator(model, new_ops=[DequantizeLinear])
    return dict(zip([o.name for o in model.graph.output], ev.run(None, feeds)))


def after_before_summary(rows, limit=AFTER_BEFORE_LIMIT):
    """The before/after verdict over rows: {"limit", "compared", "geomean", "over": rows above
    the limit, "not_compared": rows without an after/before ratio, with the reason} and its line.
    A row is named by its model, and by its T when the rows have several thread counts."""
    several_t = len({r["threads"] for r in rows if "threads" in r}) > 1

    def label(r):
        return r["model"] + (f" T={r['threads']}" if several_t and "threads" in r else "")
    compared = [r for r in rows if "after_before" in r]
    over = [r for r in compared if r["after_before"] > limit]
    missing = [r for r in rows if "after_before" not in r]

    def reason(r):
        return r.get("baseline_error") or r.get("error") or r.get("status") or "not timed"
    geo = math.exp(sum(math.log(r["after_before"]) for r in compared) / len(compared)) \
        if compared else None
    info = {"limit": limit, "compared": len(compared), "rows": len(rows), "geomean": geo,
            "over": [{"model": r["model"], "threads": r.get("threads"),
                      "after_before": r["after_before"], "min": r["after_before_min"],
                      "max": r["after_before_max"]} for r in over],
            "not_compared": [{"model": r["model"], "threads": r.get("threads"),
                              "reason": reason(r)} for r in missing]}
    line = (f"after/before (ingot / baseline, median over rounds; < 1: faster) above {limit:.2f}: "
            + (", ".join(f"{label(r)} {r['after_before']:.3f} ({r['after_before_min']:.2f}.."
                         f"{r['after_before_max']:.2f})" for r in over) or "none")
            + f"; {len(compared)} of {len(rows)} compared"
            + (f", geometric mean {geo:.3f}" if geo else ""))
    if compared:
        worst = max(compared, key=lambda r: r["after_before"])
        line += f", worst {label(worst)} {worst['after_before']:.3f}"
    if missing:
        line += "; NOT COMPARED: " + ", ".join(f"{label(r)} ({one_line_reason(reason(r))})"
                                               for r in missing)
    return info, line


def one_line_reason(text, limit=160):
    first = str(text).strip().splitlines()[0] if str(text).strip() else "?"
    return first if len(first) <= limit else first[:limit] + "..."


def compile_artifact(cli, path, artifact, model, feeds, args, baseline=False, extra=()):
    """`CLI compile` of the model into artifact with the bench's flags and `extra` -> seconds
    (`baseline`: the --baseline-ingot side, which --ingot-tuning-records leaves untuned).
    Raises RuntimeError when it fails."""
    cmd = [cli, "compile", path, "-o", artifact, "-q", *extra]
    if args.target:
        cmd += ["--target", args.target]
    if args.tuning_records:
        cmd += ["--tuning-records", args.tuning_records]
    elif args.ingot_tuning_records and not baseline:
        cmd += ["--tuning-records", args.ingot_tuning_records]
    shapes = input_shapes_arg(model, feeds)
    if shapes:
        cmd += ["--input-shapes", shapes]
    t = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{'ingot' if cli == args.ingot else cli} compile failed: "
                           f"{p.stderr.strip() or f'exit status {p.returncode}'}")
    return time.time() - t


def bench_model(name, args):
    # The row's name: the model's file stem, a variant's NAME.dyn / NAME.bf16 as given.
    bf16, qdq = name.endswith(".bf16"), name.endswith((".qdq", ".qdqraw"))
    label = (name if name.endswith(".dyn") or bf16 or qdq
             else os.path.splitext(os.path.basename(name))[0])
    extra = ("--dtype", "bfloat16") if bf16 else ()
    path = model_path(name, args.workdir)
    if path is None:
        return []  # an exported model whose packages are missing (said as SKIP)
    model = onnx.load(path)
    # (A quantized variant takes its float model's inputs: the quantizer renames the tables.)
    feeds = make_models.make_inputs(
        onnx.load(model_path(name[:name.rindex(".")], args.workdir)) if name.endswith(
            (".dyn", ".qdq", ".qdqraw")) else model)
    flops, n_nodes = count_flops(model)
    base = os.path.join(args.workdir, os.path.splitext(os.path.basename(path))[0] +
                        (".bf16" if bf16 else ""))
    inputs_npz, artifact = base + ".inputs.npz", base + ".so"
    np.savez(inputs_npz, **feeds)
    compile_s = compile_artifact(args.ingot, path, artifact, model, feeds, args, extra=extra)
    # The "before" build (--baseline-ingot): its own artifact; a failure leaves the row without
    # the baseline (named in the after/before summary), never without the ingot/ORT numbers.
    base_artifact, base_fields, base_error = base + ".baseline.so", {}, None
    if args.baseline_ingot:
        try:
            base_fields["baseline_compile_s"] = compile_artifact(
                args.baseline_ingot, path, base_artifact, model, feeds, args, baseline=True,
                extra=extra)
        except RuntimeError as e:
            base_error = f"baseline: {e}"

    # A dynamically quantized model (NAME.dyn) is checked against onnx's reference evaluator,
    # exact in its integers: ORT's uint8 x int8 products saturate on x86 without VNNI
    # (docs/int8.md), so its outputs are timed but are not the reference; how far they are from
    # it goes into the row (ort_check).
    exact = dynamic_reference(path, feeds) if name.endswith(".dyn") else None
    # Its tolerance: --int8-tol of each output's largest magnitude (one quantization step of an
    # activation that float rounding flips changes the next product by a step of its scale).
    tol, scale = (args.int8_tol, "max") if exact is not None else (args.tol, "rms")
    if bf16:  # bfloat16 operands against float32: the error follows the output's magnitude
        tol, scale = args.bf16_tol, "max"
    if qdq:  # a quantization step flipped by float rounding moves the output by steps of its scale
        tol, scale = args.int8_tol, "max"
    rows = []
    for threads in args.threads:
        sess = ort_session(path, threads)
        ref = dict(zip([o.name for o in sess.get_outputs()], sess.run(None, feeds)))
        ort_check = None
        if qdq:  # ORT's exact integer kernels give the reference; its default session is timed
            exact_sess = parity.reference_session(path, threads)
            exact_ref = dict(zip([o.name for o in exact_sess.get_outputs()],
                                 exact_sess.run(None, feeds)))
            ort_check = parity.compare_outputs(exact_ref, ref, tol, tol, atol_scale="max",
                                               ref_name="ORT exact", got_name="ORT")[1]
            ref = exact_ref
        if exact is not None:
            ort_check = parity.compare_outputs(exact, ref, tol, tol, atol_scale="max",
                                               ref_name="onnx reference", got_name="ORT")[1]
            print(f"# {name} T={threads}: ORT against onnx's reference: {ort_check}",
                  file=sys.stderr, flush=True)
            ref = exact
        # Check the outputs first: the probe run of ingot writes its outputs.
        probe_i, ok, msg = check_side(args.ingot, artifact, inputs_npz,
                                      base + f".outputs.T{threads}.npz", threads, ref, tol,
                                      atol_scale=scale)
        baseline, row_base, err = None, dict(base_fields), base_error
        if args.baseline_ingot and not err:
            try:
                probe_b, ok_b, msg_b = check_side(
                    args.baseline_ingot, base_artifact, inputs_npz,
                    base + f".baseline.outputs.T{threads}.npz", threads, ref, tol,
                    atol_scale=scale)
                row_base["baseline_check"] = msg_b
                if ok_b:
                    baseline = (args.baseline_ingot, base_artifact, probe_b)
                else:
                    err = f"baseline: outputs differ from ORT: {msg_b}"
            except RuntimeError as e:
                err = f"baseline: {e}"
        if err:
            row_base["baseline_error"] = err
            print(f"# {label} T={threads}: {err} "
                  "(not timed; no after/before)", file=sys.stderr, flush=True)
        if not ok:
            del sess
            rows.append({"model": label,
                         "threads": threads, "nodes": n_nodes, "gflop": flops / 1e9,
                         "compile_s": compile_s, "status": "FAILED", "error": msg,
                         **row_base})
            print(f"# {rows[-1]['model']} T={threads}: FAILED: {msg}", file=sys.stderr, flush=True)
            continue
        bound = OrtBound(sess, feeds, ref)
        rep, got = alternate_rounds(args, artifact, inputs_npz, bound, threads, probe_i,
                                    baseline)
        del bound, sess
        row = {
            "model": label, "threads": threads,
            "nodes": n_nodes, "gflop": flops / 1e9,
            "compile_s": compile_s, "status": "ok", "check": msg, "rounds": args.rounds,
            "repeat": rep, **timing_fields(got), **row_base,
        }
        if ort_check is not None:
            row["check_reference"] = ("ORT session.x64quantprecision=1" if qdq
                                      else "onnx reference evaluator")
            row["ort_check"] = ort_check
        # The peak at T threads is T cores' worth: it assumes the clock holds with T cores busy,
        # which fma_peak's wall-clock rate at T threads confirms on a quiet machine.
        peak = args.peak_gflops * threads if args.peak_gflops else None
        if n_nodes == 1 and flops:
            row["ingot_gflops"] = flops / row["ingot_ms"] / 1e6
            row["ort_gflops"] = flops / row["ort_ms"] / 1e6
            if peak:
                row["peak_gflops"] = peak
                row["ingot_pct_peak"] = 100 * row["ingot_gflops"] / peak
                row["ort_pct_peak"] = 100 * row["ort_gflops"] / peak
        rows.append(row)
        ab = "" if "after_before" not in row else (
            f", baseline {row['baseline_ms']:.3f} ms, after/before {row['after_before']:.3f} "
            f"[{row['after_before_min']:.2f}..{row['after_before_max']:.2f}]")
        print(f"# {row['model']} T={threads}: ingot {row['ingot_ms']:.3f} ms, "
              f"ORT {row['ort_ms']:.3f} ms, ratio {row['ratio']:.2f} "
              f"[{row['ratio_min']:.2f}..{row['ratio_max']:.2f}]{ab}",
              file=sys.stderr, flush=True)
    return rows


def markdown(rows, baseline=False):
    """The table; with baseline (a --baseline-ingot run) two more columns, the baseline's ms and
    after/before = ingot/baseline, and the after/before summary line under the table."""
    def f(v, fmt):
        return fmt.format(v) if v is not None else "—"

    def before_cols(r):
        if not baseline:
            return ""
        if "after_before" not in r:
            why = one_line_reason(r.get("baseline_error", "—")).replace("|", "\\|")
            return f" {why} | — |"
        return (f" {r['baseline_ms']:.3f} | {r['after_before']:.3f} ({r['after_before_min']:.2f}.."
                f"{r['after_before_max']:.2f}) |")

    lines = [
        "| model | T | GFLOP | ingot ms | ORT ms | ingot/ORT (min..max) | "
        + ("baseline ms | after/before (min..max) | " if baseline else "")
        + "ingot GFLOP/s (% peak) | ORT GFLOP/s (% peak) |",
        "|---|---:|---:|---:|---:|---:|" + ("---:|---:|" if baseline else "") + "---:|---:|",
    ]
    for r in rows:
        if r.get("status") == "FAILED":
            err = r["error"].replace("|", "\\|")
            lines.append(f"| {r['model']} | {r['threads']} | {f(r['gflop'] or None, '{:.2f}')} "
                         f"| FAILED: {err} | | |" + (" | |" if baseline else "") + " | |")
            continue
        ig = og = "—"
        if "ingot_gflops" in r:
            pi = f" ({r['ingot_pct_peak']:.1f}%)" if "ingot_pct_peak" in r else ""
            po = f" ({r['ort_pct_peak']:.1f}%)" if "ort_pct_peak" in r else ""
            ig, og = f"{r['ingot_gflops']:.1f}{pi}", f"{r['ort_gflops']:.1f}{po}"
        lines.append(
            f"| {r['model']} | {r['threads']} | {f(r['gflop'] or None, '{:.2f}')} "
            f"| {r['ingot_ms']:.3f} | {r['ort_ms']:.3f} "
            f"| {r['ratio']:.2f} ({r['ratio_min']:.2f}..{r['ratio_max']:.2f}) |{before_cols(r)}"
            f" {ig} | {og} |")
    if baseline:
        lines += ["", after_before_summary(rows)[1]]
    return "\n".join(lines) + "\n"


def default_ingot():
    for rel in ("build/lead/tools/ingot/ingot", "build/bench/tools/ingot/ingot",
                "build/release/tools/ingot/ingot"):
        p = os.path.join(ROOT, rel)
        if os.path.exists(p):
            return p
    return "ingot"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ingot", default=default_ingot(), help="the ingot CLI (default: %(default)s)")
    ap.add_argument("--models", default="matmul1024,conv3x3_56",
                    help="comma-separated built-in names or .onnx paths (default: %(default)s)")
    ap.add_argument("--threads", default="1,2", help="thread counts (default: %(default)s)")
    ap.add_argument("--rounds", type=int, default=5,
                    help="alternating rounds (default: %(default)s)")
    ap.add_argument("--round-s", type=float, default=1.0,
                    help="target seconds per side per round; sets each side's --repeat "
                         "(default: %(default)s)")
    ap.add_argument("--max-repeat", type=int, default=200,
                    help="cap on runs per round (default: %(default)s)")
    ap.add_argument("--tol", type=float, default=1e-3,
                    help="output check, ingot vs ORT: rtol, and atol as a fraction of each "
                         "output's RMS (default: %(default)s)")
    ap.add_argument("--bf16-tol", type=float, default=2e-2,
                    help="output check of a NAME.bf16 row against ORT's float32: rtol, and atol "
                         "as a fraction of each output's largest magnitude (issue 48's 2e-2)")
    ap.add_argument("--int8-tol", type=float, default=0.05,
                    help="output check of a NAME.dyn model against onnx's reference evaluator: "
                         "rtol, and atol as a fraction of each output's largest magnitude "
                         "(default: %(default)s)")
    ap.add_argument("--pause-s", type=float, default=0.1,
                    help="pause after each side (default: %(default)s)")
    ap.add_argument("--workdir", default=os.path.join(ROOT, "build", "bench-models"),
                    help="models, inputs and artifacts (default: %(default)s)")
    peak = ap.add_mutually_exclusive_group()
    peak.add_argument("--peak-gflops", type=float,
                      help="per-core FP32 FMA peak in GFLOP/s; the peak at T threads is T times it")
    peak.add_argument("--fma-peak", metavar="BINARY",
                      help="run this fma_peak benchmark binary and take the per-core peak from it "
                           "(its best core_GFLOPS)")
    ap.add_argument("--target", help='ingot --target, e.g. "llvm -mcpu=znver3" for AVX2 code on '
                    "any x86 machine (default: the host). %% peak is then that ISA's FMA peak "
                    "(ymm for AVX2), for both columns, while ORT runs the host's best ISA")
    ap.add_argument("--tuning-records", help="compile ingot's side with these `ingot tune` records "
                    "(the same file for every model: records of other models are skipped; with "
                    "--baseline-ingot, the baseline's too)")
    ap.add_argument("--ingot-tuning-records", metavar="FILE",
                    help="compile only ingot's side with these records, the --baseline-ingot side "
                         "untuned (tuned against untuned in one run: pass the same CLI to both)")
    ap.add_argument("--baseline-ingot", metavar="PATH",
                    help="a second ingot CLI, the \"before\" build: each model is compiled and "
                         "checked against ORT by both, and timed in the same rotating rounds; "
                         "adds after/before = ingot/baseline per row and a summary line of the "
                         f"rows above {AFTER_BEFORE_LIMIT}")
    ap.add_argument("--markdown", help="also write the markdown table to this file")
    ap.add_argument("--json", help="also write all results (per-round times included) to this file")
    perf_record.add_arguments(ap)
    args = ap.parse_args(argv)
    if args.tuning_records and args.ingot_tuning_records:
        ap.error("--tuning-records (both sides) and --ingot-tuning-records (ingot's side) exclude "
                 "each other")
    args.threads = [int(t) for t in args.threads.split(",")]
    os.makedirs(args.workdir, exist_ok=True)

    wall = {}
    if args.fma_peak:
        args.peak_gflops, wall = measure_peak(args.fma_peak,
                                              target_vector_bits(args.ingot, args.target))
        print(f"# FMA peak: {args.peak_gflops:.1f} GFLOP/s per core (per CPU-second); "
              "wall clock: " +
              ", ".join(f"T={t}: {g:.1f}" for t, g in sorted(wall.items())), file=sys.stderr)

    load_start = os.getloadavg()
    rows, failed = [], 0
    for name in args.models.split(","):
        try:
            model_rows = bench_model(name, args)
            rows += model_rows
            failed += any(r.get("status") == "FAILED" for r in model_rows)
        except RuntimeError as e:
            failed += 1
            print(f"error: {name}: {e}", file=sys.stderr)

    table = markdown(rows, baseline=bool(args.baseline_ingot))
    sys.stdout.write(table)
    if args.markdown:
        with open(args.markdown, "w") as fh:
            fh.write(table)
    info = {"ort_version": ort.__version__, "ingot": args.ingot, "target": args.target or "host",
            "cpu_count": os.cpu_count(), "load_avg_start": load_start,
            "load_avg_end": os.getloadavg(), "peak_gflops_per_core": args.peak_gflops,
            "fma_wall_gflops": wall, "time": time.strftime("%Y-%m-%dT%H:%M:%S"), "results": rows}
    if args.baseline_ingot:
        info.update(ingot_cli=cli_identity(args.ingot), baseline=cli_identity(args.baseline_ingot),
                    after_before=after_before_summary(rows)[0])
        failed += any("baseline_error" in r for r in rows)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(info, fh, indent=1)
    perf_record.write(args, "model_bench", args.ingot, rows, **info)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
