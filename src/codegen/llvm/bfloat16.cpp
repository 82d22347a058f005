// Kernel lowering of bfloat16: values are float32 in registers (tir bfloat16 arithmetic is
// float32 arithmetic) and 16 bits in memory. A load widens the bits (a shift into the upper
// half), a store and a cast to bfloat16 round to nearest even with integer operations (a NaN
// becomes the quiet NaN of its sign), so no
// target needs bfloat16 instructions or compiler-rt's __truncsfbf2, which an artifact cannot
// import.
#include <llvm/IR/IRBuilder.h>

#include "codegen/llvm/kernel_lowering.h"

namespace ingot::codegen {

// `c` as an i32 constant of `like`'s shape (a scalar or a splat vector).
static llvm::Constant* i32_like(llvm::Type* like, uint32_t c) {
  return llvm::ConstantInt::get(like->getWithNewType(llvm::Type::getInt32Ty(like->getContext())),
                                c);
}

llvm::Value* KernelLowering::bfloat16_widen(llvm::Value* bits) {
  llvm::Type* t = bits->getType();
  llvm::Value* wide = b_.CreateZExt(bits, t->getWithNewType(b_.getInt32Ty()));
  wide = b_.CreateShl(wide, i32_like(t, 16));
  return b_.CreateBitCast(wide, t->getWithNewType(b_.getFloatTy()));
}

// The float32 bits of `f` rounded to a bfloat16 in their upper half (the lower half zero).
static llvm::Value* rounded_upper_half(llvm::IRBuilderBase& b, llvm::Value* f) {
  llvm::Type* t = f->getType();
  llvm::Value* u = b.CreateBitCast(f, t->getWithNewType(b.getInt32Ty()));
  llvm::Type* it = u->getType();
  // ties to even: add 0x7fff plus the lowest kept bit; a carry rounds up into the exponent
  llvm::Value* lsb = b.CreateAnd(b.CreateLShr(u, i32_like(it, 16)), i32_like(it, 1));
  llvm::Value* rounded = b.CreateAdd(b.CreateAdd(u, i32_like(it, 0x7fff)), lsb);
  // a NaN stays a NaN (its payload could round to zero, an infinity): the quiet NaN of its
  // sign, as ml_dtypes and PyTorch give
  llvm::Value* quiet =
      b.CreateOr(b.CreateAnd(u, i32_like(it, 0x80000000u)), i32_like(it, 0x7fc00000));
  llvm::Value* is_nan = b.CreateFCmpUNO(f, f);
  llvm::Value* r = b.CreateSelect(is_nan, quiet, rounded);
  return b.CreateAnd(r, i32_like(it, 0xffff0000u));
}

llvm::Value* KernelLowering::bfloat16_round(llvm::Value* f) {
  return b_.CreateBitCast(rounded_upper_half(b_, f), f->getType());
}

llvm::Value* KernelLowering::bfloat16_bits(llvm::Value* f) {
  llvm::Value* upper = b_.CreateLShr(rounded_upper_half(b_, f), i32_like(f->getType(), 16));
  return b_.CreateTrunc(upper, f->getType()->getWithNewType(b_.getInt16Ty()));
}

}  // namespace ingot::codegen
