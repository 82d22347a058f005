// Kernel lowering: the function frame, types, and statements (loops, ifs, lets, allocations).
#include "codegen/llvm/kernel_lowering.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Metadata.h>
#include <llvm/IR/Module.h>

#include "support/error.h"
#include "tir/module.h"
#include "tir/op.h"

namespace ingot::codegen {

using namespace tir;

struct KernelLowering::Builder {
  explicit Builder(llvm::LLVMContext& ctx) : b(ctx) {}
  llvm::IRBuilder<> b;
};

KernelLowering::KernelLowering(llvm::Module& module, const Target& target)
    : module_(module),
      ctx_(module.getContext()),
      target_(target),
      builder_(std::make_unique<Builder>(module.getContext())),
      b_(builder_->b) {
  llvm::FastMathFlags fmf;
  fmf.setAllowContract(true);
  b_.setFastMathFlags(fmf);
}

KernelLowering::~KernelLowering() = default;

llvm::StructType* KernelLowering::services_type(llvm::LLVMContext& ctx) {
  auto* i32 = llvm::Type::getInt32Ty(ctx);
  auto* ptr = llvm::PointerType::get(ctx, 0);
  // abi_version, struct_size, ctx, parallel_for, set_error, kernel_begin, kernel_end
  return llvm::StructType::get(ctx, {i32, i32, ptr, ptr, ptr, ptr, ptr});
}

llvm::Type* KernelLowering::type_of(DataType t) {
  llvm::Type* s = nullptr;
  switch (t.code) {
    case DataType::kInt:
    case DataType::kUInt:
      s = llvm::Type::getIntNTy(ctx_, t.bits);
      break;
    case DataType::kBool:
      s = llvm::Type::getInt1Ty(ctx_);
      break;
    case DataType::kHandle:
      s = llvm::PointerType::get(ctx_, 0);
      break;
    case DataType::kFloat:
      if (t.bits == 16)
        s = llvm::Type::getHalfTy(ctx_);
      else if (t.bits == 32)
        s = llvm::Type::getFloatTy(ctx_);
      else if (t.bits == 64)
        s = llvm::Type::getDoubleTy(ctx_);
      break;
    case DataType::kBFloat:  // float32 in registers (bfloat16.cpp); its bits in memory
      s = llvm::Type::getFloatTy(ctx_);
      break;
  }
  INGOT_ICHECK(s != nullptr, "no LLVM type for {}", t.str());
  return t.lanes > 1 ? llvm::FixedVectorType::get(s, t.lanes) : s;
}

llvm::Type* KernelLowering::storage_type_of(DataType t) {
  if (t.is_bool()) return type_of(DataType{DataType::kUInt, 8, t.lanes});
  if (t.is_bfloat16()) return type_of(DataType{DataType::kUInt, 16, t.lanes});
  return type_of(t);
}

llvm::FunctionType* kernel_function_type(const PrimFunc& func, llvm::LLVMContext& ctx) {
  auto* ptr = llvm::PointerType::get(ctx, 0);
  std::vector<llvm::Type*> params(func.params.size(), ptr);
  for (const Var& v : func.shape_vars) {
    INGOT_ICHECK(v.dtype() == DataType::i64(), "shape var '{}' of kernel '{}' is {}", v.name(),
                 func.name, v.dtype().str());
    params.push_back(llvm::Type::getInt64Ty(ctx));
  }
  params.push_back(ptr);  // services
  return llvm::FunctionType::get(llvm::Type::getInt32Ty(ctx), params, false);
}

llvm::Function* KernelLowering::lower(const PrimFunc& func, const std::vector<bool>& noalias) {
  auto* fty = kernel_function_type(func, ctx_);
  auto* fn = llvm::Function::Create(fty, llvm::Function::InternalLinkage, func.name, module_);
  for (size_t i = 0; i < func.params.size(); ++i) {
    fn->getArg(i)->setName(func.params[i]->name);
    if (i < noalias.size() && noalias[i]) fn->addParamAttr(i, llvm::Attribute::NoAlias);
    fn->addParamAttr(i, llvm::Attribute::NoCapture);
  }
  const size_t nb = func.params.size(), ns = func.shape_vars.size();
  for (size_t i = 0; i < ns; ++i) fn->getArg(nb + i)->setName(func.shape_vars[i].name());
  fn->getArg(nb + ns)->setName("services");
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  kernel_name_ = func.name;
  num_outlined_ = 0;
  fn_ = fn;
  services_ = fn->getArg(nb + ns);
  vars_.clear();
  buffers_.clear();
  for (size_t i = 0; i < nb; ++i) {
    buffers_[func.params[i].get()] = fn->getArg(i);
    vars_[func.params[i]->data.node()] = fn->getArg(i);
  }
  for (size_t i = 0; i < ns; ++i) vars_[func.shape_vars[i].node()] = fn->getArg(nb + i);
  b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", fn));
  stmt(func.body);
  b_.CreateRet(b_.getInt32(0));
  release_amx_tiles();
  return fn;
}

void KernelLowering::stmt(const Stmt& s) {
  switch (s.tag()) {
    case NodeTag::For:
      return for_loop(*s.as<For>());
    case NodeTag::BufferStore:
      return store(*s.as<BufferStore>());
    case NodeTag::SeqStmt:
      for (const Stmt& c : s.as<SeqStmt>()->seq) stmt(c);
      return;
    case NodeTag::IfThenElse:
      return if_then_else(*s.as<IfThenElse>());
    case NodeTag::LetStmt: {
      auto* op = s.as<LetStmt>();
      vars_[op->var.node()] = expr(op->value);
      stmt(op->body);
      vars_.erase(op->var.node());
      return;
    }
    case NodeTag::Allocate:
      return allocate(*s.as<Allocate>());
    case NodeTag::Evaluate:
      expr(s.as<Evaluate>()->value);
      return;
    default:
      fail_internal("codegen: {} is not a statement", node_tag_name(s.tag()));
  }
}

void KernelLowering::for_loop(const For& op) {
  switch (op.kind) {
    case ForKind::kParallel:
      return parallel_loop(op);
    case ForKind::kOutlined:
      return outlined_loop(op);
    case ForKind::kThreadBinding:
      fail_user("loop '{}' is bound to {}, which needs a GPU target (target is '{}')",
                op.loop_var.name(), op.thread_tag, target_.str());
    default: {
      llvm::Value* begin = expr(op.min);
      llvm::Value* end = b_.CreateAdd(begin, expr(op.extent));
      serial_loop(op.loop_var, begin, end, op.kind, op.body);
    }
  }
}

// for (var = begin; var < end; ++var) body, with vectorize/unroll hints on the back edge.
void KernelLowering::serial_loop(const Var& var, llvm::Value* begin, llvm::Value* end, ForKind kind,
                                 const Stmt& body) {
  llvm::BasicBlock* pre = b_.GetInsertBlock();
  auto* header = llvm::BasicBlock::Create(ctx_, var.name() + ".header", fn_);
  auto* body_bb = llvm::BasicBlock::Create(ctx_, var.name() + ".body", fn_);
  auto* exit = llvm::BasicBlock::Create(ctx_, var.name() + ".exit", fn_);
  b_.CreateBr(header);
  b_.SetInsertPoint(header);
  auto* phi = b_.CreatePHI(begin->getType(), 2, var.name());
  phi->addIncoming(begin, pre);
  bool is_unsigned = var.dtype().is_uint();
  b_.CreateCondBr(is_unsigned ? b_.CreateICmpULT(phi, end) : b_.CreateICmpSLT(phi, end), body_bb,
                  exit);
  b_.SetInsertPoint(body_bb);
  vars_[var.node()] = phi;
  stmt(body);
  vars_.erase(var.node());
  llvm::Value* next =
      b_.CreateAdd(phi, llvm::ConstantInt::get(phi->getType(), 1), "", false, !is_unsigned);
  auto* latch = b_.CreateBr(header);
  phi->addIncoming(next, b_.GetInsertBlock());

  std::vector<llvm::Metadata*> md{nullptr};
  auto hint = [&](const char* name, llvm::Metadata* value) {
    if (value) {
      md.push_back(llvm::MDNode::get(ctx_, {llvm::MDString::get(ctx_, name), value}));
    } else {
      md.push_back(llvm::MDNode::get(ctx_, {llvm::MDString::get(ctx_, name)}));
    }
  };
  hint("llvm.loop.mustprogress", nullptr);
  if (kind == ForKind::kVectorized) {
    // Left for the loop vectorizer: without unroll.disable, LLVM's full unroller runs first and
    // scatters short constant-trip loops (a tile's 32-lane row) into scalar loads and stores.
    hint("llvm.loop.vectorize.enable", llvm::ConstantAsMetadata::get(b_.getTrue()));
    hint("llvm.loop.unroll.disable", nullptr);
  } else if (kind == ForKind::kUnrolled) {
    hint("llvm.loop.unroll.full", nullptr);
  }
  auto* loop_id = llvm::MDNode::getDistinct(ctx_, md);
  loop_id->replaceOperandWith(0, loop_id);
  latch->setMetadata(llvm::LLVMContext::MD_loop, loop_id);
  b_.SetInsertPoint(exit);
}

void KernelLowering::if_then_else(const IfThenElse& op) {
  llvm::Value* cond = expr(op.condition);
  auto* then_bb = llvm::BasicBlock::Create(ctx_, "then", fn_);
  auto* end_bb = llvm::BasicBlock::Create(ctx_, "endif", fn_);
  auto* else_bb = op.else_case.defined() ? llvm::BasicBlock::Create(ctx_, "else", fn_) : end_bb;
  b_.CreateCondBr(cond, then_bb, else_bb);
  b_.SetInsertPoint(then_bb);
  stmt(op.then_case);
  b_.CreateBr(end_bb);
  if (op.else_case.defined()) {
    b_.SetInsertPoint(else_bb);
    stmt(op.else_case);
    b_.CreateBr(end_bb);
  }
  b_.SetInsertPoint(end_bb);
}

namespace {
// The most bytes a local buffer (an alloca) may take.
constexpr int64_t kMaxLocalBufferBytes = int64_t(4) << 20;
}  // namespace

llvm::Value* KernelLowering::entry_alloca(llvm::Type* type, llvm::Value* count, int align) {
  llvm::IRBuilder<> eb(&fn_->getEntryBlock(), fn_->getEntryBlock().getFirstInsertionPt());
  auto* a = eb.CreateAlloca(type, count);
  a->setAlignment(llvm::Align(align));
  return a;
}

void KernelLowering::allocate(const Allocate& op) {
  const BufferNode& buf = *op.buffer;
  // Elements: the dense size, or with strides (storage_align pads them) the furthest element
  // reached plus one.
  int64_t count = 1, last = 0;
  for (size_t k = 0; k < buf.shape.size(); ++k) {
    int64_t v = 0, st = 0;
    if (!is_const_int(buf.shape[k], &v))
      fail_internal("codegen: local buffer '{}' needs a constant shape", buf.name);
    count *= v;
    if (buf.strides.empty()) continue;
    if (!is_const_int(buf.strides[k], &st))
      fail_internal("codegen: local buffer '{}' needs constant strides", buf.name);
    last += (v - 1) * st;
  }
  if (!buf.strides.empty() && count > 0) count = last + 1;
  // (On the stack of the thread running it: a local buffer left at a tensor's size would
  // overflow it.)
  INGOT_ICHECK(count * buf.dtype.bytes() <= kMaxLocalBufferBytes,
               "codegen: local buffer '{}' of {} bytes does not fit a thread's stack", buf.name,
               count * buf.dtype.bytes());
  llvm::Type* elem = storage_type_of(buf.dtype);
  int align = std::max(buf.alignment, buf.dtype.bytes());
  llvm::Value* p = entry_alloca(elem, b_.getInt64(std::max<int64_t>(count, 1)), align);
  buffers_[op.buffer.get()] = p;
  vars_[buf.data.node()] = p;
  stmt(op.body);
  buffers_.erase(op.buffer.get());
  vars_.erase(buf.data.node());
}

void KernelLowering::return_if_error(llvm::Value* status) {
  auto* fail_bb = llvm::BasicBlock::Create(ctx_, "fail", fn_);
  auto* ok_bb = llvm::BasicBlock::Create(ctx_, "ok", fn_);
  b_.CreateCondBr(b_.CreateICmpNE(status, b_.getInt32(0)), fail_bb, ok_bb);
  b_.SetInsertPoint(fail_bb);
  b_.CreateRet(status);
  b_.SetInsertPoint(ok_bb);
}

}  // namespace ingot::codegen
