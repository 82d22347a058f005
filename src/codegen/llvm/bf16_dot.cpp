// Lowering of the bfloat16 pair product dot_bf16(acc, a, b) (tir/ir.cpp): lane l of the result is
// acc[l] + a[2l] * b[2l] + a[2l + 1] * b[2l + 1] in float32. Chosen by the target's features
// (Target::bf16_dot_pairs), so the schedule's tile says what is computed and this file how:
// - VDPBF16PS where the target has AVX512-BF16 (512 bits; 256 with AVX512VL): one instruction
//   per accumulator vector, two products per lane, on the operands' own bits (their loads are
//   not widened). The instruction flushes denormal inputs and outputs to zero and rounds each
//   addition to nearest even (Intel SDM), so it may differ from the fused form below by float32
//   rounding;
// - otherwise both operands widened to float32 (a shift), each lane's pair multiplied and added
//   with fused multiply-adds (any target: AVX2, AArch64).
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/IntrinsicsX86.h>

#include "codegen/llvm/kernel_lowering.h"
#include "support/error.h"
#include "tir/expr.h"

namespace ingot::codegen {

using namespace tir;

llvm::Value* KernelLowering::bfloat16_operand_bits(const Expr& e) {
  if (auto* ld = e.as<BufferLoad>(); ld && ld->buffer->dtype.is_bfloat16())
    return load_storage(*ld);
  if (auto* sh = e.as<Shuffle>(); sh && e.dtype().is_bfloat16())
    return b_.CreateShuffleVector(bfloat16_operand_bits(sh->vector), sh->indices);
  // (A padding select of loads and constants: the bits move as they are.)
  if (auto* sel = e.as<Select>(); sel && e.dtype().is_bfloat16())
    return b_.CreateSelect(expr(sel->condition), bfloat16_operand_bits(sel->true_value),
                           bfloat16_operand_bits(sel->false_value));
  return bfloat16_bits(expr(e));
}

llvm::Value* KernelLowering::dot_bf16(const Call& op) {
  const int lanes = op.args[0].dtype().lanes;
  llvm::Value* acc = expr(op.args[0]);
  if (target_.bf16_dot_pairs(lanes)) {
    llvm::Function* fn = llvm::Intrinsic::getDeclaration(
        &module_, lanes == 16 ? llvm::Intrinsic::x86_avx512bf16_dpbf16ps_512
                              : llvm::Intrinsic::x86_avx512bf16_dpbf16ps_256);
    // (The operands' IR type differs between LLVM versions, <2L x bfloat> or <L x i32>: the
    // bits are cast to whichever the declaration takes.)
    llvm::Type* operand = fn->getFunctionType()->getParamType(1);
    llvm::Value* a = b_.CreateBitCast(bfloat16_operand_bits(op.args[1]), operand);
    llvm::Value* b = b_.CreateBitCast(bfloat16_operand_bits(op.args[2]), operand);
    return b_.CreateCall(fn, {acc, a, b});
  }
  // Portable: float32 values (widened by their loads).
  return pair_products(acc, expr(op.args[1]), expr(op.args[2]));
}

llvm::Value* KernelLowering::pair_products(llvm::Value* acc, llvm::Value* a, llvm::Value* b) {
  // Two fused multiply-adds per lane.
  const int lanes = int(llvm::cast<llvm::FixedVectorType>(acc->getType())->getNumElements());
  llvm::Value* sum = acc;
  for (int t = 0; t < 2; ++t) {
    std::vector<int> pick(static_cast<size_t>(lanes));
    for (int l = 0; l < lanes; ++l) pick[size_t(l)] = 2 * l + t;
    sum =
        b_.CreateIntrinsic(llvm::Intrinsic::fma, {acc->getType()},
                           {b_.CreateShuffleVector(a, pick), b_.CreateShuffleVector(b, pick), sum});
  }
  return sum;
}

}  // namespace ingot::codegen
