// Kernel lowering: outlined loops.
// A parallel loop's body is outlined into
//   i32 @<kernel>_par<k>(i64 task, i64 num_tasks, ptr closure)
// which runs one contiguous chunk of iterations (through <kernel>_par<k>_body, inlined into it,
// whose buffer parameters keep their noalias attributes); every value in scope (variables,
// buffer pointers, the services table) travels in a closure struct on the caller's stack, and
// the caller runs it through services->parallel_for, returning any non-zero status.
// A loop the schedule outlined (ForKind::kOutlined) becomes
//   i32 @<kernel>_out<k>(scope values..., i64 begin, i64 end), never inlined,
// called in place with every value in scope as an argument.
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <optional>

#include "codegen/llvm/kernel_lowering.h"
#include "support/error.h"
#include "tir/analysis.h"
#include "tir/arith/analyzer.h"
#include "tir/op.h"
#include "tir/stmt.h"
#include "tir/work_estimate.h"

namespace ingot::codegen {

using namespace tir;

namespace {
constexpr int64_t kMaxTasks = 64;
// A parallel loop over symbolic extents with less run-time work (work_estimate: about one unit
// per element stored) than this runs as one task on the caller: waking the pool's workers and
// waiting for them costs about 2 us on a 2-vCPU VM, more than this many units take (GPT-2's
// decode step has ~100 such nests over one token: 0.12 ms of pool launches out of 2.8 ms).
constexpr int64_t kMinParallelWork = 16384;

// The run-time work of a parallel loop over symbolic extents, when every variable it depends on
// is bound where the loop starts (`bound`); std::nullopt for a loop whose work is a constant (a
// static nest keeps the schedule's choice) or cannot be named.
std::optional<Expr> symbolic_work(const For& op, const std::function<bool(const VarNode*)>& bound) {
  std::optional<Expr> body = work_estimate(op.body);
  if (!body) return std::nullopt;
  Expr work = arith::simplify(cast(DataType::i64(), op.extent) * *body);
  if (is_const_int(work)) return std::nullopt;
  for (const Var& v : free_vars(work))
    if (!bound(v.node())) return std::nullopt;
  return work;
}
}  // namespace

KernelLowering::Scope KernelLowering::capture_scope() {
  // Sorted by name so the emitted IR does not depend on hash-map order.
  Scope sc;
  for (auto& kv : vars_) sc.vars.push_back(kv.first);
  for (auto& kv : buffers_) sc.buffers.push_back(kv.first);
  std::stable_sort(sc.vars.begin(), sc.vars.end(),
                   [](const VarNode* a, const VarNode* b) { return a->name < b->name; });
  std::stable_sort(sc.buffers.begin(), sc.buffers.end(),
                   [](const BufferNode* a, const BufferNode* b) { return a->name < b->name; });
  sc.values.push_back(services_);
  for (const VarNode* k : sc.vars) sc.values.push_back(vars_.at(k));
  for (const BufferNode* k : sc.buffers) sc.values.push_back(buffers_.at(k));
  for (llvm::Value* v : sc.values) sc.types.push_back(v->getType());
  return sc;
}

void KernelLowering::bind_scope(const Scope& sc, const std::vector<llvm::Value*>& v) {
  services_ = v[0];
  for (size_t i = 0; i < sc.vars.size(); ++i) vars_[sc.vars[i]] = v[1 + i];
  for (size_t i = 0; i < sc.buffers.size(); ++i)
    buffers_[sc.buffers[i]] = v[1 + sc.vars.size() + i];
}

llvm::Function* KernelLowering::outline_loop(const For& op, const Scope& sc,
                                             const std::string& name) {
  llvm::Type* vt = type_of(op.loop_var.dtype());
  std::vector<llvm::Type*> types = sc.types;
  types.push_back(vt);
  types.push_back(vt);
  auto* fty = llvm::FunctionType::get(b_.getInt32Ty(), types, false);
  auto* f = llvm::Function::Create(fty, llvm::Function::InternalLinkage, name, module_);
  f->addFnAttr(llvm::Attribute::NoUnwind);
  for (size_t i = 0; i < sc.values.size(); ++i)
    if (auto* a = llvm::dyn_cast<llvm::Argument>(sc.values[i]); a && a->hasNoAliasAttr())
      f->addParamAttr(unsigned(i), llvm::Attribute::NoAlias);
  emit_in(f, [&] {
    std::vector<llvm::Value*> params;
    for (size_t i = 0; i < sc.values.size(); ++i) params.push_back(f->getArg(unsigned(i)));
    bind_scope(sc, params);
    serial_loop(op.loop_var, f->getArg(unsigned(sc.values.size())),
                f->getArg(unsigned(sc.values.size() + 1)), ForKind::kSerial, op.body);
    b_.CreateRet(b_.getInt32(0));
  });
  return f;
}

void KernelLowering::emit_in(llvm::Function* f, const std::function<void()>& body) {
  llvm::Function* saved_fn = fn_;
  llvm::Value* saved_services = services_;
  auto saved_vars = vars_;
  auto saved_buffers = buffers_;
  llvm::IRBuilderBase::InsertPoint saved_ip = b_.saveIP();
  fn_ = f;
  b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", f));
  body();
  fn_ = saved_fn;
  services_ = saved_services;
  vars_ = std::move(saved_vars);
  buffers_ = std::move(saved_buffers);
  b_.restoreIP(saved_ip);
}

void KernelLowering::outlined_loop(const For& op) {
  Scope sc = capture_scope();
  llvm::Function* f = outline_loop(op, sc, fmt::format("{}_out{}", kernel_name_, num_outlined_++));
  f->addFnAttr(llvm::Attribute::NoInline);
  std::vector<llvm::Value*> args = sc.values;
  llvm::Value* begin = expr(op.min);
  args.push_back(begin);
  args.push_back(b_.CreateAdd(begin, expr(op.extent)));
  return_if_error(b_.CreateCall(f->getFunctionType(), f, args));
}

void KernelLowering::parallel_loop(const For& op) {
  // 1. The closure: everything in scope, in a fixed order.
  Scope sc = capture_scope();
  auto* closure_ty = llvm::StructType::get(ctx_, sc.types);
  llvm::Value* closure = entry_alloca(closure_ty, nullptr, 16);
  for (size_t i = 0; i < sc.values.size(); ++i)
    b_.CreateStore(sc.values[i], b_.CreateStructGEP(closure_ty, closure, unsigned(i)));

  // 2. The outlined body: <kernel>_par<k> loads the closure, computes its chunk and calls
  //    <kernel>_par<k>_body(values..., begin, end), always inlined, whose buffer parameters keep
  //    the noalias attribute they have here. Pointers loaded from the closure would tell LLVM
  //    nothing; inlined noalias parameters become scoped alias metadata, so the loop vectorizer
  //    and load/store forwarding know the buffers apart (no run-time alias checks).
  auto* i64 = b_.getInt64Ty();
  auto* ptr = llvm::PointerType::get(ctx_, 0);
  llvm::Type* vt = type_of(op.loop_var.dtype());
  bool sign = op.loop_var.dtype().is_int();
  std::string name = fmt::format("{}_par{}", kernel_name_, num_outlined_++);
  auto* body_ty = llvm::FunctionType::get(b_.getInt32Ty(), {i64, i64, ptr}, false);
  auto* body = llvm::Function::Create(body_ty, llvm::Function::InternalLinkage, name, module_);
  body->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::Function* inner = outline_loop(op, sc, name + "_body");
  inner->addFnAttr(llvm::Attribute::AlwaysInline);

  // The wrapper: chunk [min + task*chunk, min(min + (task+1)*chunk, min + extent)).
  emit_in(body, [&] {
    llvm::Value* arg_closure = body->getArg(2);
    std::vector<llvm::Value*> fields;
    for (size_t i = 0; i < sc.values.size(); ++i)
      fields.push_back(
          b_.CreateLoad(sc.types[i], b_.CreateStructGEP(closure_ty, arg_closure, unsigned(i))));
    bind_scope(sc, fields);
    llvm::Value* min = expr(op.min);
    llvm::Value* extent = expr(op.extent);
    llvm::Value* task = b_.CreateIntCast(body->getArg(0), vt, false);
    llvm::Value* ntasks = b_.CreateIntCast(body->getArg(1), vt, false);
    llvm::Value* one = llvm::ConstantInt::get(vt, 1);
    llvm::Value* chunk = b_.CreateUDiv(b_.CreateSub(b_.CreateAdd(extent, ntasks), one), ntasks);
    llvm::Value* begin = b_.CreateAdd(min, b_.CreateMul(task, chunk));
    llvm::Value* stop = b_.CreateAdd(begin, chunk);
    llvm::Value* limit = b_.CreateAdd(min, extent);
    llvm::Value* end = b_.CreateSelect(
        sign ? b_.CreateICmpSLT(stop, limit) : b_.CreateICmpULT(stop, limit), stop, limit);
    std::vector<llvm::Value*> call_args = fields;
    call_args.push_back(begin);
    call_args.push_back(end);
    b_.CreateRet(b_.CreateCall(inner->getFunctionType(), inner, call_args));
  });

  // 3. The launch: num_tasks = min(extent, kMaxTasks), skipped when the loop is empty; one
  //    task (run on the caller by parallel_for) when a symbolic nest has little work.
  llvm::Value* ext64 = b_.CreateIntCast(expr(op.extent), i64, sign);
  llvm::Value* cap = b_.getInt64(kMaxTasks);
  llvm::Value* n = b_.CreateSelect(b_.CreateICmpSLT(ext64, cap), ext64, cap);
  if (auto work = symbolic_work(op, [&](const VarNode* v) { return vars_.count(v) > 0; })) {
    llvm::Value* small = b_.CreateICmpSLT(to_i64(*work), b_.getInt64(kMinParallelWork));
    n = b_.CreateSelect(b_.CreateAnd(small, b_.CreateICmpSGT(n, b_.getInt64(0))), b_.getInt64(1),
                        n);
  }
  auto* run_bb = llvm::BasicBlock::Create(ctx_, "par.run", fn_);
  auto* done_bb = llvm::BasicBlock::Create(ctx_, "par.done", fn_);
  b_.CreateCondBr(b_.CreateICmpSGT(n, b_.getInt64(0)), run_bb, done_bb);
  b_.SetInsertPoint(run_bb);
  auto* st = services_type(ctx_);
  llvm::Value* ctx = b_.CreateLoad(ptr, b_.CreateStructGEP(st, services_, 2));
  llvm::Value* pfor = b_.CreateLoad(ptr, b_.CreateStructGEP(st, services_, 3));
  auto* pfor_ty = llvm::FunctionType::get(b_.getInt32Ty(), {ptr, ptr, ptr, i64}, false);
  llvm::Value* status = b_.CreateCall(pfor_ty, pfor, {ctx, body, closure, n});
  return_if_error(status);
  b_.CreateBr(done_bb);
  b_.SetInsertPoint(done_bb);
}

}  // namespace ingot::codegen
