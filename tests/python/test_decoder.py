#!/usr/bin/env python3
"""ctest wrapper: decoder language models compiled once with symbolic sequence and past lengths
(issue 17; docs/dynamic-shapes.md), against ONNX Runtime.

scripts/export_decoder.py exports a GPT-2-shaped and a Llama-shaped model (random weights from a
config, torch dynamo, `seq` and `past` dynamic). Each is compiled once with
`--dim-bounds seq:1..64 past:0..127`, then:
- every output (logits and the presents) matches ONNX Runtime at several (seq, past) bindings,
  prefill-like and decode-like: every element within atol + 1e-4*|ref|, atol = 1e-4 x the
  RMS of each output (scripts/parity.py's compare_outputs);
- greedy generation (prefill of a prompt, then one token per step, each side feeding its own
  presents back as pasts) gives exactly ONNX Runtime's tokens, with the logits at every step
  within atol + 1e-4*|ref|, atol = 1e-4 x that step's logits' RMS;
- a binding past the bound is refused with one line naming the input;
- compiled again with `--kv-cache 128` (the caches kept in the session as states): the logits and
  each cache after the run match ONNX Runtime's logits and presents at several bindings (the
  pasts loaded as the states' entries), greedy generation through the saved caches and through
  examples/generate (whose session appends in place) gives ONNX Runtime's tokens, and a run past
  the capacity is refused with one line naming the state.
Prints one line per check and `N passed, N failed`; exits 1 on a failure, 77 when torch,
transformers or onnxscript is missing (the export needs them) or ingot_generate was not built.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import parity  # noqa: E402  (compare_outputs, the one output checker)

BOUNDS = "seq:1..64 past:0..127"
KV_CAPACITY = 128
results = []
not_built = []  # ingot_generate missing: its checks did not run (exit 77, SKIP)


def record(name, ok, detail=""):
    results.append(ok)
    print(f"{'PASS' if ok else 'FAIL'} {name}{': ' + detail if detail else ''}", flush=True)


def check_refused(label, run, feeds, *needles):
    """run(feeds) must fail with one line that contains every needle."""
    try:
        run(feeds)
        record(label, False, "it ran")
    except RuntimeError as e:
        msg = str(e)
        record(label, all(n in msg for n in needles) and "\n" not in msg, msg)


class Ingot:
    def __init__(self, exe, artifact, tmp):
        self.exe, self.artifact, self.tmp = exe, artifact, tmp

    def run(self, feeds, extra=()):
        inp, out = os.path.join(self.tmp, "in.npz"), os.path.join(self.tmp, "out.npz")
        np.savez(inp, **feeds)
        r = subprocess.run([self.exe, "run", self.artifact, "--inputs", inp, "--outputs", out,
                            *extra], capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(r.stderr.strip())
        with np.load(out) as z:
            return {k: z[k] for k in z.files}


def feeds_for(cfg, ids, pasts):
    f = {"input_ids": np.asarray(ids, dtype=np.int64).reshape(1, -1)}
    for i in range(cfg["layers"]):
        f[f"past_key_{i}"], f[f"past_value_{i}"] = pasts[2 * i], pasts[2 * i + 1]
    return f


def compare_steps(got_logits, want_logits, rtol=1e-4):
    """compare_outputs over the last-position logits of every generation step: each within
    atol + rtol*|ref|, atol = rtol x that step's RMS. -> (ok, message)."""
    if len(got_logits) != len(want_logits):
        return False, f"{len(got_logits)} steps, ONNX Runtime {len(want_logits)}"
    rel, dmax = [], []
    for step, (g, w) in enumerate(zip(got_logits, want_logits)):
        stats = {}
        ok, msg = parity.compare_outputs({"logits": w}, {"logits": g}, rtol, rtol,
                                         atol_scale="rms", finite_ref=True, stats=stats)
        if not ok:
            return False, f"step {step}: {msg}"
        rel.append(stats["logits"]["rel_err"])
        dmax.append(stats["logits"]["max_abs"])
    return True, (f"{len(want_logits)} steps: rel_err up to {max(rel):.2e}, max |d| "
                  f"{max(dmax):.2e} (rtol {rtol:g}, atol {rtol:g} x each step's RMS)")


