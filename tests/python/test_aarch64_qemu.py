#!/usr/bin/env python3
"""aarch64 parity under emulation: ingot cross-compiles the parity models for AArch64 Linux
(`--target "llvm -mtriple=aarch64-linux-gnu -mcpu=CPU"`, LLD links in-process), the runtime and
tools/ingot_run_lite are cross-built with cmake/aarch64-linux-gnu.cmake, and each artifact runs
under qemu-aarch64 user-mode emulation with the matching CPU model (so an instruction the CPU
lacks faults). Every output must match ONNX Runtime (run on this machine) within --tol
(parity.compare_outputs: names, dtypes, shapes, no NaN/Inf, every element within
atol + tol*|ref|, atol = tol x the output's RMS).

Needs qemu-aarch64 (Debian qemu-user), aarch64-linux-gnu-gcc (gcc-aarch64-linux-gnu) and the
AArch64 libc (libc6-dev-arm64-cross); scripts/install-deps --with-tests installs them. Without
them the test prints why and exits 77 (ctest: skipped).

Usage: test_aarch64_qemu.py --ingot PATH [--models a,b] [--cpus neoverse-n1,cortex-a72,apple-m1]
       [--tol 1e-4] [--workdir DIR] [--build-dir DIR]
Also one artifact over a symbolic row count (the products of rule symbolic_rows_matmul on the NEON
micro-kernel), and one with int4 weights (rule dequant_matmul, the NEON dequantizing kernel)
against NumPy's products of the weights quantized by the documented scheme, run at several
lengths on the first CPU.
The 8-bit product in each of its AArch64 forms (SDOT, USDOT, the portable one) and a QDQ net's
8-bit convs (with and without dotprod) run exactly / within one quantization step.
Prints one PASS/FAIL line per (model, CPU) and a closing "N passed, N failed".
"""
import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

SKIP = 77
SYSROOT = Path("/usr/aarch64-linux-gnu")
TRIPLE = "aarch64-linux-gnu"
EM_AARCH64 = 183
# ingot -mcpu -> qemu -cpu (QEMU 7.2 models; "max" has every feature QEMU emulates).
QEMU_CPU = {"neoverse-n1": "neoverse-n1", "cortex-a72": "cortex-a72", "cortex-a57": "cortex-a57",
            "cortex-a53": "cortex-a53", "cortex-a76": "cortex-a76", "apple-m1": "max",
            "generic": "cortex-a53"}
DEFAULT_MODELS = ("tiny_cnn,tiny_mlp,tiny_bert,tiny_mobilenet,gemm_odd,conv_odd,conv_chain_odd,"
                  "conv3d_odd,mobilenetv2,resnet50,bert")
# Full-size models (8 s each under qemu on 2 cores) run for the first CPU only; the other CPUs
# change instruction selection, which the small models cover.
FIRST_CPU_ONLY = {"resnet50", "bert"}


def missing_tools():
    """Why the test cannot run here, or None."""
    why = []
    if shutil.which("qemu-aarch64") is None:
        why.append("qemu-aarch64 not found (Debian: qemu-user)")
    if shutil.which(f"{TRIPLE}-gcc") is None:
        why.append(f"{TRIPLE}-gcc not found (Debian: gcc-{TRIPLE})")
    if not (SYSROOT / "lib" / "ld-linux-aarch64.so.1").exists():
        why.append(f"no AArch64 libc in {SYSROOT} (Debian: libc6-dev-arm64-cross)")
    if shutil.which("cmake") is None:
        why.append("cmake not found")
    return "; ".join(why) or None


def build_dir_of(ingot):
    """The CMake build directory the ingot binary belongs to (holds CMakeCache.txt)."""
    for p in Path(ingot).resolve().parents:
        if (p / "CMakeCache.txt").exists():
            return p
    return Path.cwd()


def cross_build_runner(build_dir):
    """Configures and builds tools/ingot_run_lite for aarch64; returns the runner's path."""
    out = build_dir / "aarch64-lite"
    cfg = ["cmake", "-S", str(ROOT / "tools" / "ingot_run_lite"), "-B", str(out),
           f"-DCMAKE_TOOLCHAIN_FILE={ROOT / 'cmake' / 'aarch64-linux-gnu.cmake'}",
           "-DCMAKE_BUILD_TYPE=Release"]
    if not (out / "CMakeCache.txt").exists() and shutil.which("ninja"):
        cfg += ["-G", "Ninja"]
    for cmd in (cfg, ["cmake", "--build", str(out), "-j2"]):
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed:\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}")
    runner = out / "ingot_run_lite"
    if elf_machine(runner) != EM_AARCH64:
        raise RuntimeError(f"{runner} is not an AArch64 executable")
    return runner


