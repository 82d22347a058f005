#!/usr/bin/env python3
"""Smoke test of bench/zoo_bench.py without torch or network (a few seconds).

Runs the bench on make_models' tiny_cnn and on a one-node model with an op ingot does not know,
with the peak and bandwidth given (nothing measured) and two short rounds: the tiny_cnn row must
be timed, pass parity and list its conv kernels with shapes and arithmetic intensity; the other
row must say "compile failed" with ingot's one-line error, without stopping the bench, and count
as failed in the summary (named, the geometric mean marked incomplete); the exit status is then
1, and the run's raw record (bench/perf_record.py) lands in the folder given, with every round.
A second run gives this CLI as --baseline-ingot too (the before/after plumbing, on tiny_cnn
alone, three rounds): both artifacts checked against ORT, the three sides timed in every round,
after/before in the table, the summary line and the record (the baseline's rounds, path and
version).
The real zoo (torch exports) is not run here: exports and compiles take minutes on 2 cores.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import onnx
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.join(HERE, "..", "..", "bench", "zoo_bench.py")


def unknown_op_model(path):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])
    node = helper.make_node("NoSuchOp", ["x"], ["y"], name="n0", domain="zoo.test")
    graph = helper.make_graph([node], "unknown_op", [x], [y])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                    helper.make_opsetid("zoo.test", 1)])
    onnx.save(model, path)


def check_activation_bound(ingot):
    """A conv kernel with a fused SiLU is activation-bound when, with the Sigmoid's measured cost
    per element taken off its time, the conv part reaches 50% of the peak; not when it does not.
    """
    sys.path.insert(0, os.path.dirname(BENCH))
    import zoo_bench  # noqa: E402
    with tempfile.TemporaryDirectory() as tmp:
        args = zoo_bench.parse_args(["--ingot", ingot, "--workdir", tmp])
        ns = zoo_bench.activation_ns(args, "Sigmoid")
        check(ns is not None and 0.01 < ns < 100, f"Sigmoid: {ns} ns per element")
        # As many outputs as make the Sigmoid take 10 ms at one thread.
        convs = {"c": {"desc": "1x1 16->96", "group": 1, "out_elems": 10e6 / ns}}
        report = {"c_ConvNCHWc": {"flops": 1e9, "bytes": 1e6,
                                  "ops": ["ConvNCHWc", "Swish", "Sigmoid", "Mul"]}}
        peak = 100.0  # GFLOP/s: 1 GFLOP takes 10 ms at the peak

        def verdict(ms):
            prof = [{"name": "c_ConvNCHWc", "ms": ms, "gflops": 1e9 / (ms * 1e6)}]
            got = zoo_bench.analyse_profile(prof, report, convs, peak, 1.0, args, 1)
            return got["slow_convs"][0]
        # Kernels of 35 and 25 ms (29% and 40% of peak): conv parts of 25 and 15 ms.
        fast = verdict(35)
        check(fast["activation"] == "Sigmoid" and not fast["activation_bound"],
              f"a conv part of 25 ms is 40% of peak: {fast}")
        bound = verdict(25)
        check(bound["activation_bound"] and 60 < bound["conv_part_pct_peak"] < 70,
              f"a conv part of 15 ms is 67% of peak: {bound}")


def check_baseline(ingot):
    """--baseline-ingot with this CLI as the "before" build too."""
    with tempfile.TemporaryDirectory() as tmp:
        runs = os.path.join(tmp, "runs")
        p = subprocess.run([sys.executable, BENCH, "--ingot", ingot, "--baseline-ingot", ingot,
                            "--models", "tiny_cnn", "--workdir", tmp, "--peak-gflops", "100",
                            "--mem-bw-gbs", "10", "--rounds", "3", "--round-s", "0.02",
                            "--pause-s", "0", "--profile-s", "0.02", "--profile-rounds", "1",
                            "--record-dir", runs], capture_output=True, text=True, timeout=300)
        print(p.stdout)
        print(p.stderr)
        check(p.returncode == 0, f"--baseline-ingot: exit status {p.returncode}, expected 0")
        check("| baseline ms | after/before (min..max) |" in p.stdout and
              "after/before (ingot / baseline" in p.stdout and "1 of 1 compared" in p.stdout,
              "the before/after columns and summary line")
        check(os.path.exists(os.path.join(tmp, "tiny_cnn.baseline.so")),
              "the baseline's own artifact")
        records = os.listdir(runs) if os.path.isdir(runs) else []
        check(len(records) == 1, f"raw record: {records}")
        with open(os.path.join(runs, records[0])) as fh:
            rec = json.load(fh)
    r = rec["results"][0]
    check(r["status"] == "ok" and r["parity"] == "pass" and r["baseline_parity"] == "pass"
          and r["baseline_status"] == "ok", f"both builds pass parity: {r}")
    check(all(len(r[k]) == 3 for k in ("ingot_ms_rounds", "baseline_ms_rounds", "ort_ms_rounds",
                                       "after_before_rounds")) and r["after_before"] > 0,
          "three sides timed in every round")
    check(rec["baseline"]["path"] == os.path.abspath(ingot) and
          rec["baseline"]["version"].startswith("ingot") and
          rec["after_before"]["compared"] == 1, f"the record: {rec['baseline']}")


def check(cond, msg):
    if not cond:
        print(f"FAIL: {msg}")
        sys.exit(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ingot", required=True)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        bad = os.path.join(tmp, "unknown_op.onnx")
        unknown_op_model(bad)
        out = os.path.join(tmp, "zoo.json")
        runs = os.path.join(tmp, "runs")
        p = subprocess.run([sys.executable, BENCH, "--ingot", args.ingot, "--models",
                            f"tiny_cnn,{bad}", "--workdir", tmp, "--peak-gflops", "100",
                            "--mem-bw-gbs", "10", "--rounds", "2", "--round-s", "0.05",
                            "--profile-s", "0.05", "--json", out, "--record-dir", runs],
                           capture_output=True, text=True, timeout=300)
        print(p.stdout)
        print(p.stderr)
        check(p.returncode == 1, f"exit status {p.returncode}, expected 1 (one model fails)")
        with open(out) as fh:
            summary = json.load(fh)
        rows = {r["model"]: r for r in summary["results"]}
        check(summary["models"] == 2 and summary["models_failed"] == 1 and
              summary["failed_models"] == [{"model": "unknown_op", "status": "compile failed"}]
              and not summary["goal_met"], f"the failed model counts: {summary}")
        check("FAILED: 1 of 2 models (unknown_op (compile failed))" in p.stdout,
              "the summary line names the failed model")
        records = os.listdir(runs) if os.path.isdir(runs) else []
        check(len(records) == 1 and records[0].startswith("zoo_bench-"), f"raw record: {records}")
        with open(os.path.join(runs, records[0])) as fh:
            rec = json.load(fh)
        rec_rows = {r["model"]: r for r in rec["results"]}
        check(rec["bench"] == "zoo_bench" and rec["commit"] and "device_info" in rec["machine"]
              and len(rec_rows["tiny_cnn"]["ingot_ms_rounds"]) == 2
              and len(rec_rows["tiny_cnn"]["ort_ms_rounds"]) == 2,
              "the record: commit, machine, every round")
    tiny, failed = rows["tiny_cnn"], rows["unknown_op"]
    check(tiny["status"] == "ok" and tiny["parity"] == "pass", f"tiny_cnn: {tiny}")
    check(tiny["ingot_ms"] > 0 and tiny["ort_ms"] > 0 and tiny["ratio"] > 0, "tiny_cnn times")
    check(0 <= tiny["below_50_pct"] <= 100.01, "tiny_cnn: share below 50% of peak")
    check(0 < tiny["peak_gflops_now"] <= 100 * tiny["threads"] + 1e-9,
          f"tiny_cnn: the peak its kernels are held against: {tiny.get('peak_gflops_now')}")
    convs = tiny["slow_convs"]
    check(convs and all(c["shape"] != "?" and c["ai"] > 0 for c in convs),
          f"tiny_cnn: slow convs with shapes and AI: {convs}")
    check(failed["status"] == "compile failed" and "\n" not in failed["error"]
          and failed["error"], f"unknown_op: {failed}")
    check("| unknown_op |" in p.stdout and "| tiny_cnn |" in p.stdout, "markdown rows")
    check_baseline(args.ingot)
    check_activation_bound(args.ingot)
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
