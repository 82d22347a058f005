#!/usr/bin/env python3
"""ctest wrapper: the checks of the test scripts fail when they must (issue 11, part 5).

- scripts/parity.py compare_outputs: a NaN in ingot's output, a NaN or Inf in ONNX Runtime's, an
  Inf in ingot's, a dtype mismatch, a shape mismatch, a missing or extra output, an integer
  mismatch and an error over the tolerance all fail; a correct case passes.
- scripts/real_model_parity.py: one model skipped for a missing package gives the SKIP exit
  status (77), never 0, also when the other models pass; a failure gives 1.
- bench/model_bench.py: a row whose outputs did not match prints FAILED, not a time.
- scripts/conformance.py: scope exclusions are counted per rule.
- tests/lower/gen_sampling_expected.py reproduces the values in sampling_rules_test.cpp.
Needs numpy, onnx and onnxruntime (no torch, no ingot: --ingot is accepted and ignored). Prints
one line per check and `N passed, N failed`; exits 1 if any check failed.
"""
import argparse
import contextlib
import io
import os
import shutil
import sys
import tempfile
import traceback

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.path.insert(0, os.path.join(ROOT, "tests", "lower"))
import parity  # noqa: E402
import real_model_parity  # noqa: E402

CHECKS = []


def check(fn):
    CHECKS.append(fn)
    return fn


def ref_outputs():
    rng = np.random.default_rng(0)
    return {"logits": rng.standard_normal((2, 5)).astype(np.float32),
            "label": np.array([3, 1], np.int64)}


def expect_fail(got, *words, ref=None):
    ok, msg = parity.compare_outputs(ref if ref is not None else ref_outputs(), got, 1e-3)
    assert not ok, f"compare_outputs passed: {msg}"
    for w in words:
        assert w in msg, f"'{w}' not in the message: {msg}"
    return msg


@check
def correct_outputs_pass():
    ref = ref_outputs()
    got = {k: v.copy() for k, v in ref.items()}
    got["logits"][0, 0] += 1e-5 * abs(ref["logits"]).max()  # within tolerance
    ok, msg = parity.compare_outputs(ref, got, 1e-3)
    assert ok, msg
    assert msg.startswith("rel_err "), msg


@check
def nan_in_ingot_fails():
    got = ref_outputs()
    got["logits"][1, 2] = np.nan
    expect_fail(got, "'logits'", "ingot", "NaN")


@check
def all_nan_in_ingot_fails():  # max(worst, nan) used to score this 0
    got = ref_outputs()
    got["logits"][:] = np.nan
    expect_fail(got, "'logits'", "NaN")


@check
def nan_in_reference_fails():
    ref = ref_outputs()
    ref["logits"][0, 1] = np.nan
    got = ref_outputs()
    got["logits"][0, 1] = np.nan  # even when ingot agrees
    expect_fail(got, "'logits'", "ONNX Runtime", "bad test input", ref=ref)


@check
def inf_in_ingot_fails():
    got = ref_outputs()
    got["logits"][0, 0] = np.inf
    expect_fail(got, "'logits'", "ingot", "Inf")


@check
def inf_in_reference_fails():
    ref = ref_outputs()
    ref["logits"][1, 4] = -np.inf
    expect_fail(ref_outputs(), "'logits'", "ONNX Runtime", ref=ref)


@check
def dtype_mismatch_fails():
    got = ref_outputs()
    got["logits"] = got["logits"].astype(np.float64)  # same values, other dtype
    expect_fail(got, "'logits'", "dtype", "float64", "float32")
    got = ref_outputs()
    got["label"] = got["label"].astype(np.int32)
    expect_fail(got, "'label'", "dtype")


@check
def shape_mismatch_fails():
    got = ref_outputs()
    got["logits"] = got["logits"].reshape(5, 2)
    expect_fail(got, "'logits'", "shape", "[5, 2]", "[2, 5]")
    got = ref_outputs()
    got["logits"] = got["logits"][:, :1]  # would broadcast in a naive subtraction
    expect_fail(got, "'logits'", "shape")


