// Compute rule of the variadic elementwise ops (Max, Min, Sum, Mean), Mod, BitShift, Sign,
// rounding and the trigonometric / hyperbolic functions, and the Bitwise ops (the loop IR has no
// bit operations: And walks the bits, Or / Xor / Not follow arithmetically mod 2^bits). Functions
// without an intrinsic are composed: atan by Cephes' range reduction and polynomial
// (float32-accurate), the inverse trig functions from atan, and the hyperbolic ones from
// exp/log/sqrt evaluated in float64.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "lower/compute/common.h"
#include "lower/compute/compute.h"
#include "support/error.h"

namespace ingot::lower {

using namespace tir;
using ops::OpKind;

namespace {

// atan(x): reduce |x| to [0, tan(pi/8)] (Cephes atanf), odd polynomial, restore the sign.
Expr atan_expr(Expr x) {
  Expr ax = fabs(x);
  Expr big = ax > 2.414213562373095;
  Expr mid = ax > 0.4142135623730950;
  Expr t = select(big, -1.0 / ax, select(mid, (ax - 1.0) / (ax + 1.0), ax));
  Expr base = select(big, make_const(x.dtype(), M_PI_2),
                     select(mid, make_const(x.dtype(), M_PI_4), make_const(x.dtype(), 0)));
  Expr z = t * t;
  Expr p =
      (((z * 8.05374449538e-2 - 1.38776856032e-1) * z + 1.99777106478e-1) * z - 3.33329491539e-1) *
          z * t +
      t;
  Expr r = base + p;
  return select(x < 0.0, -r, r);
}

// f evaluated in float64 and rounded back to x's dtype.
template <typename F>
Expr in_f64(Expr x, F f) {
  DataType d = x.dtype();
  return cast(d, f(cast(DataType::f64(d.lanes), x)));
}

Expr sign(Expr x) {
  DataType d = x.dtype();
  Expr one = make_const(d, 1), zero = make_const(d, 0);
  if (d.is_uint()) return select(x > zero, one, zero);
  return select(x > zero, one, select(x < zero, make_const(d, -1), zero));
}

Expr unary(const graph::Node& node, Expr x) {
  switch (node.op) {
    case OpKind::Sign:
      return sign(x);
    case OpKind::Ceil:
      return call(Intrinsic::ceil, {x});
    case OpKind::Floor:
      return call(Intrinsic::floor, {x});
    case OpKind::Round:  // ties to even
      return call(Intrinsic::round, {x});
    case OpKind::Sin:
      return call(Intrinsic::sin, {x});
    case OpKind::Cos:
      return call(Intrinsic::cos, {x});
    case OpKind::Tan:
      return call(Intrinsic::sin, {x}) / call(Intrinsic::cos, {x});
    case OpKind::Atan:
      return atan_expr(x);
    case OpKind::Asin:
      return atan_expr(x / sqrt((1.0 - x) * (1.0 + x)));
    case OpKind::Acos:
      return atan_expr(sqrt((1.0 - x) / (1.0 + x))) * 2.0;
    case OpKind::Sinh:
      return in_f64(x, [](Expr v) { return (exp(v) - exp(-v)) * 0.5; });
    case OpKind::Cosh:
      return in_f64(x, [](Expr v) { return (exp(v) + exp(-v)) * 0.5; });
    case OpKind::Asinh:
      return in_f64(x, [](Expr v) {
        Expr s = log(fabs(v) + sqrt(v * v + 1.0));
        return select(v < 0.0, -s, s);
      });
    case OpKind::Acosh:
      return in_f64(x, [](Expr v) { return log(v + sqrt(v * v - 1.0)); });
    case OpKind::Atanh:
      return in_f64(x, [](Expr v) { return log((1.0 + v) / (1.0 - v)) * 0.5; });
    default:
      fail_internal("{} is not an elementwise unary op", node_label(node));
  }
}

// ONNX Mod: fmod=0 takes the divisor's sign (integers), fmod=1 the dividend's (C fmod).
Expr mod(const graph::Node& node, Expr a, Expr b) {
  bool c_fmod = node.attrs.get_int("fmod", 0) != 0;
  if (a.dtype().is_float()) {
    // fmod=0 on floats follows numpy.mod: the C remainder moved into the divisor's sign.
    Expr r = call(Intrinsic::fmod, {a, b});
    if (c_fmod) return r;
    Expr zero = make_const(a.dtype(), 0);
    return select((r != zero) && ((r < zero) != (b < zero)), r + b, r);
  }
  return c_fmod ? a - trunc_div(a, b) * b : floormod(a, b);
}

// Shifts as multiplication / floor division by 2^y (arithmetic right shift for signed types).
// Out-of-range amounts (negative or at least the width) give 0, or the sign fill (-1 for negative
// x) when shifting a signed value right; so does a signed right shift by width - 1, whose 2^y
// does not fit the type.
Expr bit_shift(const graph::Node& node, Expr x, Expr y) {
  DataType d = x.dtype();
  bool left = node.attrs.get_string("direction", "") == "LEFT";
  Expr zero = make_const(d, 0);
  int limit = left || d.is_uint() ? d.bits : d.bits - 1;
  Expr out_of_range = y >= make_const(d, limit);
  if (!d.is_uint()) out_of_range = out_of_range || y < zero;
  Expr amount = select(out_of_range, zero, y);
  Expr p = call(Intrinsic::pow, {make_const(DataType::f64(), 2), cast(DataType::f64(), amount)});
  Expr factor = cast(d, cast(DataType::i64(), p));
  if (left) return select(out_of_range, zero, x * factor);
  Expr fill = d.is_uint() ? zero : select(x < zero, make_const(d, -1), zero);
  return select(out_of_range, fill, floordiv(x, factor));
}

// y = a op b for BitwiseAnd/Or/Xor in int64 (two's complement; narrower types sign- or
// zero-extend and wrap back): over the low n = min(bits, 63) bits, a's and b's bit (x mod 2,
// then x halves with floor) combine times 2^bit; what is left of a and b is then 0 or -1 (their
// sign extension), whose combination weighs -2^n.
Stmt bitwise_binary(const graph::Node& node, const Buffer& a, const Buffer& b, const Buffer& y) {
  DataType d = y->dtype, l = DataType::i64();
  int n = std::min<int>(d.bits, 63);
  Expr two = i64(2), zero = i64(0);
  OpKind op = node.op;
  return loop_nest(const_shape(y), "i", [&](const Index& idx) {
    Accumulator x("x", l), z("z", l), r("r", l);
    Stmt bits = serial_loop("bit", i64(0), n, [&](Expr bit) {
      Expr bx = floormod(x.get(), two), bz = floormod(z.get(), two);
      Expr v = op == OpKind::BitwiseAnd  ? bx * bz
               : op == OpKind::BitwiseOr ? bx + bz - bx * bz
                                         : (bx - bz) * (bx - bz);
      Expr w = cast(
          l, call(Intrinsic::pow, {make_const(DataType::f64(), 2), cast(DataType::f64(), bit)}));
      return SeqStmt::make(
          {r.set(r.get() + v * w), x.set(floordiv(x.get(), two)), z.set(floordiv(z.get(), two))});
    });
    Expr sx = x.get() < zero, sz = z.get() < zero;
    Expr top = op == OpKind::BitwiseAnd  ? (sx && sz)
               : op == OpKind::BitwiseOr ? (sx || sz)
                                         : (sx != sz);
    Expr res = r.get() + select(top, make_const(l, n == 63 ? INT64_MIN : -(int64_t(1) << n)), zero);
    Stmt body = SeqStmt::make({x.set(cast(l, a.load(broadcast_index(a, idx)))),
                               z.set(cast(l, b.load(broadcast_index(b, idx)))), r.set(zero), bits,
                               BufferStore::make(y, cast(d, res), idx)});
    return x.scope(z.scope(r.scope(body)));
  });
}

Expr apply_op(const graph::Node& node, const std::vector<Expr>& v) {
  switch (node.op) {
    case OpKind::Max:
    case OpKind::Min:
    case OpKind::Sum:
    case OpKind::Mean: {
      Expr r = v[0];
      for (size_t i = 1; i < v.size(); ++i)
        r = node.op == OpKind::Max   ? max(r, v[i])
            : node.op == OpKind::Min ? min(r, v[i])
                                     : r + v[i];
      if (node.op != OpKind::Mean) return r;
      Expr n = make_const(r.dtype(), double(v.size()));
      return r.dtype().is_float() ? r / n : trunc_div(r, n);
    }
    case OpKind::Mod:
      return mod(node, v[0], v[1]);
    case OpKind::BitShift:
      return bit_shift(node, v[0], v[1]);
    case OpKind::BitwiseNot:  // ~x = -1 - x, in int64 and wrapped back
      return cast(v[0].dtype(), i64(-1) - cast(DataType::i64(), v[0]));
    default:
      return unary(node, v[0]);
  }
}

DTypeClass accepted(OpKind op) {
  switch (op) {
    case OpKind::Max:
    case OpKind::Min:
    case OpKind::Sum:
    case OpKind::Mean:
    case OpKind::Mod:
    case OpKind::BitShift:
    case OpKind::BitwiseAnd:
    case OpKind::BitwiseOr:
    case OpKind::BitwiseXor:
    case OpKind::BitwiseNot:
    case OpKind::Sign:
      return DTypeClass::kNumeric;
    default:
      return DTypeClass::kFloat;
  }
}

}  // namespace

Stmt compute_elementwise_extra(const graph::Node& node, const std::vector<Buffer>& inputs,
                               const std::vector<Buffer>& outputs) {
  const Buffer& y = outputs.at(0);
  for (const Buffer& b : inputs) {
    check_dtype(node, b, accepted(node.op));
    if (b->dtype != inputs[0]->dtype)
      fail_user("{}: operand dtypes differ ({} vs {})", node_label(node), inputs[0]->dtype.str(),
                b->dtype.str());
  }
  if (node.op == OpKind::BitwiseAnd || node.op == OpKind::BitwiseOr ||
      node.op == OpKind::BitwiseXor)
    return bitwise_binary(node, inputs.at(0), inputs.at(1), y);
  return loop_nest(y->shape, "i", [&](const Index& idx) {
    std::vector<Expr> v;
    for (const Buffer& b : inputs) v.push_back(b.load(broadcast_index(b, idx)));
    return BufferStore::make(y, apply_op(node, v), idx);
  });
}

}  // namespace ingot::lower
