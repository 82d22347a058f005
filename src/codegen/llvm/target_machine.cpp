// Creating an llvm::TargetMachine for a Target (registers LLVM's backends once).
#include "codegen/llvm/target_machine.h"

#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>

#include <mutex>

#include "support/error.h"

namespace ingot::codegen {

void initialize_llvm_targets() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
  });
}

std::unique_ptr<llvm::TargetMachine> create_target_machine(const Target& target) {
  initialize_llvm_targets();
  if (target.kind != Target::kLLVM) fail_user("target '{}' is not an LLVM target", target.str());
  std::string err;
  const llvm::Target* t = llvm::TargetRegistry::lookupTarget(target.triple, err);
  if (!t) fail_user("target triple '{}' is not supported: {}", target.triple, err);
  llvm::TargetOptions opts;
  llvm::CodeGenOptLevel level = target.opt_level == 0   ? llvm::CodeGenOptLevel::None
                                : target.opt_level == 1 ? llvm::CodeGenOptLevel::Less
                                : target.opt_level == 2 ? llvm::CodeGenOptLevel::Default
                                                        : llvm::CodeGenOptLevel::Aggressive;
  std::unique_ptr<llvm::TargetMachine> tm(t->createTargetMachine(
      target.triple, target.mcpu, target.mattr, opts, llvm::Reloc::PIC_, std::nullopt, level));
  if (!tm) fail_user("LLVM cannot create a machine for target '{}'", target.str());
  return tm;
}

}  // namespace ingot::codegen
