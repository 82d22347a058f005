#!/usr/bin/env python3
"""ctest wrapper: control flow (If, Loop, Scan; issue 17 step 6) against ONNX Runtime.

Each model is built here with onnx.helper, compiled by ingot for the llvm and c targets, run with
`ingot run` on several inputs, and compared with ONNX Runtime on the same inputs (the reference
is independent of ingot). The models cover:
- If on a condition known at compile time (from a shape): the branch taken is inlined and the
  other, invalid for these shapes, is never inferred;
- If on a condition computed from the data, with an If nested in a branch, branches reading an
  outer computed value and an outer initializer (captures), and both branches taken;
- Loop with a constant trip count, carried values that swap (a' = b, b' = a + b * x: copies that
  must happen at once), a scan output and a captured outer value;
- Loop with a run-time trip count and an early exit decided in the body (no scan output);
- Scan with two scan inputs along different axes, one reversed, a reversed scan output along
  axis 1, and two states;
- a Loop whose body holds a Scan (nested loops: values live across both back edges);
- the Scan with a symbolic length `seq` (--dim-bounds seq:1..16, llvm), run at 1, 3 and 16.
Errors: If branches of different shapes, a Loop scan output whose length is decided at run time,
and control flow on a GPU target give one line naming the node or model, a non-zero exit and no
output file.
Prints one line per check and `N passed, N failed`; exits 1 on a failure.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import parity  # noqa: E402  (compare_outputs, the one output checker)

results = []
F = TensorProto.FLOAT


def record(name, ok, detail=""):
    results.append(ok)
    print(f"{'PASS' if ok else 'FAIL'} {name}{': ' + detail if detail else ''}", flush=True)


def vi(name, dtype=F, shape=None):
    return helper.make_tensor_value_info(name, dtype, shape)


def const(name, array):
    return helper.make_node("Constant", [], [name], value=numpy_helper.from_array(array, name))


def model(nodes, inputs, outputs, inits=(), opset=17):
    g = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def if_model():
    """y = If(sum(x) > 0): h * 2 + w; else: -h + If(max(x) > 1: x + 1; else: x - 1)."""
    inner = helper.make_node(
        "If", ["c2"], ["inner"],
        then_branch=helper.make_graph([helper.make_node("Add", ["x", "one"], ["t2"])], "t2",
                                      [], [vi("t2", F, [2, 3])]),
        else_branch=helper.make_graph([helper.make_node("Sub", ["x", "one"], ["e2"])], "e2",
                                      [], [vi("e2", F, [2, 3])]))
    then_g = helper.make_graph([
        helper.make_node("Mul", ["h", "two"], ["hm"]),
        helper.make_node("Add", ["hm", "w"], ["t_out"]),
    ], "then", [], [vi("t_out", F, [2, 3])])
    else_g = helper.make_graph([
        helper.make_node("ReduceMax", ["x"], ["mx"], keepdims=0),
        helper.make_node("Greater", ["mx", "one"], ["c2"]),
        inner,
        helper.make_node("Neg", ["h"], ["nh"]),
        helper.make_node("Add", ["nh", "inner"], ["e_out"]),
    ], "else", [], [vi("e_out", F, [2, 3])])
    nodes = [
        helper.make_node("Relu", ["x"], ["h"]),
        helper.make_node("ReduceSum", ["x"], ["s"], keepdims=0),
        helper.make_node("Greater", ["s", "zero"], ["c"]),
        helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g),
    ]
    inits = [numpy_helper.from_array(np.float32(v), n) for n, v in
             [("zero", 0), ("one", 1), ("two", 2)]]
    inits.append(numpy_helper.from_array(np.arange(6, dtype=np.float32).reshape(2, 3), "w"))
    return model(nodes, [vi("x", F, [2, 3])], [vi("y", F, [2, 3])], inits)


def if_shape_model():
    """If(size(x) == 6): x reshaped to [3, 2] + 1; else: x reshaped to [5, 5] (invalid for a
    [2, 3] x: the branch is not taken, so it must not be inferred)."""
    then_g = helper.make_graph([
        helper.make_node("Reshape", ["x", "s32"], ["r"]),
        helper.make_node("Add", ["r", "one"], ["t_out"]),
    ], "then", [], [vi("t_out", F, [3, 2])])
    else_g = helper.make_graph([helper.make_node("Reshape", ["x", "s55"], ["e_out"])], "else", [],
                               [vi("e_out", F, [5, 5])])
    nodes = [
        helper.make_node("Size", ["x"], ["n"]),
        helper.make_node("Equal", ["n", "six"], ["c"]),
        helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g),
    ]
    inits = [numpy_helper.from_array(np.int64(6), "six"),
             numpy_helper.from_array(np.float32(1), "one"),
             numpy_helper.from_array(np.array([3, 2], np.int64), "s32"),
             numpy_helper.from_array(np.array([5, 5], np.int64), "s55")]
    return model(nodes, [vi("x", F, [2, 3])], [vi("y", F, [3, 2])], inits)


def loop_swap_model():
    """Five iterations of (a, b) -> (b, a + b * x), scanning a' each time."""
    body = helper.make_graph([
        helper.make_node("Mul", ["b_in", "x"], ["bx"]),
        helper.make_node("Add", ["a_in", "bx"], ["b_out"]),
        helper.make_node("Identity", ["b_in"], ["a_out"]),
        helper.make_node("Identity", ["cond_in"], ["cond_out"]),
        helper.make_node("Identity", ["b_in"], ["scan"]),
    ], "body", [vi("i", TensorProto.INT64, []), vi("cond_in", TensorProto.BOOL, []),
                vi("a_in", F, [4]), vi("b_in", F, [4])],
        [vi("cond_out", TensorProto.BOOL, []), vi("a_out", F, [4]), vi("b_out", F, [4]),
         vi("scan", F, [4])])
    nodes = [helper.make_node("Loop", ["M", "T", "a0", "b0"], ["a", "b", "seq"], body=body)]
    inits = [numpy_helper.from_array(np.array(5, dtype=np.int64), "M"),
             numpy_helper.from_array(np.array(True), "T")]
    return model(nodes, [vi("a0", F, [4]), vi("b0", F, [4]), vi("x", F, [4])],
                 [vi("a", F, [4]), vi("b", F, [4]), vi("seq", F, [5, 4])], inits)