@check
def missing_and_extra_outputs_fail():
    got = ref_outputs()
    del got["label"]
    expect_fail(got, "'label'", "missing")
    got = ref_outputs()
    got["extra"] = np.zeros(1, np.float32)
    expect_fail(got, "'extra'")


@check
def integer_mismatch_and_large_error_fail():
    got = ref_outputs()
    got["label"][0] += 1
    expect_fail(got, "'label'", "differ")
    got = ref_outputs()
    got["logits"][1, 1] += 0.1 * abs(got["logits"]).max()
    expect_fail(got, "'logits'", "rel_err")


@check
def real_model_exit_status():
    rm = real_model_parity
    assert rm.exit_status(["resnet18"], [], ["bert_tiny"]) == rm.SKIP_RC
    assert rm.exit_status([], [], ["resnet18", "bert_tiny"]) == rm.SKIP_RC
    assert rm.exit_status(["resnet18", "bert_tiny"], [], []) == 0
    assert rm.exit_status(["resnet18"], ["gpt2_tiny"], ["bert_tiny"]) == 1
    assert rm.SKIP_RC == 77 and rm.SKIP_RC != 0


@check
def real_model_main_one_skipped_is_skip():
    """main() with one model's packages missing and the other passing: exit 77, not 0."""
    rm = real_model_parity
    em = rm.export_models
    saved = (em.available, em.export, em.load_inputs, rm.parity.check_model)
    calls = []
    workdir = None
    try:
        em.available = lambda name: name != "bert_tiny"
        em.export = lambda name, workdir: (f"{name}.onnx", f"{name}.inputs.npz")
        em.load_inputs = lambda path: {}
        rm.parity.check_model = lambda name, *a, **k: (calls.append(name), (True, "rel_err 0"))[1]
        out = io.StringIO()
        workdir = tempfile.mkdtemp(prefix="ingot-test-checks-")
        with contextlib.redirect_stdout(out):
            rc = rm.main(["--ingot", "ingot", "--models", "resnet18,bert_tiny",
                          "--workdir", workdir])
    finally:
        em.available, em.export, em.load_inputs, rm.parity.check_model = saved
        if workdir:
            shutil.rmtree(workdir, ignore_errors=True)
    text = out.getvalue()
    assert calls == ["resnet18"], calls
    assert rc == 77, f"exit status {rc}, want 77 (SKIP); output:\n{text}"
    assert "real-model parity: 1 passed, 0 failed, 1 skipped" in text, text
    assert "SKIP bert_tiny" in text and "not run: bert_tiny" in text, text


@check
def model_bench_failed_row():
    import model_bench
    rows = [{"model": "m", "threads": 2, "nodes": 3, "gflop": 0.5, "compile_s": 1.0,
             "status": "FAILED", "error": "output 'y': ingot's output has 1 NaN/Inf of 4 values"}]
    table = model_bench.markdown(rows)
    assert "| m | 2 | 0.50 | FAILED: output 'y'" in table, table


@check
def conformance_scope_exclusions():
    import conformance
    results = [({}, "SKIP", "dtype: 'x' has dtype double"),
               ({}, "SKIP", "dtype: 'y' has dtype double"),
               ({}, "SKIP", "random: Bernoulli"), ({}, "PASS", ""), ({}, "FAIL", "compile: x")]
    got = [(rule, count, dict(details)) for rule, count, details in
           conformance.scope_exclusions(results)]
    assert got == [("dtype", 2, {"has dtype double": 2}), ("random", 1, {"Bernoulli": 1})], got


@check
def sampling_expected_values_reproduce():
    import gen_sampling_expected
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = gen_sampling_expected.main(
            ["--check", os.path.join(ROOT, "tests", "lower", "sampling_rules_test.cpp")])
    assert rc == 0, err.getvalue()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ingot", help="accepted for the ctest wrapper's uniform command; unused")
    ap.parse_args()
    passed = failed = 0
    for fn in CHECKS:
        try:
            fn()
        except Exception:  # noqa: BLE001 - report every check
            failed += 1
            print(f"FAIL {fn.__name__}:\n{traceback.format_exc()}", flush=True)
        else:
            passed += 1
            print(f"PASS {fn.__name__}", flush=True)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
