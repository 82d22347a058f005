#!/usr/bin/env python3
"""ctest wrapper: the c target and the Model Library Format (issue 16).

- The small parity models compiled with `--target c` (portable C built by the host C compiler into
  the runtime's .so) match ONNX Runtime at rel_err 1e-5.
- An MLF of tiny_cnn: the tarball's layout, metadata.json (interface, memory, kernels), the
  header's macros agreeing with it, `ingot run model.tar` matching ONNX Runtime, `ingot inspect
  model.tar`.
- The memory report and its limits: a limit one byte under the need fails with one line naming
  it and writes nothing; the exact need passes; the plan's reuse is reported.
- Errors: mlf with an llvm target, C options with a .so, an archive that is not an MLF.
Prints one line per check and `N passed, N failed`; exits 1 if any check failed.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import parity  # noqa: E402

SMALL_MODELS = ("tiny_cnn,tiny_mobilenet,tiny_bert,gemm_odd,conv_odd,conv_chain_odd,grouped_convs,"
                "depthwise_odd,aspp_tiny,se_tiny,conv3d_odd,conv1d_odd,inception_tiny,densenet_tiny,"
                "squeezenet_tiny")

results = []


def record(name, ok, detail=""):
    results.append(ok)
    print(f"{'PASS' if ok else 'FAIL'} {name}{': ' + detail if detail else ''}", flush=True)


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def ort_outputs(model, feeds):
    import onnxruntime as ort
    s = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    return {o.name: v for o, v in zip(s.get_outputs(), s.run(None, feeds))}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ingot", required=True)
    args = ap.parse_args()
    ingot = args.ingot
    work = tempfile.mkdtemp(prefix="ingot-c-target-")

    rc = parity.main(["--ingot", ingot, "--models", SMALL_MODELS, "--workdir",
                      os.path.join(work, "parity"), "--target", "c", "--tol", "1e-5",
                      "--repeat", "1"])
    record("parity models with --target c vs ONNX Runtime (1e-5)", rc == 0)

    model = os.path.join(work, "parity", "tiny_cnn.onnx")
    inputs = os.path.join(work, "parity", "tiny_cnn.inputs.npz")
    shapes = "input:[1,3,32,32]"
    tar = os.path.join(work, "tiny_cnn.tar")
    r = run([ingot, "compile", model, "--target", "c", "--output-format", "mlf", "-o", tar,
             "--input-shapes", shapes])
    record("compile --output-format mlf", r.returncode == 0, r.stderr.strip())
    if r.returncode != 0:
        return finish()
    report = r.stdout
    with tarfile.open(tar) as t:
        names = sorted(t.getnames())
        meta = json.load(t.extractfile("metadata.json"))
        header = t.extractfile("codegen/host/include/ingot_tiny_cnn.h").read().decode()
        source = t.extractfile("codegen/host/src/ingot_tiny_cnn.c").read().decode()
        consts = t.extractfile("parameters/ingot_tiny_cnn_constants.c").read().decode()
    want = ["codegen/host/include/ingot_tiny_cnn.h", "codegen/host/src/ingot_tiny_cnn.c",
            "metadata.json", "parameters/ingot_tiny_cnn_constants.c", "src/graph.txt",
            "src/tiny_cnn.onnx"]
    record("MLF layout", names == want, str(names))
    mem = meta["memory"]
    record("metadata: interface",
           meta["inputs"][0]["name"] == "input" and meta["inputs"][0]["shape"] == [1, 3, 32, 32]
           and meta["inputs"][0]["bytes"] == 4 * 3 * 32 * 32 and meta["outputs"][0]["shape"] == [1, 10]
           and meta["target"] == "c", json.dumps(meta["inputs"]))
    record("metadata: memory adds up",
           mem["flash_bytes"] == mem["code_bytes"] + mem["constant_bytes"]
           and mem["sram_bytes"] == mem["workspace_bytes"] + mem["io_bytes"]
           and mem["io_bytes"] == 4 * (3 * 32 * 32 + 10)
           and mem["workspace_bytes_without_reuse"] > mem["workspace_bytes"] > 0,
           json.dumps(mem))
    record("metadata: kernels",
           len(meta["kernels"]) > 0 and all(k["ops"] for k in meta["kernels"])
           and max(k["workspace_bytes"] for k in meta["kernels"]) <= mem["workspace_bytes"],
           f"{len(meta['kernels'])} kernels")
    record("header macros agree with the metadata",
           f"#define INGOT_TINY_CNN_WORKSPACE_SIZE {mem['workspace_bytes']}\n" in header
           and f"#define INGOT_TINY_CNN_CONSTANT_SIZE {mem['constant_bytes']}\n" in header
           and "int32_t ingot_tiny_cnn_run(struct ingot_tiny_cnn_inputs* inputs" in header)
    record("portable C: no heap, no OS",
           not any(w in source for w in ("malloc", "free(", "pthread", "#include <stdio.h>",
                                         "#include <stdlib.h>")))
    record("constants file holds the blob",
           f"ingot_tiny_cnn_constants[{mem['constant_bytes']}]" in consts)
    record("the report prints flash and sram with the plan's saving",
           f"flash: {mem['flash_bytes']} bytes" in report and f"sram:  {mem['sram_bytes']} bytes" in report
           and "without reuse" in report, report.strip())

    outs = os.path.join(work, "mlf_outputs.npz")
    r = run([ingot, "run", tar, "--inputs", inputs, "--outputs", outs])
    ok = r.returncode == 0
    if ok:
        x = dict(np.load(inputs))
        ref = ort_outputs(model, x)
        with np.load(outs) as f:
            got = {k: f[k] for k in f.files}
        # The parity run's tolerance (rtol = atol = 1e-5: tiny_cnn's logits are of order 1).
        ok, detail = parity.compare_outputs(ref, got, 1e-5, 1e-5, finite_ref=True)
    else:
        detail = r.stderr.strip()
    record("ingot run model.tar matches ONNX Runtime", ok, detail)
    r = run([ingot, "inspect", tar])
    record("ingot inspect model.tar", r.returncode == 0 and "model:      tiny_cnn" in r.stdout
           and "target:     c" in r.stdout, r.stdout.strip()[:200])

    # Limits: one byte under fails, names the limit, writes nothing; the exact need passes.
    for flag, need in (("--workspace-bytes-limit", mem["workspace_bytes"]),
                       ("--flash-bytes-limit", mem["flash_bytes"])):
        out = os.path.join(work, "limited.tar")
        r = run([ingot, "compile", model, "--target", "c", "--output-format", "mlf", "-o", out,
                 "--input-shapes", shapes, flag, str(need - 1)])
        lines = r.stderr.strip().splitlines()
        record(f"{flag} {need - 1} fails with one line, nothing written",
               r.returncode == 1 and len(lines) == 1 and flag in lines[0] and str(need) in lines[0]
               and not os.path.exists(out), r.stderr.strip())
        r = run([ingot, "compile", model, "--target", "c", "--output-format", "mlf", "-o", out,
                 "--input-shapes", shapes, flag, str(need)])
        record(f"{flag} {need} (the exact need) passes", r.returncode == 0 and os.path.exists(out),
               r.stderr.strip())
        if os.path.exists(out):
            os.remove(out)

    # The workspace limit on the llvm target too.
    out = os.path.join(work, "limited.so")
    r = run([ingot, "compile", model, "-o", out, "--input-shapes", shapes,
             "--workspace-bytes-limit", "64"])
    record("--workspace-bytes-limit on the llvm target", r.returncode == 1
           and "--workspace-bytes-limit: the model needs a workspace of" in r.stderr
           and not os.path.exists(out), r.stderr.strip())

    # Errors.
    out = os.path.join(work, "bad.out")
    for name, cmd, needle in (
        ("mlf needs --target c", ["--output-format", "mlf"], "--output-format mlf needs --target c"),
        ("a .so takes no C options", ["--target", "c -mcpu=cortex-m4"], "use --output-format mlf"),
        ("unknown output format", ["--output-format", "zip"], "zip"),
    ):
        r = run([ingot, "compile", model, "-o", out, "--input-shapes", shapes] + cmd)
        record(f"error: {name}", r.returncode != 0 and needle in r.stderr
               and not os.path.exists(out) and "internal" not in r.stderr, r.stderr.strip())
    bogus = os.path.join(work, "bogus.tar")
    with tarfile.open(bogus, "w") as t:
        t.add(inputs, arcname="inputs.npz")
    r = run([ingot, "run", bogus])
    record("error: an archive that is not an MLF", r.returncode == 1
           and "not an ingot Model Library Format archive" in r.stderr, r.stderr.strip())
    r = run([ingot, "compile", model, "--target", "c", "--dump", "c", "-o", out,
             "--input-shapes", shapes])
    record("--dump c prints the kernels", r.returncode == 0
           and "int32_t ingot_tiny_cnn_run_arrays(" in r.stdout, r.stderr.strip())
    two_models_in_one_program(ingot, work)
    return finish()


TWO_MODELS_MAIN = r"""
#include <stdio.h>
#include <stdlib.h>
#include "ingot_net_a.h"
#include "ingot_net_b.h"

