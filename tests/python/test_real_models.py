#!/usr/bin/env python3
"""ctest wrapper: ingot vs ONNX Runtime on real architectures exported from PyTorch.

Exports the small models with random weights (scripts/export_models.py; needs torch +
torchvision, and transformers for the BERT/GPT-2 ones) and checks them with
scripts/real_model_parity.py. Exits 77 (ctest SKIP) when any model is skipped for a missing
package (even if the others pass: a partial run is not a pass), 1 when any fails.
INGOT_REAL_MODELS overrides the model list (e.g. add resnet50,efficientnet_b0,vit_b_16).
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))
import export_models  # noqa: E402
import real_model_parity  # noqa: E402
from work_dirs import work_dir  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--ingot", required=True)
args = ap.parse_args()
models = os.environ.get("INGOT_REAL_MODELS", ",".join(export_models.SMALL_MODELS))
sys.exit(real_model_parity.main(["--ingot", args.ingot, "--models", models,
                                 "--workdir", work_dir(args.ingot, "real_models")]))
