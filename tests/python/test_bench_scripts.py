#!/usr/bin/env python3
"""The CPU benchmarks' parts that need no timing (issue 45): nothing here asserts on a time.

  * model_bench.parse_time_summary reads the median column of real `ingot run --print-time`
    output (a one-node model compiled here), by the header's names, not the mean;
  * perf_record writes its JSON with the machine (`ingot device-info --json`), the commit, the
    command and every round, into the folder given (never docs/perf-runs/ from a test);
  * zoo_bench.summarise counts a failed model as failed: named in the summary, the geometric
    mean marked incomplete, the goal not met, the row shown FAILED;
  * artifact_ab sums the kernels of either side; ort_node_compare gives both sides the same
    number of passes;
  * zoo_bench's parity check holds an output of order 1e8 to its own scale; decoder_bench's
    quantized check (atol = tol x each output's largest |ref|) fails a wrong or NaN output;
    ort_quant.prepare rewrites Gemm and a constant's Transpose into MatMuls of
    initializers without changing ONNX Runtime's outputs, and make() gives MatMulNBits.
  * before/after (--baseline-ingot): model_bench.timing_fields' after/before = ingot/baseline per
    round, the summary line naming the rows above 1.03 and the rows not compared, the tables'
    two extra columns (none without a baseline), cli_identity reading a COMMIT file next to a
    binary; and model_bench run on tiny_cnn with this CLI as both builds: both checked,
    all three sides timed in every round, the baseline's rounds, path, version in the record;
  * model_bench's variant rows on tiny models: NAME.qdq (ONNX Runtime's quantize_static, QDQ,
    checked against ORT's exact integer kernels) and NAME.bf16 (--dtype bfloat16, checked
    against ORT's float32 at 2e-2); int8_step_check on the QDQ rows' models passes within two
    quantization steps and fails below zero;
  * --ingot-tuning-records tunes ingot's side only (the baseline untuned), --tuning-records both;
  * winograd_bench on one small conv: the three ingot sides (direct, F(2x2), F(4x4)) and ORT
    timed in every round, the default policy's choice read from the graph, one raw record;
  * make_models' bert_base is BERT-base's geometry (12 layers, hidden 768, 12 heads, FFN 3072,
    seq 128, batch 1), checked on its graph with the weights left out (no 350 MB model built).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import artifact_ab  # noqa: E402
import decoder_bench  # noqa: E402
import int8_step_check  # noqa: E402
import model_bench  # noqa: E402
import ort_node_compare  # noqa: E402
import ort_quant  # noqa: E402
import make_models  # noqa: E402
import perf_record  # noqa: E402
import winograd_bench  # noqa: E402
import zoo_bench  # noqa: E402

FAILED = []


def check(cond, msg):
    print(f"{'ok  ' if cond else 'FAIL'} {msg}", flush=True)
    if not cond:
        FAILED.append(msg)


def relu_model(path):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 64])
    g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "relu", [x], [y])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path)


def test_time_summary(ingot, tmp):
    onnx_path, so = os.path.join(tmp, "relu.onnx"), os.path.join(tmp, "relu.so")
    relu_model(onnx_path)
    subprocess.run([ingot, "compile", onnx_path, "-o", so, "-q"], check=True)
    out = subprocess.run([ingot, "run", so, "--print-time", "--repeat", "7", "--number", "1"],
                         capture_output=True, text=True, check=True).stdout
    t = model_bench.parse_time_summary(out)
    check(set(t) == {"mean", "median", "max", "min", "std"}, f"columns of real output: {t}")
    check(t["min"] <= t["median"] <= t["max"] and t["min"] <= t["mean"] <= t["max"],
          f"values in the header's order: {t}")
    # The real header with distinct values: the median is the second column, not the first.
    header = next(ln for ln in out.splitlines() if "median (ms)" in ln)
    fake = f"Execution time summary:\n{header}\n  9.0000  2.0000  11.0000  1.0000  0.5000\n"
    check(model_bench.parse_time_summary(fake)["median"] == 2.0,
          "the median column, not the mean that a regex after 'median' used to read")
    try:
        model_bench.parse_time_summary("no summary here\n")
        check(False, "text without a summary raises")
    except ValueError:
        check(True, "text without a summary raises")


def test_perf_record(ingot, tmp):
    args = argparse.Namespace(record_dir=os.path.join(tmp, "runs"), no_record=False)
    rounds = {"ingot": [1.0, 1.1, np.float64(0.9)], "ort": [2.0, 2.1, 1.9]}
    path = perf_record.write(args, "unit_bench", ingot, [{"model": "m", "ms_rounds": rounds}],
                             argv=["bench/unit_bench.py", "--rounds", "3"], threads=2,
                             time="extra fields never replace the record's own")
    check(path and os.path.dirname(path) == args.record_dir and
          re.fullmatch(r"unit_bench-\d{8}T\d{6}Z\.json", os.path.basename(path)),
          f"file name and folder: {path}")
    rec = json.load(open(path))
    check(rec["schema"] == 1 and rec["bench"] == "unit_bench", "schema and bench")
    check(re.fullmatch(r"[0-9a-f]{40}", rec["commit"] or "") is not None and
          isinstance(rec["dirty"], bool), f"commit {rec['commit']}, dirty {rec['dirty']}")
    check(rec["command"] == "bench/unit_bench.py --rounds 3", f"command: {rec['command']}")
    check(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", rec["time"]) is not None,
          f"UTC time: {rec['time']}")
    mach = rec["machine"]
    dev = mach.get("device_info", {})
    check("cpu" in dev and "features" in dev and "threads" in dev,
          f"machine from ingot device-info --json: {sorted(dev) or mach.get('device_info_error')}")
    check(mach["cpu_count"] == os.cpu_count() and len(mach["load_avg"]) == 3, "OS fields")
    check(rec["threads"] == 2, "extra fields")
    check(rec["results"][0]["ms_rounds"] == {"ingot": [1.0, 1.1, 0.9], "ort": [2.0, 2.1, 1.9]},
          "every round, numpy values as plain numbers")
    none = argparse.Namespace(record_dir=os.path.join(tmp, "none"), no_record=True)
    check(perf_record.write(none, "x", ingot, []) is None and
          not os.path.exists(none.record_dir), "--no-record writes nothing")


def test_zoo_summary():
    rows = [{"model": "a", "status": "ok", "ratio": 0.5},
            {"model": "b", "status": "ok", "ratio": 2.0},
            {"model": "c", "status": "compile failed", "error": "unknown op"},
            {"model": "d", "status": "parity FAILED", "ratio": 0.1, "error": "rel_err"}]
    info = {}
    zoo_bench.summarise(rows, info)
    check(info["models"] == 4 and info["models_timed"] == 2 and info["models_failed"] == 2,
          f"counts: {info['models']} models, {info['models_timed']} ok, "
          f"{info['models_failed']} failed")
    check([f["model"] for f in info["failed_models"]] == ["c", "d"], "failed models named")
    check(abs(info["geomean_ratio"] - 1.0) < 1e-12 and info["max_ratio"] == 2.0,
          "geomean and worst over the models that passed (d's parity failure is not its 0.1)")
    check(not info["goal_met"], "a failed model: the goal is not met")
    line = zoo_bench.summary_line(info)
    check("FAILED: 2 of 4 models" in line and "c (compile failed)" in line and
          "incomplete" in line, f"summary line: {line}")
    ok_only = [r for r in rows if r["model"] in "ab"]
    info2 = {}
    zoo_bench.summarise(ok_only, info2)
    check(info2["models_failed"] == 0 and "FAILED" not in zoo_bench.summary_line(info2),
          "no failure: no FAILED in the summary")
    table_info = dict(info, target="host", threads=2, peak_gflops=None, peak_gflops_per_core=None,
                      peak_isa="-", mem_bw_gbs=None, ridge_flop_per_byte=None,
                      ort_version=ort.__version__, load_avg_start=(0, 0, 0),
                      load_avg_end=(0, 0, 0), cpu_count=2)
    md_rows = [dict(r, gflop=1.0, parity="pass", rel_err=0.0, max_abs_err=0.0, ingot_ms=1.0,
                    ort_ms=1.0, ratio_min=r.get("ratio"), ratio_max=r.get("ratio"))
               if "ratio" in r else dict(r, gflop=1.0) for r in rows]
    md = zoo_bench.markdown(md_rows, table_info)
    check("| c | 1.00 | FAILED (compile failed): unknown op |" in md, "the failed row in the table")


def test_kernel_counts():
    rows, sums = artifact_ab.compare_kernels({"k1": 1.0, "k2": 2.0}, {"k1": 0.5, "k3": 4.0})
    check([r[0] for r in rows] == ["k1", "k2", "k3"], "artifact_ab: the kernels of either side")
    check(sums == {"shared": (1.0, 0.5), "one side only": (2.0, 4.0)},
          f"artifact_ab sums: {sums}")
    for rounds in (1, 2, 3):
        order = ort_node_compare.pass_order(rounds)
        check(order.count("ort") == order.count("ingot") == rounds,
              f"ort_node_compare: {rounds} passes each ({order})")
    check(ort_node_compare.pass_order(2) == ["ort", "ingot", "ingot", "ort"],
          "ort_node_compare: the side that goes first alternates")


def test_decoder_check():
    rng = np.random.default_rng(0)
    ref = {"logits": rng.standard_normal((1, 4, 50)).astype(np.float32) * 0.1,
           "present": rng.standard_normal((1, 2, 8, 4)).astype(np.float32) * 10}
    # Logits off by 2% of their own scale, the cache by 20% of its: int4's 0.5 passes both,
    # int8's 0.1 fails the cache (atol = 0.1 x its largest |ref|, not a fixed 0.1).
    got = {"logits": ref["logits"] + 0.02 * np.float32(np.abs(ref["logits"]).max()),
           "present": ref["present"] + 0.2 * np.float32(np.abs(ref["present"]).max())}
    ok, msg, stats = decoder_bench.check(ref, got, "int4", 0.5, "x")
    check(ok and set(stats) == {"logits", "present"}, f"int4 tolerance: {msg}")
    check(abs(stats["logits"]["rel_err"] - 0.02) < 1e-4 and
          abs(stats["present"]["rel_err"] - 0.2) < 1e-4,
          f"quantized rel_err is max |d| / max |ref| per output: {stats}")
    ok, msg, _ = decoder_bench.check(ref, got, "int8", 0.1, "x")
    check(not ok and "present" in msg, f"int8 tolerance fails the 20% output: {msg}")
    nan = dict(got, logits=np.full_like(ref["logits"], np.nan))
    ok, msg, _ = decoder_bench.check(ref, nan, "int4", 0.5, "x")
    check(not ok, f"an all-NaN output fails: {msg}")
    ok, msg, _ = decoder_bench.check(ref, {"logits": ref["logits"]}, "int8", 0.1, "x")
    check(not ok and "present" in msg, f"a missing output fails: {msg}")
    ok, msg, _ = decoder_bench.check(ref, dict(ref), "float32", 1e-4, "x")
    check(ok, f"float32: identical outputs pass: {msg}")


def test_zoo_parity_scale():
    # Logits of order 1e8 (a random-weight Inception): an element off by 1.1e-3 of itself passes
    # zoo_bench's check (rtol 1e-3, atol 1e-3 x the output's RMS); 3e-3 of the scale fails.
    ref = {"y": np.array([2.0e8, -1.5e8, 3.0e5], np.float32)}
    near = {"y": ref["y"] * np.float32(1 + 1.1e-3)}
    ok, msg = zoo_bench.parity.compare_outputs(ref, near, 1e-3, 1e-3, atol_scale="rms")
    check(ok, f"zoo parity: held to the output's scale: {msg}")
    far = {"y": ref["y"] + np.float32(6e5)}
    ok, msg = zoo_bench.parity.compare_outputs(ref, far, 1e-3, 1e-3, atol_scale="rms")
    check(not ok, f"zoo parity: 3e-3 of the scale fails: {msg}")


def gemm_model(path):
    """y = Gemm(x, W, b, transB=1) then z = MatMul(y, Transpose(E)): K = 256 for both."""
    rng = np.random.default_rng(1)
    w = numpy_helper.from_array(rng.standard_normal((256, 256)).astype(np.float32), "W")
    b = numpy_helper.from_array(rng.standard_normal(256).astype(np.float32), "b")
    e = numpy_helper.from_array(rng.standard_normal((64, 256)).astype(np.float32), "E")
    nodes = [helper.make_node("Gemm", ["x", "W", "b"], ["y"], transB=1),
             helper.make_node("Transpose", ["E"], ["Et"], perm=[1, 0]),
             helper.make_node("MatMul", ["y", "Et"], ["z"])]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                                     [3, 256])],
                          [helper.make_tensor_value_info("z", TensorProto.FLOAT, [3, 64])],
                          [w, b, e])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path)


def test_ort_quant(tmp):
    path = os.path.join(tmp, "gemm.onnx")
    gemm_model(path)
    x = {"x": np.random.default_rng(2).standard_normal((3, 256)).astype(np.float32)}
    want = ort.InferenceSession(path).run(None, x)[0]
    m = onnx.load(path)
    check(ort_quant.prepare(m) == 2, "prepare rewrites the Gemm and the transposed MatMul")
    check([n.op_type for n in m.graph.node].count("Gemm") == 0, "no Gemm left")
    got = ort.InferenceSession(m.SerializeToString()).run(None, x)[0]
    check(np.allclose(got, want, rtol=1e-5, atol=1e-4), "the rewritten model computes the same")
    q = ort_quant.make(path, "nbits4")
    ops = ort_quant.count_ops(q)
    check(ops["MatMulNBits"] == 2 and ops["MatMul"] == 0, f"MatMulNBits 4 on both: {ops}")
    d = ort_quant.count_ops(ort_quant.make(path, "dynamic"))
    check(d["MatMulInteger"] == 2, f"dynamic quantization on both: {d}")


def test_after_before_summary(tmp):
    got = {"ingot": [1.0, 2.0, 1.1], "baseline": [1.0, 1.6, 1.0], "ort": [2.0, 2.0, 2.0]}
    f = model_bench.timing_fields(got)
    check(f["after_before_rounds"] == [1.0, 1.25, 1.1] and f["after_before"] == 1.1 and
          f["after_before_min"] == 1.0 and f["after_before_max"] == 1.25 and
          f["baseline_ms_rounds"] == got["baseline"] and f["baseline_ms"] == 1.0 and
          f["ratio"] == 0.55, f"after/before = ingot/baseline per round, median: {f}")
    check("after_before" not in model_bench.timing_fields({"ingot": [1.0], "ort": [2.0]}),
          "no baseline: no after/before fields")
    rows = [dict(model="a", threads=2, status="ok", **f),
            dict(model="b", threads=2, status="ok",
                 **model_bench.timing_fields({"ingot": [1.0], "baseline": [1.0], "ort": [1.0]})),
            {"model": "c", "threads": 2, "status": "ok", "baseline_error": "baseline: boom\nmore",
             **model_bench.timing_fields({"ingot": [1.0], "ort": [1.0]})},
            {"model": "d", "threads": 2, "status": "FAILED", "error": "output 'y' differs"}]
    for r in rows:
        r["gflop"] = 0.5
    info, line = model_bench.after_before_summary(rows)
    check([o["model"] for o in info["over"]] == ["a"] and info["compared"] == 2 and
          [n["model"] for n in info["not_compared"]] == ["c", "d"],
          f"rows above {model_bench.AFTER_BEFORE_LIMIT} and rows not compared: {info}")
    check("above 1.03: a 1.100" in line and "NOT COMPARED: c (baseline: boom), d (output 'y'"
          in line and "T=" not in line, f"the summary line: {line}")
    check("above 1.03: none" in model_bench.after_before_summary(rows[1:2])[1],
          "nothing above the limit: none")
    plain = model_bench.markdown([r for r in rows if r["model"] != "c"])
    check("baseline" not in plain and "after/before" not in plain,
          "without a baseline the table is as before")
    table = model_bench.markdown(rows, baseline=True)
    cells = [ln.count("|") for ln in table.splitlines() if ln.startswith("|")]
    check(len(set(cells)) == 1 and "| 1.100 (1.00..1.25) |" in table and
          "| baseline: boom | — |" in table and "above 1.03: a" in table,
          f"the before/after table: {table}")
    zoo_info = dict(baseline={}, target="host", threads=2, peak_gflops=None,
                    peak_gflops_per_core=None, peak_isa="-", mem_bw_gbs=None,
                    ridge_flop_per_byte=None, ort_version="x", load_avg_start=(0, 0, 0),
                    load_avg_end=(0, 0, 0), cpu_count=2)
    zoo_rows = [dict(r, gflop=1.0, parity="pass", rel_err=0.0, max_abs_err=0.0) for r in rows[:3]]
    zoo_rows.append({"model": "d", "status": "compile failed", "error": "unknown op"})
    zoo_bench.summarise(zoo_rows, zoo_info)
    zmd = zoo_bench.markdown(zoo_rows, zoo_info)
    zcells = [ln.count("|") for ln in zmd.splitlines() if ln.startswith("| ") or
              ln.startswith("|---")][:6]
    check(len(set(zcells)) == 1 and "| 1.100 (1.00..1.25) |" in zmd and "above 1.03: a 1.100"
          in zmd, f"zoo_bench's before/after table: {zmd}")
    # A saved "before" build: its COMMIT file is read; the real CLI's --version is recorded.
    saved = os.path.join(tmp, "before")
    os.makedirs(saved)
    fake = os.path.join(saved, "ingot")
    with open(fake, "w") as fh:
        fh.write("#!/bin/sh\necho 'ingot 0.0.1 (artifact ABI 1)'\n")
    os.chmod(fake, 0o755)
    with open(os.path.join(saved, "COMMIT"), "w") as fh:
        fh.write("0123abc\n")
    ident = model_bench.cli_identity(fake)
    check(ident == {"path": fake, "version": "ingot 0.0.1 (artifact ABI 1)", "commit": "0123abc"},
          f"cli_identity of a saved build: {ident}")


def test_model_bench_baseline(ingot, tmp):
    """model_bench with --baseline-ingot (this CLI as both builds) on make_models' tiny_cnn."""
    runs, out = os.path.join(tmp, "ab_runs"), os.path.join(tmp, "ab.json")
    rc = model_bench.main(["--ingot", ingot, "--baseline-ingot", ingot, "--models", "tiny_cnn",
                           "--threads", "1", "--rounds", "3", "--round-s", "0.005",
                           "--pause-s", "0", "--workdir", os.path.join(tmp, "ab"),
                           "--json", out, "--record-dir", runs])
    check(rc == 0, f"model_bench --baseline-ingot: exit status {rc}")
    records = os.listdir(runs) if os.path.isdir(runs) else []
    check(len(records) == 1, f"one raw record: {records}")
    if rc != 0 or len(records) != 1:
        return
    rec = json.load(open(os.path.join(runs, records[0])))
    r = rec["results"][0]
    check(r["status"] == "ok" and "rtol" in r["check"] and "rtol" in r["baseline_check"],
          f"both builds checked by compare_outputs: {r.get('check')} / {r.get('baseline_check')}")
    check(all(len(r[k]) == 3 for k in ("ingot_ms_rounds", "baseline_ms_rounds", "ort_ms_rounds",
                                       "after_before_rounds")) and r["after_before"] > 0,
          "three sides timed in every round")
    check(os.path.exists(os.path.join(tmp, "ab", "tiny_cnn.baseline.so")),
          "the baseline compiled its own artifact")
    b = rec.get("baseline", {})
    check(b.get("path") == os.path.abspath(ingot) and (b.get("version") or "").startswith("ingot")
          and rec["ingot_cli"]["path"] == os.path.abspath(ingot),
          f"the baseline's path and version in the record: {b}")
    check(rec["after_before"]["compared"] == 1 and rec["after_before"]["limit"] == 1.03,
          f"the after/before summary in the record: {rec['after_before']}")


