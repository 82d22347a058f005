// The GPU lowering (see device_lowering.h).
#include "codegen/gpu/device_lowering.h"

#include <algorithm>
#include <functional>
#include <set>
#include <unordered_map>

#include <fmt/format.h>

#include "codegen/gpu/device_printer.h"
#include "codegen/gpu/nvrtc.h"
#include "codegen/gpu/thread_reduction.h"
#include "codegen/gpu/thread_sync.h"
#include "codegen/llvm/module_builder.h"
#include "ingot/abi.h"
#include "support/error.h"
#include "tir/mutator.h"
#include "tir/op.h"
#include "tir/substitute.h"
#include "tir/visitor.h"

namespace ingot::codegen {
namespace {

using namespace tir;

// Whether a statement holds a loop bound to a thread axis.
bool has_thread_binding(const Stmt& s) {
  struct Finder : IRVisitor {
    bool found = false;
    void visit_For(const For* op, const Stmt& s) override {
      found = found || op->kind == ForKind::kThreadBinding;
      IRVisitor::visit_For(op, s);
    }
  } f;
  f.visit(s);
  return f.found;
}

// The buffers a statement loads or stores.
std::vector<const BufferNode*> buffers_used(const Stmt& s) {
  struct Finder : IRVisitor {
    std::vector<const BufferNode*> used;
    void add(const BufferNode* b) {
      if (std::find(used.begin(), used.end(), b) == used.end()) used.push_back(b);
    }
    void visit_BufferLoad(const BufferLoad* op, const Expr& e) override {
      add(op->buffer.get());
      IRVisitor::visit_BufferLoad(op, e);
    }
    void visit_BufferStore(const BufferStore* op, const Stmt& s) override {
      add(op->buffer.get());
      IRVisitor::visit_BufferStore(op, s);
    }
  } f;
  f.visit(s);
  return f.used;
}

bool stores_anything(const Stmt& s) {
  struct Finder : IRVisitor {
    bool found = false;
    void visit_BufferStore(const BufferStore* op, const Stmt& s) override {
      found = true;
      IRVisitor::visit_BufferStore(op, s);
    }
  } f;
  f.visit(s);
  return f.found;
}

uint32_t const_extent(const For* f, const std::string& kernel) {
  int64_t e = 0, m = 0;
  if (!is_const_int(f->extent, &e) || !is_const_int(f->min, &m) || m != 0 || e < 1 ||
      e > int64_t(UINT32_MAX))
    fail_user("kernel {}: GPU loop {} bound to {} needs a constant extent from 0", kernel,
              f->loop_var.name(), f->thread_tag);
  return uint32_t(e);
}

class Splitter {
 public:
  Splitter(const PrimFunc& k, int index, bool warp_shuffles)
      : kernel_(k), index_(index), warp_shuffles_(warp_shuffles) {}

  std::vector<DeviceFunction> run() {
    collect(kernel_.body);
    return std::move(functions_);
  }

 private:
  // Statements around the launches (per-thread allocations, lets) re-applied inside each.
  using Wrap = std::function<Stmt(Stmt)>;

