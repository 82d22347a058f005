#!/usr/bin/env python3
"""int8_step_check: the statically quantized models of a bench/model_bench.py run (its --workdir
holds NAME.onnx, NAME.so and NAME.inputs.npz) against ONNX Runtime's int8 outputs, per element in
quantization steps of the output's DequantizeLinear scale, and their top-1 classes. The issue's
bar: within 2 steps, top-1 equal. Prints one line per model; exits 1 if one misses the bar.

  python3 bench/int8_step_check.py --ingot build/ci/tools/ingot/ingot --workdir /tmp/mb \
      --models resnet50.qdq,resnet50.qdqraw,mobilenetv2.qdq,mobilenetv2.qdqraw
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import onnxruntime as ort
from onnx import numpy_helper


def output_step(model):
    """The scale of the DequantizeLinear that produces the first graph output (through unary
    nodes such as Flatten), or None."""
    producer = {o: n for n in model.graph.node for o in n.output}
    inits = {i.name: i for i in model.graph.initializer}
    node = producer.get(model.graph.output[0].name)
    while node is not None:
        if node.op_type == "DequantizeLinear":
            return float(numpy_helper.to_array(inits[node.input[1]]).reshape(-1)[0])
        node = producer.get(node.input[0])
    return None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ingot", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--models", required=True, help="comma-separated NAME.qdq / NAME.qdqraw")
    ap.add_argument("--max-steps", type=float, default=2.0)
    args = ap.parse_args(argv)
    failed = 0
    for name in args.models.split(","):
        base = os.path.join(args.workdir, name)
        model = onnx.load(base + ".onnx")
        step = output_step(model)
        feeds = dict(np.load(base + ".inputs.npz"))
        ref = ort.InferenceSession(base + ".onnx").run(None, feeds)[0]
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "out.npz")
            subprocess.run([args.ingot, "run", base + ".so", "--inputs", base + ".inputs.npz",
                            "--outputs", out], check=True, capture_output=True)
            got = list(np.load(out).values())[0]
        diff = float(np.abs(got.astype(np.float64) - ref.astype(np.float64)).max())
        steps = diff / step if step else float("inf")
        top1 = bool((got.argmax(-1) == ref.argmax(-1)).all())
        ok = steps <= args.max_steps * 1.0001 and top1
        failed += not ok
        print(f"{name}: max |d| {diff:.6g} = {steps:.4f} steps of {step:.6g}; top-1 "
              f"{'equal' if top1 else 'DIFFERS'}; {'ok' if ok else 'FAILED'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
