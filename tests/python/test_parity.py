#!/usr/bin/env python3
"""ctest wrapper: ingot vs ONNX Runtime on the small and the full-size parity models, and on the
blocked-convolution models compiled for AVX2 (-mcpu=znver3: 8-lane channel blocks, the AVX2
micro-kernel) where the host can run AVX2 + FMA code."""
import argparse
import os
import platform
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))
import parity  # noqa: E402

AVX2_TARGET = "llvm -mcpu=znver3"


def host_runs_avx2():
    if platform.machine() != "x86_64":
        return False
    try:
        with open("/proc/cpuinfo") as f:
            flags = next((l.split(":", 1)[1].split() for l in f if l.startswith("flags")), [])
    except OSError:
        return False
    return "avx2" in flags and "fma" in flags


ap = argparse.ArgumentParser()
ap.add_argument("--ingot", required=True)
args = ap.parse_args()
models = os.environ.get("INGOT_PARITY_MODELS",
                        "tiny_cnn,tiny_mobilenet,tiny_bert,gemm_odd,conv_odd,conv_chain_odd,grouped_convs,"
                        "conv3d_odd,conv1d_odd,resnet50,mobilenetv2,bert")
avx2_models = os.environ.get("INGOT_PARITY_AVX2_MODELS",
                             "tiny_cnn,tiny_mobilenet,tiny_bert,gemm_odd,conv_odd,conv_chain_odd,"
                             "grouped_convs,conv3d_odd,conv1d_odd")
rc = parity.main(["--ingot", args.ingot, "--models", models, "--workdir", "parity_models"])
if avx2_models and host_runs_avx2():
    rc |= parity.main(["--ingot", args.ingot, "--models", avx2_models, "--workdir",
                       "parity_models", "--target", AVX2_TARGET])
elif avx2_models:
    print(f"SKIP the {AVX2_TARGET} models: the host cannot run AVX2 + FMA code")
sys.exit(rc)
