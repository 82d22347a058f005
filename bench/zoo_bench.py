#!/usr/bin/env python3
"""zoo_bench: ingot against ONNX Runtime on a zoo of real architectures (issue 12).

Each zoo model is a torchvision or transformers architecture with random weights (fixed seed, no
downloads), batch 1, exported with today's default exporter,
`torch.onnx.export(model, args, path, dynamo=True, external_data=True)`, into --workdir (reused
when present; each export runs in its own Python process, so torch is never loaded, and never
spins threads, in the process that times). Per model, in one run:
  * `ingot compile --report` (the per-kernel MFLOP and compulsory MB moved),
  * parity: every output of `ingot run --outputs` against ONNX Runtime's on the same inputs with
    scripts/parity.py's compare_outputs (names, dtypes, shapes, NaN/Inf positions, and every
    element within atol + rtol * |ref|, rtol = --tol and atol = --tol x the output's RMS:
    atol_scale="rms", as parity.check_model; random-weight Inception-v3's logits are of order
    1e8); its max abs error and rel error,
  * latency: bench/model_bench.py's symmetric timing (both sides in-process around one inference
    call, the same N calls per round, rounds alternating which side goes first; ORT with
    intra_op_num_threads=T), the median over rounds of each side and of the ratio ingot/ORT,
  * `ingot run --profile --num-threads T` (--profile-rounds times, per kernel the best round):
    per kernel median ms and GFLOP/s, against the FMA peak of T
    cores (bench/fma_peak; the ymm peak when --target is AVX2 code, as model_bench does).
A failed export, compile, run or parity check is one line in the table, marked FAILED; the bench
goes on. A failed model counts as failed in the summary: it is named there, the geometric mean
and the worst ratio (over the models that passed) are marked incomplete, and the goal is not met.
Each run writes its raw record (machine, commit, command, every round of every model) to
docs/perf-runs/zoo_bench-*.json (bench/perf_record.py; --record-dir, --no-record).

Before and after in one run (--baseline-ingot PATH, a second ingot CLI: the "before" build): each
model is also compiled by it (NAME.baseline.so, the same flags), run by it (its runtime is built
in) and checked against ORT by the same compare_outputs; when it passes, it is timed as a third
side in the same rounds (model_bench.alternate_rounds: ingot, baseline, ORT, each round starting
one side later, so --rounds a multiple of 3 lets each go first equally often; one N for all).
Per model: the baseline's median ms and after/before = the median over rounds of ingot/baseline
(< 1: the new build is faster) with its min..max; under the table a line names every model above
1.03 and every model not compared (the baseline failed to compile, run or match ORT: then not
timed, and the exit status is 1). The profile and the ORT summary are the new build's alone. The
raw record adds each baseline round and parity, both CLIs' paths, `--version` and, where a file
COMMIT lies next to a binary (e.g. /work/before/COMMIT), its commit.

Profile columns: "<50% peak" is the share of the summed kernel time spent in kernels below 50%
of the peak, split into GEMM-like kernels (Conv/MatMul/Gemm, FLOPs > 0) and all other kernels
(layout changes, pads, elementwise, pooling, norms, softmax: they never reach 50% of an FMA
peak). The conv kernels below 50% are listed with their shape (from the ONNX graph), GFLOP/s,
% peak, ms and arithmetic intensity AI = FLOPs / compulsory bytes (`--report`'s "MB moved":
inputs, weights and outputs once). A conv is marked memory-bound when AI is below the machine's
ridge point, peak / bandwidth, with the bandwidth measured here (numpy copies of 128 MB on T
threads, bytes read + written: DRAM, so a conv whose data stays in cache may beat that bound)
or given with --mem-bw-gbs. A conv with a fused activation that codegen expands into polynomial
math (Sigmoid, so SiLU / Swish; Tanh; Erf, so GELU) is marked activation-bound when the conv
alone would reach 50% of the peak: the activation's cost per element is measured here on the same
target (the activation alone over 4096 and 16384 elements at one thread, the difference of the
two times over the difference of the sizes, so fixed costs cancel; divided by T, as if it scaled
perfectly), charged for the conv's output elements and taken off the kernel's time (the column
gives the conv part's % of peak). ONNX Runtime computes the same activation. The peak a model's
kernels are held against is the run's peak or,
when lower, the FMA loop's wall-clock rate at T threads measured just before that model's
profile: on a shared machine a neighbour that takes part of a core slows the kernels and the
FMA loop alike (both are recorded: "peak" in the header, "peak_gflops_now" per model). Every
time here moves with the load of the others (the load average is recorded per model); the
alternating rounds keep the ratio fairer than either time.

The zoo (why these): each covers op families issue 12 names, at modest sizes so the whole bench
runs in minutes on 2 cores:
  squeezenet1_1      1x1 convs with many output channels (the 1000-channel classifier conv over
                     13x13), Concat between convs, max pooling, 13x13 / 27x27 / 55x55 maps
  inception_v3       299x299: 147x147, 35x35, 17x17 maps (widths no register tile divides),
                     asymmetric 1x7 / 7x1 and 1x3 / 3x1 kernels, Concat, avg/max pooling
  resnext50_32x4d    grouped 3x3 convs (32 groups), strided convs
  regnet_y_400mf     grouped convs (group width 8), squeeze-excitation
  densenet121        Concat between convs (dense blocks), avg pooling
  mobilenet_v3_large depthwise convs, hardswish, squeeze-excitation
  efficientnet_b0    depthwise 3x3 / 5x5 convs, SiLU, squeeze-excitation
  shufflenet_v2_x1_0 channel shuffle (Reshape/Transpose), Split, strided depthwise convs
  convnext_tiny      depthwise 7x7 convs, LayerNorm, GELU, 4x4 stride-4 stem
  r3d_18             3-D convs (video CNN), input 1x3x8x112x112
  deeplabv3_mbv3     dilated convs (DeepLabV3 on MobileNetV3-Large, atrous rates 12/24/36),
                     256x256, bilinear Resize
  distilbert         transformers DistilBERT-shaped encoder (6 layers, hidden 768, 12 heads,
                     seq 128, FFN 3072; input_ids + attention_mask with a padded tail)
  vit_small          transformers ViT-Small/16 (DeiT-S shape: 12 layers, hidden 384, 6 heads),
                     224x224, classifier head
Any other name is taken as bench/bench_models.py takes it (an .onnx path, a make_models.py or
export_models.py name), e.g. `--models tiny_cnn` for a quick check without torch.

Usage:
  bench/zoo_bench.py --ingot build/release/tools/ingot/ingot \\
      --fma-peak build/release/bench/fma_peak [--target "llvm -mcpu=znver3"] \\
      [--models a,b] [--workdir build/zoo] [--json out.json] [--markdown out.md]
  bench/zoo_bench.py --ingot build/ci/tools/ingot/ingot --baseline-ingot /work/before/ingot \\
      --fma-peak build/ci/bench/fma_peak --workdir /work/zoo --rounds 6   # before/after
Exit status: 0 when every model ran and matched ORT (with --baseline-ingot: the baseline too),
1 otherwise.
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys
import threading
import time

import numpy as np
import onnx
import onnxruntime as ort

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import model_bench  # noqa: E402  (timing, FLOPs, the FMA peak)
import parity  # noqa: E402,F401  (compare_outputs: model_bench.check_side uses it)
import perf_record  # noqa: E402
from bench_models import model_path  # noqa: E402

IMAGE = 224
SEQ = 128
DEFAULT_MODELS = ["squeezenet1_1", "inception_v3", "resnext50_32x4d", "regnet_y_400mf",
                  "densenet121", "mobilenet_v3_large", "efficientnet_b0", "shufflenet_v2_x1_0",
                  "convnext_tiny", "r3d_18", "deeplabv3_mbv3", "distilbert", "vit_small"]
GEMM_OPS = ("Conv", "MatMul", "Gemm")
CONV_LIST_LIMIT = 15  # slow conv kernels per model in the markdown (all of them in the JSON)


# --- the zoo: building and exporting (runs in a child process) --------------------------------

def _image(rng, *shape):
    return {"input": rng.standard_normal(shape).astype(np.float32)}


def _first_output(module):
    """Wraps a module whose forward returns a dict/ModelOutput so it returns one tensor."""
    import torch

    class First(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.m = module

        def forward(self, *args):
            out = self.m(*args)
            return out["out"] if isinstance(out, dict) and "out" in out else out[0]

    return First()


def _distilbert(rng):
    import torch
    from transformers import DistilBertConfig, DistilBertModel

    class Encoder(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.m = DistilBertModel(DistilBertConfig())

        def forward(self, input_ids, attention_mask):
            return self.m(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state

    vocab = DistilBertConfig().vocab_size
    mask = np.ones((1, SEQ), np.int64)
    mask[:, SEQ * 3 // 4:] = 0  # padded tail
    feeds = {"input_ids": rng.integers(0, vocab, size=(1, SEQ), dtype=np.int64),
             "attention_mask": mask}
    return Encoder(), feeds


def _vit_small(rng):
    from transformers import ViTConfig, ViTForImageClassification
    cfg = ViTConfig(hidden_size=384, num_hidden_layers=12, num_attention_heads=6,
                    intermediate_size=1536, image_size=IMAGE, patch_size=16, num_labels=1000)
    return _first_output(ViTForImageClassification(cfg)), _image(rng, 1, 3, IMAGE, IMAGE)


def build(name):
    """(torch module in eval mode, feeds: {input name: array} in forward-argument order)."""
    import torch
    import torchvision
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    tv = torchvision.models
    if name == "inception_v3":
        model, feeds = tv.inception_v3(weights=None, aux_logits=False, init_weights=True), \
            _image(rng, 1, 3, 299, 299)
    elif name == "r3d_18":
        model, feeds = tv.video.r3d_18(weights=None), _image(rng, 1, 3, 8, 112, 112)
    elif name == "deeplabv3_mbv3":
        model = _first_output(tv.segmentation.deeplabv3_mobilenet_v3_large(
            weights=None, weights_backbone=None, aux_loss=False))
        feeds = _image(rng, 1, 3, 256, 256)
    elif name == "distilbert":
        model, feeds = _distilbert(rng)
    elif name == "vit_small":
        model, feeds = _vit_small(rng)
    else:
        model, feeds = getattr(tv, name)(weights=None), _image(rng, 1, 3, IMAGE, IMAGE)
    return model.eval(), feeds


def export(name, workdir):
    """Exports zoo model `name` to workdir/NAME.onnx (+ .onnx.data, + .inputs.npz).

    Writes into a scratch folder first and moves the files into place at the end (the .onnx
    names its external-data file, so both keep their names), so a failed export leaves nothing.
    """
    import shutil
    import torch
    model, feeds = build(name)
    tmp = os.path.join(workdir, f".tmp-{name}")
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    args = tuple(torch.from_numpy(v) for v in feeds.values())
    with torch.no_grad():
        torch.onnx.export(model, args, os.path.join(tmp, f"{name}.onnx"), dynamo=True,
                          external_data=True, input_names=list(feeds))
    np.savez(os.path.join(tmp, f"{name}.inputs.npz"), **feeds)
    for f in sorted(os.listdir(tmp), key=lambda f: f.endswith(".onnx")):  # the .onnx last
        os.replace(os.path.join(tmp, f), os.path.join(workdir, f))
    os.rmdir(tmp)


def one_line(text, limit=300):
    """The most telling line of an error text: its last 'error'-ish line, else its last line."""
    lines = [ln.strip() for ln in str(text).strip().splitlines() if ln.strip()]
    if not lines:
        return "(no message)"
    pick = next((ln for ln in reversed(lines) if re.search(r"error", ln, re.I)), lines[-1])
    return pick if len(pick) <= limit else pick[:limit] + "..."


def exported(name, workdir, timeout_s):
    """workdir/NAME.onnx, exporting it in a child process when absent. Raises on failure."""
    path = os.path.join(workdir, f"{name}.onnx")
    if os.path.exists(path) and os.path.exists(os.path.join(workdir, f"{name}.inputs.npz")):
        return path
    print(f"# {name}: exporting (torch.onnx.export dynamo=True)", file=sys.stderr, flush=True)
    t = time.time()
    try:
        p = subprocess.run([sys.executable, os.path.abspath(__file__), "--export-one", name,
                            "--workdir", workdir], capture_output=True, text=True,
                           timeout=timeout_s)
    except subprocess.TimeoutExpired:
        raise StageError("export", f"timed out after {timeout_s} s")
    if p.returncode != 0:
        raise StageError("export", one_line(p.stderr or p.stdout))
    print(f"# {name}: exported in {time.time() - t:.0f} s", file=sys.stderr, flush=True)
    return path


# --- per-model measurement ---------------------------------------------------------------------

class StageError(Exception):
    """A model failed at one stage (export, compile, run, parity); the message is one line."""

    def __init__(self, stage, message):
        super().__init__(f"{stage}: {message}")
        self.stage, self.message = stage, message


def model_and_feeds(name, args):
    """(onnx path, feeds) for a zoo name or anything bench_models.model_path takes."""
    if name in DEFAULT_MODELS:
        path = exported(name, args.workdir, args.export_timeout)
    else:
        path = model_path(name, args.workdir)
        if path is None:
            raise StageError("export", "torch/torchvision/transformers not installed")
    npz = os.path.splitext(path)[0] + ".inputs.npz"
    if os.path.exists(npz):
        with np.load(npz) as z:
            return path, {k: z[k] for k in z.files}
    import make_models
    return path, make_models.make_inputs(onnx.load(path, load_external_data=False))


def parse_report(text):
    """`ingot compile --report`'s kernel table -> {kernel: {"flops", "bytes", "ops"}}."""
    kernels, in_table = {}, False
    for line in text.splitlines():
        if line.startswith("kernel ") and "MB moved" in line:
            in_table = True
            continue
        if not in_table:
            continue
        m = re.match(r"(\S+)\s+([\d.]+)\s+([\d.]+)\s*(.*)$", line)
        if m and m.group(1) != "total":
            kernels[m.group(1)] = {"flops": float(m.group(2)) * 1e6,
                                   "bytes": float(m.group(3)) * 1e6,
                                   "ops": [o.strip() for o in m.group(4).split(" + ") if o]}
    return kernels


