#!/usr/bin/env python3
"""ort_node_compare: an artifact's kernels beside ONNX Runtime's nodes for the same model.

Where a whole-model ratio says ingot is slower, this says where: each ingot kernel and each ORT
node is attributed to the ONNX node it computes (the "root": a Conv, MatMul or other anchor, after
walking back over the elementwise nodes both fuse into it: BatchNormalization, Relu, Add, Clip,
...), and the roots both sides have are listed with each side's fastest call and the ratio.

ingot's side is `ingot measure --per-kernel` (single calls with the kernel profile on, each
kernel's fastest); ORT's is its session profiler (`enable_profiling`), each node's fastest
`_kernel_time` over the same number of calls. Both sides run the same thread count (--threads,
default: this machine's CPU count; ORT with intra_op_num_threads = T, inter_op 1, sequential)
and the same number of passes: --rounds rounds of one pass each, the side that goes first
alternating (ORT ingot, ingot ORT, ...); each side keeps its fastest call over all of them.
Each side's sum per pass is printed, so the host's drift over the run is visible. Kernels that
match no ONNX node on one side (layout conversions, padding kernels, ORT's Reorder nodes) are
summed separately. The raw record (every pass of both sides) goes to
docs/perf-runs/ort_node_compare-*.json (bench/perf_record.py; --record-dir, --no-record).

  bench/ort_node_compare.py model.onnx model.so --inputs x.npz [--iters N] [--threads T]
                            [--rounds R] [--min-ms X] [--ingot PATH]
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import onnxruntime as ort

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import perf_record  # noqa: E402
# Ops that both runtimes fold into the kernel of their producer.
FOLDED = {"BatchNormalization", "Relu", "Add", "Sum", "Clip", "Sigmoid", "Mul", "LeakyRelu",
          "HardSigmoid", "HardSwish", "Tanh", "Identity"}
ORT_SUFFIXES = ("_nchwc", "_token_0", "_fused")


class Graph:
    """The model's nodes by name and by output, with the walk back to a root."""

    def __init__(self, model):
        g = onnx.load(model, load_external_data=False).graph
        self.nodes = list(g.node)
        self.order = {n.name: i for i, n in enumerate(self.nodes)}
        self.by_name = {n.name: n for n in self.nodes}
        self.producer = {o: n for n in self.nodes for o in n.output}
        self.consumers = collections.Counter(i for n in self.nodes for i in n.input)

    def root(self, node):
        """Walks back from `node` over folded ops whose producer feeds only them."""
        while node.op_type in FOLDED:
            fed = [self.producer[i] for i in node.input if i in self.producer
                   and self.consumers[i] == 1]
            if len(fed) != 1:
                break
            node = fed[0]
        return node.name

    def ingot_root(self, kernel):
        """The longest node name that prefixes the kernel's name (kernels are named node_Op...)."""
        best = None
        for cut in range(len(kernel), 0, -1):
            if kernel[cut - 1] == "_" or cut == len(kernel):
                name = kernel[:cut - 1] if cut < len(kernel) else kernel
                if name in self.by_name:
                    best = self.by_name[name]
                    break
        return self.root(best) if best is not None else None

    def ort_root(self, name):
        for s in ORT_SUFFIXES:
            if name.endswith(s):
                name = name[: -len(s)]
        node = self.by_name.get(name) or self.producer.get(name)
        return self.root(node) if node is not None else None


def ingot_kernels(ingot, artifact, iters, threads):
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [ingot, "measure", artifact, "-o", os.path.join(tmp, "o.npz"), "--repeat",
               str(iters), "--per-kernel", "--num-threads", str(threads)]
        out = subprocess.run(cmd, capture_output=True, text=True)
    lines = [json.loads(l) for l in out.stdout.splitlines() if l.startswith("{")]
    if out.returncode != 0 or len(lines) != 1 or "error" in lines[0]:
        sys.exit(f"ort_node_compare: {' '.join(cmd)} failed: {out.stderr.strip() or out.stdout}")
    return lines[0]["kernels"], lines[0]["ms"]


def ort_nodes(model, feeds, iters, threads, tmp):
    opts = ort.SessionOptions()
    opts.enable_profiling = True
    opts.profile_file_prefix = os.path.join(tmp, "ort")
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    sess = ort.InferenceSession(model, opts, providers=["CPUExecutionProvider"])
    for _ in range(iters):
        sess.run(None, feeds)
    with open(sess.end_profiling()) as f:
        events = json.load(f)
    fastest, runs = {}, []
    for e in events:
        if e.get("cat") != "Node" and e.get("name") == "model_run":
            runs.append(e["dur"] / 1000)
        if e.get("cat") == "Node" and e["name"].endswith("_kernel_time"):
            name = e["name"][: -len("_kernel_time")]
            fastest[name] = min(fastest.get(name, float("inf")), e["dur"] / 1000)
    return fastest, min(runs) if runs else float("nan")


