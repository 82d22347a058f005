#!/usr/bin/env python3
"""Runs the ONNX backend node tests against ingot (compile + run + compare).

The tests are the ones that ship with the installed `onnx` package: one directory per test under
onnx/backend/test/data/node, holding model.onnx and test_data_set_*/{input,output}_*.pb. Some onnx
wheels leave that data out; then the same tests are generated once from the package's own test
case definitions (onnx.backend.test.case.node, as `backend-test-tools generate-data` does) into a
cache directory (--data-dir, default $XDG_CACHE_HOME/ingot/onnx-<version>/node).

For each test:
  1. scope: out-of-scope tests are skipped before anything is compiled (rules in SCOPE_RULES);
  2. inputs -> in.npz, named after the model's graph inputs (initializers excluded), in order;
  3. `ingot compile model.onnx -o model.so`, binding symbolic input dims with --input-shapes
     from the test data's shapes;
  4. `ingot run model.so --inputs in.npz --outputs out.npz` for every test_data_set_*;
     (with --specialize-inputs, graph inputs used where ingot needs compile-time constants are
     specialised to each data set's values: one `ingot compile --specialize-inputs` per data set,
     run feeding all inputs, the specialised ones included; see CONSTANT_POSITIONS); the runs
     go through one `ingot run --batch -` process per worker thread (scripts/batch_run.py;
     --no-batch: a process per run), which pays the OpenCL compiler's start once;
  5. compare with the stored outputs as onnx.backend.test.runner does, with
     scripts/parity.py:compare_outputs (the one output checker): names, shape and dtype must
     match, NaN and +-Inf at the same positions, every float element within
     |got - ref| <= atol + rtol*|ref| (rtol=1e-3, atol=1e-7; bfloat16 outputs rtol=1.6e-2,
     atol=1e-5, torch.testing's bfloat16 defaults), integers and bools exactly.

Every `ingot compile` of a run uses --target when given, the plain reruns of
--specialize-inputs included.

Output: one line per test (`PASS name`, `FAIL name: reason`, `SKIP name: reason`), then the
summary: `N passed, N failed, N skipped`; the headline, the pass rate over ALL node tests of the
installed onnx (passed / all, skipped tests counting as not passed), next to the in-scope pass
rate (passed / (passed + failed)); with --specialize-inputs also how many of the passed tests use
specialised inputs and both rates without specialisation (every test that has specialised
inputs is also run as plain `ingot compile` + `ingot run`, so the passes that need
--specialize-inputs are counted, not guessed); then each scope exclusion rule with its count of
skipped tests and the most common details under it.
--json writes the run: how it was made (date, command, commit, versions, `ingot device-info`),
the summary, every test's status and message, per-op counts and the failure causes.
The exit status is 0 even with failures (they are expected while op coverage grows) unless a
floor is given and broken: --ratchet FILE (a minimum pass count and a minimum pass rate over all
node tests per target, and the suite's onnx version and size: scripts/conformance_ratchet.py,
tests/python/conformance_ratchet.json), --expect-min-passed N, --expect-min-pass-rate R (over
all node tests); with a floor, a run where no in-scope test ran fails too.

Usage:
  conformance.py --ingot build/release/tools/ingot/ingot [-j N] [--filter REGEX] [--timeout S]
                 [--target opencl|c|...] [--json run.json] [--write-ops-md docs/ops.md]
                 [--ratchet tests/python/conformance_ratchet.json] [--expect-min-passed N]
                 [--expect-min-pass-rate 0.75] [--specialize-inputs]   (alias: --constant-inputs)
"""
import argparse
import collections
import concurrent.futures
import datetime
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import TensorProto, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "bench"))
import batch_run  # noqa: E402
import conformance_ratchet  # noqa: E402
import parity  # noqa: E402  (compare_outputs, the one output checker)
import perf_record  # noqa: E402  (git_commit, machine: as the benchmarks' raw records)

RTOL = 1e-3  # onnx.backend.test.case.test_case.TestCase defaults
ATOL = 1e-7
# bfloat16 outputs: torch.testing.assert_close's bfloat16 defaults (2^-6, two units in the last
# place at worst). The test data rounds every op's result to bfloat16 (ml_dtypes arithmetic),
# ingot rounds where a kernel stores, so the two differ by an ulp or two (2^-7 relative at
# most per ulp), far past 1e-3.
BF16_RTOL = 1.6e-2
BF16_ATOL = 1e-5

# dtypes that ingot's artifacts and .npz files carry; anything else is out of scope.
SUPPORTED_DTYPES = {
    TensorProto.FLOAT: "float32",
    TensorProto.FLOAT16: "float16",
    TensorProto.BFLOAT16: "bfloat16",
    TensorProto.INT64: "int64",
    TensorProto.INT32: "int32",
    TensorProto.INT8: "int8",
    TensorProto.UINT8: "uint8",
    TensorProto.BOOL: "bool",
    TensorProto.DOUBLE: "float64",
    TensorProto.INT16: "int16",
    TensorProto.UINT16: "uint16",
    TensorProto.UINT32: "uint32",
    TensorProto.UINT64: "uint64",
}
DEFAULT_DOMAINS = ("", "ai.onnx")
# Loss functions exist to train models; inference graphs do not contain them.
TRAINING_OPS = {"Gradient", "Momentum", "Adagrad", "Adam", "NegativeLogLikelihoodLoss",
                "SoftmaxCrossEntropyLoss"}