  void collect(const Stmt& s) {
    // Statements with no bound loop run whole on one thread: per-thread buffers they allocate
    // (a softmax row's running maximum and sum) stay in one launch.
    if (!has_thread_binding(s)) {
      add_launch(s);
      return;
    }
    if (const auto* seq = s.as<SeqStmt>()) {
      for (const Stmt& c : seq->seq) collect(c);
      return;
    }
    if (const auto* a = s.as<Allocate>()) {
      if (a->buffer->scope != StorageScope::kLocal)
        fail_user(
            "kernel {}: buffer {} in {} memory around a whole launch is not supported on GPU "
            "targets (it must be used within one thread block)",
            kernel_.name, a->buffer->name, storage_scope_name(a->buffer->scope));
      auto buffer = a->buffer;
      size_t first = functions_.size();
      wraps_.push_back([buffer](Stmt body) { return Allocate::make(Buffer(buffer), body); });
      collect(a->body);
      wraps_.pop_back();
      // Each launch has its own copy: a buffer written in one and read in another would lose
      // its values between them.
      int users = 0;
      for (size_t f = first; f < functions_.size(); ++f) {
        auto used = buffers_used(functions_[f].body);
        users += std::find(used.begin(), used.end(), buffer.get()) != used.end();
      }
      if (users > 1)
        fail_user(
            "kernel {}: per-thread buffer {} is used by {} separate launches; not supported "
            "on GPU targets yet",
            kernel_.name, buffer->name, users);
      return;
    }
    if (const auto* c = s.as<IfThenElse>()) {
      // A run-time condition around bound nests (CumSum over an axis given as an input): each
      // launch tests it, all of its threads alike.
      Expr cond = c->condition;
      wraps_.push_back([cond](Stmt body) { return IfThenElse::make(cond, body); });
      collect(c->then_case);
      wraps_.pop_back();
      if (c->else_case.defined()) {
        wraps_.push_back([cond](Stmt body) { return IfThenElse::make(Not::make(cond), body); });
        collect(c->else_case);
        wraps_.pop_back();
      }
      return;
    }
    if (const auto* l = s.as<LetStmt>(); l != nullptr && has_thread_binding(l->body)) {
      Var v = l->var;
      Expr value = l->value;
      wraps_.push_back([v, value](Stmt body) { return LetStmt::make(v, value, body); });
      collect(l->body);
      wraps_.pop_back();
      return;
    }
    add_launch(s);
  }

  Stmt wrapped(Stmt body) const {
    for (auto it = wraps_.rbegin(); it != wraps_.rend(); ++it) body = (*it)(body);
    return body;
  }

  void add_launch(const Stmt& s) {
    // Nothing stored (a kernel of an empty tensor, simplified to a no-op): no launch.
    if (!stores_anything(s)) return;
    DeviceFunction f;
    f.kernel = index_;
    f.name = kernel_.name + "_" + std::to_string(functions_.size());
    // 1. The grid: the blockIdx loops around the statement.
    Stmt body = s;
    for (const For* l = body.as<For>(); l != nullptr && l->thread_tag.starts_with("blockIdx");
         l = body.as<For>()) {
      int d = axis_of(l->thread_tag);
      if (f.block_vars[size_t(d)].defined())
        fail_user("kernel {}: two loops bound to {}", kernel_.name, l->thread_tag);
      f.grid[size_t(d)] = const_extent(l, kernel_.name);
      f.block_vars[size_t(d)] = l->loop_var;
      body = l->body;
    }
    if (bound_loop(body, "blockIdx"))
      fail_user(
          "kernel {}: a loop bound to a blockIdx axis inside another loop is not supported on "
          "GPU targets",
          kernel_.name);
    // 2. The block (the threadIdx loops' extents, which the reductions' trees keep within);
    // reductions across threads become trees over shared memory; every threadIdx loop inside
    // becomes its thread index.
    f.block = thread_extents(body);
    body = lower_thread_reductions(body, f.block, kernel_.name, warp_shuffles_);
    body = bind_threads(body, f);
    f.body = hoist_shared(wrapped(body), f);
    std::vector<Var> threads(f.thread_vars.begin(), f.thread_vars.end());
    f.sync_before = plan_thread_syncs(f.body, threads, kernel_.name);
    std::vector<const BufferNode*> used = buffers_used(f.body);
    for (size_t p = 0; p < kernel_.params.size(); ++p)
      if (std::find(used.begin(), used.end(), kernel_.params[p].get()) != used.end()) {
        f.param_indices.push_back(int(p));
        f.params.push_back(kernel_.params[p]);
      }
    functions_.push_back(std::move(f));
  }

  static int axis_of(const std::string& tag) { return tag.back() - 'x'; }

  static bool bound_loop(const Stmt& s, const std::string& prefix) {
    struct Finder : IRVisitor {
      std::string prefix;
      bool found = false;
      void visit_For(const For* op, const Stmt& s) override {
        found =
            found || (op->kind == ForKind::kThreadBinding && op->thread_tag.starts_with(prefix));
        IRVisitor::visit_For(op, s);
      }
    } f;
    f.prefix = prefix;
    f.visit(s);
    return f.found;
  }

