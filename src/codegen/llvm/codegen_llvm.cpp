// The LLVM backend entry points: build the module, verify it, run the new-PM pipeline at the
// target's -O level, then print IR or emit an object file; or the same per kernel on a pool of
// threads (emit_object_files), each thread with its own TargetMachine and one LLVMContext per
// kernel module.
#include "codegen/llvm/codegen_llvm.h"

#include <elf.h>

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
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Triple.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <fstream>
#include <functional>
#include <mutex>
#include <thread>

#include "codegen/elf_data_object.h"
#include "codegen/link.h"
#include "codegen/llvm/module_builder.h"
#include "codegen/llvm/target_machine.h"
#include "support/error.h"
#include "tir/analysis.h"
#include "tir/transforms/lower_blocks.h"
#include "tir/transforms/simplify.h"
#include "tir/visitor.h"

namespace ingot::codegen {
namespace {

// Process-wide LLVM settings, made once before the first compile: Loop Strength Reduction is
// off. ingot's loops come with their addresses as base + index * stride + constant, which the
// x86 and AArch64 addressing modes absorb; LSR's formula search over the many addresses of an
// unrolled stencil (49 taps of a 7x7 depthwise convolution) took 70% of the backend's time on
// such kernels; without it ConvNeXt-Tiny compiles in 2/3 of the CPU time, and model latency
// moves by a few percent either way (ResNet-50 4% faster, ConvNeXt-Tiny 2% slower; docs/perf.md,
// "Compile time").
void configure_llvm() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::StringMap<llvm::cl::Option*>& options = llvm::cl::getRegisteredOptions();
    auto it = options.find("disable-lsr");
    if (it != options.end()) static_cast<llvm::cl::opt<bool>*>(it->second)->setValue(true);
  });
}

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

// Block-form kernels are lowered to loops (lower_blocks, then simplify); loop-form kernels
// pass through untouched.
tir::PrimFunc to_loop_form(tir::PrimFunc f) {
  if (tir::has_blocks(f.body)) f = tir::simplify(tir::lower_blocks(std::move(f)));
  return f;
}

std::vector<tir::PrimFunc> loop_form_kernels(const tir::IRModule& mod) {
  std::vector<tir::PrimFunc> out;
  out.reserve(mod.kernels.size());
  for (const tir::PrimFunc& f : mod.kernels) out.push_back(to_loop_form(f));
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

void verify(const llvm::Module& m, const tir::IRModule& mod) {
  std::string err;
  llvm::raw_string_ostream os(err);
  if (llvm::verifyModule(m, &os))
    fail_internal("codegen produced invalid LLVM IR for '{}': {}", mod.model_name, os.str());
}

Compiled compile(const tir::IRModule& mod, const Target& target) {
  configure_llvm();
  Compiled c;
  c.ctx->setDiagnosticHandlerCallBack(handle_diagnostic, nullptr);
  c.tm = create_target_machine(target);
  c.module = build_llvm_module(mod, loop_form_kernels(mod), target, *c.tm, *c.ctx);
  verify(*c.module, mod);
  optimize(*c.module, *c.tm, target.opt_level);
  return c;
}

void emit_object_to(llvm::Module& m, llvm::TargetMachine& tm, llvm::raw_pwrite_stream& os,
                    const Target& target) {
  llvm::legacy::PassManager pm;
  if (tm.addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::ObjectFile))
    fail_user("LLVM cannot emit object files for target '{}'", target.str());
  pm.run(m);
}

// Optimizes `m` and writes its object to `path`.
void emit_object_file(llvm::Module& m, llvm::TargetMachine& tm, const tir::IRModule& mod,
                      const Target& target, const std::string& path) {
  verify(m, mod);
  optimize(m, tm, target.opt_level);
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec) fail_user("cannot write '{}': {}", path, ec.message());
  emit_object_to(m, tm, os, target);
  os.close();
  if (os.has_error()) fail_user("cannot write '{}': {}", path, os.error().message());
}

// The ELF machine of a split build's data object, or 0 where builds are not split.
uint16_t elf_machine(const Target& target) {
  llvm::Triple t(llvm::Triple::normalize(target.triple));
  if (!t.isOSBinFormatELF()) return 0;
  if (t.getArch() == llvm::Triple::x86_64) return EM_X86_64;
  if (t.getArch() == llvm::Triple::aarch64) return EM_AARCH64;
  return 0;
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
  emit_object_to(*c.module, *c.tm, os, target);
  return std::vector<uint8_t>(buffer.begin(), buffer.end());
}

namespace {

// A record module for the host (built by `build`) emitted into the scratch directory as
// record.o; returns its path.
std::string emit_host_record(
    const tir::IRModule& mod, ScratchDir& scratch,
    const std::function<std::unique_ptr<llvm::Module>(const Target& host, llvm::TargetMachine&,
                                                      llvm::LLVMContext&)>& build) {
  configure_llvm();
  const Target host = Target::host();
  INGOT_ICHECK(elf_machine(host) != 0, "host records need an ELF host, not '{}'", host.triple);
  llvm::LLVMContext ctx;
  ctx.setDiagnosticHandlerCallBack(handle_diagnostic, nullptr);
  std::unique_ptr<llvm::TargetMachine> tm = create_target_machine(host);
  std::unique_ptr<llvm::Module> m = build(host, *tm, ctx);
  std::string path = scratch.file("record.o");
  emit_object_file(*m, *tm, mod, host, path);
  return path;
}

}  // namespace

