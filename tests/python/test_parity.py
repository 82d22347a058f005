#!/usr/bin/env python3
"""ctest wrapper: ingot vs ONNX Runtime on the small and the full-size parity models."""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))
import parity  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--ingot", required=True)
args = ap.parse_args()
models = os.environ.get("INGOT_PARITY_MODELS",
                        "tiny_cnn,tiny_mobilenet,tiny_bert,gemm_odd,conv_odd,conv_chain_odd,grouped_convs,resnet50,mobilenetv2,bert")
sys.exit(parity.main(["--ingot", args.ingot, "--models", models, "--workdir", "parity_models"]))