def parse_profile(text):
    """`ingot run --profile`'s table -> [{"name", "calls", "ms", "gflops"}] in kernel order;
    "calls" per run, "ms" the kernel's median time per run, "gflops" at that median."""
    rows, in_table = [], False
    for line in text.splitlines():
        if line.startswith("Kernel profile"):
            in_table = True
            continue
        # kernel, fused ops (may hold spaces), calls per run, median ms, time %, GFLOP/s, GB/s,
        # % peak, % roof, bound
        m = re.match(r"(\S+)\s+(.*?)\s+([\d.e+]+)\s+([\d.]+)\s+([\d.]+)%\s+([\d.]+)\s+"
                     r"([\d.]+)\s+(\S+)\s+(\S+)\s+(\S+)$", line.strip())
        if in_table and m:
            rows.append({"name": m.group(1), "calls": float(m.group(3)), "ms": float(m.group(4)),
                         "gflops": float(m.group(6))})
    return rows


def compile_model(path, feeds, artifact, args, cli=None):
    """`ingot compile --report` (by cli, default --ingot); -> (seconds, report kernels).
    Raises StageError."""
    model = onnx.load(path, load_external_data=False)
    cmd = [cli or args.ingot, "compile", path, "-o", artifact, "-q", "--report"]
    if args.target:
        cmd += ["--target", args.target]
    shapes = model_bench.input_shapes_arg(model, feeds)
    if shapes:
        cmd += ["--input-shapes", shapes]
    t = time.time()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=args.compile_timeout)
    except subprocess.TimeoutExpired:
        raise StageError("compile", f"timed out after {args.compile_timeout} s")
    if p.returncode != 0:
        raise StageError("compile", one_line(p.stderr or p.stdout))
    return time.time() - t, parse_report(p.stdout)


