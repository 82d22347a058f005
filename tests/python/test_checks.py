#!/usr/bin/env python3
"""ctest wrapper: the checks of the test scripts fail when they must (issue 11, part 5).

- scripts/parity.py compare_outputs, the one output checker (issue 45): a NaN or Inf in ingot's
  output where the reference has none (one element or all), NaN/Inf at other positions or of
  another sign, a NaN or Inf in the reference under finite_ref, a dtype mismatch, a shape
  mismatch, a missing or extra output, an integer mismatch (beyond int_atol), a bool mismatch,
  one wrong small-magnitude element beside large ones, and an error over the tolerance all
  fail; a correct case, matching NaN/Inf positions (node tests that expect NaN) and integer
  outputs within int_atol pass; the reported rel_err is per element.
- scripts/real_model_parity.py: one model skipped for a missing package gives the SKIP exit
  status (77), never 0, also when the other models pass; a failure gives 1.
- bench/model_bench.py: a row whose outputs did not match prints FAILED, not a time.
- scripts/conformance.py: scope exclusions are counted per rule.
- scripts/batch_run.py (the conformance runner's `ingot run --batch` workers): each run's status
  and output, a worker killed by a signal mid-run reported with the signal and replaced, a run
  past its timeout killed and replaced, arguments it cannot pass refused.
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


def expect_fail(got, *words, ref=None, **kw):
    ok, msg = parity.compare_outputs(ref if ref is not None else ref_outputs(), got, 1e-3, **kw)
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
def small_magnitude_element_checked():
    """One wrong element of magnitude 1e-3 beside elements of 1e3: a check that divided by the
    output's largest value (1e3) passed it; per element it is 100% off."""
    ref = {"y": np.array([1e3, -1e3, 1e-3, 2.0], np.float32)}
    got = {"y": ref["y"].copy()}
    got["y"][2] = 2e-3
    expect_fail(got, "'y'", "1 of 4", "[2]", ref=ref, atol=1e-6)
    got["y"][2] = 1e-3 * (1 + 1e-5)  # within rtol of itself
    ok, msg = parity.compare_outputs(ref, got, 1e-3, 1e-6)
    assert ok, msg


@check
def large_elements_held_relative():
    """An element of 1e3 off by 0.5 is 5e-4 relative: within rtol 1e-3; off by 5 it is not."""
    ref = {"y": np.array([1e3, 1.0], np.float32)}
    ok, msg = parity.compare_outputs(ref, {"y": np.array([1e3 + 0.5, 1.0], np.float32)}, 1e-3)
    assert ok, msg
    expect_fail({"y": np.array([1e3 + 5, 1.0], np.float32)}, "'y'", "[0]", ref=ref)


@check
def rel_err_reported_per_element():
    ref = {"y": np.array([100.0, 1.0], np.float32)}
    got = {"y": np.array([100.0, 1.0005], np.float32)}
    stats = {}
    ok, msg = parity.compare_outputs(ref, got, 1e-3, 1e-6, stats=stats)
    assert ok, msg
    # 5e-4 of the element itself, not 5e-6 of the output's largest value.
    assert abs(stats["y"]["rel_err"] - 5e-4) < 1e-5, stats
    assert "rel_err 5.0" in msg, msg


@check
def atol_scaled_by_each_outputs_rms():
    """atol_scale="rms": the absolute floor is atol x that output's RMS, per output."""
    ref = {"big": np.array([300.0, -400.0, 0.0], np.float32),   # RMS 288.7
           "small": np.array([3e-3, -4e-3, 0.0], np.float32)}   # RMS 2.887e-3
    got = {k: v.copy() for k, v in ref.items()}
    got["big"][2] = 0.25                                        # < 1e-3 x 288.7
    ok, msg = parity.compare_outputs(ref, got, 1e-3, 1e-3, atol_scale="rms")
    assert ok, msg
    assert "x each output's RMS" in msg, msg
    got["small"][2] = 0.25 * 1e-3 * 40                          # 1e-5 > 1e-3 x 2.887e-3
    expect_fail(got, "'small'", "[2]", ref=ref, atol_scale="rms")
    got["small"][2] = 0.0
    got["big"][2] = 0.3                                          # > 1e-3 x 288.7
    expect_fail(got, "'big'", "[2]", ref=ref, atol_scale="rms")
    assert abs(parity.rms(np.array([3.0, -4.0, np.nan])) - np.sqrt(12.5)) < 1e-12


