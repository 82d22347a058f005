// The LLVM backend entry points: build the module, verify it, run the new-PM pipeline at the
// target's -O level, then print IR or emit an object file.
#include "codegen/llvm/codegen_llvm.h"

#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassManager.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include "codegen/llvm/module_builder.h"
#include "codegen/llvm/target_machine.h"
#include "support/error.h"
#include "tir/transforms/lower_blocks.h"
#include "tir/transforms/simplify.h"
#include "tir/visitor.h"

namespace ingot::codegen {
namespace {

void optimize(llvm::Module& m, llvm::TargetMachine& tm, int opt_level) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions pto;
  pto.LoopVectorization = opt_level >= 2;
  pto.SLPVectorization = opt_level >= 2;
  pto.LoopUnrolling = opt_level >= 1;
  llvm::PassBuilder pb(&tm, pto);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::OptimizationLevel level = opt_level == 0   ? llvm::OptimizationLevel::O0
                                  : opt_level == 1 ? llvm::OptimizationLevel::O1
                                  : opt_level == 2 ? llvm::OptimizationLevel::O2
                                                   : llvm::OptimizationLevel::O3;
  llvm::ModulePassManager mpm = level == llvm::OptimizationLevel::O0
                                    ? pb.buildO0DefaultPipeline(level)
                                    : pb.buildPerModuleDefaultPipeline(level);
  mpm.run(m, mam);
}

// Whether a kernel is in block form (schedules produce it; lowering may not).
class BlockFinder : public tir::IRVisitor {
 public:
  bool found = false;
  void visit_Block(const tir::Block*, const tir::Stmt&) override { found = true; }
  void visit_BlockRealize(const tir::BlockRealize*, const tir::Stmt&) override { found = true; }
};

// Block-form kernels are lowered to loops (lower_blocks, then simplify); loop-form kernels
// pass through untouched.
tir::IRModule lower_block_kernels(const tir::IRModule& mod) {
  tir::IRModule out = mod;
  for (tir::PrimFunc& f : out.kernels) {
    BlockFinder finder;
    finder.visit(f);
    if (finder.found) f = tir::simplify(tir::lower_blocks(std::move(f)));
  }
  return out;
}

struct Compiled {
  std::unique_ptr<llvm::LLVMContext> ctx = std::make_unique<llvm::LLVMContext>();
  std::unique_ptr<llvm::TargetMachine> tm;
  std::unique_ptr<llvm::Module> module;
};

// LLVM's diagnostics: errors are internal errors (a bug in the IR we built); warnings and
// remarks (e.g. "loop not vectorized" for a loop the schedule hinted) are not the user's concern
// and are dropped instead of printed.
void handle_diagnostic(const llvm::DiagnosticInfo* info, void*) {
  if (info->getSeverity() != llvm::DS_Error) return;
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::DiagnosticPrinterRawOStream printer(os);
  info->print(printer);
  fail_internal("LLVM: {}", os.str());
}

Compiled compile(const tir::IRModule& mod, const Target& target) {
  Compiled c;
  c.ctx->setDiagnosticHandlerCallBack(handle_diagnostic, nullptr);
  c.tm = create_target_machine(target);
  c.module = build_llvm_module(lower_block_kernels(mod), target, *c.tm, *c.ctx);
  std::string err;
  llvm::raw_string_ostream os(err);
  if (llvm::verifyModule(*c.module, &os))
    fail_internal("codegen produced invalid LLVM IR for '{}': {}", mod.model_name, os.str());
  optimize(*c.module, *c.tm, target.opt_level);
  return c;
}

}  // namespace

std::string emit_llvm_ir(const tir::IRModule& mod, const Target& target) {
  Compiled c = compile(mod, target);
  std::string text;
  llvm::raw_string_ostream os(text);
  c.module->print(os, nullptr);
  return os.str();
}

std::vector<uint8_t> emit_object(const tir::IRModule& mod, const Target& target) {
  Compiled c = compile(mod, target);
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager pm;
  if (c.tm->addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::ObjectFile))
    fail_user("LLVM cannot emit object files for target '{}'", target.str());
  pm.run(*c.module);
  return std::vector<uint8_t>(buffer.begin(), buffer.end());
}

}  // namespace ingot::codegen
