"""The benchmarks' model names: an .onnx path, a make_models.py name (built into the work dir)
or an export_models.py name (exported into the work dir when torch & co. are installed)."""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))


def dynamic_quantized(path, workdir):
    """`path` quantized by onnxruntime.quantization.quantize_dynamic (int8 weights per output
    channel, uint8 activations quantized at run time: DynamicQuantizeLinear + MatMulInteger),
    written as <stem>.dyn.onnx in workdir (again when the float model is newer)."""
    out = os.path.join(workdir, os.path.splitext(os.path.basename(path))[0] + ".dyn.onnx")
    if not os.path.exists(out) or os.path.getmtime(out) < os.path.getmtime(path):
        from onnxruntime.quantization import QuantType, quantize_dynamic
        quantize_dynamic(path, out, weight_type=QuantType.QInt8, per_channel=True)
    return out


def static_quantized(path, workdir, pre_process=True):
    """`path` pre-processed (onnxruntime.quantization.quant_pre_process: shapes, batch norm
    folded; not with pre_process=False) and quantized by quantize_static in the QDQ format (int8
    weights per output channel, uint8 activations, scales calibrated on 8 random inputs from
    make_models.make_inputs), written as <stem>.qdq.onnx (<stem>.qdqraw.onnx) in workdir (again
    when the float model is newer)."""
    suffix = ".qdq.onnx" if pre_process else ".qdqraw.onnx"
    out = os.path.join(workdir, os.path.splitext(os.path.basename(path))[0] + suffix)
    if os.path.exists(out) and os.path.getmtime(out) >= os.path.getmtime(path):
        return out
    import onnx
    from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType,
                                          quantize_static)
    from onnxruntime.quantization.shape_inference import quant_pre_process
    import make_models
    pre = out[:-len(suffix)] + ".pre.onnx"
    if pre_process:
        quant_pre_process(path, pre)
    else:
        pre = path
    model = onnx.load(pre)

    class Calibration(CalibrationDataReader):
        def __init__(self):
            self.it = iter([make_models.make_inputs(model, seed=s) for s in range(8)])

        def get_next(self):
            return next(self.it, None)

    quantize_static(pre, out, Calibration(), quant_format=QuantFormat.QDQ,
                    activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                    per_channel=True)
    return out


def model_path(name, workdir):
    """The .onnx for `name` (made or exported into workdir), or None when it cannot be made.
    NAME.dyn: that model dynamically quantized (dynamic_quantized); NAME.qdq: statically, in the
    QDQ format (static_quantized); NAME.qdqraw: the same without quant_pre_process (batch norms
    left in); NAME.bf16: NAME itself
    (compiled with --dtype bfloat16 by model_bench, run by ORT in float32)."""
    if name.endswith(".onnx"):
        return name
    if name.endswith(".bf16"):
        return model_path(name[:-5], workdir)
    if name.endswith(".dyn"):
        base = model_path(name[:-4], workdir)
        return None if base is None else dynamic_quantized(base, workdir)
    if name.endswith(".qdq"):
        base = model_path(name[:-4], workdir)
        return None if base is None else static_quantized(base, workdir)
    if name.endswith(".qdqraw"):
        base = model_path(name[:-7], workdir)
        return None if base is None else static_quantized(base, workdir, pre_process=False)
    path = os.path.join(workdir, f"{name}.onnx")
    if os.path.exists(path):
        return path
    import make_models
    if name in make_models.MODELS:
        make_models.main([workdir, "--models", name])
        return path
    import export_models
    if name in export_models.MODELS:
        if not export_models.available(name):
            print(f"SKIP {name}: torch/torchvision/transformers not installed", flush=True)
            return None
        return export_models.export(name, workdir)[0]
    sys.exit(f"error: unknown model '{name}' (not an .onnx path or a known name)")