def elf_machine(path):
    with open(path, "rb") as f:
        head = f.read(20)
    if len(head) < 20 or head[:4] != b"\x7fELF":
        return None
    return int.from_bytes(head[18:20], "little")


def save_model(path, name, seed, weights, nodes, inputs, outputs):
    """An opset-13 model of `nodes` over random float32 initializers {name: shape}."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(seed)
    inits = [numpy_helper.from_array((rng.standard_normal(shape) * 0.2).astype(np.float32), w)
             for w, shape in weights.items()]
    g = helper.make_graph(
        nodes, name,
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, shape) for n, shape in inputs],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, shape) for n, shape in outputs], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    onnx.save(m, path)


def tiny_mlp(path):
    """MatMul + bias + Relu, Gemm (transB) + Softmax on 13 rows: M, N and K all off the tile."""
    from onnx import helper
    nodes = [helper.make_node("MatMul", ["x", "w1"], ["h"]),
             helper.make_node("Add", ["h", "b1"], ["hb"]),
             helper.make_node("Relu", ["hb"], ["r"]),
             helper.make_node("Gemm", ["r", "w2", "b2"], ["logits"], transB=1),
             helper.make_node("Softmax", ["logits"], ["y"], axis=1)]
    save_model(path, "tiny_mlp", 3, {"w1": [37, 70], "b1": [70], "w2": [19, 70], "b2": [19]},
               nodes, [("x", [13, 37])], [("y", [13, 19])])


def model_path(name, workdir):
    import make_models
    path = workdir / f"{name}.onnx"
    if not path.exists():
        if name == "tiny_mlp":
            tiny_mlp(str(path))
        else:
            make_models.main([str(workdir), "--models", name])
    return path


def run(cmd, timeout=900):
    t = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    return p, time.time() - t


def check(name, cpu, ingot, runner, workdir, tol, ref_cache):
    """One model on one CPU: -> (ok, message)."""
    import numpy as np
    import onnx
    import onnxruntime as ort
    import parity
    path = model_path(name, workdir)
    if name not in ref_cache:
        model = onnx.load(str(path), load_external_data=False)
        feeds = __import__("make_models").make_inputs(model)
        sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        ref = dict(zip([o.name for o in sess.get_outputs()], sess.run(None, feeds)))
        ref_cache[name] = (model, feeds, ref)
    model, feeds, ref = ref_cache[name]
    art = workdir / f"{name}.{cpu}.so"
    cmd = [ingot, "compile", str(path), "-o", str(art),
           "--target", f"llvm -mtriple={TRIPLE} -mcpu={cpu}"]
    shapes = parity.input_shapes_arg(model, feeds)
    if shapes:
        cmd += ["--input-shapes", shapes]
    p, t_compile = run(cmd)
    if p.returncode != 0:
        return False, f"compile failed: {p.stderr.strip()[-2000:]}"
    if elf_machine(art) != EM_AARCH64:
        return False, f"{art} is not an AArch64 shared library (e_machine {elf_machine(art)})"
    io = workdir / f"{name}.{cpu}.io"
    got, err, t_run = run_under_qemu(runner, art, cpu, io, feeds)
    if err:
        return False, err
    ok, msg = parity.compare_outputs(ref, got, tol, tol, atol_scale="rms", finite_ref=True)
    return ok, f"{msg}; compile {t_compile:.1f} s, qemu run {t_run:.1f} s"


def run_under_qemu(runner, art, cpu, io, feeds, qemu_cpu=None):
    """The artifact on `feeds` under qemu-aarch64 (files in `io`; qemu's model of `cpu`, or
    `qemu_cpu`): -> (outputs, error, seconds)."""
    import numpy as np
    shutil.rmtree(io, ignore_errors=True)
    (io / "out").mkdir(parents=True)
    qcmd = ["qemu-aarch64", "-L", str(SYSROOT), "-cpu", qemu_cpu or QEMU_CPU.get(cpu, "max"),
            str(runner),
            str(art), "-o", str(io / "out"), "--threads", "2"]
    for i, (k, v) in enumerate(feeds.items()):
        f = io / f"in{i}.npy"
        np.save(f, v)
        qcmd += ["-i", f"{k}={f}"]
    p, t_run = run(qcmd)
    if p.returncode != 0:
        return None, f"run under qemu failed (exit {p.returncode}): {p.stderr.strip()[-2000:]}", t_run
    got = {}
    for line in (io / "out" / "outputs.txt").read_text().splitlines():
        k, out_name = line.split("\t", 1)
        got[out_name] = np.load(io / "out" / f"{k}.npy")
    return got, None, t_run


def symbolic_rows_model(path):
    """x [seq, 37] -> Relu(MatMul(x, w1 [37, 200]) + b1); Gemm(x, w2 [70, 37], b2, transB): the
    products over a symbolic row count (rule symbolic_rows_matmul), a column tail in each."""
    from onnx import helper
    nodes = [helper.make_node("MatMul", ["x", "w1"], ["h"]),
             helper.make_node("Add", ["h", "b1"], ["hb"]),
             helper.make_node("Relu", ["hb"], ["y"]),
             helper.make_node("Gemm", ["x", "w2", "b2"], ["z"], transB=1)]
    save_model(path, "symbolic_rows", 5, {"w1": [37, 200], "b1": [200], "w2": [70, 37], "b2": [70]},
               nodes, [("x", ["seq", 37])], [("y", ["seq", 200]), ("z", ["seq", 70])])


def symbolic_rows(ingot, runner, workdir, cpu, tol):
    """One artifact over symbolic rows run at several lengths under qemu, against ORT."""
    import numpy as np
    import onnxruntime as ort
    path = workdir / "symbolic_rows.onnx"
    symbolic_rows_model(str(path))
    art = workdir / f"symbolic_rows.{cpu}.so"
    p, _ = run([ingot, "compile", str(path), "-o", str(art), "--dim-bounds", "seq:1..16",
                "--target", f"llvm -mtriple={TRIPLE} -mcpu={cpu}", "--print-ir-after", "schedule"])
    if p.returncode != 0:
        return False, f"compile failed: {p.stderr.strip()[-2000:]}"
    if "aarch64_neon_fma_f32_" not in p.stdout + p.stderr:
        return False, "no aarch64_neon_fma_f32_* micro-kernel over the symbolic rows"
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])

    def case(seq):
        x = np.random.default_rng(seq).standard_normal((seq, 37)).astype(np.float32)
        return {"x": x}, dict(zip([o.name for o in sess.get_outputs()], sess.run(None, {"x": x})))
    return lengths_under_qemu(runner, art, cpu, workdir, "symbolic_rows", tol, (1, 5, 13), case)


def lengths_under_qemu(runner, art, cpu, workdir, name, tol, lengths, case, qemu_cpu=None):
    """Runs `art` under qemu at each length on case(seq) = (feeds, reference outputs), each
    checked by scripts/parity.py's compare_outputs; (ok, message)."""
    import parity
    msgs = []
    for seq in lengths:
        feeds, ref = case(seq)
        got, err, _ = run_under_qemu(runner, art, cpu, workdir / f"{name}.{cpu}.{seq}.io", feeds,
                                     qemu_cpu)
        if err:
            return False, f"seq {seq}: {err}"
        ok, msg = parity.compare_outputs(ref, got, tol, tol, atol_scale="rms", finite_ref=True)
        if not ok:
            return False, f"seq {seq}: {msg}"
        msgs.append(f"seq {seq}: {msg}")
    return True, "; ".join(msgs)