  // The block: the largest extent of the threadIdx loops per axis.
  std::array<uint32_t, 3> thread_extents(const Stmt& s) const {
    struct Extents : IRVisitor {
      std::array<uint32_t, 3> block = {1, 1, 1};
      std::string kernel;
      void visit_For(const For* op, const Stmt& s) override {
        if (op->kind == ForKind::kThreadBinding && op->thread_tag.starts_with("threadIdx")) {
          uint32_t& b = block[size_t(axis_of(op->thread_tag))];
          b = std::max(b, const_extent(op, kernel));
        }
        IRVisitor::visit_For(op, s);
      }
    } extents;
    extents.kernel = kernel_.name;
    extents.visit(s);
    return extents.block;
  }

  // Each threadIdx loop becomes its axis's thread index (masked when its extent is below the
  // block's, f.block).
  Stmt bind_threads(const Stmt& s, DeviceFunction& f) const {
    struct Binder : IRMutator {
      const std::array<uint32_t, 3>* block = nullptr;
      std::array<Var, 3>* vars = nullptr;
      Stmt visit_For(const For* op, const Stmt& s) override {
        if (op->kind != ForKind::kThreadBinding || !op->thread_tag.starts_with("threadIdx"))
          return IRMutator::visit_For(op, s);
        size_t d = size_t(axis_of(op->thread_tag));
        Var& v = (*vars)[d];
        if (!v.defined()) v = Var(std::string("t") + op->thread_tag.back());
        Stmt body = substitute(mutate(op->body), op->loop_var, v);
        int64_t e = 0;
        is_const_int(op->extent, &e);
        return e < int64_t((*block)[d]) ? IfThenElse::make(v < op->extent, body) : body;
      }
    } binder;
    binder.block = &f.block;
    binder.vars = &f.thread_vars;
    return binder.mutate(s);
  }

  // Shared-memory allocations leave the body for the function's declarations.
  static Stmt hoist_shared(const Stmt& s, DeviceFunction& f) {
    struct Hoister : IRMutator {
      std::vector<Buffer>* shared = nullptr;
      Stmt visit_Allocate(const Allocate* op, const Stmt& s) override {
        if (op->buffer->scope != StorageScope::kShared) return IRMutator::visit_Allocate(op, s);
        shared->push_back(Buffer(op->buffer));
        return mutate(op->body);
      }
    } h;
    h.shared = &f.shared;
    return h.mutate(s);
  }

