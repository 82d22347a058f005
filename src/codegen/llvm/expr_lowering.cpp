// Kernel lowering: expressions (arithmetic with floor division, comparisons, casts, selects,
// lets, ramps and broadcasts). Buffer loads are in buffer_access.cpp, intrinsics in math.cpp.
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>

#include "codegen/llvm/kernel_lowering.h"
#include "codegen/llvm/math.h"
#include "support/bfloat16.h"
#include "support/error.h"
#include "tir/expr.h"

namespace ingot::codegen {

using namespace tir;

llvm::Value* KernelLowering::to_i64(const Expr& e) {
  llvm::Value* v = expr(e);
  INGOT_ICHECK(e.dtype().is_integer() || e.dtype().is_bool(), "index of dtype {}", e.dtype().str());
  llvm::Type* t = llvm::Type::getInt64Ty(ctx_);
  if (v->getType()->isVectorTy()) t = llvm::FixedVectorType::get(t, e.dtype().lanes);
  return e.dtype().is_int() ? b_.CreateSExtOrTrunc(v, t) : b_.CreateZExtOrTrunc(v, t);
}

llvm::Value* KernelLowering::expr(const Expr& e) {
  DataType t = e.dtype();
  switch (e.tag()) {
    case NodeTag::IntImm:
      return llvm::ConstantInt::get(type_of(t), uint64_t(e.as<IntImm>()->value), t.is_int());
    case NodeTag::FloatImm: {
      double v = e.as<FloatImm>()->value;
      return llvm::ConstantFP::get(type_of(t), t.is_bfloat16() ? round_to_bfloat16(v) : v);
    }
    case NodeTag::Var: {
      auto it = vars_.find(e.as<VarNode>());
      INGOT_ICHECK(it != vars_.end(), "codegen: variable '{}' is not bound in kernel '{}'",
                   e.as<VarNode>()->name, kernel_name_);
      return it->second;
    }
#define INGOT_X(N, op)                                               \
  case NodeTag::N: {                                                 \
    auto* n = e.as<tir::N>();                                        \
    return binary(NodeTag::N, n->a.dtype(), expr(n->a), expr(n->b)); \
  }
      INGOT_TIR_BINARY_NODES(INGOT_X)
#undef INGOT_X
    case NodeTag::Not:
      return b_.CreateNot(expr(e.as<Not>()->a));
    case NodeTag::Select: {
      auto* n = e.as<Select>();
      return b_.CreateSelect(expr(n->condition), expr(n->true_value), expr(n->false_value));
    }
    case NodeTag::Cast: {
      auto* n = e.as<Cast>();
      if (llvm::Value* v = nibble_to_float(*n)) return v;
      return cast(n->value.dtype(), t, expr(n->value));
    }
    case NodeTag::Call: {
      auto* n = e.as<Call>();
      if (n->op == Intrinsic::prefetch) return prefetch(*n->args[0].as<BufferLoad>());
      if (n->op == Intrinsic::dot_i32) return dot_i32(*n);
      if (n->op == Intrinsic::dot_bf16) return dot_bf16(*n);
      if (is_amx_intrinsic(n->op)) return amx(*n);
      std::vector<llvm::Value*> args;
      for (const Expr& a : n->args) args.push_back(expr(a));
      return lower_intrinsic(b_, module_, n->op, args);
    }
    case NodeTag::BufferLoad:
      return load(*e.as<BufferLoad>());
    case NodeTag::Ramp: {
      auto* n = e.as<Ramp>();
      auto* vt = llvm::cast<llvm::FixedVectorType>(type_of(t));
      llvm::Value* base = b_.CreateVectorSplat(n->lanes, expr(n->base));
      llvm::Value* stride = b_.CreateVectorSplat(n->lanes, expr(n->stride));
      return b_.CreateAdd(base, b_.CreateMul(b_.CreateStepVector(vt), stride));
    }
    case NodeTag::Broadcast: {
      auto* n = e.as<Broadcast>();
      return b_.CreateVectorSplat(n->lanes, expr(n->value));
    }
    case NodeTag::Shuffle: {
      auto* n = e.as<Shuffle>();
      return b_.CreateShuffleVector(expr(n->vector), n->indices);
    }
    case NodeTag::Let: {
      auto* n = e.as<Let>();
      vars_[n->var.node()] = expr(n->value);
      llvm::Value* v = expr(n->body);
      vars_.erase(n->var.node());
      return v;
    }
    default:
      fail_internal("codegen: {} is not an expression", node_tag_name(e.tag()));
  }
}

llvm::Value* KernelLowering::binary(NodeTag tag, DataType t, llvm::Value* a, llvm::Value* b) {
  bool fp = t.is_float();
  bool sign = t.is_int();
  switch (tag) {
    case NodeTag::Add:
      return fp ? b_.CreateFAdd(a, b) : b_.CreateAdd(a, b, "", false, sign);
    case NodeTag::Sub:
      return fp ? b_.CreateFSub(a, b) : b_.CreateSub(a, b, "", false, sign);
    case NodeTag::Mul:
      return fp ? b_.CreateFMul(a, b) : b_.CreateMul(a, b, "", false, sign);
    case NodeTag::Div:
      if (fp) return b_.CreateFDiv(a, b);
      return sign ? b_.CreateSDiv(a, b) : b_.CreateUDiv(a, b);
    case NodeTag::FloorDiv:
    case NodeTag::FloorMod: {
      if (!sign) return tag == NodeTag::FloorDiv ? b_.CreateUDiv(a, b) : b_.CreateURem(a, b);
      // Truncating q, r; when r != 0 and sign(r) != sign(b): q -= 1, r += b.
      llvm::Value* q = b_.CreateSDiv(a, b);
      llvm::Value* r = b_.CreateSRem(a, b);
      llvm::Value* zero = llvm::Constant::getNullValue(a->getType());
      llvm::Value* fix =
          b_.CreateAnd(b_.CreateICmpNE(r, zero),
                       b_.CreateXor(b_.CreateICmpSLT(r, zero), b_.CreateICmpSLT(b, zero)));
      if (tag == NodeTag::FloorDiv) return b_.CreateSub(q, b_.CreateZExt(fix, a->getType()));
      return b_.CreateSelect(fix, b_.CreateAdd(r, b), r);
    }
    case NodeTag::Min:
    case NodeTag::Max: {
      bool is_min = tag == NodeTag::Min;
      llvm::Value* c = compare(is_min ? NodeTag::LT : NodeTag::GT, t, a, b);
      return b_.CreateSelect(c, a, b);
    }
    case NodeTag::And:
      return b_.CreateAnd(a, b);
    case NodeTag::Or:
      return b_.CreateOr(a, b);
    default:
      return compare(tag, t, a, b);
  }
}

llvm::Value* KernelLowering::compare(NodeTag tag, DataType t, llvm::Value* a, llvm::Value* b) {
  using P = llvm::CmpInst::Predicate;
  P p;
  if (t.is_float()) {
    switch (tag) {
      case NodeTag::EQ:
        p = P::FCMP_OEQ;
        break;
      case NodeTag::NE:
        p = P::FCMP_UNE;
        break;
      case NodeTag::LT:
        p = P::FCMP_OLT;
        break;
      case NodeTag::LE:
        p = P::FCMP_OLE;
        break;
      case NodeTag::GT:
        p = P::FCMP_OGT;
        break;
      case NodeTag::GE:
        p = P::FCMP_OGE;
        break;
      default:
        fail_internal("codegen: {} is not a comparison", node_tag_name(tag));
    }
    return b_.CreateFCmp(p, a, b);
  }
  bool sign = t.is_int();
  switch (tag) {
    case NodeTag::EQ:
      p = P::ICMP_EQ;
      break;
    case NodeTag::NE:
      p = P::ICMP_NE;
      break;
    case NodeTag::LT:
      p = sign ? P::ICMP_SLT : P::ICMP_ULT;
      break;
    case NodeTag::LE:
      p = sign ? P::ICMP_SLE : P::ICMP_ULE;
      break;
    case NodeTag::GT:
      p = sign ? P::ICMP_SGT : P::ICMP_UGT;
      break;
    case NodeTag::GE:
      p = sign ? P::ICMP_SGE : P::ICMP_UGE;
      break;
    default:
      fail_internal("codegen: {} is not a comparison", node_tag_name(tag));
  }
  return b_.CreateICmp(p, a, b);
}

llvm::Value* KernelLowering::cast(DataType from, DataType to, llvm::Value* v) {
  llvm::Type* dst = type_of(to);
  if (from == to) return v;
  if (to.is_bool()) {
    llvm::Value* zero = llvm::Constant::getNullValue(v->getType());
    return from.is_float() ? b_.CreateFCmpUNE(v, zero) : b_.CreateICmpNE(v, zero);
  }
  // bfloat16 values are float32 in registers: from one, a float32 cast; to one, a float32 cast
  // and the rounding (bfloat16.cpp).
  if (from.is_bfloat16()) return cast(DataType::f32(from.lanes), to, v);
  if (to.is_bfloat16()) return bfloat16_round(cast(from, DataType::f32(to.lanes), v));
  if (from.is_float() && to.is_float()) {
    // float16 <-> float64 goes through float32: targets convert those natively (F16C) where
    // a direct conversion would be a compiler-rt call the artifact cannot import.
    if ((from.bits == 16 && to.bits == 64) || (from.bits == 64 && to.bits == 16))
      v = b_.CreateFPCast(v, type_of(DataType::f32(to.lanes)));
    return b_.CreateFPCast(v, dst);
  }
  if (from.is_float()) return to.is_int() ? b_.CreateFPToSI(v, dst) : b_.CreateFPToUI(v, dst);
  if (to.is_float()) return from.is_int() ? b_.CreateSIToFP(v, dst) : b_.CreateUIToFP(v, dst);
  if (to.is_handle() || from.is_handle())
    fail_internal("codegen: cast between {} and {}", from.str(), to.str());
  return b_.CreateIntCast(v, dst, from.is_int());
}

}  // namespace ingot::codegen