# The 8-bit product's forms (int8 product below): (-mcpu, extra -mattr, qemu -cpu, A signed,
# the tile's name, the instruction its LLVM IR must call or None, the one it must not call).
INT8_FORMS = (
    ("neoverse-n1", "", "neoverse-n1", False, "aarch64_neon_dot_u8i8_g4_",
     "llvm.aarch64.neon.sdot", "usdot"),  # dotprod: uint8 moved to int8, SDOT
    ("neoverse-n1", "+i8mm", "max", False, "aarch64_neon_dot_u8i8_g4_",
     "llvm.aarch64.neon.usdot", None),  # i8mm: USDOT
    ("neoverse-n1", "", "neoverse-n1", True, "aarch64_neon_dot_i8i8_g4_",
     "llvm.aarch64.neon.sdot", "usdot"),  # int8 x int8: SDOT
    ("cortex-a72", "", "cortex-a72", False, "aarch64_neon_dot_u8i8_g2_",
     None, "neon.sdot"),  # no dotprod: the portable widening lowering
)


def int8_product(ingot, runner, workdir, form):
    """MatMulInteger (uint8 or int8 [seq, 96] x int8 [96, 40], scalar zero point) over symbolic
    rows: rule int8_matmul's NEON tile in the form INT8_FORMS names, exact against numpy's int64
    product at several lengths (not ORT: docs/int8.md) under qemu's model of the CPU."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper
    import onnx
    cpu, mattr, qemu_cpu, a_signed, tile, must, must_not = form
    rng = np.random.default_rng(9)
    b = rng.integers(-128, 128, (96, 40)).astype(np.int8)
    a_type, a_np, zero = ((TensorProto.INT8, np.int8, np.array(-77, np.int8)) if a_signed else
                          (TensorProto.UINT8, np.uint8, np.array(77, np.uint8)))
    g = helper.make_graph(
        [helper.make_node("MatMulInteger", ["a", "b", "az"], ["y"])], "int8_product",
        [helper.make_tensor_value_info("a", a_type, ["seq", 96])],
        [helper.make_tensor_value_info("y", TensorProto.INT32, ["seq", 40])],
        [numpy_helper.from_array(b, "b"), numpy_helper.from_array(zero, "az")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    tag = f"{'i8' if a_signed else 'u8'}.{cpu}{mattr.replace('+', '.')}"
    path = workdir / f"int8_product.{tag}.onnx"
    onnx.save(m, str(path))
    art = workdir / f"int8_product.{tag}.so"
    target = f"llvm -mtriple={TRIPLE} -mcpu={cpu}" + (f" -mattr={mattr}" if mattr else "")
    p, _ = run([ingot, "compile", str(path), "-o", str(art), "--dim-bounds", "seq:1..16",
                "--target", target, "--dump", "traces,llvm"])
    if p.returncode != 0:
        return False, f"compile failed: {p.stderr.strip()[-2000:]}"
    if tile not in p.stdout:
        return False, f"no {tile}* micro-kernel"
    if must and must not in p.stdout:
        return False, f"the kernel calls no {must}"
    if must_not and must_not in p.stdout:
        return False, f"the kernel calls {must_not}"
    lo, hi = (-128, 128) if a_signed else (0, 256)

    def case(seq):
        a = rng.integers(lo, hi, (seq, 96)).astype(a_np)
        a[0, :] = hi - 1
        want = (a.astype(np.int64) - int(zero)) @ b.astype(np.int64)
        return {"a": a}, {"y": want.astype(np.int32)}
    return lengths_under_qemu(runner, art, cpu, workdir, f"int8_product.{tag}", 0, (1, 5, 13),
                              case, qemu_cpu)


def int8_convs(ingot, runner, workdir, cpu):
    """The QDQ residual net of test_int8.py (ONNX Runtime's quantize_static: uint8 activations,
    per-channel int8 weights; a stem, 1x1 and 3x3 convs, a residual, a depthwise conv) on the
    8-bit blocked convs, run under qemu against ONNX Runtime within one quantization step of
    the output. With dotprod (neoverse-n1) the convs take groups of 4 (SDOT), else pairs."""
    import numpy as np
    import parity
    import test_int8
    src, qdq = workdir / "residual.onnx", workdir / "residual_qdq.onnx"
    if not qdq.exists():
        test_int8.residual_net(str(src))
        test_int8.quantize(str(src), str(qdq), (1, 3, 20, 20), "qdq", "QUInt8", "QInt8", True)
    art = workdir / f"residual_qdq.{cpu}.so"
    p, _ = run([ingot, "compile", str(qdq), "-o", str(art), "--report", "--dump", "llvm",
                "--target", f"llvm -mtriple={TRIPLE} -mcpu={cpu}"])
    if p.returncode != 0:
        return False, f"compile failed: {p.stderr.strip()[-2000:]}"
    blocked = sum("_QConvNCHWc " in line for line in p.stdout.splitlines())
    if blocked < 4:
        return False, f"{blocked} QConvNCHWc kernels in the report, expected 4 or more"
    dotprod = cpu != "cortex-a72"
    if dotprod != ("llvm.aarch64.neon.sdot" in p.stdout):
        return False, f"SDOT {'missing' if dotprod else 'used'} on -mcpu={cpu}"
    sess = parity.reference_session(str(qdq))
    step = test_int8.output_step(str(qdq))
    rng = np.random.default_rng(21)
    msgs = []
    for t in range(3):
        x = (rng.standard_normal((1, 3, 20, 20)) * (1 + t)).astype(np.float32)
        got, err, _ = run_under_qemu(runner, art, cpu, workdir / f"residual_qdq.{cpu}.{t}.io",
                                     {"x": x})
        if err:
            return False, f"run {t}: {err}"
        ref = dict(zip([o.name for o in sess.get_outputs()], sess.run(None, {"x": x})))
        ok, msg = parity.compare_outputs(ref, got, 0, 1.0001 * step, finite_ref=True)
        if not ok:
            return False, f"run {t}: {msg}"
        msgs.append(msg)
    return True, f"{blocked} QConvNCHWc kernels; " + "; ".join(msgs)


def quantize_dequantize(b, bits, group):
    """B [K, N] as --quantize-weights stores it, dequantized (docs/dynamic-shapes.md): symmetric,
    one scale per group of `group` along K, max |b| / 127 (or / 7), rounding half away from zero."""
    import numpy as np
    qmax = 127 if bits == 8 else 7
    k, n = b.shape
    g = b.reshape(k // group, group, n)
    amax = np.abs(g).max(axis=1, keepdims=True)
    scale = np.where(amax > 0, amax / np.float32(qmax), np.float32(1)).astype(np.float32)
    q = np.clip(np.sign(g / scale) * np.floor(np.abs(g / scale) + 0.5), -qmax, qmax)
    return (q * scale).reshape(k, n).astype(np.float64)


def quantized_rows(ingot, runner, workdir, cpu, tol):
    """The weight-only quantized products (rule dequant_matmul, the NEON dequantizing kernels) of
    one int4 artifact over symbolic rows under qemu, against NumPy's products of the weights
    quantized by the documented scheme: MatMul(x, w1 [64, 200]) and Gemm(x, w2 [70, 64], b2,
    transB), groups of 32."""
    import numpy as np
    import onnx
    from onnx import helper, numpy_helper
    path = workdir / "quantized_rows.onnx"
    nodes = [helper.make_node("MatMul", ["x", "w1"], ["y"]),
             helper.make_node("Gemm", ["x", "w2", "b2"], ["z"], transB=1)]
    save_model(str(path), "quantized_rows", 7, {"w1": [64, 200], "w2": [70, 64], "b2": [70]},
               nodes, [("x", ["seq", 64])], [("y", ["seq", 200]), ("z", ["seq", 70])])
    inits = {i.name: numpy_helper.to_array(i) for i in onnx.load(str(path)).graph.initializer}
    w1 = quantize_dequantize(inits["w1"], 4, 32)
    w2 = quantize_dequantize(inits["w2"].T, 4, 32)
    art = workdir / f"quantized_rows.{cpu}.so"
    p, _ = run([ingot, "compile", str(path), "-o", str(art), "--dim-bounds", "seq:1..16",
                "--quantize-weights", "int4", "--group-size", "32",
                "--target", f"llvm -mtriple={TRIPLE} -mcpu={cpu}", "--print-ir-after", "schedule"])
    if p.returncode != 0:
        return False, f"compile failed: {p.stderr.strip()[-2000:]}"
    if "aarch64_neon_dequant_i4_" not in p.stdout + p.stderr:
        return False, "no aarch64_neon_dequant_i4_* micro-kernel"

    def case(seq):
        x = np.random.default_rng(seq).standard_normal((seq, 64)).astype(np.float32)
        return {"x": x}, {"y": (x @ w1).astype(np.float32),
                          "z": (x @ w2 + inits["b2"]).astype(np.float32)}
    return lengths_under_qemu(runner, art, cpu, workdir, "quantized_rows", tol, (1, 6), case)


def schedules_use_neon(ingot, workdir):
    """The driver hands the AArch64 ISA to the schedules: the matmul tile is the NEON kernel."""
    path = model_path("tiny_mlp", workdir)
    p, _ = run([ingot, "compile", str(path), "-o", str(workdir / "neon_check.so"),
                "--target", f"llvm -mtriple={TRIPLE} -mcpu=neoverse-n1",
                "--print-ir-after", "schedule"])
    if p.returncode != 0:
        return False, f"compile failed: {p.stderr.strip()[-2000:]}"
    text = p.stdout + p.stderr
    if "aarch64_neon_fma_f32_" not in text:
        return False, "no aarch64_neon_fma_f32_* micro-kernel in the IR after the schedule stage"
    if "x86_avx" in text:
        return False, "an x86 micro-kernel in an AArch64 module"
    return True, "the schedule stage tensorizes with aarch64_neon_fma_f32_* kernels"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ingot", required=True)
    ap.add_argument("--models", default=os.environ.get("INGOT_AARCH64_MODELS", DEFAULT_MODELS))
    ap.add_argument("--cpus", default="neoverse-n1,cortex-a72,apple-m1")
    ap.add_argument("--tol", type=float, default=1e-4)
    ap.add_argument("--workdir", default=None)
    ap.add_argument("--build-dir", default=None, help="where to cross-build the runner "
                    "(default: the ingot binary's CMake build directory)/aarch64-lite")
    args = ap.parse_args(argv)

    why = missing_tools()
    if why:
        print(f"SKIP: aarch64 parity under qemu needs the cross toolchain: {why}")
        print("0 passed, 0 failed (skipped)")
        return SKIP
    build_dir = Path(args.build_dir) if args.build_dir else build_dir_of(args.ingot)
    workdir = Path(args.workdir) if args.workdir else build_dir / "aarch64_qemu_models"
    workdir.mkdir(parents=True, exist_ok=True)
    passed = failed = 0
    try:
        runner = cross_build_runner(build_dir)
        print(f"runner: {runner} (AArch64, cross-built)", flush=True)
    except (RuntimeError, OSError) as e:
        print(f"FAIL cross-building the runtime and ingot_run_lite: {e}")
        print("0 passed, 1 failed")
        return 1
    ok, msg = schedules_use_neon(args.ingot, workdir)
    print(f"{'PASS' if ok else 'FAIL'} neon schedule: {msg}", flush=True)
    passed, failed = passed + ok, failed + (not ok)
    cpu = args.cpus.split(",")[0]
    ok, msg = symbolic_rows(args.ingot, runner, workdir, cpu, args.tol)
    print(f"{'PASS' if ok else 'FAIL'} symbolic rows -mcpu={cpu}: {msg}", flush=True)
    passed, failed = passed + ok, failed + (not ok)
    ok, msg = quantized_rows(args.ingot, runner, workdir, cpu, args.tol)
    print(f"{'PASS' if ok else 'FAIL'} quantized rows -mcpu={cpu}: {msg}", flush=True)
    passed, failed = passed + ok, failed + (not ok)
    for form in INT8_FORMS:
        ok, msg = int8_product(args.ingot, runner, workdir, form)
        print(f"{'PASS' if ok else 'FAIL'} int8 product {'int8' if form[3] else 'uint8'} A "
              f"-mcpu={form[0]}{' -mattr=' + form[1] if form[1] else ''}: {msg}", flush=True)
        passed, failed = passed + ok, failed + (not ok)
    for conv_cpu in (cpu, "cortex-a72") if cpu != "cortex-a72" else (cpu,):
        ok, msg = int8_convs(args.ingot, runner, workdir, conv_cpu)
        print(f"{'PASS' if ok else 'FAIL'} int8 convs (QDQ residual net) -mcpu={conv_cpu}: {msg}",
              flush=True)
        passed, failed = passed + ok, failed + (not ok)
    ref_cache = {}
    for name in args.models.split(","):
        cpus = args.cpus.split(",")
        for cpu in cpus[:1] if name in FIRST_CPU_ONLY else cpus:
            try:
                ok, msg = check(name, cpu, args.ingot, runner, workdir, args.tol, ref_cache)
            except subprocess.TimeoutExpired as e:
                ok, msg = False, f"timed out: {' '.join(map(str, e.cmd))[:200]}"
            passed, failed = passed + ok, failed + (not ok)
            print(f"{'PASS' if ok else 'FAIL'} {name} -mcpu={cpu}: {msg}", flush=True)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