RANDOM_OPS = {"RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike",
              "Multinomial", "Bernoulli"}
SEQUENCE_OPS = {"SequenceAt", "SequenceConstruct", "SequenceEmpty", "SequenceErase",
                "SequenceInsert", "SequenceLength", "SequenceMap", "SplitToSequence",
                "ConcatFromSequence", "Optional", "OptionalGetElement", "OptionalHasElement"}
STRING_OPS = {"StringConcat", "StringNormalizer", "StringSplit", "RegexFullMatch", "TfIdfVectorizer"}

# The scope rules, checked in this order; the first that matches gives the SKIP reason.
SCOPE_RULES = [
    "non-default domain: any node (also inside subgraphs) in a domain other than ai.onnx",
    "training: training ops (Gradient, Momentum, Adagrad, Adam) and losses (NegativeLogLikelihoodLoss, "
    "SoftmaxCrossEntropyLoss), and training-mode tests "
    "(name contains 'training', e.g. Dropout/BatchNormalization with training_mode=1)",
    "random: random generators (RandomNormal/Uniform[Like], Multinomial, Bernoulli)",
    "sequence/map/optional/string: a graph input or output that is not a tensor, a string tensor, "
    "or a node that builds sequences, optionals or strings",
    "dtype: a graph input or output whose element type is not float32, float16, bfloat16, "
    "float64, int8/16/32/64, uint8/16/32/64 or bool (float8/float4 and 2/4-bit integers are out)",
    "no data: the test directory holds no test_data_set_* (or its data cannot be read)",
]


# Input positions that ingot needs as compile-time constants (static shapes: their values decide
# the output shapes; docs/graph-forms.md stores them as attributes). With --specialize-inputs, a
# graph input that the model feeds into such a position is specialised to each data set's value
# (`ingot compile --specialize-inputs`), as an AOT user compiles for the values they will run.
CONSTANT_POSITIONS = {
    "Reshape": {1}, "Squeeze": {1}, "Unsqueeze": {1}, "Split": {1}, "Pad": {1, 2, 3},
    "ReduceMean": {1}, "ReduceSum": {1}, "ReduceMax": {1}, "ReduceMin": {1}, "ReduceProd": {1},
    "ReduceL1": {1}, "ReduceL2": {1}, "ReduceLogSum": {1}, "ReduceLogSumExp": {1},
    "ReduceSumSquare": {1}, "Slice": {1, 2, 3, 4}, "Expand": {1}, "Tile": {1},
    "ConstantOfShape": {0}, "Range": {0, 1, 2}, "TopK": {1}, "OneHot": {1},
    "Resize": {1, 2, 3}, "Upsample": {1}, "CenterCropPad": {1},
    "HannWindow": {0}, "HammingWindow": {0}, "BlackmanWindow": {0}, "DFT": {1, 2},
    "STFT": {1, 3}, "MelWeightMatrix": {0, 1}, "MaxUnpool": {2},
    "AffineGrid": {1}, "Col2Im": {1, 2},
}
SPECIALIZE_INPUTS_NOTE = (
    "With `--specialize-inputs`, a graph input that the model feeds into a position ingot "
    "needs as a compile-time constant (directly, or for an integer input through other ops, "
    "never through Shape/Size: an expanded CenterCropPad computes Pad's pads from its `shape`) "
    "(Reshape shape, Slice starts/ends/axes/steps, Pad pads, "
    "Reduce/Squeeze/Unsqueeze axes, Split sizes, Expand/Tile/ConstantOfShape shapes, Range, "
    "TopK k, OneHot depth, Resize roi/scales/sizes, AffineGrid size, Col2Im "
    "image_shape/block_shape, ...) is specialised to each data set's value "
    "with `ingot compile --specialize-inputs` (the artifact keeps the input, is fed it, and "
    "refuses any other value at run time; docs/cli.md). Without it, the llvm target reads "
    "Reshape shapes, the axes of reductions, Squeeze and Unsqueeze, Expand and ConstantOfShape "
    "shapes, TopK's K, Split sizes, Slice bounds, Tile repeats, OneHot depth, Range bounds and window sizes at run time (value symbols, "
    "docs/dynamic-shapes.md); the "
    "other positions fail with `input '...' must be a compile-time constant`.")


# Ops whose output depends on their input's shape only, never its values: walking back from a
# constant position stops there (Shape(x) does not make x's values shape-deciding).
SHAPE_ONLY_OPS = {"Shape", "Size"}
INTEGER_TYPES = {TensorProto.INT64, TensorProto.INT32}


def specialized_inputs(model):
    """Names of graph inputs whose values decide a CONSTANT_POSITIONS slot (anywhere, subgraphs
    included): used there directly, or, for integer inputs, reaching it through other ops (a
    function-expanded CenterCropPad computes Pad's pads from its `shape` input with Max/Sub/Div;
    a window op's length goes through Cast), never through Shape/Size."""
    nodes = list(all_nodes(model.graph))
    producer = {out: n for n in nodes for out in n.output if out}
    direct, wanted = set(), []
    for n in nodes:
        for i, name in enumerate(n.input):
            if name and i in CONSTANT_POSITIONS.get(n.op_type, ()):
                direct.add(name)
                wanted.append(name)
    reached, seen = set(direct), set()
    while wanted:
        v = wanted.pop()
        if v in seen:
            continue
        seen.add(v)
        reached.add(v)
        n = producer.get(v)
        if n is not None and n.op_type not in SHAPE_ONLY_OPS:
            wanted.extend(x for x in n.input if x)
            # A control-flow node's outputs come from its bodies' outputs (an expanded
            # AffineGrid splits `size` inside an If branch).
            for a in n.attribute:
                for g in ([a.g] if a.HasField("g") else []) + list(a.graphs):
                    wanted.extend(o.name for o in g.output)
    out = []
    for vi in graph_inputs(model):
        integer = vi.type.tensor_type.elem_type in INTEGER_TYPES
        if vi.name in direct or (integer and vi.name in reached):
            out.append(vi.name)
    return out


