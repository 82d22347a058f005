"""ort_quant: ONNX Runtime's own quantized forms of a float32 decoder, for bench/decoder_bench.py.

ingot's `--quantize-weights int8|int4 --group-size 128` quantizes the constant B of every
MatMul/Gemm (and a tied embedding) symmetrically, one scale per 128 weights along K. ORT's
matching paths, each written next to the model as MODEL.ort_KIND.onnx:
  dynamic  onnxruntime.quantization.quantize_dynamic: int8 weights (QInt8, symmetric, one scale
           per output column: per_channel=True), activations quantized to uint8 at run time
           (MatMulInteger); ORT's classic int8 CPU path. No block size exists for it.
  nbits8   MatMulNBits, 8 bits, block_size 128 along K, is_symmetric=True (the RTN quantizer of
           onnxruntime.quantization.matmul_nbits_quantizer): ingot int8's weight scheme.
  nbits4   MatMulNBits, 4 bits, block_size 128, is_symmetric=True: ingot int4's weight scheme.
MatMulNBits runs at accuracy_level 4 by default (ACCURACY_LEVEL): ORT quantizes the activations
to int8 per block and multiplies in integers, its fast CPU path. At level 0 (float32
activations, as ingot keeps them) ORT 1.32 has no fast 8-bit kernel: a Llama-shaped decode step
took 390 ms at 8 bits against 17 ms at level 4 (20 and 12 ms at 4 bits) on the 2-vCPU AMD
EPYC machine of docs/perf.md Table 7 (load average 8). `make(..., accuracy_level=0)` builds the
level-0 models.
ORT's quantizers only take a MatMul whose B is an initializer, so the float32 model is first
rewritten without changing its function (`prepare`): a Gemm with a constant B (alpha = beta = 1,
transA = 0) becomes MatMul (+ Add of its C), and a MatMul reading Transpose(W) of a constant W
(GPT-2's LM head tied to the token embedding) reads a transposed copy of W. The Gather of the
embedding still reads the float32 table (one row per token).
"""
import os

import onnx
from onnx import helper, numpy_helper

KINDS = ("dynamic", "nbits8", "nbits4")
BLOCK = 128
ACCURACY_LEVEL = 4


def prepare(model):
    """Rewrites Gemm-with-constant-B and MatMul-of-a-constant's-Transpose into MatMuls of
    initializers (see the module docstring) -> the number of nodes rewritten."""
    g = model.graph
    inits = {t.name: t for t in g.initializer}
    producer = {o: n for n in g.node for o in n.output}
    nodes, changed = [], 0
    for n in g.node:
        attrs = {a.name: helper.get_attribute_value(a) for a in n.attribute}
        if n.op_type == "Gemm" and n.input[1] in inits and attrs.get("transA", 0) == 0 \
                and attrs.get("alpha", 1.0) == 1.0 and attrs.get("beta", 1.0) == 1.0:
            b = n.input[1]
            if attrs.get("transB", 0):
                w = numpy_helper.to_array(inits[b]).T.copy()
                b = f"{n.input[1]}.T"
                g.initializer.append(numpy_helper.from_array(w, b))
                inits[b] = g.initializer[-1]
            has_c = len(n.input) > 2 and n.input[2]
            mm_out = f"{n.output[0]}.mm" if has_c else n.output[0]
            nodes.append(helper.make_node("MatMul", [n.input[0], b], [mm_out], name=n.name))
            if has_c:
                nodes.append(helper.make_node("Add", [mm_out, n.input[2]], [n.output[0]],
                                              name=f"{n.name}.bias"))
            changed += 1
            continue
        if n.op_type == "MatMul" and n.input[1] in producer:
            t = producer[n.input[1]]
            perm = {a.name: helper.get_attribute_value(a) for a in t.attribute}.get("perm")
            if t.op_type == "Transpose" and t.input[0] in inits and list(perm or []) == [1, 0]:
                name = f"{t.input[0]}.T"
                if name not in inits:
                    w = numpy_helper.to_array(inits[t.input[0]]).T.copy()
                    g.initializer.append(numpy_helper.from_array(w, name))
                    inits[name] = g.initializer[-1]
                n.input[1] = name
                changed += 1
        nodes.append(n)
    del g.node[:]
    g.node.extend(nodes)
    used = {i for n in g.node for i in n.input} | {o.name for o in g.output}
    kept = [t for t in g.initializer if t.name in used]  # the Transposes' sources may go
    del g.initializer[:]
    g.initializer.extend(kept)
    return changed


def quantized_path(model_path, kind, accuracy_level=ACCURACY_LEVEL):
    level = f"_acc{accuracy_level}" if kind.startswith("nbits") else ""
    return f"{os.path.splitext(model_path)[0]}.ort_{kind}{level}.onnx"


def make(model_path, kind, accuracy_level=ACCURACY_LEVEL, force=False):
    """MODEL.ort_KIND[_accL].onnx for kind in KINDS (made unless present and newer than the
    model) -> its path."""
    out = quantized_path(model_path, kind, accuracy_level)
    if not force and os.path.exists(out) and os.path.getmtime(out) >= os.path.getmtime(model_path):
        return out
    import logging
    logging.getLogger("onnxruntime.quantization").setLevel(logging.WARNING)
    model = onnx.load(model_path)
    prepare(model)
    tmp = out + ".tmp"
    if kind == "dynamic":
        from onnxruntime.quantization import QuantType, quantize_dynamic
        prep = out + ".prep.onnx"
        onnx.save(model, prep)
        try:
            quantize_dynamic(prep, tmp, weight_type=QuantType.QInt8, per_channel=True,
                             op_types_to_quantize=["MatMul"])
        finally:
            os.remove(prep)
    elif kind in ("nbits8", "nbits4"):
        from onnxruntime.quantization.matmul_nbits_quantizer import (
            DefaultWeightOnlyQuantConfig, MatMulNBitsQuantizer)
        bits = int(kind[-1])
        cfg = DefaultWeightOnlyQuantConfig(block_size=BLOCK, is_symmetric=True, bits=bits,
                                           accuracy_level=accuracy_level)
        q = MatMulNBitsQuantizer(model, bits=bits, block_size=BLOCK, is_symmetric=True,
                                 accuracy_level=accuracy_level, algo_config=cfg)
        q.process()
        q.model.save_model_to_file(tmp, False)
    else:
        raise ValueError(f"unknown ORT quantization '{kind}' (one of {', '.join(KINDS)})")
    os.replace(tmp, out)
    return out


def count_ops(path, ops=("MatMul", "MatMulInteger", "MatMulNBits", "Gemm")):
    """{op: count} of the model's nodes, for the bench's record."""
    m = onnx.load(path, load_external_data=False)
    return {op: sum(n.op_type == op for n in m.graph.node) for op in ops}


if __name__ == "__main__":  # ort_quant.py MODEL.onnx [KIND ...]: make them
    import sys
    for k in sys.argv[2:] or KINDS:
        p = make(sys.argv[1], k)
        print(p, count_ops(p))
