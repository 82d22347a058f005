#!/usr/bin/env python3
"""Compares ingot with ONNX Runtime on real architectures exported by export_models.py.

Each model is exported (random weights, cached in --workdir) with its seeded inputs, then checked
by parity.check_model: `ingot compile` + `ingot run`, every output within rel_err <= --tol of ORT.
Models whose packages (torch/torchvision/transformers) are not installed are skipped.

Usage: real_model_parity.py --ingot PATH [--models resnet18,mobilenet_v2,...] [--workdir DIR]
       [--tol 1e-3] [--threads N]
Exit status: 1 if any model fails to export, compile, run or match; 77 if every model was
skipped; else 0.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import export_models  # noqa: E402
import parity  # noqa: E402

SKIP_RC = 77


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ingot", required=True)
    ap.add_argument("--models", default=",".join(export_models.MODELS))
    ap.add_argument("--workdir", default="exported_models")
    ap.add_argument("--tol", type=float, default=1e-3)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    args = ap.parse_args(argv)
    os.makedirs(args.workdir, exist_ok=True)
    passed = failed = skipped = 0
    for name in args.models.split(","):
        if not export_models.available(name):
            skipped += 1
            print(f"SKIP {name}: torch/torchvision/transformers not installed", flush=True)
            continue
        try:
            path, inputs = export_models.export(name, args.workdir)
        except Exception as e:
            failed += 1
            print(f"FAIL {name}: export failed: {type(e).__name__}: {e}", flush=True)
            continue
        ok, msg = parity.check_model(name, args.ingot, args.workdir, args.tol, args.threads,
                                     path=path, feeds=export_models.load_inputs(inputs))
        passed += ok
        failed += not ok
        print(f"{'PASS' if ok else 'FAIL'} {name}: {msg}", flush=True)
    print(f"real-model parity: {passed} passed, {failed} failed, {skipped} skipped")
    if failed:
        return 1
    return SKIP_RC if passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