def run_profile(args, artifact, inputs_npz, threads, ingot_ms):
    """`ingot run --profile`, --profile-rounds times, each about --profile-s of profiled runs (at
    least 1); per kernel the best round (lowest median ms): a neighbour on a shared machine only
    slows kernels down, and the peak they are held against is the FMA loop's best too."""
    runs = max(1, min(200, int(args.profile_s * 1e3 / max(ingot_ms, 1e-3))))
    cmd = [args.ingot, "run", artifact, "--inputs", inputs_npz, "--profile", "--repeat",
           str(runs), "--number", "1", "--num-threads", str(threads)]
    best = None
    for _ in range(max(1, args.profile_rounds)):
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            raise StageError("profile", one_line(p.stderr))
        rows = parse_profile(p.stdout)
        if best is None:
            best = rows
            continue
        by_name = {r["name"]: r for r in rows}
        for k in best:
            r = by_name.get(k["name"])
            if r and r["ms"] < k["ms"]:
                k.update(r)
    return best


# --- conv shapes from the ONNX graph -------------------------------------------------------

def conv_shapes(path):
    """{ONNX node name: {"desc", "group"}} for every Conv node (shapes by ONNX inference)."""
    model = onnx.load(path, load_external_data=False)
    try:
        model = onnx.shape_inference.infer_shapes(model)
    except Exception:  # noqa: BLE001  (the graph's own value_info may be enough)
        pass
    shapes = {t.name: list(t.dims) for t in model.graph.initializer}
    for vi in list(model.graph.input) + list(model.graph.value_info) + list(model.graph.output):
        shapes[vi.name] = [d.dim_value for d in vi.type.tensor_type.shape.dim]
    out = {}
    for n in model.graph.node:
        if n.op_type != "Conv":
            continue
        attrs = {a.name: onnx.helper.get_attribute_value(a) for a in n.attribute}
        w, x, y = (shapes.get(n.input[1]), shapes.get(n.input[0]), shapes.get(n.output[0]))
        if not (w and x and y):
            continue
        group = int(attrs.get("group", 1))
        desc = f"{_dims(w[2:])} {x[1]}->{y[1]}"
        for tag, values in (("s", attrs.get("strides", [])), ("d", attrs.get("dilations", []))):
            if any(v != 1 for v in values):
                desc += f" {tag}{_dims(values) if len(set(values)) > 1 else values[0]}"
        if group > 1:
            desc += " dw" if group == x[1] and w[1] == 1 else f" g{group}"
        desc += f" @{_dims(x[2:])}->{_dims(y[2:])}"
        out[n.name] = {"desc": desc, "group": group, "out_elems": math.prod(y)}
    return out


