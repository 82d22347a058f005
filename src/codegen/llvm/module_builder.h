// Builds the unoptimized llvm::Module of an IRModule: kernels, entry function, constants and
// the artifact record. Internal to codegen/llvm.
#pragma once

#include <memory>

#include "codegen/target.h"
#include "tir/module.h"

namespace llvm {
class LLVMContext;
class Module;
class TargetMachine;
}  // namespace llvm

namespace ingot::codegen {

std::unique_ptr<llvm::Module> build_llvm_module(const tir::IRModule& module, const Target& target,
                                                llvm::TargetMachine& tm, llvm::LLVMContext& ctx);

}  // namespace ingot::codegen
