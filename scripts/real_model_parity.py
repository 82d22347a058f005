#!/usr/bin/env python3
"""Compares ingot with ONNX Runtime on real architectures exported by export_models.py.

Each model is exported (random weights, cached in --workdir) with its seeded inputs, then checked
by parity.check_model: `ingot compile` + `ingot run`, every output within rel_err <= --tol of ORT.
Models whose packages (torch/torchvision/transformers) are not installed are skipped.

Usage: real_model_parity.py --ingot PATH [--models resnet18,mobilenet_v2,...] [--workdir DIR]
       [--tol 1e-3] [--threads N]
Exit status (exit_status()): 1 if any model fails to export, compile, run or match; else 77
(ctest's SKIP, tests/CMakeLists.txt) if any requested model was skipped, even when the others
passed, with the skipped names printed; 0 only when every requested model passed. A partial run
is never reported as a pass.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import export_models  # noqa: E402
import parity  # noqa: E402

SKIP_RC = 77


def exit_status(passed, failed, skipped):
    """The exit status for lists of model names that passed, failed and were skipped:
    1 on any failure; SKIP_RC when any model was skipped (or none was requested); else 0."""
    if failed:
        return 1
    if skipped or not passed:
        return SKIP_RC
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ingot", required=True)
    ap.add_argument("--models", default=",".join(export_models.MODELS))
    ap.add_argument("--workdir", default="exported_models")
    ap.add_argument("--tol", type=float, default=1e-3)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    args = ap.parse_args(argv)
    os.makedirs(args.workdir, exist_ok=True)
    passed, failed, skipped = [], [], []
    for name in args.models.split(","):
        if not export_models.available(name):
            skipped.append(name)
            need = "torch + transformers" if name in export_models.TRANSFORMERS_MODELS \
                else "torch + torchvision"
            print(f"SKIP {name}: needs {need}, not installed", flush=True)
            continue
        try:
            path, inputs = export_models.export(name, args.workdir)
        except Exception as e:
            failed.append(name)
            print(f"FAIL {name}: export failed: {type(e).__name__}: {e}", flush=True)
            continue
        ok, msg = parity.check_model(name, args.ingot, args.workdir, args.tol, args.threads,
                                     path=path, feeds=export_models.load_inputs(inputs))
        (passed if ok else failed).append(name)
        print(f"{'PASS' if ok else 'FAIL'} {name}: {msg}", flush=True)
    print(f"real-model parity: {len(passed)} passed, {len(failed)} failed, "
          f"{len(skipped)} skipped")
    rc = exit_status(passed, failed, skipped)
    if rc == SKIP_RC and skipped:
        print(f"real-model parity: SKIP (exit {SKIP_RC}): not run: {', '.join(skipped)}")
    return rc


if __name__ == "__main__":
    sys.exit(main())