def check_bindings(label, run, sess, names, cfg, rng, bindings):
    """Every output `run(feeds)` gives (by ONNX Runtime's output names) against ONNX Runtime's at
    each (seq, past) binding: every element within atol + 1e-4*|ref|, atol = 1e-4 x that
    output's RMS (the logits and caches are sums over the hidden size of order-1 terms: an element
    near zero carries the rounding of its terms, not its own)."""
    kv_shape = lambda past: (1, cfg["kv_heads"], past, cfg["head_dim"])  # noqa: E731
    for seq, past in bindings:
        ids = rng.integers(0, cfg["vocab"], seq)
        pasts = [rng.standard_normal(kv_shape(past)).astype(np.float32)
                 for _ in range(2 * cfg["layers"])]
        feeds = feeds_for(cfg, ids, pasts)
        want = dict(zip(names, sess.run(None, feeds)))
        try:
            got = run(feeds)
        except RuntimeError as e:
            record(f"{label}: seq={seq} past={past}", False, str(e))
            continue
        ok, msg = parity.compare_outputs(want, got, 1e-4, 1e-4, atol_scale="rms",
                                         finite_ref=True)
        record(f"{label}: seq={seq} past={past} all {len(names)} outputs", ok, msg)


def check_model(name, exe, tmp, steps):
    import onnxruntime as ort

    model = os.path.join(tmp, name + ".onnx")
    r = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "export_decoder.py"),
                        "--model", name, "-o", model], capture_output=True, text=True)
    if r.returncode != 0:
        record(f"{name}: export", False, r.stderr.strip().splitlines()[-1])
        return
    cfg = json.load(open(os.path.join(tmp, name + ".config.json")))
    art = os.path.join(tmp, name + ".so")
    r = subprocess.run([exe, "compile", model, "-o", art, "--dim-bounds", BOUNDS],
                       capture_output=True, text=True)
    record(f"{name}: compile with {BOUNDS}", r.returncode == 0, r.stderr.strip())
    if r.returncode != 0:
        return
    ingot = Ingot(exe, art, tmp)
    sess = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    names = [o.name for o in sess.get_outputs()]
    rng = np.random.default_rng(7)
    kv_shape = lambda past: (1, cfg["kv_heads"], past, cfg["head_dim"])  # noqa: E731

    # 1. Every output at several bindings.
    check_bindings(name, ingot.run, sess, names, cfg, rng,
                   [(8, 0), (1, 8), (5, 3), (1, 1), (1, 63), (64, 0), (17, 30)])

    # 2. Greedy generation, each side on its own presents.
    prompt = list(rng.integers(0, cfg["vocab"], 6))

    def generate(run):
        pasts = [np.zeros(kv_shape(0), np.float32) for _ in range(2 * cfg["layers"])]
        ids, tokens, logits = prompt, [], []
        for _ in range(steps):
            out = run(feeds_for(cfg, ids, pasts))
            last = out["logits"][0, -1].astype(np.float64)
            logits.append(last)
            tokens.append(int(np.argmax(last)))
            pasts = [out[n] for n in names[1:]]
            ids = [tokens[-1]]
        return tokens, logits

    want_tokens, want_logits = generate(lambda f: dict(zip(names, sess.run(None, f))))
    try:
        got_tokens, got_logits = generate(ingot.run)
    except RuntimeError as e:
        record(f"{name}: greedy generation", False, str(e))
        return
    record(f"{name}: greedy {steps} tokens equal ONNX Runtime's", got_tokens == want_tokens,
           f"{got_tokens} vs {want_tokens}" if got_tokens != want_tokens
           else f"{len(set(got_tokens))} distinct: {got_tokens}")
    ok, msg = compare_steps(got_logits, want_logits)
    record(f"{name}: logits at every step within 1e-4", ok, msg)

    # 2b. examples/generate (the C++ runtime API alone): the same greedy tokens, and top-p
    # sampling that is reproducible by its seed and stays in the vocabulary.
    gen = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(exe))), "examples",
                       "generate", "ingot_generate")
    if os.path.exists(gen):
        prompt_arg = ",".join(str(int(t)) for t in prompt)
        r = subprocess.run([gen, art, "--prompt", prompt_arg, "--tokens", str(steps)],
                           capture_output=True, text=True)
        line = next((ln for ln in r.stdout.splitlines() if ln.startswith("tokens:")), "")
        tokens = [int(t) for t in line.split()[1:]]
        record(f"{name}: ingot_generate greedy tokens equal ONNX Runtime's",
               r.returncode == 0 and tokens == want_tokens,
               r.stderr.strip() or ("" if tokens == want_tokens else f"{tokens}"))
        record(f"{name}: ingot_generate prints tokens/s, peak memory and artifact size",
               all(k in r.stdout for k in ("prefill:", "decode:", "peak memory:", "artifact:")),
               r.stdout.strip().splitlines()[-1] if r.stdout.strip() else "")
        runs = [subprocess.run([gen, art, "--prompt", prompt_arg, "--tokens", "12", "--top-p",
                                "0.9", "--seed", "5"], capture_output=True, text=True)
                for _ in range(2)]
        sampled = [[int(t) for t in next((ln for ln in r.stdout.splitlines()
                                          if ln.startswith("tokens:")), "x").split()[1:]]
                   for r in runs]
        record(f"{name}: ingot_generate top-p reproducible by seed",
               sampled[0] == sampled[1] and len(sampled[0]) == 12 and
               all(0 <= t < cfg["vocab"] for t in sampled[0]), f"{sampled[0]}")
    else:
        not_built.append(gen)

    check_kv_cache(name, exe, tmp, model, cfg, sess, names, (prompt, steps, want_tokens,
                                                              want_logits, generate, gen))

    # 3. Past the bound: one line naming the input.
    feeds = feeds_for(cfg, rng.integers(0, cfg["vocab"], 65),
                      [np.zeros(kv_shape(0), np.float32)] * (2 * cfg["layers"]))
    check_refused(f"{name}: seq=65 refused", ingot.run, feeds, "'input_ids'")


