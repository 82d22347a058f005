// Creating an llvm::TargetMachine for a Target (registers LLVM's backends once).
#pragma once

#include <memory>

#include "codegen/target.h"

namespace llvm {
class TargetMachine;
}

namespace ingot::codegen {

// Registers LLVM's backends (all of them, for cross-compiling), once per process.
void initialize_llvm_targets();

// Throws UserError when LLVM has no backend for the target's triple or CPU.
std::unique_ptr<llvm::TargetMachine> create_target_machine(const Target& target);

}  // namespace ingot::codegen
