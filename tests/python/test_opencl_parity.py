#!/usr/bin/env python3
"""ctest wrapper: the parity models compiled with `--target opencl` (the GPU lowering and its
default GPU schedules) and run through the runtime's OpenCL device (PoCL's CPU device in CI),
against ONNX Runtime at rel_err 1e-4: the small parity models and ResNet-50, MobileNetV2 and
BERT-base, one timed run each. INGOT_OPENCL_PARITY_MODELS overrides the list."""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))
import parity  # noqa: E402
from work_dirs import work_dir  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--ingot", required=True)
args = ap.parse_args()
models = os.environ.get("INGOT_OPENCL_PARITY_MODELS",
                        "tiny_cnn,tiny_mobilenet,tiny_bert,gemm_odd,conv_odd,conv_chain_odd,"
                        "grouped_convs,depthwise_odd,aspp_tiny,se_tiny,conv3d_odd,conv1d_odd,"
                        "inception_tiny,densenet_tiny,squeezenet_tiny,resnet50,mobilenetv2,bert")
sys.exit(parity.main(["--ingot", args.ingot, "--models", models, "--workdir",
                      work_dir(args.ingot, "opencl_parity_models"), "--target", "opencl",
                      "--tol", "1e-4", "--repeat", "1"]))