def test_model_bench_variants(ingot, tmp):
    """model_bench's NAME.qdq, NAME.qdqraw and NAME.bf16 rows on make_models' tiny models: the
    QDQ file made by ONNX Runtime's quantize_static (QuantizeLinear / DequantizeLinear in the
    graph; .qdqraw without quant_pre_process) and checked against ORT's exact integer kernels,
    the bfloat16 row compiled with --dtype bfloat16 and
    checked against ORT's float32 at --bf16-tol."""
    runs, work = os.path.join(tmp, "variant_runs"), os.path.join(tmp, "variants")
    rc = model_bench.main(["--ingot", ingot, "--models", "tiny_cnn.qdq,tiny_cnn.qdqraw,tiny_bert.bf16",
                           "--threads", "1", "--rounds", "2", "--round-s", "0.005",
                           "--pause-s", "0", "--workdir", work, "--record-dir", runs])
    check(rc == 0, f"model_bench tiny_cnn.qdq,tiny_cnn.qdqraw,tiny_bert.bf16: exit status {rc}")
    records = os.listdir(runs) if os.path.isdir(runs) else []
    if rc != 0 or len(records) != 1:
        check(False, f"one raw record: {records}")
        return
    rows = {r["model"]: r for r in json.load(open(os.path.join(runs, records[0])))["results"]}
    q, b = rows.get("tiny_cnn.qdq", {}), rows.get("tiny_bert.bf16", {})
    ops = {n.op_type for n in onnx.load(os.path.join(work, "tiny_cnn.qdq.onnx")).graph.node}
    check({"QuantizeLinear", "DequantizeLinear"} <= ops, f"tiny_cnn.qdq is a QDQ model: {ops}")
    check(q.get("status") == "ok" and q.get("check_reference") == "ORT session.x64quantprecision=1"
          and "x each output's max" in q.get("check", ""),
          f"the QDQ row checked against ORT's exact kernels: {q}")
    raw = rows.get("tiny_cnn.qdqraw", {})
    check(raw.get("status") == "ok" and raw.get("check_reference") == q.get("check_reference")
          and os.path.exists(os.path.join(work, "tiny_cnn.qdqraw.onnx")),
          f"the row quantized without quant_pre_process, checked alike: {raw}")
    check(b.get("status") == "ok" and "rtol 0.02" in b.get("check", ""),
          f"the bfloat16 row checked at 2e-2: {b.get('check')}")
    check(os.path.exists(os.path.join(work, "tiny_bert.bf16.so")),
          "the bfloat16 row compiled its own artifact")
    # int8_step_check on the QDQ rows' models: within two steps of ORT's int8, top-1 equal; a
    # bar below zero steps fails them.
    step_args = ["--ingot", ingot, "--workdir", work, "--models", "tiny_cnn.qdq,tiny_cnn.qdqraw"]
    check(int8_step_check.main(step_args) == 0, "int8_step_check: the QDQ rows within 2 steps")
    check(int8_step_check.main(step_args + ["--max-steps", "-1"]) == 1,
          "int8_step_check fails a model outside its bar")


