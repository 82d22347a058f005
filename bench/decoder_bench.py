#!/usr/bin/env python3
"""Decoder step times, ingot against ONNX Runtime in the same run (docs/perf.md, issue 17).

For a model from scripts/export_decoder.py and an artifact compiled with --dim-bounds, times
one prefill call (seq = --prompt, past = 0) and one decode call (seq = 1, past = --past), each
as the median of --repeat runs: ingot through `ingot run --print-time`, ONNX Runtime through
an InferenceSession with the same thread count. Also prints the decode bound that the weight
bytes and the measured memory bandwidth set: the bytes a decode step must stream (the artifact's
constants, from `ingot inspect`, less the float32 tables that only a Gather reads, such as
position embeddings) over the read bandwidth of all threads that `ingot device-info --refresh`
measures in the same run (a NumPy copy of 1 GiB on one thread is printed beside it). ONNX Runtime runs the float32
model.

Usage: decoder_bench.py MODEL.onnx ARTIFACT.so [--ingot PATH] [--threads 2] [--prompt 32]
                        [--past 128] [--repeat 10]
"""
import argparse
import json
import os
import re
import subprocess
import tempfile
import time

import numpy as np


def feeds(cfg, seq, past, rng):
    f = {"input_ids": rng.integers(0, cfg["vocab"], (1, seq), dtype=np.int64)}
    for i in range(cfg["layers"]):
        for kind in ("key", "value"):
            f[f"past_{kind}_{i}"] = rng.standard_normal(
                (1, cfg["kv_heads"], past, cfg["head_dim"])).astype(np.float32)
    return f


def ingot_ms(exe, art, f, repeat, threads, tmp):
    path = os.path.join(tmp, "in.npz")
    np.savez(path, **f)
    r = subprocess.run([exe, "run", art, "--inputs", path, "--print-time", "--repeat", str(repeat),
                        "--num-threads", str(threads)], capture_output=True, text=True, check=True)
    m = re.search(r"median[^0-9]*([0-9.]+)", r.stdout)
    if not m:
        raise SystemExit(f"no median in ingot's output:\n{r.stdout}")
    return float(m.group(1))


def ort_ms(sess, f, repeat):
    sess.run(None, f)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        sess.run(None, f)
        times.append((time.perf_counter() - t0) * 1e3)
    return float(np.median(times))


def copy_gbs():
    a = np.ones(1 << 28, np.float32)  # 1 GiB
    b = np.empty_like(a)
    best = 0.0
    for _ in range(3):
        t0 = time.perf_counter()
        np.copyto(b, a)
        best = max(best, 2 * a.nbytes / (time.perf_counter() - t0) / 1e9)  # read + write
    return best


def read_gbs(exe):
    """The read bandwidth of all threads, measured in this run (--refresh: never a cached
    number from another time, or another machine behind the same CPU name)."""
    r = subprocess.run([exe, "device-info", "--json", "--refresh"], capture_output=True,
                       text=True, check=True)
    return float(json.loads(r.stdout)["memory_read_gbs"])


def last_level_cache_bytes():
    """The largest cache of CPU 0 that sysfs lists (0 when it lists none)."""
    best = 0
    root = "/sys/devices/system/cpu/cpu0/cache"
    for entry in os.listdir(root) if os.path.isdir(root) else []:
        try:
            size = open(os.path.join(root, entry, "size")).read().strip()
        except OSError:
            continue
        scale = {"K": 1 << 10, "M": 1 << 20}.get(size[-1:], 1)
        digits = size.rstrip("KM")
        if digits.isdigit():
            best = max(best, int(digits) * scale)
    return best


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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model")
    ap.add_argument("artifact")
    ap.add_argument("--ingot", default="build/release/tools/ingot/ingot")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--prompt", type=int, default=32)
    ap.add_argument("--past", type=int, default=128)
    ap.add_argument("--repeat", type=int, default=10)
    args = ap.parse_args()
    import onnx
    import onnxruntime as ort

    cfg = json.load(open(args.model.rsplit(".onnx", 1)[0] + ".config.json"))
    proto = onnx.load(args.model)
    fp32 = sum(np.prod(t.dims) * 4 for t in proto.graph.initializer)
    r = subprocess.run([args.ingot, "inspect", args.artifact], capture_output=True, text=True,
                       check=True)
    m = re.search(r"constants:\s+([0-9]+) bytes", r.stdout)
    constants = int(m.group(1)) if m else fp32
    weights = constants - gather_only_bytes(proto)
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = args.threads
    sess = ort.InferenceSession(args.model, opts, providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(0)
    rows = []
    steps = [("prefill", args.prompt, 0), ("decode", 1, args.past)]
    step_feeds = [feeds(cfg, seq, past, rng) for _, seq, past in steps]
    # ingot's runs first, then ONNX Runtime's: ORT's pool threads spin for a while after each of
    # its runs, which would take cores from an ingot run started right after.
    with tempfile.TemporaryDirectory() as tmp:
        ingot = [ingot_ms(args.ingot, args.artifact, f, args.repeat, args.threads, tmp)
                 for f in step_feeds]
    for (name, seq, past), f, ti in zip(steps, step_feeds, ingot):
        rows.append((name, seq, past, ti, ort_ms(sess, f, args.repeat)))
    bw, copy = read_gbs(args.ingot), copy_gbs()
    bound_ms = weights / (bw * 1e9) * 1e3
    print(f"model {cfg['model']}: {fp32 / 1e6:.1f} MB of float32 weights, the artifact's "
          f"constants {constants / 1e6:.1f} MB, {weights / 1e6:.1f} MB streamed per decode step, "
          f"{args.threads} threads")
    print(f"{'step':<8} {'seq':>4} {'past':>5} {'ingot ms':>9} {'ORT ms':>8} {'ORT/ingot':>9}"
          f" {'ingot tok/s':>11}")
    for name, seq, past, ti, to in rows:
        print(f"{name:<8} {seq:>4} {past:>5} {ti:>9.2f} {to:>8.2f} {to / ti:>9.2f}"
              f" {seq * 1e3 / ti:>11.1f}")
    dec = rows[1][3]
    print(f"memory read bandwidth {bw:.1f} GB/s (ingot device-info, all threads; a NumPy copy "
          f"on one thread: {copy:.1f} GB/s): decode bound {bound_ms:.2f} ms/token; ingot decode "
          f"is {dec / bound_ms:.2f}x the bound")
    llc = last_level_cache_bytes()
    if llc >= weights:
        print(f"note: the {weights / 1e6:.1f} MB streamed per step fit in the {llc / 2**20:.0f} MiB "
              f"last-level cache this OS reports; between steps part of them can stay there, so "
              f"a step can beat the DRAM bound")


if __name__ == "__main__":
    main()
