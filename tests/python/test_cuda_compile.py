#!/usr/bin/env python3
"""ctest wrapper: every kernel the default GPU rules produce for ResNet-50, MobileNetV2,
BERT-base and the small parity models compiles through NVRTC for sm_80 and sm_90 (`ingot compile
--target "cuda -arch=..."`, no GPU needed), and ptxas reports no spills (the budget: 0 bytes;
the compile gives a kernel that ptxas's occupancy heuristic spills room for 128 registers and
compiles again: docs/architecture.md); so do the BERTs' with `--dtype float16`, where every
MatMul runs on tensor cores (every MatMul kernel's CUDA code has mma.sync), and ResNet-50's,
whose 1x1 convs do (at least one mma.sync). Runs on a GPU are bench/gpu/run.sh's."""
import argparse
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))
import make_models  # noqa: E402
import parity  # noqa: E402
import onnx  # noqa: E402
from work_dirs import work_dir  # noqa: E402

SPILL_BUDGET = 0
ap = argparse.ArgumentParser()
ap.add_argument("--ingot", required=True)
args = ap.parse_args()
workdir = work_dir(args.ingot, "cuda_compile_models")
models = os.environ.get("INGOT_CUDA_COMPILE_MODELS",
                        "tiny_cnn,tiny_mobilenet,tiny_bert,gemm_odd,conv_odd,grouped_convs,"
                        "depthwise_odd,conv3d_odd,inception_tiny,resnet50,mobilenetv2,bert")
half_models = os.environ.get("INGOT_CUDA_COMPILE_FLOAT16_MODELS", "tiny_bert,bert,resnet50")
failed = 0
runs = [(n, "float32") for n in models.split(",") if n]
runs += [(n, "float16") for n in half_models.split(",") if n]
for name, dtype in runs:
    path = os.path.join(workdir, f"{name}.onnx")
    if not os.path.exists(path):
        make_models.main([workdir, "--models", name])
    model = onnx.load(path, load_external_data=False)
    shapes = parity.input_shapes_arg(model, make_models.make_inputs(model))
    for arch in ("sm_80", "sm_90"):
        cmd = [args.ingot, "compile", path, "--target", f"cuda -arch={arch}", "-o",
               os.path.join(workdir, f"{name}.{arch}.{dtype}.so"), "--dtype", dtype]
        if shapes:
            cmd += ["--input-shapes", shapes]
        if dtype == "float16":
            cmd += ["--dump", "cuda"]
        p = subprocess.run(cmd, capture_output=True, text=True)
        m = re.search(r"ptxas \((sm_\d+)\): (\d+) kernels, at most (\d+) registers, "
                      r"(no spills|at most (\d+) bytes of spills \((\w+)\))", p.stdout)
        if p.returncode != 0 or not m:
            print(f"FAIL {name} [{arch}]: {p.stderr.strip() or p.stdout.strip()}")
            failed += 1
            continue
        spills = int(m.group(5) or 0)
        cnn = dtype == "float16" and "bert" not in name
        ok = m.group(1) == arch and spills <= SPILL_BUDGET
        detail = m.group(0)
        room = re.search(r"; (\d+) given room against spills", p.stdout)
        if room:
            detail += room.group(0)
        if dtype == "float16":
            # The device functions named after MatMul nodes, each with its mma.sync.
            mma = p.stdout.count("mma.sync.aligned.m16n8k16")
            functions = p.stdout.split("__global__ void ")[1:]
            matmuls = [f for f in functions if re.match(r"__launch_bounds__\(\d+(, \d+)?\) \w*MatMul", f)]
            on_tensor_cores = sum("mma.sync.aligned.m16n8k16" in f for f in matmuls)
            detail += (f"; {mma} mma.sync, in {on_tensor_cores} of {len(matmuls)} "
                       "MatMul kernels")
            ok = ok and (mma >= 1 if cnn else on_tensor_cores == len(matmuls) > 0)
        failed += 0 if ok else 1
        print(f"{'PASS' if ok else 'FAIL'} {name} [{arch}, {dtype}]: {detail}")
print(f"cuda compile: {failed} failed")
sys.exit(1 if failed else 0)
