#!/usr/bin/env python3
"""`ingot run --profile / --profile-json / --report` on compiled models against this machine's
measured roofline (`ingot device-info`): every kernel of the artifact is profiled with its fused
ops, shares sum to 1, each kernel's bound agrees with its intensity against the ridge point, a
single MatMul's FLOPs equal 2*M*N*K, and the HTML report, loaded in headless chromium, draws one
roofline point per kernel with arithmetic, the roof, the time breakdown and the table, with no
network resource. Exit 77 (skip) only when chromium is missing and everything else passed.

Usage: test_profile_report.py --ingot PATH
Prints one PASS/FAIL line per check and a closing "N passed, N failed".
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "scripts"))
import make_models  # noqa: E402
import parity  # noqa: E402

M, K, N = 96, 160, 128


def matmul_model(path):
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array(rng.standard_normal((K, N)).astype(np.float32), "w")
    g = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"])], "matmul",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [M, K])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [M, N])], [w])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), str(path))


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    return None


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--ingot", required=True)
    args = ap.parse_args(argv)
    results = []
    skipped = []

    def check(name, ok, detail=""):
        results.append(bool(ok))
        print(f"{'PASS' if ok else 'FAIL'} {name}{': ' + detail if detail else ''}", flush=True)
        return ok

    chromium = find_chromium()
    with tempfile.TemporaryDirectory(prefix="ingot_profile_") as tmp:
        tmp = Path(tmp)
        env = dict(os.environ, INGOT_DEVICE_INFO=str(tmp / "device-info.json"))
        p = subprocess.run([args.ingot, "device-info", "--json"], capture_output=True, text=True,
                           env=env)
        if not check("ingot device-info --json", p.returncode == 0, p.stderr.strip()):
            return 1
        machine = json.loads(p.stdout)
        peaks = machine["fp32_peaks"]
        check("device-info measured a peak per ISA and the bandwidth",
              peaks and all(x["gflops_1_thread"] > 0 and x["gflops_all_threads"] > 0 for x in peaks)
              and machine["memory_triad_gbs"] > 0 and machine["memory_read_gbs"] > 0,
              ", ".join(f"{x['isa']} {x['gflops_all_threads']:.1f}" for x in peaks) +
              f" GFLOP/s; triad {machine['memory_triad_gbs']:.1f} GB/s")
        p = subprocess.run([args.ingot, "device-info", "--json"], capture_output=True, text=True,
                           env=env)
        check("second device-info call reads the cache",
              p.returncode == 0 and json.loads(p.stdout)["measured_at"] == machine["measured_at"])

        make_models.main([str(tmp), "--models", "tiny_cnn,tiny_bert"])
        matmul_model(tmp / "matmul.onnx")
        for name in ("tiny_cnn", "tiny_bert", "matmul"):
            onnx_path = tmp / f"{name}.onnx"
            model = onnx.load(str(onnx_path))
            art = tmp / f"{name}.so"
            cmd = [args.ingot, "compile", str(onnx_path), "-o", str(art)]
            shapes = parity.input_shapes_arg(model, make_models.make_inputs(model))
            if shapes:
                cmd += ["--input-shapes", shapes]
            p = subprocess.run(cmd, capture_output=True, text=True)
            if not check(f"{name}: compile", p.returncode == 0, p.stderr.strip()):
                continue
            inspect = json.loads(subprocess.run([args.ingot, "inspect", str(art), "--json"],
                                                capture_output=True, text=True).stdout)
            pj, page = tmp / f"{name}.json", tmp / f"{name}.html"
            p = subprocess.run([args.ingot, "run", str(art), "--repeat", "5", "--profile",
                                "--profile-json", str(pj), "--report", str(page), "--outputs",
                                str(tmp / f"{name}.out.npz")],
                               capture_output=True, text=True, env=env)
            if not check(f"{name}: run --profile --profile-json --report", p.returncode == 0,
                         p.stderr.strip()):
                continue
            rows = [l for l in p.stdout.splitlines()
                    if re.match(r"^\S+\s+.*\s(compute|memory)$", l)]
            check(f"{name}: the table has a row per kernel with its bound",
                  len(rows) == inspect["num_kernels"], f"{len(rows)} rows, {inspect['num_kernels']} kernels")
            report = json.loads(pj.read_text())
            ks = report["kernels"]
            roof = report["roofline"]
            ridge = roof["peak_gflops"] / roof["bandwidth_gbs"]
            check(f"{name}: JSON lists every kernel with its fused ops",
                  len(ks) == inspect["num_kernels"] and all(k["ops"] for k in ks)
                  and [k["name"] for k in ks] == [k["name"] for k in inspect["kernels"]])
            check(f"{name}: shares sum to 1", abs(sum(k["share"] for k in ks) - 1) < 1e-6)
            wrong = [k["name"] for k in ks if k.get("bound") !=
                     ("memory" if k["flops"] / k["bytes"] < ridge else "compute")]
            check(f"{name}: bound = intensity against the ridge ({ridge:.2f} FLOP/byte)", not wrong,
                  ", ".join(wrong))
            if name == "matmul":
                total = sum(k["flops"] for k in ks)
                check("matmul: FLOPs per run = 2*M*N*K", total == 2 * M * N * K,
                      f"{total:.0f} vs {2 * M * N * K}")
            html = page.read_text()
            external = re.findall(r"(?:src|href)\s*=|https?://(?!www\.w3\.org/2000/svg)", html)
            check(f"{name}: report is self-contained", not external, str(external[:3]))
            if chromium is None:
                skipped.append(name)
                continue
            p = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu",
                                "--dump-dom", page.as_uri()], capture_output=True, text=True,
                               timeout=120)
            dom = p.stdout
            plotted = sum(1 for k in ks if k["flops"] > 0 and k["bytes"] > 0 and k["median_ms"] > 0)
            circles = len(re.findall(r'<circle class="kernel (?:compute|memory)"', dom))
            check(f"{name}: chromium draws a roofline point per kernel with arithmetic",
                  'id="roofline"' in dom and circles == plotted and plotted > 0,
                  f"{circles} points, {plotted} kernels")
            check(f"{name}: chromium draws the roof", '<polyline class="roof"' in dom)
            bars = len(re.findall(r'<rect class="share', dom))
            want_bars = min(20, len(ks)) + (1 if len(ks) > 20 else 0)
            check(f"{name}: chromium draws the time breakdown", bars == want_bars,
                  f"{bars} bars, want {want_bars}")
            body = re.search(r'<table id="kernels">.*?<tbody>(.*?)</tbody>', dom, re.S)
            trs = len(re.findall(r"<tr>", body.group(1))) if body else 0
            check(f"{name}: chromium fills the table", trs == len(ks), f"{trs} rows")

    failed = results.count(False)
    print(f"{results.count(True)} passed, {failed} failed")
    if failed:
        return 1
    if skipped:
        print("SKIP: no chromium to load the reports (Debian package chromium)")
        return 77
    return 0


if __name__ == "__main__":
    sys.exit(main())
