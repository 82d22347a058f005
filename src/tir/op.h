// Expression-building helpers for compute rules and passes: constants, arithmetic operators
// with int/float literal promotion, and named intrinsics. Thin wrappers over make().
#pragma once

#include <type_traits>

#include "tir/buffer.h"
#include "tir/expr.h"

namespace ingot::tir {

Expr make_const(DataType dtype, double value);  // IntImm or FloatImm (or Broadcast for vectors)
inline Expr i64(int64_t v) {
  return IntImm::make(DataType::i64(), v);
}
inline Expr f32(double v) {
  return FloatImm::make(DataType::f32(), v);
}

// Integer constant value of e, if it is an IntImm.
bool is_const_int(const Expr& e, int64_t* value = nullptr);

Expr operator+(Expr a, Expr b);
Expr operator-(Expr a, Expr b);
Expr operator*(Expr a, Expr b);
Expr operator/(Expr a, Expr b);  // Div: float division (integers: use floordiv)
Expr operator-(Expr a);
Expr operator<(Expr a, Expr b);
Expr operator<=(Expr a, Expr b);
Expr operator>(Expr a, Expr b);
Expr operator>=(Expr a, Expr b);
Expr operator==(Expr a, Expr b);
Expr operator!=(Expr a, Expr b);
Expr operator&&(Expr a, Expr b);
Expr operator||(Expr a, Expr b);
Expr operator!(Expr a);
// Literal promotion: the literal takes the other operand's dtype.
template <typename T>
concept Literal = std::is_arithmetic_v<T>;
#define INGOT_TIR_LIT_OP(op)                      \
  template <Literal T>                            \
  Expr operator op(Expr a, T b) {                 \
    return a op make_const(a.dtype(), double(b)); \
  }                                               \
  template <Literal T>                            \
  Expr operator op(T a, Expr b) {                 \
    return make_const(b.dtype(), double(a)) op b; \
  }
INGOT_TIR_LIT_OP(+)
INGOT_TIR_LIT_OP(-)
INGOT_TIR_LIT_OP(*)
INGOT_TIR_LIT_OP(/)
INGOT_TIR_LIT_OP(<)
INGOT_TIR_LIT_OP(<=)
INGOT_TIR_LIT_OP(>)
INGOT_TIR_LIT_OP(>=)
INGOT_TIR_LIT_OP(==)
INGOT_TIR_LIT_OP(!=)
#undef INGOT_TIR_LIT_OP

Expr floordiv(Expr a, Expr b);
Expr floormod(Expr a, Expr b);
Expr min(Expr a, Expr b);
Expr max(Expr a, Expr b);
Expr select(Expr cond, Expr t, Expr f);
Expr cast(DataType dtype, Expr value);  // no-op when dtype already matches
Expr call(Intrinsic op, std::vector<Expr> args);
Expr exp(Expr x);
Expr log(Expr x);
Expr sqrt(Expr x);
Expr tanh(Expr x);
Expr erf(Expr x);
Expr sigmoid(Expr x);
Expr fabs(Expr x);
Expr pow(Expr x, Expr y);
// Smallest / largest finite value of a dtype (for max/min reductions and pooling).
Expr min_value(DataType dtype);
Expr max_value(DataType dtype);

}  // namespace ingot::tir