static void* load(const char* path, size_t bytes) {
  void* p = malloc(bytes);
  FILE* f = fopen(path, "rb");
  if (!f || fread(p, 1, bytes, f) != bytes) exit(2);
  fclose(f);
  return p;
}

static void save(const char* path, const void* p, size_t bytes) {
  FILE* f = fopen(path, "wb");
  if (!f || fwrite(p, 1, bytes, f) != bytes) exit(3);
  fclose(f);
}

int main(void) {
  void* a_in[1] = {load("a.in", @A_IN@)};
  void* a_out[1] = {malloc(@A_OUT@)};
  void* b_in[1] = {load("b.in", @B_IN@)};
  void* b_out[1] = {malloc(@B_OUT@)};
  void* ws = aligned_alloc(64, INGOT_NET_A_WORKSPACE_SIZE + INGOT_NET_B_WORKSPACE_SIZE + 64);
  if (ingot_net_a_run_arrays(a_in, a_out, ws, NULL, NULL, NULL) != 0) return 4;
  if (ingot_net_b_run_arrays(b_in, b_out, ws, NULL, NULL, NULL) != 0) return 5;
  save("a.out", a_out[0], @A_OUT@);
  save("b.out", b_out[0], @B_OUT@);
  return 0;
}
"""


def two_models_in_one_program(ingot, work):
    """--model-name: two MLFs renamed net_a and net_b link into one C program, each matching
    ONNX Runtime; a name that is not a C identifier is refused."""
    d = os.path.join(work, "two_models")
    os.makedirs(d, exist_ok=True)
    models = {"net_a": ("tiny_cnn", "input:[1,3,32,32]"), "net_b": ("gemm_odd", None)}
    sources = []
    for name, (model, shapes) in models.items():
        tar = os.path.join(d, name + ".tar")
        cmd = [ingot, "compile", os.path.join(work, "parity", model + ".onnx"), "--target", "c",
               "--output-format", "mlf", "-o", tar, "--model-name", name]
        r = run(cmd + (["--input-shapes", shapes] if shapes else []))
        if r.returncode != 0:
            record(f"--model-name {name}", False, r.stderr.strip())
            return
        with tarfile.open(tar) as t:
            t.extractall(os.path.join(d, name), filter="data")
            meta = json.load(t.extractfile("metadata.json"))
        record(f"--model-name {name}: metadata and files renamed", meta["model_name"] == name
               and os.path.exists(os.path.join(d, name, f"codegen/host/include/ingot_{name}.h")))
        sources += [os.path.join(d, name, "codegen/host/src", f"ingot_{name}.c"),
                    os.path.join(d, name, "parameters", f"ingot_{name}_constants.c")]
    # The main program names each model's I/O size macros as its header spells them.
    main_c = TWO_MODELS_MAIN
    for name in models:
        with open(os.path.join(d, name, f"codegen/host/include/ingot_{name}.h")) as f:
            header = f.read()
        for kind, slot in (("INPUT", "IN"), ("OUTPUT", "OUT")):
            (macro,) = re.findall(rf"#define (INGOT_{name.upper()}_{kind}_\w+_SIZE) ", header)
            main_c = main_c.replace(f"@{name[-1].upper()}_{slot}@", macro)
    with open(os.path.join(d, "main.c"), "w") as f:
        f.write(main_c)
    incs = [f"-I{os.path.join(d, n, 'codegen/host/include')}" for n in models]
    exe = os.path.join(d, "two_models")
    r = run([os.environ.get("CC", "cc"), "-std=c11", "-O2", "-Wall", "-Werror", *incs,
             os.path.join(d, "main.c"), *sources, "-o", exe, "-lm"])
    record("two MLFs link into one C program", r.returncode == 0, r.stderr.strip()[:500])
    if r.returncode != 0:
        return
    feeds = {}
    for name, (model, _) in models.items():
        x = dict(np.load(os.path.join(work, "parity", model + ".inputs.npz")))
        feeds[name] = x
        (v,) = x.values()
        v.astype(np.float32).tofile(os.path.join(d, name[-1] + ".in"))
    r = run([exe], cwd=d)
    ok = r.returncode == 0
    detail = f"exit {r.returncode}"
    if ok:
        details = []
        for name, (model, _) in models.items():
            ref = ort_outputs(os.path.join(work, "parity", model + ".onnx"), feeds[name])
            ((out, want),) = ref.items()
            got = np.fromfile(os.path.join(d, name[-1] + ".out"), dtype=np.float32)
            got = got.reshape(want.shape) if got.size == want.size else got
            # The parity run's tolerance (rtol = atol = 1e-5: outputs of order 1).
            ok_one, msg = parity.compare_outputs(ref, {out: got}, 1e-5, 1e-5, finite_ref=True)
            ok = ok and ok_one
            details.append(f"{name}: {msg}")
        detail = "; ".join(details)
    record("both models in one program match ONNX Runtime", ok, detail)
    r = run([ingot, "compile", os.path.join(work, "parity", "gemm_odd.onnx"), "--target", "c",
             "--output-format", "mlf", "-o", os.path.join(d, "bad.tar"), "--model-name", "9net"])
    record("error: --model-name that is not a C identifier", r.returncode == 1
           and "--model-name: '9net' is not a C identifier" in r.stderr
           and not os.path.exists(os.path.join(d, "bad.tar")), r.stderr.strip())


def finish():
    passed = sum(results)
    print(f"{passed} passed, {len(results) - passed} failed")
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    import shutil
    try:
        sys.exit(main())
    finally:
        for d in os.listdir(tempfile.gettempdir()):
            if d.startswith("ingot-c-target-"):
                shutil.rmtree(os.path.join(tempfile.gettempdir(), d), ignore_errors=True)