def pass_order(rounds):
    """The passes: one of each side per round, the side that goes first alternating."""
    return [side for r in range(rounds) for side in (("ort", "ingot") if r % 2 == 0
                                                     else ("ingot", "ort"))]


def ratio(x, y):
    return f"{x / y:6.2f}" if y > 0 else f"{'-':>6s}"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("model")
    p.add_argument("artifact")
    p.add_argument("--inputs", required=True, help=".npz with the model's inputs")
    p.add_argument("--iters", type=int, default=30, help="calls on each side (default 30)")
    p.add_argument("--rounds", type=int, default=2,
                   help="passes of each side, alternating which goes first (default 2)")
    p.add_argument("--threads", type=int, default=os.cpu_count(),
                   help="threads on both sides (default: the CPU count, %(default)s)")
    p.add_argument("--min-ms", type=float, default=0.05,
                   help="list roots whose fastest ingot call takes at least this (default 0.05)")
    p.add_argument("--ingot", default=os.path.join(ROOT, "build/release/tools/ingot/ingot"))
    perf_record.add_arguments(p)
    args = p.parse_args()
    graph = Graph(args.model)
    feeds = dict(np.load(args.inputs))
    if args.threads < 1:
        p.error("--threads must be at least 1 (both sides run the same count)")
    ort_sums, ingot_sums, ort_runs, ingot_runs, ort_fast, kernels = [], [], [], [], {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        for side in pass_order(args.rounds):
            if side == "ort":
                nodes, run = ort_nodes(args.model, feeds, args.iters, args.threads, tmp)
                ort_sums.append(sum(nodes.values()))
                ort_runs.append(run)
                for k, v in nodes.items():
                    ort_fast[k] = min(v, ort_fast.get(k, v))
            else:
                ks, run = ingot_kernels(args.ingot, args.artifact, args.iters, args.threads)
                ingot_sums.append(sum(ks.values()))
                ingot_runs.append(run)
                for k, v in ks.items():
                    kernels[k] = min(v, kernels.get(k, v))
    ort_run, ingot_run = min(ort_runs), min(ingot_runs)

    def group(times, root_of):
        by_root, other = collections.defaultdict(float), 0.0
        for name, ms in times.items():
            root = root_of(name)
            if root is None:
                other += ms
            else:
                by_root[root] += ms
        return by_root, other

    ingot_by, ingot_other = group(kernels, graph.ingot_root)
    ort_by, ort_other = group(ort_fast, graph.ort_root)
    both = sorted(set(ingot_by) & set(ort_by), key=lambda r: graph.order[r])
    print(f"{args.iters} calls each; per ONNX node: op, fastest ingot, fastest ORT (ms), ingot/ORT")
    for r in both:
        if ingot_by[r] >= args.min_ms:
            op = graph.by_name[r].op_type
            print(f"{r:36s} {op:16s} {ingot_by[r]:9.4f} {ort_by[r]:9.4f} {ratio(ingot_by[r], ort_by[r])}")
    only_i = sum(v for k, v in ingot_by.items() if k not in ort_by) + ingot_other
    only_o = sum(v for k, v in ort_by.items() if k not in ingot_by) + ort_other
    si, so = sum(ingot_by[r] for r in both), sum(ort_by[r] for r in both)
    rows = [("nodes on both sides", si, so), ("the rest (unmatched kernels / nodes)", only_i, only_o),
            ("all kernels / nodes", si + only_i, so + only_o),
            ("whole call, fastest", ingot_run, ort_run)]
    for label, x, y in rows:
        print(f"{label:53s} {x:9.4f} {y:9.4f} {ratio(x, y)}")
    print("ORT's node sums by pass (host drift): " + " ".join(f"{x:.2f}" for x in ort_sums) +
          "; ingot's kernel sums: " + " ".join(f"{x:.2f}" for x in ingot_sums))
    perf_record.write(args, "ort_node_compare", args.ingot, {
        "passes": {"ort_node_sum_ms": ort_sums, "ingot_kernel_sum_ms": ingot_sums,
                   "ort_run_fastest_ms": ort_runs, "ingot_run_fastest_ms": ingot_runs},
        "fastest_ms": {"ort_nodes": ort_fast, "ingot_kernels": kernels},
        "sums_ms": {label: [x, y] for label, x, y in rows}},
        model=args.model, artifact=args.artifact, iters=args.iters, threads=args.threads,
        rounds=args.rounds, ort_version=ort.__version__)


if __name__ == "__main__":
    main()
