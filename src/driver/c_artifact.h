// What the compile does for the `c` target after the loop passes: the memory report (flash:
// code + constants; SRAM: workspace + inputs and outputs), the limits on them, and the output:
// a shared library (codegen/c/c_library.h) or a Model Library Format tarball (docs/mlf.md).
// Also the way back: an MLF built for this machine, so `ingot run` and `ingot inspect` take one.
#pragma once

#include <cstdint>
#include <string>

#include "codegen/target.h"
#include "tir/module.h"

namespace ingot::driver {

struct MemoryReport {
  int64_t constant_bytes = 0;
  int64_t workspace_bytes = 0;           // the static plan's arena
  int64_t workspace_unshared_bytes = 0;  // the arena without reuse
  int64_t io_bytes = 0;                  // every input and output
  int64_t max_stack_bytes = 0;           // the largest kernel's local arrays
  // Code: .text + .rodata of the model's C object (kernels and entry, no constants) as the
  // target's C compiler builds it with the MLF's flags; -1 when no compiler for the target was
  // found (code_compiler then says why).
  int64_t code_bytes = -1;
  std::string code_compiler;
  int64_t flash_bytes() const { return (code_bytes < 0 ? 0 : code_bytes) + constant_bytes; }
  int64_t sram_bytes() const { return workspace_bytes + io_bytes; }
};

// The C compiler that builds code for a c target: $INGOT_TARGET_CC, else arm-none-eabi-gcc for an
// Arm -mcpu / -march (cortex-*, armv*), else the host's with no C options; "" when none is found.
std::string target_c_compiler(const codegen::Target& target);
// The flags an MLF's C is measured with and its build files use: C99, -O2, no strict aliasing,
// a section per function and per object, and the target's own options (-mthumb on Arm).
std::vector<std::string> mlf_c_flags(const codegen::Target& target);

struct COutput {
  std::string format;  // "so" or "mlf"
  std::string model_path;
  std::string graph_text;  // the optimised graph, printed (src/graph.txt of an MLF)
  int64_t workspace_bytes_limit = -1;
  int64_t flash_bytes_limit = -1;
};

// The memory report of a c target module (loop form), the limits checked (UserError naming the
// limit and both sizes when the model does not fit: nothing is written), then the output at
// `out_path`.
MemoryReport write_c_artifact(const tir::IRModule& mod, const codegen::Target& target,
                              const std::string& out_path, const COutput& output);

// UserError (--workspace-bytes-limit) when `need` is over `limit` (-1: no limit); any target.
void check_workspace_limit(int64_t need, int64_t limit);

// The memory report as lines of text.
std::string describe_memory(const MemoryReport& m);

// Builds the MLF at `mlf_path` with the host's C compiler into the shared library `so_path`,
// which the runtime loads like any artifact (single-threaded). UserError when the file is not an
// ingot MLF or does not compile.
void build_mlf_for_host(const std::string& mlf_path, const std::string& so_path);

}  // namespace ingot::driver
