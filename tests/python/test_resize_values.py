#!/usr/bin/env python3
"""ctest wrapper: Resize with its scales, sizes or roi given at run time (value symbols, issue 17)
against ONNX Runtime.

Each model is compiled once, without --specialize-inputs, and run with several values: the
artifact computes the resized dims from them before each run and the kernel reads them, so one
artifact upsamples, downsamples and leaves dims alone. Covered:
  - scales for every dim, in the interpolation modes models use (nearest with four rounding
    rules, linear and cubic in several coordinate transforms, exclude_outside, antialias), a
    symbolic batch among them; the resized tensor feeds an elementwise and a reduction kernel;
  - sizes for two axes with each keep_aspect_ratio_policy;
  - tf_crop_and_resize with run-time roi and sizes, extrapolating outside it;
  - uint8 data (rounded and saturated);
  - (align_corners and pytorch_half_pixel get scales whose output widths are whole: there ONNX
    Runtime reads the integer output length where the ONNX reference, whose test data ingot
    matches, reads the fractional `scale * length`);
  - a scale of 0 and a negative size refused with one line naming the dim.

Prints one line per check and `N passed, N failed`; exits 1 on a failure.
"""
import argparse
import os
import sys
import tempfile

import numpy as np
from onnx import TensorProto, helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ort_check import compile_model, mismatches, record, refused, summary  # noqa: E402


def resize_model(inputs, attrs, x_shape, dtype=TensorProto.FLOAT, axes_len=None):
    """y = Resize(x, roi?, scales?, sizes?) * 2 and m = ReduceMean(y, [2, 3]) (float only);
    `inputs` names which of roi / scales / sizes are graph inputs."""
    k = axes_len if axes_len is not None else len(x_shape)
    args = ["x"] + [name if name in inputs else "" for name in ("roi", "scales", "sizes")]
    while args[-1] == "":
        args.pop()
    nodes = [helper.make_node("Resize", args, ["r"], **attrs)]
    outputs = [helper.make_tensor_value_info("y", dtype, None)]
    if dtype == TensorProto.FLOAT:
        nodes += [helper.make_node("Mul", ["r", "two"], ["y"]),
                  helper.make_node("ReduceMean", ["y", "hw"], ["m"])]
        outputs.append(helper.make_tensor_value_info("m", dtype, None))
        inits = [helper.make_tensor("two", TensorProto.FLOAT, [], [2.0]),
                 helper.make_tensor("hw", TensorProto.INT64, [2], [2, 3])]
    else:
        nodes += [helper.make_node("Identity", ["r"], ["y"])]
        inits = []
    graph_inputs = [helper.make_tensor_value_info("x", dtype, x_shape)]
    sizes = {"roi": (TensorProto.FLOAT, [2 * k]), "scales": (TensorProto.FLOAT, [k]),
             "sizes": (TensorProto.INT64, [k])}
    for name in ("roi", "scales", "sizes"):
        if name in inputs:
            graph_inputs.append(helper.make_tensor_value_info(name, *sizes[name]))
    g = helper.make_graph(nodes, "g", graph_inputs, outputs, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    m.ir_version = 8
    return m


def session(m):
    import onnxruntime as ort
    return ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])


def check_scales(exe, tmp, rng):
    modes = [
        {"mode": "nearest"},
        {"mode": "nearest", "coordinate_transformation_mode": "asymmetric", "nearest_mode": "floor"},
        {"mode": "nearest", "coordinate_transformation_mode": "align_corners",
         "nearest_mode": "ceil"},
        {"mode": "nearest", "nearest_mode": "round_prefer_ceil"},
        {"mode": "linear"},
        {"mode": "linear", "coordinate_transformation_mode": "align_corners"},
        {"mode": "linear", "coordinate_transformation_mode": "pytorch_half_pixel"},
        {"mode": "cubic"},
        {"mode": "cubic", "coordinate_transformation_mode": "asymmetric", "cubic_coeff_a": -0.5,
         "exclude_outside": 1},
        {"mode": "linear", "antialias": 1},
        {"mode": "cubic", "antialias": 1},
    ]
    scale_sets = [[1, 1, 2, 2], [1, 1, 0.5, 0.5], [1, 1, 1.5, 0.75], [1, 1, 1, 3], [1, 1, 1, 1],
                  [1, 2, 1, 1], [1, 1, 0.25, 1.25]]
    # align_corners and pytorch_half_pixel read the output width: the ONNX reference (and ingot)
    # its fractional `scale * length`, ONNX Runtime the integer length. They agree where
    # the product is whole, so those modes get such scales.
    whole_sets = [[1, 1, 2, 2], [1, 1, 0.4, 0.5], [1, 1, 1.6, 1.5], [1, 1, 1, 3], [1, 1, 1, 1],
                  [1, 2, 1, 1], [1, 1, 3, 0.5]]
    for i, attrs in enumerate(modes):
        what = ", ".join(f"{k}={v}" for k, v in attrs.items())
        batch = "N" if i % 3 == 0 else 2
        extra = ["--dim-bounds", "N:1..4"] if batch == "N" else []
        m = resize_model(["scales"], attrs, [batch, 2, 5, 6])
        art = compile_model(exe, m, os.path.join(tmp, f"scales_{i}.onnx"),
                            f"Resize ({what}; scales at run time, batch {batch})", extra)
        if art is None:
            continue
        feeds = []
        whole = attrs.get("coordinate_transformation_mode") in ("align_corners",
                                                               "pytorch_half_pixel")
        for j, s in enumerate(whole_sets if whole else scale_sets):
            n = 1 + j % 3 if batch == "N" else 2
            feeds.append({"x": rng.standard_normal((n, 2, 5, 6)).astype(np.float32),
                          "scales": np.array(s, np.float32)})
        bad = mismatches(exe, art, session(m), feeds, tmp,
                         lambda f: f"x {list(f['x'].shape)} scales {f['scales'].tolist()}")
        record(f"Resize ({what}): {len(feeds)} scale sets on one artifact match ONNX Runtime",
               not bad, "; ".join(bad))
        if i == 0:
            ok, err = refused(exe, art, {"x": feeds[0]["x"],
                                         "scales": np.array([1, 1, 0, 1], np.float32)},
                              tmp, "'r.v2'")
            record("Resize with a scale of 0 refused with one line naming the dim", ok, err)