  const PrimFunc& kernel_;
  int index_;
  bool warp_shuffles_;
  std::vector<Wrap> wraps_;
  std::vector<DeviceFunction> functions_;
};

}  // namespace

std::vector<DeviceFunction> split_device_functions(const PrimFunc& kernel, int kernel_index,
                                                   int64_t max_shared_bytes, bool warp_shuffles) {
  std::vector<DeviceFunction> functions = Splitter(kernel, kernel_index, warp_shuffles).run();
  for (const DeviceFunction& f : functions) {
    int64_t bytes = 0;
    for (const Buffer& b : f.shared) {
      std::optional<int64_t> n = constant_elements(*b.get());
      INGOT_ICHECK(n.has_value(), "shared buffer {} of non-constant size", b->name);
      bytes += *n * (b->dtype.bits == 16 ? 4 : b->dtype.bytes());  // float16 kept in float32
    }
    if (bytes > max_shared_bytes)
      fail_user(
          "kernel {}: its tiles need {} bytes of shared memory per thread block; the target "
          "allows {}",
          kernel.name, bytes, max_shared_bytes);
  }
  return functions;
}

std::optional<int64_t> constant_elements(const BufferNode& b) {
  int64_t n = 1;
  for (const Expr& d : b.shape) {
    int64_t v = 0;
    if (!is_const_int(d, &v)) return std::nullopt;
    n *= v;
  }
  return n;
}

int64_t max_shared_bytes(const Target& target) {
  if (target.max_shared_memory_per_block > 0) return target.max_shared_memory_per_block;
  return target.kind == Target::kCUDA ? 48 * 1024 : 32 * 1024;
}

namespace {

// The CUDA program of `functions` compiled by NVRTC: source, PTX and cubin, and ptxas's summary
// line. The functions for which ptxas's occupancy heuristic spills registers are printed again
// with room for up to 128 registers (print_cuda's `roomy`) and the program compiled once more:
// a kernel keeps the heuristic's occupancy unless it spills (docs/architecture.md).
void compile_for_cuda(DeviceCode& code, const std::vector<DeviceFunction>& functions,
                      const std::string& model, const Target& target) {
  const std::string name = model.empty() ? "model" : model;
  code.source = print_cuda(functions, target.sm_version());
  NvrtcOutput out = compile_cuda(code.source, name, target.mcpu);
  std::set<std::string> spilled;
  for (const auto& [kernel, k] : out.kernels)
    if (k.spill_bytes > 0) spilled.insert(kernel);
  if (!spilled.empty()) {
    code.source = print_cuda(functions, target.sm_version(), spilled);
    out = compile_cuda(code.source, name, target.mcpu);
  }
  code.code = std::move(out.ptx);
  code.binary = std::move(out.cubin);
  int registers = 0, spills = 0;
  std::string worst;
  for (const auto& [kernel, k] : out.kernels) {
    registers = std::max(registers, k.registers);
    if (k.spill_bytes > spills) spills = k.spill_bytes, worst = kernel;
  }
  code.summary = fmt::format("ptxas ({}): {} kernels, at most {} registers, {}", target.mcpu,
                             out.kernels.size(), registers,
                             spills ? fmt::format("at most {} bytes of spills ({})", spills, worst)
                                    : std::string("no spills"));
  if (!spilled.empty())
    code.summary += fmt::format("; {} given room against spills", spilled.size());
}

}  // namespace

DeviceCode lower_device_code(const IRModule& mod, const Target& target) {
  INGOT_ICHECK(target.is_gpu(), "lower_device_code: target {} is not a GPU", target.str());
  std::vector<std::vector<DeviceFunction>> per_kernel;
  std::vector<DeviceFunction> all;
  const std::vector<std::vector<bool>> noalias = noalias_params(mod);
  for (size_t k = 0; k < mod.kernels.size(); ++k) {
    per_kernel.push_back(split_device_functions(mod.kernels[k], int(k), max_shared_bytes(target),
                                                target.kind == Target::kCUDA));
    for (DeviceFunction& f : per_kernel.back()) {
      for (int p : f.param_indices) f.noalias.push_back(noalias[k][size_t(p)]);
      all.push_back(f);
    }
  }
  // Functions that print the same up to their own names are compiled once: `unique` holds the
  // first of each, `serves[i]` the index in `unique` that runs function i of `all`.
  const bool cuda = target.kind == Target::kCUDA;
  std::vector<DeviceFunction> unique;
  std::vector<int> serves;
  std::unordered_map<std::string, int> by_text;
  for (const DeviceFunction& f : all) {
    auto [it, fresh] = by_text.try_emplace(print_canonical(f, cuda), int(unique.size()));
    if (fresh) unique.push_back(f);
    serves.push_back(it->second);
  }
  DeviceCode code;
  if (cuda) {
    code.format = INGOT_DEVICE_CODE_CUDA;
    code.device_type = 2;  // kDLCUDA
    compile_for_cuda(code, unique, mod.model_name, target);
  } else {
    code.format = INGOT_DEVICE_CODE_OPENCL_C;
    code.device_type = 4;  // kDLOpenCL
    code.source = print_opencl(unique);
    code.code = code.source;
  }
  std::vector<int> first(mod.kernels.size(), 0);
  for (size_t k = 0, n = 0; k < per_kernel.size(); n += per_kernel[k].size(), ++k)
    first[k] = int(n);
  for (const DeviceFunction& f : unique) code.functions.push_back(f.name);
  for (const KernelCall& call : mod.entry) {
    if (!call.is_call())
      fail_user(
          "model '{}' has control flow (If, Loop or Scan), which the GPU targets do not run "
          "yet; compile it for the llvm or c target",
          mod.model_name);
    const auto& fns = per_kernel[size_t(call.kernel)];
    for (size_t i = 0; i < fns.size(); ++i) {
      DeviceLaunch l;
      l.function = serves[size_t(first[size_t(call.kernel)]) + i];
      l.kernel = call.kernel;
      l.grid = fns[i].grid;
      l.block = fns[i].block;
      for (int p : fns[i].param_indices) l.args.push_back(call.args[size_t(p)]);
      code.launches.push_back(std::move(l));
    }
  }
  return code;
}

}  // namespace ingot::codegen