# ---------------------------------------------------------------------------------------------
# Test data location (and generation when the onnx wheel omits it)

def packaged_node_dir():
    return os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "node")


def default_cache_dir():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "ingot", f"onnx-{onnx.__version__}", "node")


def _serialize(value, vi):
    t = vi.type
    if t.HasField("map_type"):
        return numpy_helper.from_dict(value, vi.name)
    if t.HasField("sequence_type"):
        return numpy_helper.from_list(value, vi.name)
    if t.HasField("optional_type"):
        return numpy_helper.from_optional(value, vi.name)
    if isinstance(value, TensorProto):
        return value
    return numpy_helper.from_array(np.asarray(value), vi.name)


def generate_node_tests(dest):
    """Writes the node tests of the installed onnx package into dest (atomically)."""
    import warnings
    from onnx.backend.test.case import node as node_cases
    print(f"conformance: generating the ONNX node tests into {dest} (once)", file=sys.stderr,
          flush=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cases = node_cases.collect_testcases()
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".node-", dir=os.path.dirname(dest))
    for case in cases:
        out = os.path.join(tmp, case.name)
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, "model.onnx"), "wb") as f:
            f.write(case.model.SerializeToString())
        for i, (inputs, outputs) in enumerate(case.data_sets or []):
            ds = os.path.join(out, f"test_data_set_{i}")
            os.makedirs(ds, exist_ok=True)
            try:
                for kind, values, vis in (("input", inputs, case.model.graph.input),
                                          ("output", outputs, case.model.graph.output)):
                    for j, v in enumerate(values):
                        proto = _serialize(v, vis[j])
                        with open(os.path.join(ds, f"{kind}_{j}.pb"), "wb") as f:
                            f.write(proto.SerializeToString())
            except Exception as e:  # noqa: BLE001 - odd data: the runner reports "no data"
                shutil.rmtree(ds)
                with open(os.path.join(out, "generate_error.txt"), "w") as f:
                    f.write(f"{type(e).__name__}: {e}\n")
    try:
        os.rename(tmp, dest)
    except OSError:
        if not os.path.isdir(dest):
            raise
        shutil.rmtree(tmp, ignore_errors=True)  # another runner finished first


def find_data_dir(arg):
    if arg:
        if not os.path.isdir(arg):
            generate_node_tests(arg)
        return arg
    packaged = packaged_node_dir()
    if os.path.isdir(packaged) and os.listdir(packaged):
        return packaged
    cache = default_cache_dir()
    if not os.path.isdir(cache):
        generate_node_tests(cache)
    return cache


# ---------------------------------------------------------------------------------------------
# Scope

def all_nodes(graph):
    for n in graph.node:
        yield n
        for a in n.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                yield from all_nodes(a.g)
            elif a.type == onnx.AttributeProto.GRAPHS:
                for g in a.graphs:
                    yield from all_nodes(g)


def graph_inputs(model):
    inits = {i.name for i in model.graph.initializer}
    return [vi for vi in model.graph.input if vi.name not in inits]


def type_problem(vi):
    t = vi.type
    kind = t.WhichOneof("value")
    if kind != "tensor_type":
        return "sequence/map/optional/string", f"{vi.name!r} is a {kind or 'untyped value'}"
    et = t.tensor_type.elem_type
    if et == TensorProto.STRING:
        return "sequence/map/optional/string", f"{vi.name!r} is a string tensor"
    if et not in SUPPORTED_DTYPES:
        name = TensorProto.DataType.Name(et).lower()
        return "dtype", f"{vi.name!r} has dtype {name}"
    return None


def scope(name, model):
    """None if in scope, else the SKIP reason ("rule: detail")."""
    nodes = list(all_nodes(model.graph))
    for n in nodes:
        if n.domain not in DEFAULT_DOMAINS:
            return f"non-default domain: {n.op_type} in {n.domain}"
    for n in nodes:
        if n.op_type in TRAINING_OPS:
            return f"training: {n.op_type}"
    if "training" in name:
        return "training: training-mode test"
    for n in nodes:
        if n.op_type in RANDOM_OPS:
            return f"random: {n.op_type}"
    for vi in list(model.graph.input) + list(model.graph.output):
        p = type_problem(vi)
        if p and p[0] != "dtype":
            return f"{p[0]}: {p[1]}"
    for n in nodes:
        if n.op_type in SEQUENCE_OPS or n.op_type in STRING_OPS:
            return f"sequence/map/optional/string: {n.op_type}"
    for vi in list(model.graph.input) + list(model.graph.output):
        p = type_problem(vi)
        if p:
            return f"{p[0]}: {p[1]}"
    return None


def rule_of(reason):
    return reason.split(":", 1)[0]


