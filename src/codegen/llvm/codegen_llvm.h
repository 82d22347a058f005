// The LLVM backend: a tir::IRModule becomes one LLVM module (kernels, the entry function,
// constants and the exported ingot_artifact_v1 record), optimized at -O3 for the target.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "codegen/target.h"
#include "tir/module.h"

namespace ingot::codegen {

// Optimized LLVM IR text (for `--dump llvm`).
std::string emit_llvm_ir(const tir::IRModule& module, const Target& target);

// A relocatable ELF object for the target.
std::vector<uint8_t> emit_object(const tir::IRModule& module, const Target& target);

}  // namespace ingot::codegen