def loop_early_exit_model():
    """s = s * 1.5 + i while sum(s) < limit, at most M (an input) times; also counts the steps."""
    body = helper.make_graph([
        helper.make_node("Mul", ["s_in", "k"], ["sk"]),
        helper.make_node("Cast", ["i"], ["fi"], to=F),
        helper.make_node("Add", ["sk", "fi"], ["s_out"]),
        helper.make_node("Add", ["n_in", "one_i"], ["n_out"]),
        helper.make_node("ReduceSum", ["s_out"], ["tot"], keepdims=0),
        helper.make_node("Less", ["tot", "limit"], ["cond_out"]),
    ], "body", [vi("i", TensorProto.INT64, []), vi("cond_in", TensorProto.BOOL, []),
                vi("s_in", F, [3]), vi("n_in", TensorProto.INT64, [])],
        [vi("cond_out", TensorProto.BOOL, []), vi("s_out", F, [3]),
         vi("n_out", TensorProto.INT64, [])])
    nodes = [helper.make_node("Loop", ["M", "", "s0", "n0"], ["s", "n"], body=body)]
    inits = [numpy_helper.from_array(np.float32(1.5), "k"),
             numpy_helper.from_array(np.int64(1), "one_i"),
             numpy_helper.from_array(np.int64(0), "n0")]
    return model(nodes, [vi("M", TensorProto.INT64, []), vi("s0", F, [3]), vi("limit", F, [])],
                 [vi("s", F, [3]), vi("n", TensorProto.INT64, [])], inits)