def test_winograd_bench(ingot, tmp):
    """winograd_bench on one small shape: three ingot sides and ORT timed each round, the
    policy's choice read from the graph, one raw record."""
    runs = os.path.join(tmp, "wino_runs")
    rc = winograd_bench.main(["--ingot", ingot, "--shapes", "32x40@9", "--rounds", "2",
                              "--repeat", "2", "--workdir", os.path.join(tmp, "wino"),
                              "--record-dir", runs])
    check(rc == 0, f"winograd_bench: exit status {rc}")
    records = os.listdir(runs) if os.path.isdir(runs) else []
    check(len(records) == 1, f"one raw record: {records}")
    if rc != 0 or len(records) != 1:
        return
    r = json.load(open(os.path.join(runs, records[0])))["results"][0]
    check(all(len(r["rounds_ms"][k]) == 2 for k in ("direct", "winograd_f2", "winograd_f4", "ort")),
          f"every side timed in both rounds: {r['rounds_ms']}")
    check(r["policy"] == "winograd_f4", f"the default policy at 32 -> 40 on 9x9: {r['policy']}")


def test_bert_base_geometry():
    """bert_base's graph with every weight() an initializer of its shape but no data."""
    def no_data(self, shape, scale=None, prefix="w"):
        t = TensorProto(name=self.fresh(prefix), data_type=TensorProto.FLOAT, dims=list(shape))
        self.inits.append(t)
        return t.name
    weight = make_models.Builder.weight
    make_models.Builder.weight = no_data
    try:
        m = make_models.MODELS["bert_base"]()
    finally:
        make_models.Builder.weight = weight
    dims = lambda vi: [d.dim_value for d in vi.type.tensor_type.shape.dim]  # noqa: E731
    check([dims(i) for i in m.graph.input] == [[1, 128], [1, 128]] and
          [dims(o) for o in m.graph.output] == [[1, 128, 768]],
          "bert_base: input_ids and attention_mask [1,128], output [1,128,768]")
    ops = [n.op_type for n in m.graph.node]
    shapes = [list(t.dims) for t in m.graph.initializer]
    check(ops.count("Softmax") == 12 and ops.count("MatMul") == 12 * 8 and ops.count("Erf") == 12,
          "bert_base: 12 layers (6 projections and 2 attention MatMuls each)")
    check(shapes.count([768, 3072]) == 12 and shapes.count([3072, 768]) == 12 and
          shapes.count([768, 768]) == 48, "bert_base: hidden 768, FFN 3072")
    split = [numpy_helper.to_array(t).tolist() for t in m.graph.initializer
             if t.name.startswith("shape") and len(t.dims) == 1 and t.dims[0] == 4]
    check(split == [[1, 128, 12, 64]], f"bert_base: 12 heads of 64: {split}")
    onnx.shape_inference.infer_shapes(m, strict_mode=True)
    check(make_models.BERT_BASE == dict(layers=12, hidden=768, heads=12, seq=128, ffn=3072),
          f"BERT_BASE: {make_models.BERT_BASE}")


