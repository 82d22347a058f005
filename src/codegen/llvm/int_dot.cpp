// Lowering of the integer dot product dot_i32(acc, a, b) (tir/ir.cpp): lane l of the result is
// acc[l] + sum over t < G of a[l*G + t] * b[l*G + t], each operand widened by its signedness,
// exact in int32. Chosen by the target's features (Target::isa_features), so the schedule's
// tile says what is computed and this file how:
// - uint8 a x int8 b, G = 4: VPDPBUSD (the non-saturating form) where the target has AVX-VNNI
//   (256 bits) or AVX512-VNNI (512 bits; 256 with AVX512VL);
// - int16 a and b, G = 2: VPMADDWD (AVX2 256 bits, AVX512BW 512 bits) and an add; exact, since
//   one pair's sum overflows only for (-32768)^2 * 2, which 8-bit operands widened never reach;
// - AArch64, G = 4, 128 bits: int8 x int8 SDOT (dotprod); uint8 x int8 USDOT (i8mm), else
//   SDOT of the uint8 operand moved to int8 (a - 128: its top bit flipped) and the product of
//   -128 by b subtracted (acc + sdot(a - 128, b) - sdot(-128, b)). The second SDOT depends on b
//   alone, so a tile's rows share it (LLVM's CSE of the pure call);
// - otherwise each operand widened to int32, multiplied, and the G products of a lane summed by
//   shuffles (any target: AArch64 without dotprod, a narrower x86).
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/IntrinsicsAArch64.h>
#include <llvm/IR/IntrinsicsX86.h>

#include "codegen/llvm/kernel_lowering.h"
#include "support/error.h"

namespace ingot::codegen {

using namespace tir;

llvm::Value* KernelLowering::dot_i32(const Call& op) {
  const DataType acc_t = op.args[0].dtype(), a_t = op.args[1].dtype(), b_t = op.args[2].dtype();
  const int lanes = acc_t.lanes, group = a_t.lanes / lanes;
  llvm::Value* acc = expr(op.args[0]);
  llvm::Value* a = expr(op.args[1]);
  llvm::Value* b = expr(op.args[2]);
  llvm::Type* words = acc->getType();  // <lanes x i32>
  if (target_.is_x86()) {
    // uint8 x int8 in groups of 4: one VPDPBUSD.
    const bool u8s8 = group == 4 && a_t.is_uint() && a_t.bits == 8 && b_t.is_int() && b_t.bits == 8;
    if (u8s8 && target_.int8_dot_quads(lanes))
      return b_.CreateIntrinsic(lanes == 16 ? llvm::Intrinsic::x86_avx512_vpdpbusd_512
                                            : llvm::Intrinsic::x86_avx512_vpdpbusd_256,
                                {}, {acc, b_.CreateBitCast(a, words), b_.CreateBitCast(b, words)});
    // int16 pairs: VPMADDWD, then the add.
    const bool i16 = group == 2 && a_t.is_int() && a_t.bits == 16 && b_t.is_int() && b_t.bits == 16;
    if (i16 && lanes == 8 && target_.has_feature("avx2"))
      return b_.CreateAdd(acc, b_.CreateIntrinsic(llvm::Intrinsic::x86_avx2_pmadd_wd, {}, {a, b}));
    if (i16 && lanes == 16 && target_.has_feature("avx512bw"))
      return b_.CreateAdd(acc,
                          b_.CreateIntrinsic(llvm::Intrinsic::x86_avx512_pmaddw_d_512, {}, {a, b}));
  }
  if (target_.is_aarch64() && group == 4 && lanes == 4 && a_t.bits == 8 && b_t.is_int() &&
      b_t.bits == 8) {
    llvm::Type* overload[] = {words, a->getType()};
    if (a_t.is_int() && target_.has_feature("dotprod"))
      return b_.CreateIntrinsic(llvm::Intrinsic::aarch64_neon_sdot, overload, {acc, a, b});
    if (a_t.is_uint() && target_.has_feature("i8mm"))
      return b_.CreateIntrinsic(llvm::Intrinsic::aarch64_neon_usdot, overload, {acc, a, b});
    if (a_t.is_uint() && target_.has_feature("dotprod")) {
      llvm::Value* top = llvm::ConstantInt::get(a->getType(), 0x80);
      llvm::Value* shifted = b_.CreateXor(a, top);  // a - 128 as int8
      llvm::Value* dot =
          b_.CreateIntrinsic(llvm::Intrinsic::aarch64_neon_sdot, overload, {acc, shifted, b});
      llvm::Value* zero = llvm::Constant::getNullValue(words);
      llvm::Value* offset =
          b_.CreateIntrinsic(llvm::Intrinsic::aarch64_neon_sdot, overload, {zero, top, b});
      return b_.CreateSub(dot, offset);
    }
  }
  return widened_dot(acc, a, b, a_t.is_uint(), b_t.is_uint(), group);
}

llvm::Value* KernelLowering::widened_dot(llvm::Value* acc, llvm::Value* a, llvm::Value* b,
                                         bool a_unsigned, bool b_unsigned, int group) {
  // Widen, multiply, add each lane's G products.
  const int lanes = int(llvm::cast<llvm::FixedVectorType>(acc->getType())->getNumElements());
  auto* wide = llvm::FixedVectorType::get(b_.getInt32Ty(), unsigned(lanes * group));
  llvm::Value* wa = a_unsigned ? b_.CreateZExt(a, wide) : b_.CreateSExt(a, wide);
  llvm::Value* wb = b_unsigned ? b_.CreateZExt(b, wide) : b_.CreateSExt(b, wide);
  llvm::Value* products = b_.CreateMul(wa, wb);
  llvm::Value* sum = acc;
  for (int t = 0; t < group; ++t) {
    std::vector<int> pick(static_cast<size_t>(lanes));
    for (int l = 0; l < lanes; ++l) pick[size_t(l)] = l * group + t;
    sum = b_.CreateAdd(sum, b_.CreateShuffleVector(products, pick));
  }
  return sum;
}

}  // namespace ingot::codegen
