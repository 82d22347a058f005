// Kernel lowering: parallel loops. The body is outlined into
//   i32 @<kernel>_par<k>(i64 task, i64 num_tasks, ptr closure)
// which runs one contiguous chunk of iterations (through <kernel>_par<k>_body, inlined into it,
// whose buffer parameters keep their noalias attributes); every value in scope (variables,
// buffer pointers, the services table) travels in a closure struct on the caller's stack, and
// the caller runs it through services->parallel_for, returning any non-zero status.
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include <fmt/format.h>

#include <algorithm>

#include "codegen/llvm/kernel_lowering.h"
#include "support/error.h"
#include "tir/stmt.h"

namespace ingot::codegen {

using namespace tir;

namespace {
constexpr int64_t kMaxTasks = 64;
}

void KernelLowering::parallel_loop(const For& op) {
  // 1. The closure: everything in scope, in a fixed order.
  // Sorted by name so the emitted IR does not depend on hash-map order.
  std::vector<const VarNode*> var_keys;
  std::vector<const BufferNode*> buf_keys;
  for (auto& kv : vars_) var_keys.push_back(kv.first);
  for (auto& kv : buffers_) buf_keys.push_back(kv.first);
  std::stable_sort(var_keys.begin(), var_keys.end(),
                   [](const VarNode* a, const VarNode* b) { return a->name < b->name; });
  std::stable_sort(buf_keys.begin(), buf_keys.end(),
                   [](const BufferNode* a, const BufferNode* b) { return a->name < b->name; });
  std::vector<llvm::Value*> values{services_};
  for (const VarNode* k : var_keys) values.push_back(vars_.at(k));
  for (const BufferNode* k : buf_keys) values.push_back(buffers_.at(k));
  std::vector<llvm::Type*> types;
  for (llvm::Value* v : values) types.push_back(v->getType());
  auto* closure_ty = llvm::StructType::get(ctx_, types);
  llvm::Value* closure = entry_alloca(closure_ty, nullptr, 16);
  for (size_t i = 0; i < values.size(); ++i)
    b_.CreateStore(values[i], b_.CreateStructGEP(closure_ty, closure, unsigned(i)));

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
  std::vector<llvm::Type*> inner_types = types;
  inner_types.push_back(vt);
  inner_types.push_back(vt);
  auto* inner_ty = llvm::FunctionType::get(b_.getInt32Ty(), inner_types, false);
  auto* inner =
      llvm::Function::Create(inner_ty, llvm::Function::InternalLinkage, name + "_body", module_);
  inner->addFnAttr(llvm::Attribute::NoUnwind);
  inner->addFnAttr(llvm::Attribute::AlwaysInline);
  for (size_t i = 0; i < values.size(); ++i)
    if (auto* a = llvm::dyn_cast<llvm::Argument>(values[i]); a && a->hasNoAliasAttr())
      inner->addParamAttr(unsigned(i), llvm::Attribute::NoAlias);
  llvm::Function* saved_fn = fn_;
  llvm::Value* saved_services = services_;
  auto saved_vars = vars_;
  auto saved_buffers = buffers_;
  llvm::IRBuilderBase::InsertPoint saved_ip = b_.saveIP();

  // 2a. The wrapper: chunk [min + task*chunk, min(min + (task+1)*chunk, min + extent)).
  fn_ = body;
  b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", body));
  llvm::Value* arg_closure = body->getArg(2);
  std::vector<llvm::Value*> fields;
  for (size_t i = 0; i < values.size(); ++i)
    fields.push_back(
        b_.CreateLoad(types[i], b_.CreateStructGEP(closure_ty, arg_closure, unsigned(i))));
  auto bind_scope = [&](const std::vector<llvm::Value*>& v) {
    services_ = v[0];
    for (size_t i = 0; i < var_keys.size(); ++i) vars_[var_keys[i]] = v[1 + i];
    for (size_t i = 0; i < buf_keys.size(); ++i) buffers_[buf_keys[i]] = v[1 + var_keys.size() + i];
  };
  bind_scope(fields);
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
  b_.CreateRet(b_.CreateCall(inner_ty, inner, call_args));

  // 2b. The loop over the chunk, with the scope as parameters.
  fn_ = inner;
  b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", inner));
  std::vector<llvm::Value*> params;
  for (size_t i = 0; i < values.size(); ++i) params.push_back(inner->getArg(unsigned(i)));
  bind_scope(params);
  serial_loop(op.loop_var, inner->getArg(unsigned(values.size())),
              inner->getArg(unsigned(values.size() + 1)), ForKind::kSerial, op.body);
  b_.CreateRet(b_.getInt32(0));

  fn_ = saved_fn;
  services_ = saved_services;
  vars_ = std::move(saved_vars);
  buffers_ = std::move(saved_buffers);
  b_.restoreIP(saved_ip);

  // 3. The launch: num_tasks = min(extent, kMaxTasks), skipped when the loop is empty.
  llvm::Value* ext64 = b_.CreateIntCast(expr(op.extent), i64, sign);
  llvm::Value* cap = b_.getInt64(kMaxTasks);
  llvm::Value* n = b_.CreateSelect(b_.CreateICmpSLT(ext64, cap), ext64, cap);
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