def _dims(values):
    return "x".join(str(v) for v in values)


def node_of(kernel, nodes):
    """The ONNX node name a kernel name starts with (longest match at an '_'), or None."""
    for i in range(len(kernel), 0, -1):
        if (i == len(kernel) or kernel[i] == "_") and kernel[:i] in nodes:
            return kernel[:i]
    return None


# --- analysis ---------------------------------------------------------------------------------

# Fused ops whose codegen is polynomial math -> the single-op model that measures its cost.
POLY_ACTIVATIONS = {"Sigmoid": "Sigmoid", "Tanh": "Tanh", "Erf": "Erf", "Gelu": "Erf"}


def activation_model(op, elems, path):
    g = onnx.helper.make_graph(
        [onnx.helper.make_node(op, ["x"], ["y"])], op.lower(),
        [onnx.helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [1, elems])],
        [onnx.helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [1, elems])])
    onnx.save(onnx.helper.make_model(g, opset_imports=[onnx.helper.make_opsetid("", 17)]), path)


def activation_ns(args, op, cache={}):  # noqa: B006  (memo per run, op and target)
    """ns per element of `op` alone at one thread on the target: the difference of two sizes'
    kernel times (best of 3 profiles) over the difference of the sizes. None on failure."""
    key = (op, args.target or "")
    if key in cache:
        return cache[key]
    times = {}
    for elems in (4096, 16384):
        base = os.path.join(args.workdir, f"act_{op.lower()}_{elems}{args.suffix}")
        activation_model(op, elems, base + ".onnx")
        cmd = [args.ingot, "compile", base + ".onnx", "-o", base + ".so", "-q"]
        if args.target:
            cmd += ["--target", args.target]
        if subprocess.run(cmd, capture_output=True).returncode != 0:
            cache[key] = None
            return None
        best = None
        for _ in range(3):
            p = subprocess.run([args.ingot, "run", base + ".so", "--profile", "--repeat", "2000",
                                "--number", "1", "--num-threads", "1"],
                               capture_output=True, text=True)
            rows = parse_profile(p.stdout) if p.returncode == 0 else []
            ms = sum(r["ms"] for r in rows)
            best = ms if best is None or ms < best else best
        times[elems] = best
    slope = (times[16384] - times[4096]) * 1e6 / (16384 - 4096)
    cache[key] = slope if slope > 0 else None
    return cache[key]


def is_gemm_like(info):
    return info["flops"] > 0 and bool(info["ops"]) and info["ops"][0].startswith(GEMM_OPS)