@check
def atol_scaled_by_each_outputs_max():
    """atol_scale="max": the absolute floor is atol x that output's largest |ref|."""
    ref = {"y": np.array([100.0, -50.0, 0.0], np.float32)}
    ok, msg = parity.compare_outputs(ref, {"y": np.array([100.0, -50.0, 9.0], np.float32)},
                                     0.1, 0.1, atol_scale="max")
    assert ok and "max |ref|" in msg, msg
    ok, msg = parity.compare_outputs(ref, {"y": np.array([100.0, -50.0, 11.0], np.float32)},
                                     0.1, 0.1, atol_scale="max")  # 11 > 0.1 x 100
    assert not ok and "'y'" in msg and "[2]" in msg, msg
    try:
        parity.compare_outputs(ref, ref, 0.1, atol_scale="mean")
    except ValueError:
        pass
    else:
        raise AssertionError("an unknown atol_scale was accepted")


@check
def matching_nan_and_inf_pass():
    """Node tests whose expected output holds NaN and +-Inf pass when ingot agrees."""
    ref = {"y": np.array([np.nan, np.inf, -np.inf, 1.0], np.float32)}
    ok, msg = parity.compare_outputs(ref, {"y": ref["y"].copy()}, 1e-3)
    assert ok, msg


@check
def nonfinite_position_or_sign_differs_fails():
    ref = {"y": np.array([np.nan, np.inf, 1.0], np.float32)}
    expect_fail({"y": np.array([1.0, np.inf, np.nan], np.float32)}, "'y'", "NaN/Inf", "[0]",
                ref=ref)
    expect_fail({"y": np.array([np.nan, -np.inf, 1.0], np.float32)}, "'y'", "[1]", ref=ref)
    expect_fail({"y": np.array([np.nan, 5.0, 1.0], np.float32)}, "'y'", "[1]", ref=ref)


@check
def integer_outputs_exact_or_within_int_atol():
    ref = {"q": np.array([-128, 0, 127, 5], np.int8)}
    got = {"q": np.array([-127, 0, 127, 5], np.int8)}
    expect_fail(got, "'q'", "1 of 4", "[0]", ref=ref)
    ok, msg = parity.compare_outputs(ref, got, 1e-3, int_atol=1)
    assert ok, msg
    # int8 wrap-around must not hide a difference: -128 vs 127 is 255 apart, not 1.
    expect_fail({"q": np.array([127, 0, 127, 5], np.int8)}, "'q'", ref=ref, int_atol=1)
    ref = {"b": np.array([True, False])}
    expect_fail({"b": np.array([True, True])}, "'b'", "differ", ref=ref)


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
def nan_in_reference_fails_under_finite_ref():
    ref = ref_outputs()
    ref["logits"][0, 1] = np.nan
    got = ref_outputs()
    got["logits"][0, 1] = np.nan  # even when ingot agrees
    expect_fail(got, "'logits'", "ONNX Runtime", "bad test input", ref=ref, finite_ref=True)
    expect_fail(ref_outputs(), "'logits'", "NaN/Inf", ref=ref)  # and a NaN ingot lacks fails


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
    expect_fail(ref_outputs(), "'logits'", "bad test input", ref=ref, finite_ref=True)


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


# A stand-in for `ingot run --batch -` speaking its protocol: "ok" lines succeed, "fail" lines
# print an error, "sleep" hangs, "crash" kills the process with SIGSEGV.
FAKE_BATCH = """import os, signal, sys, time
for n, line in enumerate(sys.stdin, 1):
    word = line.split()[0]
    if word == "sleep":
        time.sleep(60)
    if word == "crash":
        sys.stdout.write("half a line"); sys.stdout.flush()
        os.kill(os.getpid(), signal.SIGSEGV)
    if word == "fail":
        print("error: it failed")
    print("output of", word)
    print(f"ingot-batch: {n} exit {1 if word == 'fail' else 0}", flush=True)
"""


@check
def batch_runner_results_crashes_and_timeouts():
    import batch_run
    with tempfile.TemporaryDirectory() as d:
        fake = os.path.join(d, "ingot")
        with open(fake, "w") as f:
            f.write(f"#!{sys.executable}\n" + FAKE_BATCH)
        os.chmod(fake, 0o755)
        runner = batch_run.BatchRunner(fake)
        assert runner.run(["ok"], 10) == (0, "output of ok")
        assert runner.run(["fail"], 10) == (1, "error: it failed\noutput of fail")
        first = runner._local.proc
        status, out = runner.run(["crash"], 10)  # the worker dies: its signal, then a new one
        assert status == -11 and out == "half a line", (status, out)
        assert runner.run(["ok"], 10) == (0, "output of ok")
        assert runner._local.proc is not first
        status, _ = runner.run(["sleep"], 0.5)  # past the timeout: killed, reported, replaced
        assert status is None
        assert runner.run(["ok"], 10) == (0, "output of ok")
        try:
            runner.run(["a b"], 10)
            raise AssertionError("an argument with a space was accepted")
        except ValueError:
            pass
        runner.close()


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
