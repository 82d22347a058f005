#!/usr/bin/env python3
"""The host side of the Cortex-M example (run.sh):

  board_io.py header MLF_DIR INPUTS.npz OUT.h
      input_data.h for firmware/main.c: the model's header and C prefix (from the MLF's
      metadata.json), the input's bytes, the output's size.
  board_io.py check MLF_DIR QEMU.log HOST_OUTPUTS.npz MODEL.onnx INPUTS.npz BUILD_DIR
      compares the board's output with the host run of the same MLF (bit-exact: rtol 0, atol 0)
      and with ONNX Runtime (every element within 1e-5 + 1e-5*|ref|; an integer output exact),
      both through scripts/parity.py's compare_outputs, and the firmware's sizes
      (arm-none-eabi-size) with the compile's memory report; exit 1 when anything differs.
"""
import json
import os
import re
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import parity  # noqa: E402  (compare_outputs, the one output checker)

# What the firmware may add to the model's flash beyond code + constants: the vector table,
# startup, main and newlib (printf over semihosting). Measured about 30 KB with GCC 12; the bound
# leaves room for other newlib builds.
RUNTIME_FLASH_OVERHEAD_MAX = 64 * 1024
# RAM beyond the workspace and the output: newlib's data and buffers, the SysTick counter.
RUNTIME_RAM_OVERHEAD_MAX = 8 * 1024


def metadata(mlf_dir):
    with open(os.path.join(mlf_dir, "metadata.json")) as f:
        return json.load(f)


def header(mlf_dir, inputs_npz, out_h):
    meta = metadata(mlf_dir)
    if len(meta["inputs"]) != 1 or len(meta["outputs"]) != 1:
        sys.exit("board_io: the example firmware runs models with one input and one output")
    name = meta["inputs"][0]["name"]
    x = np.load(inputs_npz)[name]
    raw = np.ascontiguousarray(x).tobytes()
    if len(raw) != meta["inputs"][0]["bytes"]:
        sys.exit(f"board_io: input '{name}' has {len(raw)} bytes, the model takes "
                 f"{meta['inputs'][0]['bytes']}")
    prefix = "ingot_" + meta["c_name"]
    body = ",".join(f"0x{b:02x}" for b in raw)
    with open(out_h, "w") as f:
        f.write("/* Written by board_io.py: the example's input and the model's names. */\n")
        f.write(f'#define INGOT_EXAMPLE_MODEL_H "{prefix}.h"\n')
        f.write(f"#define INGOT_EXAMPLE_PREFIX {prefix}\n")
        f.write(f"#define INGOT_EXAMPLE_MACRO {prefix.upper()}\n")
        f.write(f"#define INGOT_EXAMPLE_OUTPUT_SIZE {meta['outputs'][0]['bytes']}\n")
        f.write("static const unsigned char ingot_example_input[] __attribute__((aligned(16))) = {"
                + body + "};\n#define INGOT_EXAMPLE_INPUT ingot_example_input\n")


def size_table(path):
    sizes = {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 3 and parts[0].startswith(".") and parts[1].isdigit():
                sizes[parts[0]] = int(parts[1])
    return sizes


def object_code_bytes(obj):
    """text + rodata + data of an object, as ingot's report counts the model's code."""
    out = subprocess.run(["arm-none-eabi-size", "-A", obj], check=True, capture_output=True,
                         text=True).stdout
    total = 0
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1].isdigit() and parts[0].startswith((".text", ".rodata",
                                                                             ".data")):
            total += int(parts[1])
    return total


