#!/usr/bin/env bash
# The Cortex-M example in one command: builds the DS-CNN keyword-spotting model (fp32; int8 with
# --int8), compiles it with `ingot compile --target "c -mcpu=..." --output-format mlf`, runs the
# MLF on the host (`ingot run model.tar`), builds a firmware with arm-none-eabi-gcc + newlib for a
# QEMU board, runs it under qemu-system-arm with semihosting and compares its output with the host
# run and with ONNX Runtime, and its sizes with the compile's memory report. Exits non-zero when
# anything differs.
#
#   examples/cortex-m/run.sh [--board an386|an547] [--int8] [--out DIR]
#   an386: QEMU mps2-an386, Cortex-M4 with its FPU (default); an547: mps3-an547, Cortex-M55.
#   $INGOT: the ingot binary (default: the build tree's).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
board=an386
variant=fp32
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --board) board="$2"; shift 2 ;;
    --int8) variant=int8; shift ;;
    --out) out="$2"; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
case "$board" in
  an386) machine=mps2-an386; target="c -mcpu=cortex-m4 -mfpu=fpv4-sp-d16 -mfloat-abi=hard" ;;
  an547) machine=mps3-an547; target="c -mcpu=cortex-m55 -mfloat-abi=hard" ;;
  *) echo "run.sh: --board must be an386 or an547, got '$board'" >&2; exit 2 ;;
esac
out="${out:-$ROOT/build/cortex-m/$board-$variant}"

if [ -z "${INGOT:-}" ]; then
  for candidate in "$ROOT"/build/ci/tools/ingot/ingot "$ROOT"/build/*/tools/ingot/ingot; do
    if [ -x "$candidate" ]; then INGOT="$candidate"; break; fi
  done
fi
if [ -z "${INGOT:-}" ] || [ ! -x "$INGOT" ]; then
  echo "run.sh: no ingot binary: build ingot first or set INGOT" >&2
  exit 2
fi
for tool in arm-none-eabi-gcc qemu-system-arm; do
  if ! command -v "$tool" > /dev/null; then
    echo "run.sh: $tool is not installed (Debian: gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm)" >&2
    exit 2
  fi
done

rm -rf "$out"
mkdir -p "$out/mlf"
model="$out/ds_cnn.onnx"
if [ "$variant" = int8 ]; then
  python3 "$HERE/make_ds_cnn.py" "$out" --int8 > /dev/null 2>&1
else
  python3 "$HERE/make_ds_cnn.py" "$out" > /dev/null
fi
[ "$variant" = int8 ] && model="$out/ds_cnn_int8.onnx"
echo "== ingot compile --target \"$target\" --output-format mlf"
"$INGOT" compile "$model" --target "$target" --output-format mlf -o "$out/model.tar"
tar -xf "$out/model.tar" -C "$out/mlf"
echo "== ingot run model.tar (the MLF built for this machine)"
"$INGOT" run "$out/model.tar" --inputs "$out/ds_cnn.inputs.npz" --outputs "$out/host_outputs.npz"
python3 "$HERE/board_io.py" header "$out/mlf" "$out/ds_cnn.inputs.npz" "$out/input_data.h"
cflags="$(python3 -c 'import json,sys; print(" ".join(json.load(open(sys.argv[1]))["c_flags"]))' "$out/mlf/metadata.json")"
echo "== firmware for $machine"
make -s -C "$HERE/firmware" MLF_DIR="$out/mlf" BUILD="$out/fw" BOARD="$board" \
  MODEL_CFLAGS="$cflags" INPUT_H="$out"
echo "== qemu-system-arm -machine $machine"
timeout 300 qemu-system-arm -machine "$machine" -nographic -monitor none -serial none -icount shift=0 \
  -semihosting-config enable=on,target=native -kernel "$out/fw/firmware.elf" > "$out/qemu.log"
python3 "$HERE/board_io.py" check "$out/mlf" "$out/qemu.log" "$out/host_outputs.npz" "$model" \
  "$out/ds_cnn.inputs.npz" "$out/fw"