def scope_exclusions(results):
    """[(rule, count, Counter of details)] of the skipped tests, most common rule first; a
    detail is the SKIP reason after the rule without the quoted value names."""
    rules = collections.defaultdict(collections.Counter)
    for _, status, msg in results:
        if status == "SKIP":
            rule, _, detail = msg.partition(":")
            rules[rule][re.sub(r"'[^']*' ?", "", detail.strip()) or "-"] += 1
    out = [(rule, sum(c.values()), c) for rule, c in rules.items()]
    return sorted(out, key=lambda x: (-x[1], x[0]))


def primary_op(name, model, base_ops):
    """The op a test is about: its one top-level op; for function-expanded tests
    (`*_expanded*`) the op of the test they expand."""
    m = re.match(r"(.*)_expanded(_ver\d+)?$", name)
    if m and m.group(1) in base_ops:
        return base_ops[m.group(1)], True
    ops = [n.op_type for n in model.graph.node]
    if len(set(ops)) == 1:
        return ops[0], False
    return (ops[-1] if ops else "(none)"), bool(m)


# ---------------------------------------------------------------------------------------------
# One test

def read_tensor(path):
    t = TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return t


def first_line(text):
    for line in text.strip().splitlines():
        if line.strip():
            return line.strip()
    return "(no message)"


def compare(refs, got):
    """None if ingot's outputs `got` equal the test data's `refs` ({name: array}) under the
    backend-test rules, else the first mismatch: parity.compare_outputs, the one output checker
    (exactly the reference's names, dtypes and shapes; NaN and +-Inf at the same positions; every
    float element |got - ref| <= ATOL + RTOL*|ref|, a bfloat16 one within BF16_ATOL +
    BF16_RTOL*|ref|; integers and bools exact)."""
    bf16 = parity.bfloat16_dtype()
    wide = {k: v for k, v in refs.items() if np.asarray(v).dtype == bf16}
    if wide and set(got) == set(refs):
        for part, rtol, atol in ((wide, BF16_RTOL, BF16_ATOL),
                                 ({k: v for k, v in refs.items() if k not in wide}, RTOL, ATOL)):
            if part:
                ok, msg = parity.compare_outputs(part, {k: got[k] for k in part}, rtol, atol,
                                                 ref_name="the test data", got_name="ingot")
                if not ok:
                    return msg
        return None
    ok, msg = parity.compare_outputs(refs, got, RTOL, ATOL, ref_name="the test data",
                                     got_name="ingot")
    return None if ok else msg


def run_cmd(cmd, timeout):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"timed out after {timeout:g} s"
    if p.returncode != 0:
        msg = first_line(p.stderr or p.stdout)
        if p.returncode < 0:
            msg = f"killed by signal {-p.returncode}; {msg}"
        return p, msg
    return p, None


def run_artifact(runner, ingot, args, timeout):
    """`ingot run ARGS`: through the batch runner's worker when there is one, else a process of
    its own. -> its error message, or None."""
    if runner is None:
        return run_cmd([ingot, "run", *args], timeout)[1]
    status, out = runner.run(args, timeout)
    if status is None:
        return f"timed out after {timeout:g} s"
    if status != 0:
        msg = first_line(out)
        return f"killed by signal {-status}; {msg}" if status < 0 else msg
    return None


def shape_str(shape):
    return "[" + ",".join(str(int(s)) for s in shape) + "]"


def run_test(test, ingot, timeout, keep_dir, specialize=False, target=None, runner=None):
    """-> (status, message). A PASS with specialised inputs (--specialize-inputs) has message
    "specialised inputs: a, b". runner: a batch_run.BatchRunner for the `ingot run`s, or None."""
    name, tdir, model = test["name"], test["dir"], test["model"]
    inputs = graph_inputs(model)
    special = specialized_inputs(model) if specialize else []
    outputs = list(model.graph.output)
    datasets = []
    for ds in test["datasets"]:
        try:
            feeds = {}
            for j, vi in enumerate(inputs):
                path = os.path.join(ds, f"input_{j}.pb")
                if os.path.exists(path):
                    feeds[vi.name] = numpy_helper.to_array(read_tensor(path))
            refs = {}
            for j, vi in enumerate(outputs):
                refs[vi.name] = numpy_helper.to_array(read_tensor(os.path.join(ds, f"output_{j}.pb")))
        except Exception as e:  # noqa: BLE001
            return "FAIL", f"cannot read test data {os.path.basename(ds)}: {e}"
        datasets.append((feeds, refs))

    work = tempfile.mkdtemp(prefix=f"ingot-conf-{name}-")
    try:
        # symbolic (or missing) dims are bound to the first data set's shapes
        parts = []
        feeds0 = datasets[0][0]
        for vi in inputs:
            if vi.name not in feeds0 or vi.name in special:
                continue  # a specialised input's shape is its value's
            tt = vi.type.tensor_type
            fixed = tt.HasField("shape") and all(
                d.HasField("dim_value") for d in tt.shape.dim)
            if not fixed:
                parts.append(f"{vi.name}:{shape_str(feeds0[vi.name].shape)}")
        artifact = os.path.join(work, "model.so")

        def compile_model(out, values_npz=None):
            cmd = [ingot, "compile", os.path.join(tdir, "model.onnx"), "-o", out, "-q"]
            if target:
                cmd += ["--target", target]
            if parts:
                cmd += ["--input-shapes", " ".join(parts)]
            if values_npz:
                cmd += ["--specialize-inputs", values_npz]
            return run_cmd(cmd, timeout)[1]

        if not special:
            err = compile_model(artifact)
            if err:
                return "FAIL", f"compile: {err}"
        elif any(f not in feeds for feeds, _ in datasets for f in special):
            return "FAIL", "--specialize-inputs: a data set lacks a value for a specialised input"
        for k, (feeds, refs) in enumerate(datasets):
            if special:  # one artifact per data set: the specialised values may differ
                values_npz = os.path.join(work, f"specialize{k}.npz")
                # a name of its own: a batch worker that ran one is not handed it again by path
                artifact = os.path.join(work, f"model{k}.so")
                np.savez(values_npz, **{n: feeds[n] for n in special})
                err = compile_model(artifact, values_npz)
                if err:
                    return "FAIL", f"compile: {err}"
            in_npz = os.path.join(work, f"in{k}.npz")
            out_npz = os.path.join(work, f"out{k}.npz")
            np.savez(in_npz, **feeds)
            err = run_artifact(runner, ingot, [artifact, "--inputs", in_npz, "--outputs", out_npz,
                                               "--num-threads", "1"], timeout)
            if err:
                return "FAIL", f"run: {err}"
            got = parity.load_npz(out_npz)
            msg = compare(refs, got)
            if msg:
                if len(datasets) > 1:
                    msg = f"data set {k}: {msg}"
                return "FAIL", msg
        return "PASS", f"specialised inputs: {', '.join(special)}" if special else ""
    except Exception as e:  # noqa: BLE001 - a runner bug must not stop the suite
        return "FAIL", f"runner error: {type(e).__name__}: {first_line(str(e))}"
    finally:
        if keep_dir:
            dst = os.path.join(keep_dir, name)
            shutil.rmtree(dst, ignore_errors=True)
            shutil.move(work, dst)
        else:
            shutil.rmtree(work, ignore_errors=True)


