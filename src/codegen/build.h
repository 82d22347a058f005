// One call from an IRModule to a loadable artifact: codegen for the target, then link.
#pragma once

#include <string>

#include "codegen/target.h"
#include "tir/module.h"

namespace ingot::codegen {

// Compiles `module` for `target` (kind llvm) and links it into the shared library `out_path`.
void build_shared_library(const tir::IRModule& module, const Target& target,
                          const std::string& out_path);

}  // namespace ingot::codegen