def scan_model():
    """States (acc [2], prod [2]); x [4, 2] along axis 0, u [2, 4] along axis 1 reversed."""
    body = helper.make_graph([
        helper.make_node("Add", ["acc_in", "xs"], ["acc_out"]),
        helper.make_node("Mul", ["prod_in", "us"], ["prod_out"]),
        helper.make_node("Sub", ["acc_out", "prod_out"], ["y"]),
    ], "body", [vi("acc_in", F, [2]), vi("prod_in", F, [2]), vi("xs", F, [2]), vi("us", F, [2])],
        [vi("acc_out", F, [2]), vi("prod_out", F, [2]), vi("y", F, [2])])
    nodes = [helper.make_node("Scan", ["acc0", "prod0", "x", "u"], ["acc", "prod", "ys"],
                              body=body, num_scan_inputs=2, scan_input_axes=[0, 1],
                              scan_input_directions=[0, 1], scan_output_axes=[1],
                              scan_output_directions=[1])]
    return model(nodes, [vi("acc0", F, [2]), vi("prod0", F, [2]), vi("x", F, [4, 2]),
                         vi("u", F, [2, 4])],
                 [vi("acc", F, [2]), vi("prod", F, [2]), vi("ys", F, [2, 4])])


def nested_model():
    """Three iterations of t = t + (cumulative sum of x over its rows)[-1] * i; the Scan that
    sums is in the Loop's body and reads x from outside both."""
    scan_body = helper.make_graph([
        helper.make_node("Add", ["c_in", "row"], ["c_out"]),
    ], "sb", [vi("c_in", F, [3]), vi("row", F, [3])], [vi("c_out", F, [3])])
    body = helper.make_graph([
        helper.make_node("Scan", ["zeros", "x"], ["total"], body=scan_body, num_scan_inputs=1),
        helper.make_node("Cast", ["i"], ["fi"], to=F),
        helper.make_node("Mul", ["total", "fi"], ["inc"]),
        helper.make_node("Add", ["t_in", "inc"], ["t_out"]),
        helper.make_node("Identity", ["cond_in"], ["cond_out"]),
    ], "body", [vi("i", TensorProto.INT64, []), vi("cond_in", TensorProto.BOOL, []),
                vi("t_in", F, [3])],
        [vi("cond_out", TensorProto.BOOL, []), vi("t_out", F, [3])])
    nodes = [const("zeros", np.zeros(3, np.float32)),
             helper.make_node("Loop", ["M", "", "t0"], ["t"], body=body)]
    inits = [numpy_helper.from_array(np.array(3, dtype=np.int64), "M")]
    return model(nodes, [vi("t0", F, [3]), vi("x", F, [5, 3])], [vi("t", F, [3])], inits)


def run_case(exe, tmp, name, m, feeds_list, targets, extra=()):
    import onnxruntime as ort
    path = os.path.join(tmp, name + ".onnx")
    onnx.save(m, path)
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    out_names = [o.name for o in m.graph.output]
    for target in targets:
        art = os.path.join(tmp, f"{name}_{target}.so")
        r = subprocess.run([exe, "compile", path, "-o", art, "--target", target, *extra],
                           capture_output=True, text=True)
        if r.returncode != 0:
            record(f"{name} [{target}] compiles", False, r.stderr.strip()[-300:])
            continue
        for k, feeds in enumerate(feeds_list):
            inp, outp = os.path.join(tmp, "in.npz"), os.path.join(tmp, "out.npz")
            np.savez(inp, **feeds)
            r = subprocess.run([exe, "run", art, "--inputs", inp, "--outputs", outp],
                               capture_output=True, text=True)
            if r.returncode != 0:
                record(f"{name} [{target}] input set {k}", False, r.stderr.strip()[-300:])
                continue
            with np.load(outp) as f:
                got = {o: f[o] for o in f.files}
            want = dict(zip(out_names, sess.run(None, feeds)))
            ok, msg = parity.compare_outputs(want, got, 1e-5, 1e-5)
            record(f"{name} [{target}] input set {k}", ok, "" if ok else msg)


