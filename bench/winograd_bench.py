#!/usr/bin/env python3
"""winograd_bench: one 3x3 stride-1 conv (pads 1, bias, Relu) per shape, run direct, as
Winograd F(2x2, 3x3) and as F(4x4, 3x3) (`ingot compile --conv-algorithm direct|winograd_f2|
winograd_f4`), and by ONNX Runtime, in rotating rounds on T threads (model_bench.rotate_rounds:
each round starts one side later, a pause after each side): the measurements behind
graph pass winograd_conv's default policy (src/graph/transforms/winograd_conv.cpp).

  python3 bench/winograd_bench.py [--ingot build/release/tools/ingot/ingot]
      [--shapes 64x64@56,128x128@28,...] [--threads 2] [--rounds 5] [--target "llvm ..."]

A shape is ICxOC@HW (a square HWxHW map, batch 1). Per shape and side: the median over rounds of
each round's median per-call time (`ingot run --print-time`; ORT with bound inputs and outputs),
each side's output checked against ORT first (scripts/parity.py compare_outputs, rtol 1e-3);
"eff GFLOP/s" counts the direct conv's FLOPs (2 x 9 x IC x OC x HW^2) for every side, so it
compares the sides' times. Prints a markdown table (the fastest ingot side marked, and which the
default policy picks: `--dump graph`) and writes the raw record docs/perf-runs/
winograd_bench-*.json (bench/perf_record.py; --record-dir, --no-record).
"""
import argparse
import os
import re
import statistics
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import model_bench  # noqa: E402  (ingot_median_ms, ort_session, OrtBound, default_ingot)
import parity  # noqa: E402  (compare_outputs; model_bench put scripts/ on the path)
import perf_record  # noqa: E402

RESNET_SHAPES = "64x64@56,128x128@28,256x256@14,512x512@7,16x16@56,32x32@56,64x64@28,256x256@7"
SIDES = ("direct", "winograd_f2", "winograd_f4")


def parse_shape(s):
    m = re.fullmatch(r"(\d+)x(\d+)@(\d+)", s.strip())
    if not m:
        raise SystemExit(f"--shapes: '{s}' is not ICxOC@HW")
    return tuple(int(g) for g in m.groups())


def conv_model(ic, oc, hw, path, rng):
    w = (rng.standard_normal((oc, ic, 3, 3)) / np.sqrt(9 * ic)).astype(np.float32)
    b = rng.standard_normal(oc).astype(np.float32)
    nodes = [helper.make_node("Conv", ["x", "W", "B"], ["c"], kernel_shape=[3, 3], pads=[1] * 4),
             helper.make_node("Relu", ["c"], ["y"])]
    g = helper.make_graph(nodes, "conv3x3",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, ic, hw, hw])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, oc, hw, hw])],
                          [numpy_helper.from_array(w, "W"), numpy_helper.from_array(b, "B")])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path)
    return {"x": rng.standard_normal((1, ic, hw, hw)).astype(np.float32)}


def compile_side(ingot, path, art, algorithm, target):
    cmd = [ingot, "compile", path, "-o", art, "--conv-algorithm", algorithm, "--dump", "graph"]
    if target:
        cmd += ["--target", target]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"compile {algorithm}: {p.stderr.strip()}")
    tiles = re.findall(r"WinogradOutputTransform\(.*tile=(\d+)", p.stdout)
    return f"winograd_f{tiles[0]}" if tiles else "direct"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ingot", default=model_bench.default_ingot())
    ap.add_argument("--shapes", default=RESNET_SHAPES, help="ICxOC@HW,... (default: %(default)s)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=50, help="runs per side per round")
    ap.add_argument("--target", help="ingot --target (default: the host)")
    ap.add_argument("--pause-s", type=float, default=0.1,
                    help="pause after each side, so ORT's spinning workers go idle")
    ap.add_argument("--workdir", default=os.path.join(model_bench.ROOT, "build", "winograd-bench"))
    perf_record.add_arguments(ap)
    args = ap.parse_args(argv)
    os.makedirs(args.workdir, exist_ok=True)
    rng = np.random.default_rng(47)
    rows = []
    print("| IC x OC @ HW | direct ms | F(2x2) ms | F(4x4) ms | ORT ms | best / direct | "
          "best eff GFLOP/s | default policy |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for ic, oc, hw in (parse_shape(s) for s in args.shapes.split(",")):
        base = os.path.join(args.workdir, f"conv{ic}x{oc}_{hw}")
        feeds = conv_model(ic, oc, hw, base + ".onnx", rng)
        inputs = base + ".in.npz"
        np.savez(inputs, **feeds)
        sess = model_bench.ort_session(base + ".onnx", args.threads)
        ref = dict(zip([o.name for o in sess.get_outputs()], sess.run(None, feeds)))
        arts = {}
        for side in SIDES:
            arts[side] = f"{base}.{side}.so"
            compile_side(args.ingot, base + ".onnx", arts[side], side, args.target)
            outp = f"{base}.{side}.out.npz"
            model_bench.ingot_median_ms(args.ingot, arts[side], inputs, args.threads, 1, outp)
            with np.load(outp) as got:
                ok, msg = parity.compare_outputs(ref, {k: got[k] for k in got.files}, 1e-3)
            if not ok:
                raise SystemExit(f"conv{ic}x{oc}@{hw} {side}: {msg}")
        policy = compile_side(args.ingot, base + ".onnx", base + ".auto.so", "auto", args.target)
        bound = model_bench.OrtBound(sess, feeds, ref)
        sides = {side: (lambda a=arts[side]: model_bench.ingot_median_ms(
            args.ingot, a, inputs, args.threads, args.repeat)) for side in SIDES}
        sides["ort"] = lambda: bound.median_ms(args.repeat)
        times = model_bench.rotate_rounds(sides, args.rounds, args.pause_s)
        med = {side: statistics.median(v) for side, v in times.items()}
        best = min(SIDES, key=lambda s: med[s])
        gflop = 2 * 9 * ic * oc * hw * hw / 1e9
        cells = [f"**{med[s]:.3f}**" if s == best else f"{med[s]:.3f}" for s in SIDES]
        print(f"| {ic} x {oc} @ {hw} | {' | '.join(cells)} | {med['ort']:.3f} | "
              f"{med[best] / med['direct']:.2f} ({best}) | {gflop / med[best] * 1e3:.0f} | "
              f"{policy} |", flush=True)
        rows.append({"ic": ic, "oc": oc, "hw": hw, "threads": args.threads, "gflop_direct": gflop,
                     "median_ms": med, "rounds_ms": times, "best": best, "policy": policy})
    perf_record.write(args, "winograd_bench", args.ingot, rows, rounds_unit="ms",
                      target=args.target or "host", threads=args.threads)
    return 0


if __name__ == "__main__":
    sys.exit(main())
