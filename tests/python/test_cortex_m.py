#!/usr/bin/env python3
"""ctest wrapper: the Cortex-M example end to end (examples/cortex-m/run.sh) on QEMU's
mps2-an386 (Cortex-M4 with its FPU) and mps3-an547 (Cortex-M55): the DS-CNN compiled to an MLF
for the board, the firmware built with arm-none-eabi-gcc + newlib, its output under
qemu-system-arm compared with the host run of the MLF and with ONNX Runtime, and its sizes with
the compile's memory report; the fp32 model and its int8 QDQ quantization (integer kernels).
Exits 77 (skipped) when the Arm toolchain or QEMU is missing."""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ingot", required=True)
    args = ap.parse_args()
    missing = [t for t in ("arm-none-eabi-gcc", "qemu-system-arm") if shutil.which(t) is None]
    if missing:
        print(f"SKIP: {', '.join(missing)} not installed (scripts/install-deps --with-tests)")
        return 77
    env = dict(os.environ, INGOT=os.path.abspath(args.ingot))
    failed = 0
    with tempfile.TemporaryDirectory(prefix="ingot-cortex-m-") as work:
        runs = [(board, variant) for board in ("an386", "an547") for variant in ("fp32", "int8")]
        for board, variant in runs:
            cmd = [os.path.join(ROOT, "examples", "cortex-m", "run.sh"), "--board", board,
                   "--out", os.path.join(work, f"{board}-{variant}")]
            if variant == "int8":
                cmd.append("--int8")
            r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900)
            print(r.stdout + r.stderr, flush=True)
            ok = r.returncode == 0 and "FAIL" not in r.stdout and r.stdout.count("PASS") >= 6
            print(f"{'PASS' if ok else 'FAIL'} examples/cortex-m/run.sh --board {board}"
                  f"{' --int8' if variant == 'int8' else ''}")
            failed += not ok
    print(f"{len(runs) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
