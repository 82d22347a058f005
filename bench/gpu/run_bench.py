#!/usr/bin/env python3
"""Runs what bench/gpu/prepare.py put in --dir (on the device machine; here through OpenCL to
check it): each artifact through ingot_run_lite three times with --repeat: as served (a CUDA
artifact launches its captured CUDA Graph), with plain launches (INGOT_CUDA_GRAPHS=0), and with
--profile. Its outputs are compared with ONNX Runtime's by scripts/parity.py's compare_outputs:
every element within atol + tol*|ref|, tol the entry's, atol = tol x each reference
output's RMS (rel_err: the largest |got - ref| / max(|ref|, that RMS)); its time per run (the copies of inputs and outputs included) both ways
and its kernels' time per run (launches timed between synchronisations) are printed. For the
float16 ResNet-50 and BERT the same network in PyTorch is timed beside it (torch_peer.py). The fp16 GEMM's inputs are made here (seeded), its
reference is the float32 product of the same float16 values (PyTorch on the GPU where it is
there, else NumPy), and PyTorch's own float16 matmul (cuBLAS) is timed beside it in the same
run: TFLOP/s of both and their ratio. One PASS/FAIL line per entry, then a summary; the lines
and a JSON of the numbers go to --out.

Usage: run_bench.py [--dir .device/gpu] [--out DIR] [--repeat 20]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import parity  # noqa: E402  (compare_outputs, the one output checker)


def run_artifact(runner, artifact, inputs, out_dir, repeat):
    """Three runs of the artifact: timed as served (a CUDA artifact launches its captured graph),
    timed with plain launches (INGOT_CUDA_GRAPHS=0), and profiled (each kernel's launches timed
    between synchronisations). The outputs checked are the first run's."""
    def once(extra, env_extra, sub):
        d = os.path.join(out_dir, sub)
        os.makedirs(d, exist_ok=True)
        cmd = [runner, artifact, "-o", d, "--repeat", str(repeat)] + extra
        for name, path in inputs:
            cmd += ["-i", f"{name}={path}"]
        p = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, **env_extra})
        if p.returncode != 0:
            return None, p.stderr.strip() or p.stdout.strip()
        return p.stdout, d

    served, d = once([], {}, "served")
    if served is None:
        return None, d
    plain, _ = once([], {"INGOT_CUDA_GRAPHS": "0"}, "plain")
    profiled, _ = once(["--profile"], {}, "profiled")

    def mean_ms(out):
        m = re.search(r"mean ([\d.]+) ms over", out or "")
        return float(m.group(1)) if m else None

    kernels = [(k, float(t)) for k, t, _ in
               re.findall(r"^kernel (\S+): ([\d.]+) ms per run, (\S+) GFLOP/s$", profiled or "",
                          re.M)]
    got = {}
    with open(os.path.join(d, "outputs.txt")) as f:
        for line in f.read().splitlines():
            k, name = line.split("\t", 1)
            got[name] = np.load(os.path.join(d, f"{k}.npy"))
    return {"run_ms": mean_ms(served), "plain_ms": mean_ms(plain), "kernels": kernels,
            "outputs": got}, ""


def peer_times(entry_name):
    """(eager ms, graph ms) of the PyTorch peer for a float16 ResNet-50 or BERT entry, else None."""
    model, _, dtype = entry_name.partition(".")
    try:
        import torch
        import torch_peer
        if dtype != "float16" or model not in torch_peer.PEERS or not torch.cuda.is_available():
            return None
        return torch_peer.PEERS[model]()
    except Exception as e:  # the peer is context, never the verdict
        print(f"peer {model}: {type(e).__name__}: {e}", flush=True)
        return None


def check_outputs(ref, got, tol):
    """compare_outputs(ref, got) at rtol = tol, atol = tol x each reference output's RMS
    magnitude (the logits, features and GEMM products here are sums of many terms: an
    element near zero carries the rounding of its terms, not its own), finite reference. A
    float16 output is widened (exactly) to its float32 reference's dtype: the references are
    float32. -> (ok, message, rel_err, max |d|)."""
    got = {n: (g.astype(ref[n].dtype) if n in ref and g.dtype.kind == ref[n].dtype.kind == "f"
               and g.dtype.itemsize < ref[n].dtype.itemsize else g) for n, g in got.items()}
    stats = {}
    ok, msg = parity.compare_outputs(ref, got, tol, tol, atol_scale="rms", finite_ref=True,
                                     stats=stats)
    rel = max((v["rel_err"] or 0.0 for v in stats.values()), default=float("inf"))
    dmax = max((v["max_abs"] for v in stats.values()), default=float("inf"))
    return ok, msg, rel, dmax


