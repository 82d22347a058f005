#!/usr/bin/env python3
"""The installed package: `cmake --install` of the build into a scratch prefix gives bin/ingot,
the runtime (shared and static), include/ingot/, a CMake package and a pkg-config file. A project
outside the tree (tests/package_consumer) builds against it with find_package(ingot CONFIG), for
ingot::runtime and ingot::runtime_static, and a one-line compiler command builds it with
pkg-config; the installed `ingot` compiles a model, and every consumer's outputs match ONNX
Runtime (scripts/parity.py's compare_outputs: every element within tol + tol*|ref|). The
installed runtime needs only the C runtime libraries and is < 300 KB stripped.

Usage: test_install_package.py --ingot PATH [--tol 1e-5]
Prints one PASS/FAIL line per check and a closing "N passed, N failed".
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnxruntime as ort

HERE = Path(__file__).resolve().parent
CONSUMER = HERE.parent / "package_consumer"
sys.path.insert(0, str(HERE.parents[1] / "scripts"))
import make_models  # noqa: E402
import parity  # noqa: E402  (compare_outputs, the one output checker)

ALLOWED_NEEDED = ("libc.so", "libm.so", "libdl.so", "libpthread.so", "ld-linux")


def build_dir_of(ingot):
    for p in Path(ingot).resolve().parents:
        if (p / "CMakeCache.txt").exists():
            return p
    return None


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def consumer_input(info_shape):
    n = int(np.prod(info_shape))
    k = np.arange(n, dtype=np.int64)
    return (((k * 7) % 13).astype(np.float32) * np.float32(0.1) - np.float32(0.6)).reshape(info_shape)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--ingot", required=True)
    # tiny_cnn's logits are of order 1 (|ref| < 3 on this input): rtol = atol = tol. The same
    # model meets 1e-5 with --target c in test_c_target.
    ap.add_argument("--tol", type=float, default=1e-5,
                    help="compare_outputs' rtol and atol (default: %(default)s)")
    args = ap.parse_args(argv)
    build = build_dir_of(args.ingot)
    results = []

    def check(name, ok, detail=""):
        results.append(ok)
        if ok and len(detail) > 160:
            detail = ""  # long tool output only when it explains a failure
        print(f"{'PASS' if ok else 'FAIL'} {name}{': ' + detail if detail else ''}", flush=True)
        return ok

    if build is None:
        check("build folder", False, f"no CMakeCache.txt above {args.ingot}")
        return 1
    with tempfile.TemporaryDirectory(prefix="ingot_install_") as tmp:
        tmp = Path(tmp)
        prefix = tmp / "prefix"
        p = run(["cmake", "--install", str(build), "--prefix", str(prefix)])
        if not check("cmake --install", p.returncode == 0, p.stderr.strip()[-400:]):
            return 1
        lib = prefix / "lib"
        expect = [prefix / "bin" / "ingot", prefix / "include" / "ingot" / "runtime.h",
                  prefix / "include" / "ingot" / "runtime.hpp", prefix / "include" / "ingot" / "abi.h",
                  lib / "libingot_runtime.so", lib / "libingot_runtime.a",
                  lib / "cmake" / "ingot" / "ingotConfig.cmake",
                  lib / "cmake" / "ingot" / "ingotConfigVersion.cmake",
                  lib / "pkgconfig" / "ingot.pc"]
        missing = [str(f.relative_to(prefix)) for f in expect if not f.exists()]
        check("installed files", not missing, "missing " + ", ".join(missing) if missing else "")

        so = (lib / "libingot_runtime.so").resolve()
        dyn = run(["readelf", "-d", str(so)]).stdout
        needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dyn)
        bad = [n for n in needed if not n.startswith(ALLOWED_NEEDED)]
        check("runtime needs only libc/libm/libdl/pthreads", bool(needed) and not bad,
              f"NEEDED {needed}")
        stripped = tmp / "stripped.so"
        run(["strip", "-o", str(stripped), str(so)])
        size = stripped.stat().st_size if stripped.exists() else 1 << 30
        check("runtime < 300 KB stripped", size < 300 * 1024, f"{size} bytes")

        installed_ingot = prefix / "bin" / "ingot"
        p = run([str(installed_ingot), "--version"])
        check("installed ingot --version", p.returncode == 0 and p.stdout.startswith("ingot "),
              (p.stdout + p.stderr).strip())

        # A model compiled by the installed compiler.
        make_models.main([str(tmp), "--models", "tiny_cnn"])
        onnx_path = tmp / "tiny_cnn.onnx"
        art = tmp / "tiny_cnn.so"
        sess = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
        feeds = {}
        for i in sess.get_inputs():
            shape = [d if isinstance(d, int) else 1 for d in i.shape]
            feeds[i.name] = consumer_input(shape)
        shapes = ",".join(f"{k}:[{','.join(map(str, v.shape))}]" for k, v in feeds.items())
        p = run([str(installed_ingot), "compile", str(onnx_path), "-o", str(art),
                 "--input-shapes", shapes])
        if not check("installed ingot compiles tiny_cnn", p.returncode == 0, p.stderr.strip()):
            return 1
        ref = dict(zip([o.name for o in sess.get_outputs()], sess.run(None, feeds)))

        consumers = {}
        # CMake: find_package(ingot CONFIG) from a project outside the tree.
        cbuild = tmp / "consumer_build"
        p = run(["cmake", "-S", str(CONSUMER), "-B", str(cbuild), "-DCMAKE_BUILD_TYPE=Release",
                 f"-DCMAKE_PREFIX_PATH={prefix}"])
        if check("consumer configures with find_package(ingot CONFIG)", p.returncode == 0,
                 (p.stdout + p.stderr).strip()[-600:]):
            p = run(["cmake", "--build", str(cbuild)])
            if check("consumer builds (ingot::runtime, ingot::runtime_static)", p.returncode == 0,
                     (p.stdout + p.stderr).strip()[-600:]):
                consumers["cmake shared"] = [str(cbuild / "consumer_shared")]
                consumers["cmake static"] = [str(cbuild / "consumer_static")]
                dyn = run(["readelf", "-d", str(cbuild / "consumer_static")]).stdout
                check("static consumer does not need libingot_runtime.so",
                      "libingot_runtime" not in dyn)
        # pkg-config: one compiler command.
        env = dict(os.environ, PKG_CONFIG_PATH=str(lib / "pkgconfig"))
        p = run(["pkg-config", "--cflags", "--libs", "ingot"], env=env)
        if check("pkg-config --cflags --libs ingot", p.returncode == 0, (p.stdout + p.stderr).strip()):
            flags = p.stdout.split()
            exe = tmp / "consumer_pc"
            cxx = shutil.which("c++") or "g++"
            p = run([cxx, "-std=c++17", "-O2", str(CONSUMER / "main.cpp"), "-o", str(exe), *flags,
                     f"-Wl,-rpath,{lib}"])
            if check("consumer builds with pkg-config flags", p.returncode == 0, p.stderr.strip()[-600:]):
                consumers["pkg-config"] = [str(exe)]

        for name, cmd in consumers.items():
            out_prefix = tmp / f"out_{name.replace(' ', '_')}_"
            p = run([*cmd, str(art), str(out_prefix)])
            if not check(f"{name} consumer runs", p.returncode == 0, (p.stdout + p.stderr).strip()):
                continue
            got = {n: np.fromfile(f"{out_prefix}{k}.bin", dtype=r.dtype).reshape(r.shape)
                   for k, (n, r) in enumerate(ref.items())}
            ok, msg = parity.compare_outputs(ref, got, args.tol, args.tol, finite_ref=True)
            check(f"{name} consumer matches ONNX Runtime", ok, msg)

    failed = results.count(False)
    print(f"{results.count(True)} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
