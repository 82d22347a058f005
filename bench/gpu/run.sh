#!/usr/bin/env bash
# The GPU benchmark on the device machine, in one call (its 15 minutes allow little else). The
# device cannot build ingot, so first, here:
#   python3 bench/gpu/prepare.py --ingot build/ci/tools/ingot/ingot \
#       --runner build/ci/tools/ingot_run_lite/ingot_run_lite --set small   # or bert, resnet
# (into .device/gpu, which .gitignore ignores), then with the device tool:
#   run(command="bash bench/gpu/run.sh", carry=[".device/gpu"], timeout_s=...)
# It prints the machine, runs every prepared artifact (outputs against ONNX Runtime's, times per
# run and per kernel; the fp16 GEMM beside cuBLAS) and leaves gpu_bench.log / gpu_bench.json in
# $OUT, to commit under docs/perf-gpu/. Here, a set prepared with --target opencl checks it.
set -euo pipefail
cd "$(dirname "$0")/../.."
DIR=${1:-.device/gpu}
OUT=${OUT:-gpu_bench_out}
mkdir -p "$OUT"
# prepare.py leaves an artifact too large to carry as NAME.so.xz.
for f in "$DIR"/*.so.xz; do
  [ -e "$f" ] || continue
  python3 -c 'import lzma, shutil, sys
with lzma.open(sys.argv[1]) as f, open(sys.argv[1][:-3], "wb") as g: shutil.copyfileobj(f, g)' "$f"
  chmod +x "${f%.xz}"
done
{ nvidia-smi -L 2>/dev/null || echo "no nvidia-smi"; uname -m; } | tee "$OUT/machine.txt"
PYTHONUNBUFFERED=1 python3 bench/gpu/run_bench.py --dir "$DIR" --out "$OUT" "${@:2}"