# ---------------------------------------------------------------------------------------------
# Collection, reports

def collect(data_dir, pattern):
    rx = re.compile(pattern) if pattern else None
    names = sorted(d for d in os.listdir(data_dir)
                   if os.path.isfile(os.path.join(data_dir, d, "model.onnx")))
    # every test's model is loaded (cheap) so expanded tests can find their base test's op
    base_ops, tests = {}, []
    for name in names:
        tdir = os.path.join(data_dir, name)
        try:
            model = onnx.load(os.path.join(tdir, "model.onnx"), load_external_data=False)
        except Exception as e:  # noqa: BLE001
            model, err = None, f"cannot load model.onnx: {e}"
        else:
            err = None
            ops = {n.op_type for n in model.graph.node}
            if len(ops) == 1 and "_expanded" not in name:
                base_ops[name] = ops.pop()
        tests.append({"name": name, "dir": tdir, "model": model, "load_error": err})
    out = []
    for t in tests:
        if rx and not rx.search(t["name"]):
            continue
        if t["model"] is None:
            t["op"], t["expanded"] = "(unloadable)", False
        else:
            t["op"], t["expanded"] = primary_op(t["name"], t["model"], base_ops)
            t["all_ops"] = sorted({n.op_type for n in all_nodes(t["model"].graph)})
        t["datasets"] = sorted(glob.glob(os.path.join(t["dir"], "test_data_set_*")))
        out.append(t)
    return out


def failure_cause(msg):
    """A failure message with names and numbers taken out, to group failures by cause."""
    m = re.sub(r"node '[^']*' \(([A-Za-z0-9_]+)(, opset \d+)?\)", r"node (\1)", msg)
    m = re.sub(r"'[^']*'", "'?'", m)
    m = re.sub(r"\(got [^)]*\)", "", m)
    m = re.sub(r"(?<![A-Za-z_\d])-?\d+(\.\d+)?(e[-+]?\d+)?", "N", m)
    return m[:160]


def failure_causes(results):
    causes = {}
    for t, status, msg in results:
        if status != "FAIL":
            continue
        c = causes.setdefault(failure_cause(msg), {"count": 0, "example": t["name"],
                                                   "message": msg, "ops": collections.Counter()})
        c["count"] += 1
        c["ops"][t["op"]] += 1
    out = sorted(causes.items(), key=lambda kv: (-kv[1]["count"], kv[0]))
    return [{"cause": k, "count": v["count"], "example": v["example"], "message": v["message"],
             "test_ops": dict(v["ops"].most_common())} for k, v in out]


def build_report(results):
    ops = collections.defaultdict(lambda: {"pass": 0, "fail": 0, "skip": 0,
                                           "expanded": {"pass": 0, "fail": 0, "skip": 0},
                                           "skip_reasons": collections.Counter(),
                                           "failures": {}, "causes": collections.Counter()})
    any_node = collections.defaultdict(lambda: {"pass": 0, "fail": 0, "skip": 0})
    for t, status, msg in results:
        e = ops[t["op"]]
        key = status.lower()
        if t["expanded"]:
            e["expanded"][key] += 1
        else:
            e[key] += 1
        if status == "SKIP":
            e["skip_reasons"][rule_of(msg)] += 1
        if status == "FAIL":
            e["failures"][t["name"]] = msg
            if not t["expanded"]:
                e["causes"][failure_cause(msg)] += 1
        for op in t.get("all_ops", []):
            any_node[op][key] += 1
    for e in ops.values():
        e["skip_reasons"] = dict(e["skip_reasons"])
        e["causes"] = dict(e["causes"].most_common())
    return {"ops": {k: ops[k] for k in sorted(ops)},
            "ops_in_any_node": {k: any_node[k] for k in sorted(any_node)},
            "failure_causes": failure_causes(results)}


