#!/usr/bin/env python3
"""Prepares a GPU benchmark run for the device machine (bench/gpu/run.sh runs it there).

The device machine cannot build ingot (its image has no LLVM 19 or the other Debian libraries)
and takes at most 64 MiB of files, so this compiles the artifacts here, writes their inputs and
ONNX Runtime's float32 outputs (CPU, this machine) as .npy, copies the runtime-only runner
(tools/ingot_run_lite: libc and libdl only) and writes manifest.json, all under --out (by
default .device/gpu, which .gitignore ignores; name it in the device call's `carry`). A set is sized to fit:
  small   fp16 GEMM (inputs made on the device: no constants), the small parity models in
          float32 and float16, MobileNetV2 in float32 and float16 (about 25 MB)
  bert    the parity set's BERT (4 layers, seq 128) with --dtype float16 (60 MB)
  resnet  ResNet-50 with --dtype float16, batch 1 (51 MB)
  resnet32, bert32  ResNet-50 / BERT in float32, weights rounded to bfloat16 values so that the
          artifact compresses (xz) to fit a call; the float32 parity runs
  check   the GEMM, tiny_cnn and tiny_bert in float16: the scripts' own test (with opencl)

Usage: prepare.py --ingot PATH --runner PATH [--set small|bert|resnet] [--out .device/gpu]
                  [--target "cuda -arch=sm_90"] [--gemm-n 4096]
Here, --target opencl prepares the same run for PoCL, to check the scripts without a GPU.
"""
import argparse
import json
import lzma
import os
import shutil
import subprocess
import sys

import numpy as np
import onnx
import onnxruntime as ort

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))
import make_models  # noqa: E402
import parity  # noqa: E402

# (model, --dtype, rel_err tolerance against ORT's float32)
SETS = {
    "small": [("tiny_cnn", "float32", 1e-3), ("tiny_bert", "float32", 1e-3),
              ("gemm_odd", "float32", 1e-3), ("conv_odd", "float32", 1e-3),
              ("tiny_bert", "float16", 1e-2), ("mobilenetv2", "float32", 1e-3),
              ("mobilenetv2", "float16", 1e-2)],
    "check": [("tiny_cnn", "float32", 1e-3), ("tiny_bert", "float16", 1e-2)],
    "bert": [("bert", "float16", 1e-2)],
    "resnet": [("resnet50", "float16", 1e-2)],
    # float32 models whose weights are rounded to bfloat16-representable values, so that their
    # artifacts compress to what a device call can carry; the arithmetic is float32 throughout.
    "resnet32": [("resnet50@bf16w", "float32", 1e-3)],
    "bert32": [("bert@bf16w", "float32", 1e-3)],
}


def round_weights_to_bf16(model):
    """Rounds every float32 initializer to the nearest bfloat16-representable float32 (ties to
    even): the low 16 bits become zero."""
    from onnx import numpy_helper
    for i, t in enumerate(model.graph.initializer):
        a = numpy_helper.to_array(t)
        if a.dtype != np.float32:
            continue
        u = a.astype(np.float32).view(np.uint32).astype(np.uint64)
        u = (u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000
        model.graph.initializer[i].CopyFrom(
            numpy_helper.from_array(u.astype(np.uint32).view(np.float32), t.name))
    return model


def gemm_model(path, n):
    """y = a @ b, float16 [n, n] inputs (no constants: the device makes the inputs)."""
    from onnx import TensorProto, helper
    g = helper.make_graph(
        [helper.make_node("MatMul", ["a", "b"], ["y"], name="gemm")], "gemm_f16",
        [helper.make_tensor_value_info(k, TensorProto.FLOAT16, [n, n]) for k in ("a", "b")],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT16, [n, n])])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path)


