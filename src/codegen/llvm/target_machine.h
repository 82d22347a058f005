// Creating an llvm::TargetMachine for a Target (registers LLVM's backends once).
#pragma once

#include <memory>

#include "codegen/target.h"

namespace llvm {
class TargetMachine;
}

namespace ingot::codegen {

// Throws UserError when LLVM has no backend for the target's triple or CPU.
std::unique_ptr<llvm::TargetMachine> create_target_machine(const Target& target);

}  // namespace ingot::codegen
