// Builds the unoptimized llvm::Module of an IRModule: kernels, entry function, constants and
// the artifact record. Internal to codegen/llvm.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "codegen/gpu/device_code.h"
#include "codegen/kernel_args.h"
#include "codegen/target.h"
#include "tir/module.h"

namespace llvm {
class LLVMContext;
class Module;
class TargetMachine;
}  // namespace llvm

namespace ingot::codegen {

// `kernels` are the module's kernels in loop form (index for index in place of module.kernels,
// which may still be in block form); everything else comes from `module`.

// The whole artifact in one llvm::Module: the constant blob, every kernel (internal), the entry
// function and the record.
std::unique_ptr<llvm::Module> build_llvm_module(const tir::IRModule& module,
                                                const std::vector<tir::PrimFunc>& kernels,
                                                const Target& target, llvm::TargetMachine& tm,
                                                llvm::LLVMContext& ctx);

// Split builds (parallel codegen): the artifact as several objects linked together.
// One kernel alone (`func`: that kernel in loop form; `noalias`: its row of noalias_params), a
// hidden external function; `symbol` receives its name (the entry module declares it by that
// name).
std::unique_ptr<llvm::Module> build_kernel_module(const tir::PrimFunc& func,
                                                  const std::vector<bool>& noalias,
                                                  const std::string& model_name,
                                                  const Target& target, llvm::TargetMachine& tm,
                                                  llvm::LLVMContext& ctx, std::string& symbol);
// The entry function and the record, kernel k declared as the hidden function symbols[k] and
// the constant blob as the hidden symbol kConstantsSymbol (a data object defines it, see
// codegen/elf_data_object.h), so this module stays small however large the constants are.
std::unique_ptr<llvm::Module> build_entry_module(const tir::IRModule& module,
                                                 const std::vector<std::string>& symbols,
                                                 const Target& target, llvm::TargetMachine& tm,
                                                 llvm::LLVMContext& ctx);

// A device artifact's only module (GPU targets), for `host` (the machine that loads the
// artifact): the record, with no host kernels and no entry function, pointing to `device` and to
// the constant blob, declared as kConstantsSymbol as in build_entry_module. `target_string` is
// the device target's ("opencl").
std::unique_ptr<llvm::Module> build_device_record_module(
    const tir::IRModule& module, const DeviceCode& device, const std::string& target_string,
    const Target& host, llvm::TargetMachine& tm, llvm::LLVMContext& ctx);

// A C artifact's record module (the `c` target built as a shared library), for `host`: an entry
// that calls the C entry `run_symbol` (c_model_source.h's ingot_<m>_run_arrays, compiled by a C
// compiler and linked beside it as a hidden symbol) with the runtime's profiling hooks, and the
// record naming `target_string`.
std::unique_ptr<llvm::Module> build_c_record_module(const tir::IRModule& module,
                                                    const std::string& run_symbol,
                                                    const std::string& target_string,
                                                    const Target& host, llvm::TargetMachine& tm,
                                                    llvm::LLVMContext& ctx);

// The constant blob's symbol in split builds (64-byte aligned, read-only, hidden).
inline constexpr const char* kConstantsSymbol = "ingot_constants";

}  // namespace ingot::codegen