def op_status(e):
    p, f, s = e["pass"], e["fail"], e["skip"]
    if p + f == 0:
        if s:
            return "out of scope", ", ".join(sorted(e["skip_reasons"]))
        # only expanded tests
        xp, xf = e["expanded"]["pass"], e["expanded"]["fail"]
        if xp + xf == 0:
            return "out of scope", ", ".join(sorted(e["skip_reasons"])) or "-"
        p, f = xp, xf
    if f == 0:
        return "supported", f"{p}/{p + f}"
    if p == 0:
        return "unsupported", f"0/{p + f}"
    return "partial", f"{p}/{p + f}"


def write_ops_md(path, report, summary, command, specialized_passes=None, only_special=None,
                 json_path=None):
    ops = report["ops"]
    schemas = {}
    for s in onnx.defs.get_all_schemas_with_history():
        if s.domain in DEFAULT_DOMAINS and not s.deprecated:
            schemas.setdefault(s.name, []).append(s.since_version)
    names = sorted(set(schemas) | {k for k in ops if not k.startswith("(")})
    counts = collections.Counter()
    rows = []
    for op in names:
        e = ops.get(op)
        cause = ""
        if e is None:
            status, detail, exp = "no node test", "-", "-"
            for ops_set, rule in ((TRAINING_OPS, "training"), (RANDOM_OPS, "random"),
                                  (SEQUENCE_OPS | STRING_OPS, "sequence/map/optional/string")):
                if op in ops_set:
                    status, detail = "out of scope", f"{rule} (no node test)"
        else:
            if e["causes"]:
                top, k = next(iter(e["causes"].items()))
                top = top.replace("compile: error: ", "").replace("|", "\\|")
                cause = f"{k}x `{top}`"
            status, detail = op_status(e)
            x = e["expanded"]
            exp = f"{x['pass']}/{x['pass'] + x['fail']}" if x["pass"] + x["fail"] else "-"
            if e["skip"] and status != "out of scope":
                detail += f" ({e['skip']} skipped)"
        counts[status] += 1
        rows.append(f"| {op} | {status} | {detail} | {exp} | {cause} |")
    p, f, s = summary
    rate = p / (p + f) if p + f else 0.0
    lines = [
        "# ONNX operator coverage",
        "",
        "Generated by `scripts/conformance.py` from the ONNX backend node tests of the installed",
        f"`onnx` package (version {onnx.__version__}; scripts/install-deps pins it); do not edit by hand. "
        "Regenerate with:",
        "",
        "```",
        command,
        "```",
        "",
        f"Date: {datetime.date.today().isoformat()}. Result: **{p} passed, {f} failed, {s} skipped**: "
        f"pass rate over all {p + f + s} node tests **{p / (p + f + s) if p + f + s else 0.0:.1%}** "
        f"(the headline; skipped tests count as not passed), in-scope pass rate {rate:.1%}.",
        "",
    ]
    if json_path:
        lines += [f"The run's raw result (every test's status and message, versions, machine): "
                  f"[`{json_path}`]({os.path.relpath(json_path, 'docs')}).", ""]
    if specialized_passes is not None:
        only = "" if only_special is None else \
            f" ({only_special} of them pass only with specialised inputs)"
        lines += [f"Of the passed tests, **{specialized_passes} use specialised inputs**{only}. "
                  + SPECIALIZE_INPUTS_NOTE, ""]
    lines += [
        "Status per op, from the tests about that op (a test's op is its one top-level node; "
        "a function-expanded test `*_expanded` counts for the op it expands, in its own column):",
        "",
        "- **supported**: every in-scope test passes; **partial**: some pass (passed/in-scope);",
        "- **unsupported**: none of its in-scope tests pass; **out of scope**: every test is skipped,",
        "  for the reason given; **no node test**: ONNX ships no node test for the op.",
        "",
        "Tests are skipped (out of scope) by these rules, in order:",
        "",
    ]
    lines += [f"{i + 1}. {r}" for i, r in enumerate(SCOPE_RULES)]
    lines += [
        "",
        "Totals: " + ", ".join(f"{counts[k]} {k}" for k in
                               ("supported", "partial", "unsupported", "out of scope", "no node test")),
        "",
        "| op | status | passed / in-scope tests | expanded tests passed | most common failure |",
        "|----|--------|-------------------------|-----------------------|---------------------|",
    ]
    lines += rows
    causes = report["failure_causes"]
    if causes:
        lines += ["", "## Most common failure causes", "",
                  "| tests | cause | example |", "|------:|-------|---------|"]
        for c in causes[:25]:
            cause = c["cause"].replace("|", "\\|")
            lines.append(f"| {c['count']} | `{cause}` | {c['example']} |")
    with open(path, "w") as fh:
        fh.write("\n".join(lines) + "\n")


# ---------------------------------------------------------------------------------------------