def test_ingot_tuning_records():
    """--ingot-tuning-records compiles ingot's side with the records and the baseline without;
    --tuning-records both (the compile commands captured, nothing run)."""
    cmds = []

    class Done:
        returncode, stdout, stderr = 0, "", ""

    real_run = model_bench.subprocess.run
    model_bench.subprocess.run = lambda cmd, **kw: cmds.append(cmd) or Done()
    try:
        model = helper.make_model(helper.make_graph([], "g", [], []))
        for flags in (["--ingot-tuning-records", "r.jsonl"], ["--tuning-records", "r.jsonl"]):
            args = argparse.Namespace(target=None, tuning_records=None, ingot_tuning_records=None)
            setattr(args, flags[0][2:].replace("-", "_"), flags[1])
            cmds.clear()
            model_bench.compile_artifact("ingot", "m.onnx", "m.so", model, {}, args)
            model_bench.compile_artifact("base", "m.onnx", "m.base.so", model, {}, args,
                                         baseline=True)
            tuned = ["--tuning-records" in c for c in cmds]
            want = [True, flags[0] == "--tuning-records"]
            check(tuned == want, f"{flags[0]}: records on (ingot, baseline) = {tuned}, want {want}")
    finally:
        model_bench.subprocess.run = real_run


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ingot", required=True)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-scripts-") as tmp:
        test_time_summary(args.ingot, tmp)
        test_perf_record(args.ingot, tmp)
        test_zoo_summary()
        test_kernel_counts()
        test_decoder_check()
        test_zoo_parity_scale()
        test_ort_quant(tmp)
        test_after_before_summary(tmp)
        test_model_bench_baseline(args.ingot, tmp)
        test_model_bench_variants(args.ingot, tmp)
        test_ingot_tuning_records()
        test_winograd_bench(args.ingot, tmp)
        test_bert_base_geometry()
    if FAILED:
        print(f"{len(FAILED)} check(s) failed")
        return 1
    print("all bench-script checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