def activation_part(args, info, node, convs, threads):
    """(activation op, its ms) for a conv kernel with a fused polynomial activation, else None."""
    acts = [POLY_ACTIVATIONS[o] for o in info["ops"][1:] if o in POLY_ACTIVATIONS]
    if not acts or not node or not convs[node].get("out_elems") or args is None:
        return None
    ns = [activation_ns(args, a) for a in dict.fromkeys(acts)]
    if any(n is None for n in ns):
        return None
    return "+".join(dict.fromkeys(acts)), sum(ns) * convs[node]["out_elems"] / threads / 1e6


def analyse_profile(profile, report, convs, peak, bandwidth_gbs, args=None, threads=1):
    """Shares of kernel time below 50% of peak, and the conv kernels below it."""
    total = sum(k["ms"] for k in profile) or 1.0
    ridge = peak / bandwidth_gbs if bandwidth_gbs else None
    slow_gemm = other = 0.0
    slow_convs = []
    for k in profile:
        info = report.get(k["name"], {"flops": 0.0, "bytes": 0.0, "ops": []})
        share = k["ms"] / total
        pct = 100 * k["gflops"] / peak
        if not is_gemm_like(info):
            other += share
            continue
        if pct >= 50:
            continue
        slow_gemm += share
        if not info["ops"][0].startswith("Conv"):
            continue
        ai = info["flops"] / info["bytes"] if info["bytes"] else None
        node = node_of(k["name"], convs)
        c = {"kernel": k["name"], "shape": convs[node]["desc"] if node else "?",
             "gflops": k["gflops"], "pct_peak": pct, "ms": k["ms"], "share": 100 * share,
             "ai": ai, "memory_bound": bool(ridge and ai is not None and ai < ridge),
             "activation_bound": False}
        act = activation_part(args, info, node, convs, threads)
        if act and k["ms"] > act[1]:
            conv_pct = 100 * info["flops"] / ((k["ms"] - act[1]) * 1e6) / peak
            c.update(activation=act[0], activation_ms=act[1], conv_part_pct_peak=conv_pct,
                     activation_bound=conv_pct >= 50)
        slow_convs.append(c)
    slow_convs.sort(key=lambda c: -c["ms"])
    return {"slow_gemm_pct": 100 * slow_gemm, "other_pct": 100 * other,
            "below_50_pct": 100 * (slow_gemm + other),
            "profile_ms": sum(k["ms"] for k in profile),  # summed kernel medians: one run
            "slow_convs": slow_convs}


def measure_bandwidth(threads, mbytes=128, reps=10):
    """Memory bandwidth in GB/s (bytes read + written) of `threads` concurrent numpy copies."""
    n = mbytes * (1 << 20) // 4
    pairs = [(np.ones(n, np.float32), np.empty(n, np.float32)) for _ in range(threads)]
    best = 0.0
    for _ in range(reps):
        workers = [threading.Thread(target=np.copyto, args=(dst, src)) for src, dst in pairs]
        t = time.perf_counter()
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        best = max(best, 2 * n * 4 * threads / (time.perf_counter() - t) / 1e9)
    return best


# --- one model ----------------------------------------------------------------------------------

def bench_one(name, args):
    """All measurements of one model -> a row (status "ok", "parity FAILED" or "<stage> failed")."""
    row = {"model": os.path.splitext(os.path.basename(name))[0], "threads": args.threads,
           "load_avg_start": os.getloadavg()[0]}
    t0 = time.time()
    try:
        path, feeds = model_and_feeds(name, args)
        model = onnx.load(path, load_external_data=False)
        feeds = {vi.name: feeds[vi.name] for vi in model.graph.input if vi.name in feeds}
        row["gflop"] = model_bench.count_flops(model)[0] / 1e9
        row["nodes"] = len(model.graph.node)
        base = os.path.join(args.workdir, row["model"] + args.suffix)
        inputs_npz, artifact, outputs_npz = base + ".in.npz", base + ".so", base + ".out.npz"
        np.savez(inputs_npz, **feeds)
        row["compile_s"], report = compile_model(path, feeds, artifact, args)
        base_artifact = compile_baseline(path, feeds, base + ".baseline.so", row, args)
        measure(row, path, feeds, artifact, inputs_npz, outputs_npz, report, args, base_artifact)
    except StageError as e:
        row.update(status=f"{e.stage} failed", error=e.message)
    except Exception as e:  # noqa: BLE001  (one model never stops the bench)
        row.update(status="failed", error=one_line(f"{type(e).__name__}: {e}"))
    row["wall_s"] = time.time() - t0
    row["load_avg_end"] = os.getloadavg()[0]
    note = row.get("error") or f"ratio {row['ratio']:.2f}, {row['parity']}"
    if args.baseline_ingot:
        note += (f"; after/before {row['after_before']:.3f}" if "after_before" in row else
                 f"; no after/before: {row.get('baseline_error', row['status'])}")
    print(f"# {row['model']}: {row['status']}: {note} ({row['wall_s']:.0f} s, load average "
          f"{row['load_avg_start']:.1f} -> {row['load_avg_end']:.1f})", file=sys.stderr, flush=True)
    return row


def compile_baseline(path, feeds, artifact, row, args):
    """The "before" build's artifact (--baseline-ingot, compiled as --ingot's), or None without
    one. A failure goes into row (baseline_status, baseline_error) and leaves the row's own
    measurements alone: the model is then named in the after/before summary, not compared."""
    if not args.baseline_ingot:
        return None
    try:
        row["baseline_compile_s"], _ = compile_model(path, feeds, artifact, args,
                                                     cli=args.baseline_ingot)
    except StageError as e:
        row.update(baseline_status=f"{e.stage} failed",
                   baseline_error=f"baseline {e.stage} failed: {e.message}")
        return None
    return artifact


