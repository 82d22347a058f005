#!/usr/bin/env python3
"""ctest wrapper: the AVX2 code path (8-lane channel blocks, 6-row ymm micro-kernel tiles and
their tail tiles) against ONNX Runtime on the small conv models, on any x86-64 host with AVX2 and
FMA. `--target "llvm -mcpu=x86-64-v3"` gives AVX2 code that runs on AVX-512 CPUs too, so an
AVX-512 machine still tests this path. Exits 77 (ctest SKIP) on hosts without AVX2/FMA."""
import argparse
import os
import platform
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))
import parity  # noqa: E402


def host_has_avx2_fma():
    if platform.machine() != "x86_64":
        return False
    with open("/proc/cpuinfo") as f:
        flags = next((line.split(":", 1)[1].split() for line in f if line.startswith("flags")), [])
    return "avx2" in flags and "fma" in flags


ap = argparse.ArgumentParser()
ap.add_argument("--ingot", required=True)
args = ap.parse_args()
if not host_has_avx2_fma():
    print("SKIP: needs an x86-64 host with AVX2 and FMA")
    sys.exit(77)
models = os.environ.get("INGOT_AVX2_PARITY_MODELS",
                        "tiny_cnn,tiny_mobilenet,conv_odd,conv_chain_odd,grouped_convs,gemm_odd,tiny_bert")
sys.exit(parity.main(["--ingot", args.ingot, "--models", models, "--workdir", "parity_models_avx2",
                      "--target", "llvm -mcpu=x86-64-v3"]))