def check(mlf_dir, qemu_log, host_npz, model, inputs_npz, build):
    meta = metadata(mlf_dir)
    out_meta = meta["outputs"][0]
    log = open(qemu_log).read()
    m = re.search(r"^output ([0-9a-f]+)$", log, re.M)
    c = re.search(r"^cycles (\d+) \((\w+)\)$", log, re.M)
    if not m or not c:
        print(f"FAIL: the firmware printed no output (log: {qemu_log})")
        return 1
    dtype = np.dtype(out_meta["dtype"])
    board = np.frombuffer(bytes.fromhex(m.group(1)), dtype=dtype).reshape(out_meta["shape"])
    name = out_meta["name"]
    with np.load(host_npz) as f:
        host = {k: f[k] for k in f.files}
    failures = 0
    # The board runs the same C source as the host build of the MLF: bit-exact.
    ok, msg = parity.compare_outputs(host, {name: board}, 0, 0, ref_name="host run",
                                     got_name="board")
    print(f"{'PASS' if ok else 'FAIL'}: board vs host run of the MLF (bit-exact): {msg}")
    failures += not ok
    try:
        sess = parity.reference_session(model)
        with np.load(inputs_npz) as f:
            feeds = {i.name: f[i.name] for i in sess.get_inputs()}
        ref = dict(zip([o.name for o in sess.get_outputs()], sess.run(None, feeds)))
        # The DS-CNN's outputs are of order 1 (fp32 and dequantized int8 alike): atol = rtol.
        # Measured: 3.0e-7 (fp32), 0 (int8) on both boards.
        ok, msg = parity.compare_outputs(ref, {name: board}, 1e-5, 1e-5, finite_ref=True,
                                         got_name="board")
        print(f"{'PASS' if ok else 'FAIL'}: board vs ONNX Runtime: {msg}")
        failures += not ok
    except ImportError:
        print("note: onnxruntime is not installed: the board is compared with the host run only")
    print(f"board output: {board.ravel().tolist()}")
    print(f"cycles: {c.group(1)} ({c.group(2)}"
          f"{' ticks under QEMU -icount shift=0: deterministic, proportional to the instructions run; not a hardware cycle count' if c.group(2) == 'SysTick' else ''})")

    # Sizes: the model's objects exactly as reported, the firmware within the overhead.
    mem = meta["memory"]
    objs = [os.path.join(build, "model", f) for f in sorted(os.listdir(os.path.join(build, "model")))
            if f.endswith(".o")]
    src_obj = [o for o in objs if not o.endswith("_constants.o")]
    const_obj = [o for o in objs if o.endswith("_constants.o")]
    code = sum(object_code_bytes(o) for o in src_obj)
    consts = sum(object_code_bytes(o) for o in const_obj)
    ok = code == mem["code_bytes"]
    print(f"{'PASS' if ok else 'FAIL'}: model code {code} bytes in the firmware build, "
          f"{mem['code_bytes']} in the compile's report")
    failures += not ok
    const_padded = (mem["constant_bytes"] + 3) // 4 * 4
    ok = mem["constant_bytes"] <= consts <= max(const_padded, 1)
    print(f"{'PASS' if ok else 'FAIL'}: model constants {consts} bytes, {mem['constant_bytes']} "
          "in the report")
    failures += not ok
    s = size_table(os.path.join(build, "firmware.size"))
    flash = sum(v for k, v in s.items() if k in (".text", ".rodata", ".data", ".ARM.exidx",
                                                  ".init_array", ".fini_array", ".ARM.extab"))
    ram = s.get(".bss", 0) + s.get(".data", 0)
    over = flash - mem["flash_bytes"]
    ok = -1024 <= over <= RUNTIME_FLASH_OVERHEAD_MAX
    print(f"{'PASS' if ok else 'FAIL'}: firmware flash {flash} bytes = report {mem['flash_bytes']} "
          f"+ {over} of startup, main and newlib (bound {RUNTIME_FLASH_OVERHEAD_MAX})")
    failures += not ok
    need = mem["workspace_bytes"] + out_meta["bytes"]
    over = ram - need
    ok = 0 <= over <= RUNTIME_RAM_OVERHEAD_MAX
    print(f"{'PASS' if ok else 'FAIL'}: firmware RAM (.data + .bss) {ram} bytes = workspace "
          f"{mem['workspace_bytes']} + output {out_meta['bytes']} + {over} (bound "
          f"{RUNTIME_RAM_OVERHEAD_MAX})")
    failures += not ok
    return 1 if failures else 0


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "header":
        header(*sys.argv[2:])
        return 0
    if len(sys.argv) == 8 and sys.argv[1] == "check":
        return check(*sys.argv[2:])
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main())