def output_errors(errs):
    """(max abs error, max rel error) over compare_outputs' per-output stats."""
    return (max((e["max_abs"] for e in errs.values()), default=None),
            max((e["rel_err"] for e in errs.values() if e["rel_err"] is not None), default=None))


def measure(row, path, feeds, artifact, inputs_npz, outputs_npz, report, args,
            baseline_artifact=None):
    """Parity, timing and profile of a compiled model, into row; with baseline_artifact (the
    --baseline-ingot build's) its parity too, through the same check, and it is timed in the
    same rounds when it passes."""
    T = args.threads
    try:
        sess = model_bench.ort_session(path, T)
        ref = dict(zip([o.name for o in sess.get_outputs()], sess.run(None, feeds)))
    except Exception as e:  # noqa: BLE001
        raise StageError("ORT", one_line(str(e)))
    errs = {}
    try:
        probe_i, ok, msg = model_bench.check_side(args.ingot, artifact, inputs_npz, outputs_npz,
                                                  T, ref, args.tol, stats=errs)
    except RuntimeError as e:
        raise StageError("run", one_line(str(e)))
    row["outputs"] = errs
    row["max_abs_err"], row["rel_err"] = output_errors(errs)
    row["parity"] = "pass" if ok else "FAIL"
    row["parity_msg"] = msg
    baseline = None
    if baseline_artifact:
        berrs = {}
        try:
            probe_b, ok_b, msg_b = model_bench.check_side(
                args.baseline_ingot, baseline_artifact, inputs_npz,
                os.path.splitext(baseline_artifact)[0] + ".out.npz", T, ref, args.tol,
                stats=berrs)
            row["baseline_outputs"] = berrs
            row["baseline_max_abs_err"], row["baseline_rel_err"] = output_errors(berrs)
            row["baseline_parity"] = "pass" if ok_b else "FAIL"
            row["baseline_parity_msg"] = msg_b
            if ok_b:
                row["baseline_status"] = "ok"
                baseline = (args.baseline_ingot, baseline_artifact, probe_b)
            else:
                row.update(baseline_status="parity FAILED",
                           baseline_error=f"baseline parity FAILED: {msg_b}")
        except RuntimeError as e:
            row.update(baseline_status="run failed",
                       baseline_error=f"baseline run failed: {one_line(str(e))}")
    bound = model_bench.OrtBound(sess, feeds, ref)
    rep, got = model_bench.alternate_rounds(args, artifact, inputs_npz, bound, T, probe_i,
                                            baseline)
    del bound, sess
    row.update(repeat=rep, rounds=args.rounds, **model_bench.timing_fields(got))
    row["status"] = "ok" if ok else "parity FAILED"
    if not ok:
        row["error"] = msg
    if args.peak_gflops:
        # The peak of the machine as it is now: the run's peak, or less when a neighbour takes
        # part of the cores (the FMA loop's wall-clock rate at T threads, measured just before).
        peak = args.peak_gflops * T
        now = model_bench.measure_wall_peak(args.fma_peak, args.vector_bits, T) \
            if args.fma_peak else None
        if now:
            peak = min(peak, now)
        row["peak_gflops_now"] = peak
        profile = run_profile(args, artifact, inputs_npz, T, row["ingot_ms"])
        row.update(analyse_profile(profile, report, conv_shapes(path), peak, args.mem_bw_gbs,
                                   args, T))


# --- output -------------------------------------------------------------------------------------