def gemm_reference(a, b):
    """float32 product of the float16 inputs, and cuBLAS's float16 time (ms) when PyTorch sees a
    GPU."""
    try:
        import torch
        if torch.cuda.is_available():
            ta, tb = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
            ref = (ta.float() @ tb.float()).cpu().numpy()
            for _ in range(3):
                ta @ tb
            torch.cuda.synchronize()
            t0, n = time.perf_counter(), 20
            for _ in range(n):
                ta @ tb
            torch.cuda.synchronize()
            return ref, (time.perf_counter() - t0) * 1e3 / n
    except ImportError:
        pass
    return a.astype(np.float32) @ b.astype(np.float32), None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dir", default=".device/gpu")
    ap.add_argument("--out", default=os.environ.get("OUT", "gpu_bench_out"))
    ap.add_argument("--repeat", type=int, default=20)
    args = ap.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.dir, "manifest.json")) as f:
        manifest = json.load(f)
    runner = os.path.join(args.dir, "ingot_run_lite")
    work = tempfile.mkdtemp(prefix="gpu_bench_")  # outputs stay off $OUT (8 files come back)
    lines, results, failed = [], [], 0

    def say(s):
        print(s, flush=True)
        lines.append(s)

    say(f"target {manifest['target']}, set {manifest['set']}, {args.repeat} runs each")
    for e in manifest["entries"]:
        artifact = os.path.join(args.dir, e["artifact"])
        out_dir = os.path.join(work, e["name"])
        row = {"name": e["name"]}
        if "gemm_n" in e:
            n = e["gemm_n"]
            rng = np.random.default_rng(0)
            a = rng.standard_normal((n, n)).astype(np.float16)
            b = rng.standard_normal((n, n)).astype(np.float16)
            os.makedirs(work, exist_ok=True)
            inputs = []
            for k, v in (("a", a), ("b", b)):
                path = os.path.join(work, f"gemm_{k}.npy")
                np.save(path, v)
                inputs.append((k, path))
            res, err = run_artifact(runner, artifact, inputs, out_dir, args.repeat)
            if res is None:
                failed += 1
                say(f"FAIL {e['name']}: {err}")
                continue
            ref, peer_ms = gemm_reference(a, b)
            ok, msg, row["rel_err"], row["max_abs"] = check_outputs({"y": ref}, res["outputs"],
                                                                    1e-2)
            kernel_ms = sum(t for _, t in res["kernels"])
            row.update(run_ms=res["run_ms"], kernel_ms=kernel_ms, peer_ms=peer_ms,
                       tflops=e["flops"] / (kernel_ms * 1e-3) * 1e-12 if kernel_ms else None)
            peer = ""
            if peer_ms:
                row["peer_tflops"] = e["flops"] / (peer_ms * 1e-3) * 1e-12
                peer = (f"; cuBLAS (PyTorch) {peer_ms:.3f} ms = {row['peer_tflops']:.1f} "
                        f"TFLOP/s; ingot / cuBLAS time {kernel_ms / peer_ms:.2f}x")
            say(f"{'PASS' if ok else 'FAIL'} {e['name']}: rel_err {row['rel_err']:.2e}"
                f"{'' if ok else ' (' + msg + ')'}; kernel "
                f"{kernel_ms:.3f} ms = {row['tflops'] or 0:.1f} TFLOP/s; run with copies "
                f"{res['run_ms']:.3f} ms (plain launches {res['plain_ms'] or 0:.3f}){peer}")
        else:
            inputs = [(i["name"], os.path.join(args.dir, i["file"])) for i in e["inputs"]]
            res, err = run_artifact(runner, artifact, inputs, out_dir, args.repeat)
            if res is None:
                failed += 1
                say(f"FAIL {e['name']}: {err}")
                continue
            ref = {r["name"]: np.load(os.path.join(args.dir, r["file"])) for r in e["refs"]}
            ok, msg, rel, dmax = check_outputs(ref, res["outputs"], e["tol"])
            row.update(rel_err=rel, max_abs=dmax, run_ms=res["run_ms"], plain_ms=res["plain_ms"],
                       kernel_ms=sum(t for _, t in res["kernels"]),
                       slowest=sorted(res["kernels"], key=lambda kt: -kt[1])[:5])
            served = " (CUDA Graph)" if manifest["target"].startswith("cuda") else ""
            peer = peer_times(e["name"])
            note = ""
            if peer:
                row.update(peer_eager_ms=peer[0], peer_graph_ms=peer[1])
                note = (f"; PyTorch float16 {peer[0]:.3f} ms eager, {peer[1]:.3f} ms CUDA Graph "
                        f"(ingot / PyTorch graph {res['run_ms'] / peer[1]:.2f}x)")
            say(f"{'PASS' if ok else 'FAIL'} {e['name']}: rel_err {row['rel_err']:.2e} "
                f"{'' if ok else '(' + msg + ') '}"
                f"(tol {e['tol']:g}); run {res['run_ms']:.3f} ms as served{served}, "
                f"{res['plain_ms'] or 0:.3f} ms with plain launches (copies included){note}; kernels "
                f"{row['kernel_ms']:.3f} ms; slowest: " +
                ", ".join(f"{k} {t:.3f}" for k, t in row["slowest"]))
        failed += 0 if ok else 1
        results.append(row)
    say(f"gpu bench: {len(manifest['entries']) - failed} passed, {failed} failed")
    with open(os.path.join(args.out, "gpu_bench.json"), "w") as f:
        json.dump({"manifest": manifest, "results": results}, f, indent=1)
    with open(os.path.join(args.out, "gpu_bench.log"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
