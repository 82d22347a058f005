// Expression-building helpers (operators, constants, intrinsics) over the make() factories.
#include "tir/op.h"

#include <cmath>
#include <limits>

#include "support/error.h"

namespace ingot::tir {

Expr make_const(DataType dtype, double value) {
  DataType s = dtype.element_of();
  Expr c = s.is_float() ? FloatImm::make(s, value) : IntImm::make(s, int64_t(value));
  return dtype.lanes > 1 ? Broadcast::make(c, dtype.lanes) : c;
}

bool is_const_int(const Expr& e, int64_t* value) {
  if (auto* imm = e.as<IntImm>()) {
    if (value) *value = imm->value;
    return true;
  }
  return false;
}

Expr operator+(Expr a, Expr b) {
  return Add::make(std::move(a), std::move(b));
}
Expr operator-(Expr a, Expr b) {
  return Sub::make(std::move(a), std::move(b));
}
Expr operator*(Expr a, Expr b) {
  return Mul::make(std::move(a), std::move(b));
}
Expr operator/(Expr a, Expr b) {
  return Div::make(std::move(a), std::move(b));
}
Expr operator-(Expr a) {
  return make_const(a.dtype(), 0) - a;
}
Expr operator<(Expr a, Expr b) {
  return LT::make(std::move(a), std::move(b));
}
Expr operator<=(Expr a, Expr b) {
  return LE::make(std::move(a), std::move(b));
}
Expr operator>(Expr a, Expr b) {
  return GT::make(std::move(a), std::move(b));
}
Expr operator>=(Expr a, Expr b) {
  return GE::make(std::move(a), std::move(b));
}
Expr operator==(Expr a, Expr b) {
  return EQ::make(std::move(a), std::move(b));
}
Expr operator!=(Expr a, Expr b) {
  return NE::make(std::move(a), std::move(b));
}
Expr operator&&(Expr a, Expr b) {
  return And::make(std::move(a), std::move(b));
}
Expr operator||(Expr a, Expr b) {
  return Or::make(std::move(a), std::move(b));
}
Expr operator!(Expr a) {
  return Not::make(std::move(a));
}

Expr floordiv(Expr a, Expr b) {
  return FloorDiv::make(std::move(a), std::move(b));
}
Expr floormod(Expr a, Expr b) {
  return FloorMod::make(std::move(a), std::move(b));
}
Expr min(Expr a, Expr b) {
  return Min::make(std::move(a), std::move(b));
}
Expr max(Expr a, Expr b) {
  return Max::make(std::move(a), std::move(b));
}
Expr select(Expr c, Expr t, Expr f) {
  return Select::make(std::move(c), std::move(t), std::move(f));
}
Expr cast(DataType dtype, Expr value) {
  return value.dtype() == dtype ? value : Cast::make(dtype, std::move(value));
}
Expr call(Intrinsic op, std::vector<Expr> args) {
  return Call::make(op, std::move(args));
}
Expr exp(Expr x) {
  return call(Intrinsic::exp, {std::move(x)});
}
Expr log(Expr x) {
  return call(Intrinsic::log, {std::move(x)});
}
Expr sqrt(Expr x) {
  return call(Intrinsic::sqrt, {std::move(x)});
}
Expr tanh(Expr x) {
  return call(Intrinsic::tanh, {std::move(x)});
}
Expr erf(Expr x) {
  return call(Intrinsic::erf, {std::move(x)});
}
Expr sigmoid(Expr x) {
  return call(Intrinsic::sigmoid, {std::move(x)});
}
Expr fabs(Expr x) {
  return call(Intrinsic::fabs, {std::move(x)});
}
Expr pow(Expr x, Expr y) {
  return call(Intrinsic::pow, {std::move(x), std::move(y)});
}

Expr min_value(DataType dtype) {
  DataType s = dtype.element_of();
  if (s.is_float()) return make_const(dtype, -std::numeric_limits<double>::infinity());
  if (s.is_bool()) return make_const(dtype, 0);
  if (s.is_uint()) return make_const(dtype, 0);
  if (s.bits == 64) return IntImm::make(s, std::numeric_limits<int64_t>::min());
  return make_const(dtype, -std::ldexp(1.0, s.bits - 1));
}

Expr max_value(DataType dtype) {
  DataType s = dtype.element_of();
  if (s.is_float()) return make_const(dtype, std::numeric_limits<double>::infinity());
  if (s.is_bool()) return make_const(dtype, 1);
  if (s.bits == 64) return IntImm::make(s, s.is_uint() ? -1 : std::numeric_limits<int64_t>::max());
  return make_const(dtype, std::ldexp(1.0, s.is_uint() ? s.bits : s.bits - 1) - 1);
}

}  // namespace ingot::tir