def check_kv_cache(name, exe, tmp, model, cfg, sess, names, greedy):
    """The same model compiled with --kv-cache: the caches are states of the session."""
    prompt, steps, want_tokens, want_logits, generate, gen = greedy
    art = os.path.join(tmp, name + "_kv.so")
    r = subprocess.run([exe, "compile", model, "-o", art, "--dim-bounds", BOUNDS, "--kv-cache",
                        str(KV_CAPACITY)], capture_output=True, text=True)
    record(f"{name} --kv-cache: compile", r.returncode == 0, r.stderr.strip())
    if r.returncode != 0:
        return
    r = subprocess.run([exe, "inspect", art], capture_output=True, text=True)
    n = 2 * cfg["layers"]
    record(f"{name} --kv-cache: inspect lists {n} states and input_ids alone",
           f"states ({n}):" in r.stdout and "inputs (1):" in r.stdout, r.stdout.strip())
    kv = Ingot(exe, art, tmp)
    presents = names[1:]
    as_past = lambda n: n.replace("present_", "past_")  # noqa: E731
    rng = np.random.default_rng(11)
    kv_shape = lambda past: (1, cfg["kv_heads"], past, cfg["head_dim"])  # noqa: E731

    def run_kv(feeds):  # `ingot run` saves each state's entries (the present) under its name
        out = kv.run(feeds)
        return {"logits": out["logits"], **{n: out[as_past(n)] for n in presents}}

    # a. The logits and every cache after the run against ONNX Runtime's logits and presents;
    # 64 + 64 fills the capacity.
    check_bindings(f"{name} --kv-cache", run_kv, sess, names, cfg, rng,
                   [(8, 0), (1, 8), (5, 3), (1, 63), (17, 30), (64, 64)])
    # a2. `ingot run --repeat 3` restarts every run from the loaded caches: the same outputs
    # and caches as one run (runs that kept appending would grow the caches).
    feeds = feeds_for(cfg, rng.integers(0, cfg["vocab"], 2),
                      [rng.standard_normal(kv_shape(5)).astype(np.float32)
                       for _ in range(2 * cfg["layers"])])
    try:
        once, thrice = kv.run(feeds), kv.run(feeds, ["--repeat", "3"])
        same, msg = parity.compare_outputs(once, thrice, 0, 0, ref_name="one run",
                                           got_name="--repeat 3")  # the same code: bit-exact
        record(f"{name} --kv-cache: ingot run --repeat 3 gives one run's outputs and caches",
               same, msg if not same else f"{ {k: thrice[k].shape for k in list(thrice)[:2]} }")
    except RuntimeError as e:
        record(f"{name} --kv-cache: ingot run --repeat 3", False, str(e))
    # b. Greedy generation with the caches saved and loaded between runs.
    try:
        tokens, logits = generate(run_kv)
        ok, msg = compare_steps(logits, want_logits)
        record(f"{name} --kv-cache: greedy {steps} tokens equal ONNX Runtime's, logits within 1e-4",
               tokens == want_tokens and ok, f"{msg}; {tokens}")
    except RuntimeError as e:
        record(f"{name} --kv-cache: greedy generation", False, str(e))
    # c. examples/generate: one session whose runs append to its caches in place.
    if os.path.exists(gen):
        r = subprocess.run([gen, art, "--prompt", ",".join(str(int(t)) for t in prompt),
                            "--tokens", str(steps)], capture_output=True, text=True)
        line = next((ln for ln in r.stdout.splitlines() if ln.startswith("tokens:")), "")
        tokens = [int(t) for t in line.split()[1:]]
        record(f"{name} --kv-cache: ingot_generate greedy tokens equal ONNX Runtime's",
               r.returncode == 0 and tokens == want_tokens and "kv cache:" in r.stdout,
               r.stderr.strip() or ("" if tokens == want_tokens else f"{tokens}"))
    # d. Past the capacity: 120 cached entries and 10 new ones, refused with one line.
    feeds = feeds_for(cfg, rng.integers(0, cfg["vocab"], 10),
                      [np.zeros(kv_shape(120), np.float32)] * (2 * cfg["layers"]))
    check_refused(f"{name} --kv-cache: 120 + 10 entries refused", kv.run, feeds, "capacity 128",
                  "'past_key_0'")
    # e. Caches of different lengths in one .npz: refused with one line naming them.
    pasts = [np.zeros(kv_shape(4), np.float32) for _ in range(2 * cfg["layers"])]
    pasts[1] = np.zeros(kv_shape(3), np.float32)
    check_refused(f"{name} --kv-cache: caches of different lengths refused", kv.run,
                  feeds_for(cfg, [1], pasts), "share one length", "'past_value_0'")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ingot", required=True)
    ap.add_argument("--models", default="gpt2_tiny,llama_tiny",
                    help="export_decoder.py models (gpt2: GPT-2 small, 500 MB, minutes)")
    ap.add_argument("--steps", type=int, default=24, help="greedy tokens generated")
    args = ap.parse_args()
    try:
        import onnxscript  # noqa: F401
        import torch  # noqa: F401
        import transformers  # noqa: F401
    except ImportError as e:
        print(f"SKIP: {e}")
        sys.exit(77)
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.models.split(","):
            check_model(name, os.path.abspath(args.ingot), tmp, args.steps)
    print(f"{sum(results)} passed, {len(results) - sum(results)} failed")
    if all(results) and not_built:
        print(f"SKIP: {not_built[0]} not built (INGOT_BUILD_EXAMPLES=OFF): its checks did not run")
        sys.exit(77)
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()
