// Math intrinsics in LLVM IR. float16 is computed in float32. The inline formulas:
//  exp f32: Cephes expf (range reduction by ln2 in two parts, degree-6 polynomial, 2^n by bits)
//  tanh f32, erf f32: the rational approximations of Eigen (also used by TVM and XLA)
//  sigmoid: 1 / (1 + exp(-x))
// The divisions of sigmoid, tanh and erf have finite denominators bounded away from zero
// (exp's argument clamped; the rational approximations' denominators are positive polynomials on
// the clamped range), so they are marked arcp + ninf: on vectors the x86 backend computes them as
// a reciprocal estimate (rcpps / vrcp14ps) refined by one Newton step, within 2 ulp (rcpps: 12
// bits before the step), instead of vdivps, whose throughput (5-10 cycles per vector) bounds a
// conv with a SiLU epilogue. The results are clamped to the functions' ranges ([0, 1], [-1, 1]),
// which the estimate could leave by an ulp.
#include "codegen/llvm/math.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Module.h>

#include <initializer_list>
#include <limits>

#include "support/error.h"

namespace ingot::codegen {
namespace {

using llvm::Value;

// a / b for a denominator known finite and nonzero: see the banner.
Value* approx_div(llvm::IRBuilderBase& b, Value* a, Value* d) {
  Value* q = b.CreateFDiv(a, d);
  if (auto* i = llvm::dyn_cast<llvm::Instruction>(q)) {
    i->setHasAllowReciprocal(true);
    i->setHasNoInfs(true);
  }
  return q;
}

Value* k(Value* like, double c) {
  return llvm::ConstantFP::get(like->getType(), c);
}

// Horner: c[0]*x^n + c[1]*x^(n-1) + ... + c[n].
Value* poly(llvm::IRBuilderBase& b, Value* x, std::initializer_list<double> c) {
  auto it = c.begin();
  Value* acc = k(x, *it++);
  for (; it != c.end(); ++it) acc = b.CreateFAdd(b.CreateFMul(acc, x), k(x, *it));
  return acc;
}

Value* clamp(llvm::IRBuilderBase& b, Value* x, double lo, double hi) {
  x = b.CreateSelect(b.CreateFCmpOGT(x, k(x, hi)), k(x, hi), x);  // NaN passes through
  return b.CreateSelect(b.CreateFCmpOLT(x, k(x, lo)), k(x, lo), x);
}

constexpr double kExpHi = 88.3762626647949, kExpLo = -88.3762626647949;

// exp of x clamped to [kExpLo, kExpHi]: finite and positive for every non-NaN x.
Value* exp_f32_clamped(llvm::IRBuilderBase& b, Value* x) {
  Value* xc = clamp(b, x, kExpLo, kExpHi);
  Value* fx = b.CreateUnaryIntrinsic(
      llvm::Intrinsic::floor, b.CreateFAdd(b.CreateFMul(xc, k(x, 1.44269504088896341)), k(x, 0.5)));
  Value* r = b.CreateFSub(xc, b.CreateFMul(fx, k(x, 0.693359375)));
  r = b.CreateFSub(r, b.CreateFMul(fx, k(x, -2.12194440e-4)));
  Value* p = poly(b, r,
                  {1.9875691500E-4, 1.3981999507E-3, 8.3334519073E-3, 4.1665795894E-2,
                   1.6666665459E-1, 5.0000001201E-1});
  Value* y = b.CreateFAdd(b.CreateFAdd(b.CreateFMul(p, b.CreateFMul(r, r)), r), k(x, 1.0));
  llvm::Type* ity = x->getType()->getWithNewType(b.getInt32Ty());
  Value* n = b.CreateFPToSI(fx, ity);
  Value* bits = b.CreateShl(b.CreateAdd(n, llvm::ConstantInt::get(ity, 127)),
                            llvm::ConstantInt::get(ity, 23));
  return b.CreateFMul(y, b.CreateBitCast(bits, x->getType()));
}

Value* exp_f32(llvm::IRBuilderBase& b, Value* x) {
  Value* res = exp_f32_clamped(b, x);
  res = b.CreateSelect(b.CreateFCmpOGT(x, k(x, kExpHi)),
                       k(x, std::numeric_limits<double>::infinity()), res);
  return b.CreateSelect(b.CreateFCmpOLT(x, k(x, kExpLo)), k(x, 0.0), res);
}

Value* tanh_f32(llvm::IRBuilderBase& b, Value* a) {
  Value* x = clamp(b, a, -7.90531110763549805, 7.90531110763549805);
  Value* x2 = b.CreateFMul(x, x);
  Value* p =
      b.CreateFMul(x, poly(b, x2,
                           {-2.76076847742355e-16, 2.00018790482477e-13, -8.60467152213735e-11,
                            5.12229709037114e-08, 1.48572235717979e-05, 6.37261928875436e-04,
                            4.89352455891786e-03}));
  Value* q = poly(
      b, x2,
      {1.19825839466702e-06, 1.18534705686654e-04, 2.26843463243900e-03, 4.89352518554385e-03});
  Value* tiny = b.CreateFCmpOLT(b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, a), k(a, 0.0004));
  return b.CreateSelect(tiny, a, clamp(b, approx_div(b, p, q), -1.0, 1.0));
}

Value* erf_f32(llvm::IRBuilderBase& b, Value* a) {
  Value* x = clamp(b, a, -4.0, 4.0);
  Value* x2 = b.CreateFMul(x, x);
  Value* p =
      b.CreateFMul(x, poly(b, x2,
                           {-2.72614225801306e-10, 2.77068142495902e-08, -2.10102402082508e-06,
                            -5.69250639462346e-05, -7.34990630326855e-04, -2.95459980854025e-03,
                            -1.60960333262415e-02}));
  Value* q = poly(b, x2,
                  {-1.45660718464996e-05, -2.13374055278905e-04, -1.68282697438203e-03,
                   -7.37332916720468e-03, -1.42647390514189e-02});
  return clamp(b, approx_div(b, p, q), -1.0, 1.0);
}

// Calls a scalar libm function `name` lane by lane.
Value* call_libm(llvm::IRBuilderBase& b, llvm::Module& m, const char* name, Value* x) {
  llvm::Type* st = x->getType()->getScalarType();
  llvm::FunctionCallee f = m.getOrInsertFunction(name, llvm::FunctionType::get(st, {st}, false));
  if (auto* fn = llvm::dyn_cast<llvm::Function>(f.getCallee())) {
    fn->setDoesNotThrow();
    fn->setDoesNotAccessMemory();
  }
  auto* vt = llvm::dyn_cast<llvm::FixedVectorType>(x->getType());
  if (!vt) return b.CreateCall(f, {x});
  Value* out = llvm::PoisonValue::get(vt);
  for (unsigned i = 0; i < vt->getNumElements(); ++i)
    out = b.CreateInsertElement(out, b.CreateCall(f, {b.CreateExtractElement(x, i)}), i);
  return out;
}

Value* exp_any(llvm::IRBuilderBase& b, Value* x) {
  if (x->getType()->getScalarType()->isFloatTy()) return exp_f32(b, x);
  return b.CreateUnaryIntrinsic(llvm::Intrinsic::exp, x);
}

Value* lower_float(llvm::IRBuilderBase& b, llvm::Module& m, tir::Intrinsic op,
                   const std::vector<Value*>& a) {
  using I = tir::Intrinsic;
  bool f32 = a[0]->getType()->getScalarType()->isFloatTy();
  auto unary = [&](llvm::Intrinsic::ID id) { return b.CreateUnaryIntrinsic(id, a[0]); };
  switch (op) {
    case I::exp:
      return exp_any(b, a[0]);
    case I::log:
      return unary(llvm::Intrinsic::log);
    case I::sqrt:
      return unary(llvm::Intrinsic::sqrt);
    case I::fabs:
      return unary(llvm::Intrinsic::fabs);
    case I::floor:
      return unary(llvm::Intrinsic::floor);
    case I::ceil:
      return unary(llvm::Intrinsic::ceil);
    case I::round:
      return unary(llvm::Intrinsic::roundeven);
    case I::sin:
      return unary(llvm::Intrinsic::sin);
    case I::cos:
      return unary(llvm::Intrinsic::cos);
    case I::pow:
      return b.CreateBinaryIntrinsic(llvm::Intrinsic::pow, a[0], a[1]);
    case I::fmod:
      return b.CreateFRem(a[0], a[1]);
    case I::warp_shuffle_down:
      fail_internal("codegen: warp_shuffle_down on a CPU target");
    case I::prefetch:
      fail_internal("codegen: prefetch is lowered with its address, not its value");
    case I::dot_i32:
      fail_internal("codegen: dot_i32 is lowered by KernelLowering::dot_i32 (int_dot.cpp)");
    case I::dot_bf16:
      fail_internal("codegen: dot_bf16 is lowered by KernelLowering::dot_bf16 (bf16_dot.cpp)");
    case I::amx_tile_config:
    case I::amx_tile_zero:
    case I::amx_tile_load:
    case I::amx_tile_store:
    case I::amx_dot_u8i8:
    case I::amx_dot_bf16:
    case I::amx_tile_release:
      fail_internal("codegen: the AMX effects are lowered by KernelLowering::amx (amx_tiles.cpp)");
    case I::tanh:
      return f32 ? tanh_f32(b, a[0]) : call_libm(b, m, "tanh", a[0]);
    case I::erf:
      return f32 ? erf_f32(b, a[0]) : call_libm(b, m, "erf", a[0]);
    case I::sigmoid: {
      if (!f32) {
        Value* e = exp_any(b, b.CreateFNeg(a[0]));
        return b.CreateFDiv(k(e, 1.0), b.CreateFAdd(k(e, 1.0), e));
      }
      // exp(-x) clamped: 1 + e stays finite (below 2^128), so its reciprocal may be estimated;
      // the clamp changes sigmoid by less than 2^-127 where it applies.
      Value* e = exp_f32_clamped(b, b.CreateFNeg(a[0]));
      Value* s = approx_div(b, k(e, 1.0), b.CreateFAdd(k(e, 1.0), e));
      return b.CreateSelect(b.CreateFCmpOGT(s, k(s, 1.0)), k(s, 1.0), s);
    }
  }
  fail_internal("codegen: unknown intrinsic {}", int(op));
}

}  // namespace

Value* lower_intrinsic(llvm::IRBuilderBase& b, llvm::Module& m, tir::Intrinsic op,
                       const std::vector<Value*>& args) {
  INGOT_ICHECK(!args.empty() && args[0]->getType()->isFPOrFPVectorTy(),
               "codegen: {} needs float arguments", tir::intrinsic_name(op));
  llvm::Type* t = args[0]->getType();
  if (!t->getScalarType()->isHalfTy()) return lower_float(b, m, op, args);
  llvm::Type* wide = t->getWithNewType(b.getFloatTy());
  std::vector<Value*> ext;
  for (Value* a : args) ext.push_back(b.CreateFPExt(a, wide));
  return b.CreateFPTrunc(lower_float(b, m, op, ext), t);
}

}  // namespace ingot::codegen