std::vector<std::string> emit_device_artifact_objects(const tir::IRModule& mod,
                                                      const DeviceCode& device,
                                                      const std::string& target_string,
                                                      ScratchDir& scratch) {
  std::vector<std::string> objects = {emit_host_record(
      mod, scratch, [&](const Target& host, llvm::TargetMachine& tm, llvm::LLVMContext& ctx) {
        return build_device_record_module(mod, device, target_string, host, tm, ctx);
      })};
  if (!mod.constants.empty()) {
    objects.push_back(scratch.memory_file("constants.o"));
    write_elf_data_object(objects.back(), mod.constants, kConstantsSymbol, 64,
                          elf_machine(Target::host()));
  }
  return objects;
}

std::vector<std::string> emit_c_artifact_record_objects(const tir::IRModule& mod,
                                                        const std::string& run_symbol,
                                                        const std::string& constants_symbol,
                                                        const std::string& target_string,
                                                        ScratchDir& scratch, bool with_constants) {
  std::vector<std::string> objects = {emit_host_record(
      mod, scratch, [&](const Target& host, llvm::TargetMachine& tm, llvm::LLVMContext& ctx) {
        return build_c_record_module(mod, run_symbol, target_string, host, tm, ctx);
      })};
  // (The C entry reads the blob even when it is empty: one byte then.)
  if (!with_constants) return objects;
  objects.push_back(scratch.memory_file("constants.o"));
  write_elf_data_object(objects.back(),
                        mod.constants.empty() ? std::vector<uint8_t>{0} : mod.constants,
                        constants_symbol, 64, elf_machine(Target::host()));
  return objects;
}

std::vector<std::string> emit_object_files(const tir::IRModule& mod, const Target& target,
                                           ScratchDir& scratch, const ObjectFileOptions& options,
                                           ObjectFileStats* stats) {
  configure_llvm();
  const int n = int(mod.kernels.size());
  auto path_of = [&](const std::string& name) { return scratch.file(name); };
  uint16_t machine = elf_machine(target);
  if (machine == 0 || n == 0) {
    // Not split: one object from one module.
    std::vector<uint8_t> object = emit_object(mod, target);
    std::string path = path_of("model.o");
    std::ofstream f(path, std::ios::binary);
    f.write(reinterpret_cast<const char*>(object.data()), std::streamsize(object.size()));
    if (!f) fail_user("cannot write '{}'", path);
    if (options.on_kernel && n > 0) options.on_kernel(n, n);
    if (stats) {
      stats->objects = 1;
      stats->threads = 1;
    }
    return {path};
  }

  // 1. Kernels on a pool of threads, each kernel one module and one object.
  int threads =
      options.threads > 0 ? options.threads : std::max(1, int(std::thread::hardware_concurrency()));
  threads = std::min(threads, n);
  std::vector<std::string> symbols(static_cast<size_t>(n)), paths(static_cast<size_t>(n));
  std::vector<ObjectFileStats::Kernel> times(static_cast<size_t>(n));
  std::atomic<int> next{0};
  std::atomic<bool> stop{false};
  std::mutex mu;  // guards done, error and the progress callback
  int done = 0;
  std::exception_ptr error;
  const std::vector<std::vector<bool>> noalias = noalias_params(mod);
  auto worker = [&] {
    try {
      std::unique_ptr<llvm::TargetMachine> tm = create_target_machine(target);
      for (int k = next++; k < n && !stop; k = next++) {
        auto t0 = std::chrono::steady_clock::now();
        llvm::LLVMContext ctx;
        ctx.setDiagnosticHandlerCallBack(handle_diagnostic, nullptr);
        std::unique_ptr<llvm::Module> m =
            build_kernel_module(to_loop_form(mod.kernels[size_t(k)]), noalias[size_t(k)],
                                mod.model_name, target, *tm, ctx, symbols[size_t(k)]);
        paths[size_t(k)] = path_of("k" + std::to_string(k) + ".o");
        emit_object_file(*m, *tm, mod, target, paths[size_t(k)]);
        m.reset();
        std::chrono::duration<double, std::milli> ms = std::chrono::steady_clock::now() - t0;
        times[size_t(k)] = {mod.kernels[size_t(k)].name, ms.count()};
        std::lock_guard<std::mutex> lock(mu);
        ++done;
        if (options.on_kernel) options.on_kernel(done, n);
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(mu);
      if (!error) error = std::current_exception();
      stop = true;
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(worker);

  // 2. Meanwhile, the constant blob straight into its data object.
  std::vector<std::string> objects;
  std::string data_path;
  try {
    if (!mod.constants.empty()) {
      data_path = scratch.memory_file("constants.o");
      write_elf_data_object(data_path, mod.constants, kConstantsSymbol, 64, machine);
    }
  } catch (...) {
    std::lock_guard<std::mutex> lock(mu);
    if (!error) error = std::current_exception();
    stop = true;
  }
  worker();
  for (std::thread& t : pool) t.join();
  if (error) std::rethrow_exception(error);

  // 3. The entry function and the record, declaring the kernels by their symbols.
  {
    llvm::LLVMContext ctx;
    ctx.setDiagnosticHandlerCallBack(handle_diagnostic, nullptr);
    std::unique_ptr<llvm::TargetMachine> tm = create_target_machine(target);
    std::unique_ptr<llvm::Module> m = build_entry_module(mod, symbols, target, *tm, ctx);
    objects.push_back(path_of("entry.o"));
    emit_object_file(*m, *tm, mod, target, objects.back());
  }
  objects.insert(objects.end(), paths.begin(), paths.end());
  if (!mod.constants.empty()) objects.push_back(data_path);
  if (stats) {
    stats->objects = int(objects.size());
    stats->threads = threads;
    stats->kernels = std::move(times);
  }
  return objects;
}

}  // namespace ingot::codegen