def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def markdown(rows, info):
    def num(v, fmt="{:.2f}"):
        return fmt.format(v) if v is not None else "-"

    baseline = "baseline" in info  # a --baseline-ingot run: two more columns, one more line

    def before_cols(r):
        if not baseline:
            return ""
        if "after_before" not in r:
            why = model_bench.one_line_reason(r.get("baseline_error", "-")).replace("|", "\\|")
            return f" {why} | - |"
        return (f" {r['baseline_ms']:.2f} | {r['after_before']:.3f} ({r['after_before_min']:.2f}.."
                f"{r['after_before_max']:.2f}) |")

    lines = [f"target: {info['target']}, T={info['threads']}, peak {num(info['peak_gflops'], '{:.0f}')}"
             f" GFLOP/s ({num(info['peak_gflops_per_core'], '{:.1f}')}/core, {info['peak_isa']}), "
             f"bandwidth {num(info['mem_bw_gbs'], '{:.1f}')} GB/s, ridge "
             f"{num(info['ridge_flop_per_byte'], '{:.1f}')} FLOP/B, ORT {info['ort_version']}, "
             f"load average {info['load_avg_start'][0]:.1f} -> {info['load_avg_end'][0]:.1f} "
             f"({info['cpu_count']} CPUs)", "",
             "| model | GFLOP | ingot ms | ORT ms | ingot/ORT (min..max) | "
             + ("baseline ms | after/before (min..max) | " if baseline else "")
             + "parity (rel / max abs) "
             "| <50% peak: all (GEMM-like + other) | slow convs (memory- / activation-bound) |",
             "|---|---:|---:|---:|---:|" + ("---:|---:|" if baseline else "") + "---|---:|---:|"]
    for r in rows:
        if "ratio" not in r:
            err = r["error"].replace("|", "\\|")
            lines.append(f"| {r['model']} | {num(r.get('gflop'))} | FAILED ({r['status']}): "
                         f"{err} | | |" + (" | |" if baseline else "") + " | | |")
            continue
        par = f"{r['parity']} {num(r['rel_err'], '{:.1e}')} / {num(r['max_abs_err'], '{:.1e}')}"
        slow = "-" if r["status"] == "ok" else f"{r['status']}: {r['error']}"
        if "below_50_pct" in r:
            slow = (f"{r['below_50_pct']:.0f}% ({r['slow_gemm_pct']:.0f} + "
                    f"{r['other_pct']:.0f})")
        convs = r.get("slow_convs")
        nconv = f"{len(convs)} ({sum(c['memory_bound'] for c in convs)} / " \
            f"{sum(c['activation_bound'] and not c['memory_bound'] for c in convs)})" \
            if convs is not None else "-"
        lines.append(f"| {r['model']} | {num(r['gflop'])} | {r['ingot_ms']:.2f} | "
                     f"{r['ort_ms']:.2f} | {r['ratio']:.2f} ({r['ratio_min']:.2f}.."
                     f"{r['ratio_max']:.2f}) |{before_cols(r)} {par} | {slow} | {nconv} |")
    lines += ["", summary_line(info)]
    if baseline:
        lines += ["", model_bench.after_before_summary(rows)[1]]
    for r in rows:
        if r.get("slow_convs"):
            peak_now = r.get("peak_gflops_now")
            lines += ["", f"Conv kernels below 50% of peak in {r['model']} (by time; peak "
                      f"{num(peak_now, '{:.0f}')} GFLOP/s):", "",
                      "| kernel | conv | GFLOP/s | % peak | ms | % of model | AI FLOP/B "
                      "| memory-bound | activation (conv part % peak) |",
                      "|---|---|---:|---:|---:|---:|---:|---|---|"]
            for c in r["slow_convs"][:CONV_LIST_LIMIT]:
                act = "" if "activation" not in c else \
                    f"{c['activation']} {c['activation_ms']:.3f} ms ({c['conv_part_pct_peak']:.0f}%)"
                lines.append(f"| {c['kernel']} | {c['shape']} | {c['gflops']:.1f} | "
                             f"{c['pct_peak']:.0f}% | {c['ms']:.3f} | {c['share']:.1f}% | "
                             f"{num(c['ai'], '{:.1f}')} | {'yes' if c['memory_bound'] else 'no'} | "
                             f"{act} |")
            more = len(r["slow_convs"]) - CONV_LIST_LIMIT
            if more > 0:
                lines.append(f"| ... {more} more (in the JSON) | | | | | | | | |")
    return "\n".join(lines) + "\n"


# --- main ---------------------------------------------------------------------------------------

def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ingot", default=model_bench.default_ingot(),
                    help="the ingot CLI (default: %(default)s)")
    ap.add_argument("--fma-peak", metavar="BINARY", default=default_fma_peak(),
                    help="the fma_peak benchmark binary, for the FMA peak (default: %(default)s)")
    ap.add_argument("--peak-gflops", type=float,
                    help="per-core FP32 FMA peak in GFLOP/s instead of running --fma-peak")
    ap.add_argument("--mem-bw-gbs", type=float,
                    help="memory bandwidth at T threads in GB/s (default: measured)")
    ap.add_argument("--target", help='ingot --target, e.g. "llvm -mcpu=znver3" (AVX2 code); '
                    "%% peak is then that ISA's FMA peak. ORT runs the host's best ISA")
    ap.add_argument("--models", default=",".join(DEFAULT_MODELS),
                    help="comma-separated zoo names or bench_models names (default: the zoo)")
    ap.add_argument("--workdir", default=os.path.join(ROOT, "build", "zoo"),
                    help="exports, inputs and artifacts (default: %(default)s)")
    ap.add_argument("--threads", type=int, default=2, help="threads for both (default: 2)")
    ap.add_argument("--rounds", type=int, default=5,
                    help="alternating rounds (default: %(default)s)")
    ap.add_argument("--round-s", type=float, default=0.5,
                    help="target seconds per side per round (default: %(default)s)")
    ap.add_argument("--max-repeat", type=int, default=100, help="cap on calls per round")
    ap.add_argument("--pause-s", type=float, default=0.1, help="pause after each side")
    ap.add_argument("--profile-s", type=float, default=1.0,
                    help="about this many seconds of profiled runs per round (default: %(default)s)")
    ap.add_argument("--profile-rounds", type=int, default=3,
                    help="profile rounds; per kernel the best one counts (default: %(default)s)")
    ap.add_argument("--tol", type=float, default=1e-3,
                    help="parity: rtol, and atol as a fraction of each output's RMS "
                         "(default: %(default)s)")
    ap.add_argument("--export-timeout", type=int, default=1200, help="seconds per export")
    ap.add_argument("--compile-timeout", type=int, default=1200, help="seconds per compile")
    ap.add_argument("--baseline-ingot", metavar="PATH",
                    help="a second ingot CLI, the \"before\" build: each model is compiled and "
                         "checked against ORT by both, and timed in the same rotating rounds; "
                         "adds after/before = ingot/baseline per model and a summary line of the "
                         f"models above {model_bench.AFTER_BEFORE_LIMIT}")
    ap.add_argument("--json", help="write all results to this file")
    ap.add_argument("--markdown", help="also write the tables to this file")
    perf_record.add_arguments(ap)
    ap.add_argument("--export-one", help=argparse.SUPPRESS)  # the child process of exported()
    args = ap.parse_args(argv)
    # artifacts of different targets side by side in one workdir
    args.suffix = "" if not args.target else "." + re.sub(r"[^A-Za-z0-9]+", "_", args.target)
    return args