def run_record(args, ingot):
    """Where and how this run was made, for --json, taken when it starts: date, command, the
    checkout's commit (and whether tracked files differ from it), versions, and the machine as
    the benchmarks' raw records give it (bench/perf_record.py: `ingot device-info --json`, the
    OS's CPU model, core count and load average); the caller adds elapsed_s."""
    commit = perf_record.git_commit()
    try:
        import onnxruntime
        ort_version = onnxruntime.__version__
    except ImportError:
        ort_version = None
    version = subprocess.run([ingot, "--version"], capture_output=True, text=True)
    return {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "command": " ".join(["scripts/conformance.py"] + sys.argv[1:]),
            "commit": commit["commit"], "worktree_modified": commit["dirty"],
            "ingot_version": version.stdout.strip() if version.returncode == 0 else None,
            "target": args.target or "llvm (host)", "specialize_inputs": args.specialize_inputs,
            "filter": args.filter, "jobs": args.jobs,
            "onnx": onnx.__version__, "onnxruntime": ort_version, "numpy": np.__version__,
            "python": sys.version.split()[0], "machine": perf_record.machine(ingot)}


def summarise(results, plain_status, specialize):
    """The counts and rates of a run. The headline is pass_rate: passed over ALL node tests
    (skipped ones count as not passed); pass_rate_in_scope leaves the skipped ones out."""
    n = collections.Counter(s for _, s, _ in results)
    p, f, s = n["PASS"], n["FAIL"], n["SKIP"]
    total = p + f + s
    p_plain = sum(1 for st in plain_status.values() if st == "PASS")
    return {
        "node_tests": total, "passed": p, "failed": f, "skipped": s,
        "pass_rate": p / total if total else 0.0,
        "pass_rate_in_scope": p / (p + f) if p + f else 0.0,
        "specialize_inputs": specialize,
        "passed_with_specialized_inputs": sum(1 for _, st, m in results if st == "PASS" and m),
        "plain": {"passed": p_plain, "pass_rate": p_plain / total if total else 0.0,
                  "pass_rate_in_scope": p_plain / (p + f) if p + f else 0.0},
        "pass_only_with_specialization": sum(
            1 for t, st, _ in results if st == "PASS" and plain_status[t["name"]] != "PASS"),
        "pass_only_without_specialization": sum(
            1 for t, st, _ in results if st != "PASS" and plain_status[t["name"]] == "PASS"),
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ingot", required=True, help="the ingot CLI")
    ap.add_argument("--target", help="ingot compile --target (default: the host), e.g. opencl; "
                    "every compile uses it, the plain reruns of --specialize-inputs included")
    ap.add_argument("--filter", help="run only tests whose name matches this regex (re.search)")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per ingot command")
    ap.add_argument("--data-dir", help="node test directory (default: the onnx package's, "
                    "else a generated cache)")
    ap.add_argument("--json", "--report", dest="json",
                    help="write the run as JSON: how it was made (date, command, commit, "
                    "versions, machine), the summary, every test's status and message, per-op "
                    "counts and failure causes (--report: old name)")
    ap.add_argument("--write-ops-md", help="write the op coverage table (docs/ops.md)")
    ap.add_argument("--ratchet", metavar="FILE",
                    help="exit 1 if the run falls below FILE's minimum pass count or pass rate "
                    "for its target (tests/python/conformance_ratchet.json; see "
                    "conformance_ratchet.py); needs the whole suite (no --filter)")
    ap.add_argument("--expect-min-pass-rate", type=float,
                    help="exit 1 if the pass rate over all node tests is below this (0..1)")
    ap.add_argument("--expect-min-passed", type=int,
                    help="exit 1 if fewer than this many tests pass")
    ap.add_argument("--keep", help="keep each test's work dir (npz, .so) under this dir")
    ap.add_argument("--quiet-pass", action="store_true", help="do not print PASS lines")
    ap.add_argument("--specialize-inputs", "--constant-inputs", dest="specialize_inputs",
                    action="store_true",
                    help="compile graph inputs used where ingot needs compile-time constants "
                    "(shapes, axes, pads, ...) specialised to each data set's values (ingot "
                    "compile --specialize-inputs), feeding them at run time as usual; passes "
                    "that use this are counted separately, and tests with such inputs are also "
                    "run plainly (--constant-inputs: old name)")
    ap.add_argument("--no-batch", action="store_true",
                    help="one `ingot run` process per run (default: each worker thread runs its "
                    "artifacts through one `ingot run --batch -` process, scripts/batch_run.py)")
    ap.add_argument("--failure-summary", type=int, default=0, metavar="N",
                    help="print the N most common failure causes (grouped messages) at the end")
    args = ap.parse_args(argv)

    ingot = os.path.abspath(args.ingot)
    if not os.access(ingot, os.X_OK):
        print(f"error: ingot CLI '{args.ingot}' not found or not executable", file=sys.stderr)
        return 2
    ratchet = None
    if args.ratchet:
        if args.filter:
            print("error: --ratchet holds the whole suite; drop --filter", file=sys.stderr)
            return 2
        ratchet = conformance_ratchet.load(args.ratchet)
    data_dir = find_data_dir(args.data_dir)
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
    record = run_record(args, ingot) if args.json else None
    t0 = time.time()
    tests = collect(data_dir, args.filter)
    if not tests:
        print(f"error: no tests in {data_dir} match", file=sys.stderr)
        return 2

    def job(t):
        if t["model"] is None:
            return "FAIL", t["load_error"], "FAIL"
        reason = scope(t["name"], t["model"])
        if reason is None and not t["datasets"]:
            reason = "no data: no test_data_set_*"
        if reason:
            return "SKIP", reason, "SKIP"
        status, msg = run_test(t, ingot, args.timeout, args.keep, args.specialize_inputs,
                               args.target, runner)
        plain = status  # a test without specialised inputs runs the same either way
        if args.specialize_inputs and specialized_inputs(t["model"]):
            plain = run_test(t, ingot, args.timeout, None, False, args.target, runner)[0]
        return status, msg, plain

    # cheap scope checks first, so only in-scope tests occupy workers
    results = []
    plain_status = {}  # test name -> its status without --specialize-inputs
    runner = None if args.no_batch else batch_run.BatchRunner(ingot)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for t, (status, msg, plain) in zip(tests, pool.map(job, tests)):
            results.append((t, status, msg))
            plain_status[t["name"]] = plain
            if status == "PASS":
                if not args.quiet_pass:
                    print(f"PASS {t['name']}" + (f" ({msg})" if msg else ""), flush=True)
            else:
                print(f"{status} {t['name']}: {msg}", flush=True)
    if runner:
        runner.close()
    elapsed = time.time() - t0

    sm = summarise(results, plain_status, args.specialize_inputs)
    p, f, s, total = sm["passed"], sm["failed"], sm["skipped"], sm["node_tests"]
    print(f"{p} passed, {f} failed, {s} skipped")
    print(f"pass rate over all {total} node tests (onnx {onnx.__version__}): "
          f"{sm['pass_rate']:.4f} ({p}/{total}; the {s} out-of-scope tests count as not passed)")
    print(f"in-scope pass rate: {sm['pass_rate_in_scope']:.4f} ({p}/{p + f}); {elapsed:.0f} s; "
          f"data {data_dir}")
    if args.specialize_inputs:
        pl = sm["plain"]
        print(f"{sm['passed_with_specialized_inputs']} of the passed tests use specialised inputs "
              "(ingot compile --specialize-inputs with the data set's values)")
        print(f"without --specialize-inputs: {pl['passed']} passed; pass rate over all tests "
              f"{pl['pass_rate']:.4f} ({pl['passed']}/{total}), in-scope "
              f"{pl['pass_rate_in_scope']:.4f} ({pl['passed']}/{p + f}); "
              f"{sm['pass_only_with_specialization']} pass only with specialised inputs, "
              f"{sm['pass_only_without_specialization']} only without")
    else:
        print("this run is without --specialize-inputs (its rates above are the plain ones); "
              "--specialize-inputs reports both")
    exclusions = scope_exclusions(results)
    sm["scope_exclusions"] = {r: c for r, c, _ in exclusions}
    print(f"scope exclusions ({s} skipped tests; rule: count, then the most common details):")
    for rule, count, details in exclusions:
        top = details.most_common(4)
        more = len(details) - len(top)
        print(f"  {count:4d} {rule}: " + "; ".join(f"{d} ({k})" for d, k in top)
              + (f"; {more} other details" if more > 0 else ""))

    report = build_report(results)
    if args.failure_summary:
        print(f"most common failure causes (tests | cause | example):")
        for c in report["failure_causes"][:args.failure_summary]:
            print(f"  {c['count']:4d} | {c['cause']} | {c['example']}")
    if args.json:
        tests_out = [{"name": t["name"], "op": t["op"], "status": st, "message": msg,
                      **({"plain_status": plain_status[t["name"]]}
                         if args.specialize_inputs else {})}
                     for t, st, msg in results]
        with open(args.json, "w") as fh:
            record["elapsed_s"] = round(elapsed, 1)
            json.dump({"run": record, "summary": sm,
                       "tests": tests_out, **report}, fh, indent=1, sort_keys=False)
            fh.write("\n")
    if args.write_ops_md:
        cmd = "python3 scripts/conformance.py --ingot build/release/tools/ingot/ingot " \
              "--write-ops-md docs/ops.md"
        if args.filter:
            cmd += f" --filter '{args.filter}'"
        if args.specialize_inputs:
            cmd += " --specialize-inputs"
        # the raw result, named relative to the repository when it is written inside it
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        rel = os.path.relpath(os.path.abspath(args.json), root) if args.json else None
        if rel and not rel.startswith(".."):
            cmd += f" --json {rel}"
        else:
            rel = None
        write_ops_md(args.write_ops_md, report, (p, f, s), cmd,
                     sm["passed_with_specialized_inputs"] if args.specialize_inputs else None,
                     sm["pass_only_with_specialization"] if args.specialize_inputs else None,
                     rel)

    failures = []
    if p + f == 0:
        failures.append("no in-scope test ran")
    if args.expect_min_pass_rate is not None and sm["pass_rate"] < args.expect_min_pass_rate:
        failures.append(f"pass rate over all node tests {sm['pass_rate']:.4f} is below the "
                        f"expected minimum {args.expect_min_pass_rate:.4f}")
    if args.expect_min_passed is not None and p < args.expect_min_passed:
        failures.append(f"{p} tests passed, fewer than the expected minimum "
                        f"{args.expect_min_passed}")
    if ratchet is not None:
        for line in conformance_ratchet.report(ratchet, args.target, sm):
            print(line)
        failures += conformance_ratchet.check(ratchet, args.target, sm, onnx.__version__)
    for msg in failures:
        print(f"error: {msg}", flush=True)
    gated = ratchet is not None or args.expect_min_pass_rate is not None \
        or args.expect_min_passed is not None
    return 1 if failures and gated else 0


if __name__ == "__main__":
    sys.exit(main())
