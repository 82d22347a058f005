// One call from an IRModule to a loadable artifact: codegen for the target, then link.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "codegen/target.h"
#include "tir/module.h"

namespace ingot::codegen {

struct BuildOptions {
  int threads = 0;  // codegen threads; 0: one per hardware thread
  // Called after each kernel is compiled with (kernels compiled, kernels in all); serialized,
  // the counts only increase.
  std::function<void(int, int)> on_kernel;
};

struct BuildStats {
  int objects = 0;  // objects linked
  int threads = 0;  // codegen threads used
  double codegen_ms = 0, link_ms = 0;
  struct Kernel {
    std::string name;
    double ms = 0;
  };
  std::vector<Kernel> kernels;  // each kernel's codegen time (split builds)
  std::string device_summary;   // cuda: ptxas's registers and spills, one line
};

// Compiles `module` for `target` and links it into the shared library `out_path`. llvm: the
// kernels are compiled in parallel into separate objects (codegen/llvm/codegen_llvm.h,
// emit_object_files) which LLD links with the entry object and the constant data object.
// opencl: the kernels (loop form, scheduled for the GPU) become device code and launches
// (codegen/gpu/device_lowering.h) in a record for the host machine, linked with the constants.
BuildStats build_shared_library(const tir::IRModule& module, const Target& target,
                                const std::string& out_path, const BuildOptions& options = {});

// The device program of a GPU target, as printed (`--dump opencl`, `--dump cuda`).
std::string emit_device_source(const tir::IRModule& module, const Target& target);

}  // namespace ingot::codegen
