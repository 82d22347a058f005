#!/usr/bin/env python3
"""ctest wrapper: ingot vs ONNX Runtime on the small and the full-size parity models, then the
small models (blocked 1-3-D, grouped and branchy convs, pooling and Concat, matmuls) again for the
portable AVX2 target x86-64-v3 (8-lane channel blocks and the AVX2 micro-kernel; the host target
gives 16-lane blocks on AVX-512), where the host runs AVX2 code.
INGOT_PARITY_MODELS / INGOT_PARITY_AVX2_MODELS override the two lists. For the batch-1 branchy
models, `ingot run --profile` must list no Concat kernel and no NCHW pooling kernel."""
import argparse
import os
import platform
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))
import parity  # noqa: E402
from work_dirs import work_dir  # noqa: E402

AVX2_TARGET = "llvm -mcpu=x86-64-v3"


def host_runs_avx2():
    """x86-64-v3 code needs AVX2, FMA, BMI1/2, F16C, MOVBE, LZCNT on the host."""
    if platform.machine() != "x86_64":
        return False
    try:
        with open("/proc/cpuinfo") as f:
            flags = next((l.split(":", 1)[1].split() for l in f if l.startswith("flags")), [])
    except OSError:
        return False
    return {"avx2", "fma", "bmi1", "bmi2", "f16c", "movbe", "abm"} <= set(flags)


def kernels_without_copies(ingot, artifact):
    """Kernel names of `ingot run --profile` that a blocked, in-place Concat graph must not have:
    Concat kernels and NCHW MaxPool / AveragePool kernels."""
    p = subprocess.run([ingot, "run", artifact, "--profile", "--num-threads", "1"],
                       capture_output=True, text=True)
    if p.returncode != 0:
        return [f"(run failed: {p.stderr.strip()})"]
    names = [line.split()[0] for line in p.stdout.splitlines()[2:] if len(line.split()) == 5]
    return [n for n in names if n.endswith(("_Concat", "_MaxPool", "_AveragePool"))]


ap = argparse.ArgumentParser()
ap.add_argument("--ingot", required=True)
args = ap.parse_args()
models = os.environ.get("INGOT_PARITY_MODELS",
                        "tiny_cnn,tiny_mobilenet,tiny_bert,gemm_odd,conv_odd,conv_chain_odd,"
                        "grouped_convs,depthwise_odd,aspp_tiny,se_tiny,conv3d_odd,conv1d_odd,"
                        "inception_tiny,densenet_tiny,squeezenet_tiny,resnet50,mobilenetv2,bert")
avx2_models = os.environ.get("INGOT_PARITY_AVX2_MODELS",
                             "tiny_cnn,tiny_mobilenet,tiny_bert,gemm_odd,conv_odd,conv_chain_odd,"
                             "grouped_convs,depthwise_odd,aspp_tiny,se_tiny,conv3d_odd,"
                             "conv1d_odd,inception_tiny,densenet_tiny,squeezenet_tiny")
work = work_dir(args.ingot, "parity_models")
rc = parity.main(["--ingot", args.ingot, "--models", models, "--workdir", work])
artifacts = [f"{m}.so" for m in ("inception_tiny", "densenet_tiny") if m in models.split(",")]
avx2_skipped = not host_runs_avx2()  # a partial run is a SKIP (77), not a pass
if not avx2_skipped:
    rc |= parity.main(["--ingot", args.ingot, "--models", avx2_models, "--workdir", work,
                       "--target", AVX2_TARGET])
    artifacts += [f"{m}{parity.target_tag(AVX2_TARGET)}.so"
                  for m in ("inception_tiny", "densenet_tiny") if m in avx2_models.split(",")]
for a in artifacts:
    extra = kernels_without_copies(args.ingot, os.path.join(work, a))
    print(f"{'FAIL' if extra else 'PASS'} {a}: no Concat or NCHW pooling kernel"
          f"{': has ' + ', '.join(extra) if extra else ''}")
    rc |= 1 if extra else 0
if avx2_skipped:
    print(f"SKIP {AVX2_TARGET} parity: the host cannot run its code (needs x86-64 with AVX2)")
    rc = rc or 77
sys.exit(rc)