def expect_error(exe, tmp, name, m, needle, extra=()):
    path = os.path.join(tmp, name + ".onnx")
    onnx.save(m, path)
    art = os.path.join(tmp, name + ".so")
    r = subprocess.run([exe, "compile", path, "-o", art, *extra], capture_output=True, text=True)
    lines = r.stderr.strip().splitlines()
    ok = (r.returncode != 0 and len(lines) == 1 and needle in lines[0]
          and not os.path.exists(art) and "internal" not in lines[0].lower())
    record(f"{name} is refused", ok, r.stderr.strip()[-300:])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ingot", required=True)
    ap.add_argument("--targets", default="llvm,c")
    args = ap.parse_args()
    exe = os.path.abspath(args.ingot)
    targets = args.targets.split(",")
    rng = np.random.default_rng(5)
    with tempfile.TemporaryDirectory() as tmp:
        x = rng.standard_normal((2, 3)).astype(np.float32)
        run_case(exe, tmp, "if_nested", if_model(), [
            {"x": np.abs(x)},                                   # then
            {"x": -np.abs(x) - 0.5},                            # else, inner else
            {"x": np.array([[3, -2, -2], [-1, -1, 0.5]], np.float32)},  # else, inner then
        ], targets)
        run_case(exe, tmp, "if_decided_at_compile_time", if_shape_model(), [
            {"x": x}], targets)
        f4 = lambda: rng.standard_normal(4).astype(np.float32)  # noqa: E731
        run_case(exe, tmp, "loop_swap", loop_swap_model(), [
            {"a0": f4(), "b0": f4(), "x": f4()} for _ in range(2)], targets)
        s0 = np.array([0.5, 1.0, -0.25], np.float32)
        run_case(exe, tmp, "loop_early_exit", loop_early_exit_model(), [
            {"M": np.array(10, np.int64), "s0": s0, "limit": np.array(20, np.float32)},
            {"M": np.array(3, np.int64), "s0": s0, "limit": np.array(1e6, np.float32)},
            {"M": np.array(0, np.int64), "s0": s0, "limit": np.array(1e6, np.float32)},
            {"M": np.array(10, np.int64), "s0": s0, "limit": np.array(-5, np.float32)},
        ], targets)
        run_case(exe, tmp, "scan_axes_directions", scan_model(), [{
            "acc0": rng.standard_normal(2).astype(np.float32),
            "prod0": rng.standard_normal(2).astype(np.float32),
            "x": rng.standard_normal((4, 2)).astype(np.float32),
            "u": rng.standard_normal((2, 4)).astype(np.float32)}], targets)
        run_case(exe, tmp, "loop_of_scan", nested_model(), [{
            "t0": rng.standard_normal(3).astype(np.float32),
            "x": rng.standard_normal((5, 3)).astype(np.float32)}], targets)

        sym = scan_model()
        for inp in sym.graph.input:
            if inp.name in ("x", "u"):
                inp.CopyFrom(vi(inp.name, F, ["seq", 2] if inp.name == "x" else [2, "seq"]))
        sym.graph.output[2].CopyFrom(vi("ys", F, [2, "seq"]))
        run_case(exe, tmp, "scan_symbolic_length", sym, [{
            "acc0": rng.standard_normal(2).astype(np.float32),
            "prod0": rng.standard_normal(2).astype(np.float32),
            "x": rng.standard_normal((n, 2)).astype(np.float32),
            "u": rng.standard_normal((2, n)).astype(np.float32)} for n in (1, 3, 16)],
            ["llvm"], ["--dim-bounds", "seq:1..16"])

        bad_if = if_model()
        else_g = bad_if.graph.node[3].attribute[0]  # else_branch (attributes sorted by name)
        for a in bad_if.graph.node[3].attribute:
            if a.name == "else_branch":
                else_g = a.g
        else_g.node.append(helper.make_node("Concat", ["e_out", "e_out"], ["e_cat"], axis=0))
        else_g.output[0].CopyFrom(vi("e_cat", F, [4, 3]))
        expect_error(exe, tmp, "if_branch_shapes", bad_if, "else_branch")
        runtime_m = loop_swap_model()
        runtime_m.graph.initializer.pop(0)  # M becomes a graph input
        runtime_m.graph.input.insert(0, vi("M", TensorProto.INT64, []))
        expect_error(exe, tmp, "loop_scan_runtime_length", runtime_m, "decided at run time")
        expect_error(exe, tmp, "if_on_opencl", if_model(), "control flow", ["--target", "opencl"])
    failed = results.count(False)
    print(f"{len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