def check_sizes(exe, tmp, rng):
    size_sets = [[10, 12], [3, 4], [5, 6], [1, 1], [7, 2], [2, 9]]
    for policy in ("stretch", "not_larger", "not_smaller"):
        for mode in ("nearest", "linear"):
            attrs = {"mode": mode, "axes": [2, 3], "keep_aspect_ratio_policy": policy}
            m = resize_model(["sizes"], attrs, [1, 3, 5, 6], axes_len=2)
            art = compile_model(exe, m, os.path.join(tmp, f"sizes_{policy}_{mode}.onnx"),
                                f"Resize ({mode}, {policy}; sizes of axes 2, 3 at run time)")
            if art is None:
                continue
            x = rng.standard_normal((1, 3, 5, 6)).astype(np.float32)
            feeds = [{"x": x, "sizes": np.array(s, np.int64)} for s in size_sets]
            bad = mismatches(exe, art, session(m), feeds, tmp,
                             lambda f: f"sizes {f['sizes'].tolist()}")
            record(f"Resize ({mode}, {policy}): {len(feeds)} size sets on one artifact match "
                   "ONNX Runtime", not bad, "; ".join(bad))
            if policy == "stretch" and mode == "nearest":
                ok, err = refused(exe, art, {"x": x, "sizes": np.array([4, -1], np.int64)}, tmp,
                                  "'r.v")
                record("Resize with a negative size refused with one line naming the dim", ok,
                       err)


def check_crop_and_resize(exe, tmp, rng):
    attrs = {"mode": "linear", "coordinate_transformation_mode": "tf_crop_and_resize",
             "extrapolation_value": 10.0}
    m = resize_model(["roi", "sizes"], attrs, [1, 1, 6, 6])
    art = compile_model(exe, m, os.path.join(tmp, "crop.onnx"),
                        "Resize (tf_crop_and_resize; roi and sizes at run time)")
    if art is None:
        return
    x = rng.standard_normal((1, 1, 6, 6)).astype(np.float32)
    cases = [([0, 0, 0.4, 0.6, 1, 1, 0.6, 0.8], [1, 1, 3, 3]),
             ([0, 0, 0, 0, 1, 1, 1, 1], [1, 1, 6, 6]),
             ([0, 0, -0.2, 0.1, 1, 1, 1.3, 0.9], [1, 1, 4, 7]),
             ([0, 0, 0.5, 0.5, 1, 1, 0.5, 0.5], [1, 1, 1, 2])]
    feeds = [{"x": x, "roi": np.array(r, np.float32), "sizes": np.array(s, np.int64)}
             for r, s in cases]
    bad = mismatches(exe, art, session(m), feeds, tmp,
                     lambda f: f"roi {f['roi'].tolist()} sizes {f['sizes'].tolist()}")
    record(f"Resize (tf_crop_and_resize): {len(feeds)} roi/size sets on one artifact match ONNX "
           "Runtime", not bad, "; ".join(bad))


def check_uint8(exe, tmp, rng):
    m = resize_model(["scales"], {"mode": "linear"}, [1, 2, 4, 5], dtype=TensorProto.UINT8)
    art = compile_model(exe, m, os.path.join(tmp, "u8.onnx"),
                        "Resize (uint8, linear; scales at run time)")
    if art is None:
        return
    x = rng.integers(0, 256, (1, 2, 4, 5)).astype(np.uint8)
    feeds = [{"x": x, "scales": np.array(s, np.float32)}
             for s in ([1, 1, 2, 1.5], [1, 1, 0.5, 0.6], [1, 1, 1, 1])]
    bad = mismatches(exe, art, session(m), feeds, tmp,
                     lambda f: f"scales {f['scales'].tolist()}", int_atol=1)
    record("Resize (uint8): 3 scale sets match ONNX Runtime within 1", not bad, "; ".join(bad))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ingot", required=True)
    exe = os.path.abspath(ap.parse_args().ingot)
    rng = np.random.default_rng(5)
    with tempfile.TemporaryDirectory() as tmp:
        check_scales(exe, tmp, rng)
        check_sizes(exe, tmp, rng)
        check_crop_and_resize(exe, tmp, rng)
        check_uint8(exe, tmp, rng)
    return summary()


if __name__ == "__main__":
    sys.exit(main())