def compile_model(ingot, path, artifact, target, dtype, shapes):
    cmd = [ingot, "compile", path, "-o", artifact, "--target", target, "--dtype", dtype]
    if shapes:
        cmd += ["--input-shapes", shapes]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"prepare: compiling {path} failed: {p.stderr.strip()}")
    return " | ".join(p.stdout.strip().splitlines())


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ingot", required=True)
    ap.add_argument("--runner", required=True)
    ap.add_argument("--set", default="small", choices=sorted(SETS))
    ap.add_argument("--out", default=".device/gpu")
    ap.add_argument("--target", default="cuda -arch=sm_90")
    ap.add_argument("--gemm-n", type=int, default=4096)
    ap.add_argument("--models", default=os.path.join(".cache", "gpu_bench_models"),
                    help="where the ONNX models are built (not carried)")
    args = ap.parse_args(argv)
    if os.path.exists(args.out):
        shutil.rmtree(args.out)
    os.makedirs(args.out)
    os.makedirs(args.models, exist_ok=True)
    shutil.copy(args.runner, os.path.join(args.out, "ingot_run_lite"))
    entries = []
    if args.set in ("small", "check"):
        path = os.path.join(args.models, f"gemm_f16_{args.gemm_n}.onnx")
        gemm_model(path, args.gemm_n)
        art = os.path.join(args.out, "gemm_f16.so")
        log = compile_model(args.ingot, path, art, args.target, "float32", "")
        entries.append({"name": f"gemm_f16_{args.gemm_n}", "artifact": "gemm_f16.so",
                        "gemm_n": args.gemm_n, "flops": 2.0 * args.gemm_n ** 3,
                        "compile": log})
    for name, dtype, tol in SETS[args.set]:
        base, _, variant = name.partition("@")
        path = os.path.join(args.models, f"{base}.onnx")
        if not os.path.exists(path):
            make_models.main([args.models, "--models", base])
        model = onnx.load(path)
        if variant == "bf16w":
            name = f"{base}_bf16w"
            path = os.path.join(args.models, f"{name}.onnx")
            onnx.save(round_weights_to_bf16(model), path)
        feeds = make_models.make_inputs(model)
        sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        names = [o.name for o in sess.get_outputs()]
        refs = sess.run(None, feeds)
        tag = f"{name}.{dtype}"
        art = f"{tag}.so"
        log = compile_model(args.ingot, path, os.path.join(args.out, art), args.target, dtype,
                            parity.input_shapes_arg(model, feeds))
        inputs, outputs = [], []
        for i, (k, v) in enumerate(feeds.items()):
            f = f"{tag}.in{i}.npy"
            np.save(os.path.join(args.out, f), v)
            inputs.append({"name": k, "file": f})
        for i, (k, v) in enumerate(zip(names, refs)):
            f = f"{tag}.ref{i}.npy"
            np.save(os.path.join(args.out, f), v)
            outputs.append({"name": k, "file": f})
        entries.append({"name": tag, "artifact": art, "inputs": inputs, "refs": outputs,
                        "tol": tol, "compile": log})
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        json.dump({"target": args.target, "set": args.set, "entries": entries}, f, indent=1)
    total = sum(os.path.getsize(os.path.join(args.out, x)) for x in os.listdir(args.out))
    if total > 60 * 2**20:
        # Random weights compress little, but float16's exponents do: BERT's 60 MiB fits as xz.
        # run.sh decompresses on the device.
        for x in sorted(os.listdir(args.out)):
            if x.endswith(".so"):
                src = os.path.join(args.out, x)
                with open(src, "rb") as f, lzma.open(src + ".xz", "wb", preset=6) as g:
                    shutil.copyfileobj(f, g)
                os.remove(src)
        total = sum(os.path.getsize(os.path.join(args.out, x)) for x in os.listdir(args.out))
    print(f"prepared {len(entries)} runs in {args.out}: {total / 2**20:.1f} MiB")
    if total > 60 * 2**20:
        sys.exit(f"prepare: {args.out} holds {total / 2**20:.1f} MiB, more than the device call "
                 "can carry (64 MiB with the working tree)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