def default_fma_peak():
    for rel in ("build/release/bench/fma_peak", "build/bench/bench/fma_peak",
                "build/ci/bench/fma_peak"):
        if os.path.exists(os.path.join(ROOT, rel)):
            return os.path.join(ROOT, rel)
    return None


def machine_info(args):
    """The FMA peak per core, the bandwidth and the run's context."""
    bits = args.vector_bits = model_bench.target_vector_bits(args.ingot, args.target)
    info = {"target": args.target or "host", "threads": args.threads, "ingot": args.ingot,
            "ort_version": ort.__version__, "cpu_count": os.cpu_count(),
            "peak_isa": "ymm (AVX2)" if bits < 512 else "zmm (AVX-512)",
            "load_avg_start": os.getloadavg(), "fma_wall_gflops": {}}
    if args.baseline_ingot:
        info.update(ingot_cli=model_bench.cli_identity(args.ingot),
                    baseline=model_bench.cli_identity(args.baseline_ingot))
    if not args.peak_gflops and args.fma_peak:
        args.peak_gflops, info["fma_wall_gflops"] = model_bench.measure_peak(args.fma_peak, bits)
    if args.peak_gflops and not args.mem_bw_gbs:
        args.mem_bw_gbs = measure_bandwidth(args.threads)
    peak = args.peak_gflops * args.threads if args.peak_gflops else None
    info.update(peak_gflops_per_core=args.peak_gflops, peak_gflops=peak,
                mem_bw_gbs=args.mem_bw_gbs,
                ridge_flop_per_byte=peak / args.mem_bw_gbs if peak and args.mem_bw_gbs else None)
    print(f"# peak {peak or 0:.0f} GFLOP/s at T={args.threads} ({info['peak_isa']}), bandwidth "
          f"{args.mem_bw_gbs or 0:.1f} GB/s", file=sys.stderr, flush=True)
    return info


def summarise(rows, info):
    """The run's summary into info. The geometric mean and the worst ratio are over the models
    that passed ("ok"); every other model (failed export, compile, run, ORT or parity) counts
    as failed: listed in "failed_models", the summary marked incomplete, the goal not met."""
    ok = [r for r in rows if r.get("status") == "ok" and "ratio" in r]
    failed = [r for r in rows if not (r.get("status") == "ok" and "ratio" in r)]
    worst = max(ok, key=lambda r: r["ratio"], default=None)
    info.update(models=len(rows), models_timed=len(ok), models_failed=len(failed),
                failed_models=[{"model": r["model"], "status": r.get("status", "failed")}
                               for r in failed],
                geomean_ratio=geomean([r["ratio"] for r in ok]),
                max_ratio=worst["ratio"] if worst else None,
                max_ratio_model=worst["model"] if worst else "-")
    compute_bound = [c for r in rows for c in r.get("slow_convs", [])
                     if not c["memory_bound"] and not c.get("activation_bound")]
    info["slow_compute_bound_convs"] = len(compute_bound)
    info["goal_met"] = bool(ok) and not failed and \
        info["geomean_ratio"] <= 1.1 and info["max_ratio"] <= 1.5 and not compute_bound


def summary_line(info):
    """The summary sentence under the table; failed models named, never left out silently."""
    def num(v):
        return f"{v:.2f}" if v is not None else "-"
    line = (f"geometric mean ingot/ORT over {info['models_timed']} of {info['models']} models: "
            f"{num(info['geomean_ratio'])}; worst {num(info['max_ratio'])} "
            f"({info['max_ratio_model']})")
    if info["models_failed"]:
        names = ", ".join(f"{f['model']} ({f['status']})" for f in info["failed_models"])
        line += (f"; FAILED: {info['models_failed']} of {info['models']} models ({names}), so "
                 "the geometric mean and the worst ratio are incomplete")
    return (line + f"; conv kernels below 50% of peak and neither memory- nor activation-bound: "
            f"{info['slow_compute_bound_convs']}; issue 12's goal (every model passes, geomean "
            f"<= 1.1, none > 1.5, no such conv): {'met' if info['goal_met'] else 'not met'}")


def main(argv=None):
    args = parse_args(argv)
    os.makedirs(args.workdir, exist_ok=True)
    if args.export_one:
        export(args.export_one, args.workdir)
        return 0
    start = time.time()
    info = machine_info(args)
    rows = [bench_one(name, args) for name in args.models.split(",") if name]
    info.update(load_avg_end=os.getloadavg(), bench_s=time.time() - start,
                time=time.strftime("%Y-%m-%dT%H:%M:%S"))
    summarise(rows, info)
    if args.baseline_ingot:
        info["after_before"] = model_bench.after_before_summary(rows)[0]
    table = markdown(rows, info)
    sys.stdout.write(table)
    print(f"# bench took {info['bench_s']:.0f} s", file=sys.stderr)
    if args.markdown:
        with open(args.markdown, "w") as fh:
            fh.write(table)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(dict(info, results=rows), fh, indent=1)
    perf_record.write(args, "zoo_bench", args.ingot, rows, **info)
    return 0 if all(r.get("status") == "ok" and r.get("baseline_status", "ok") == "ok"
                    for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
