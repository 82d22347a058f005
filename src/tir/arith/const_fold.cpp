// Constant folding of every expression kind whose operands are constants.
#include "tir/arith/const_fold.h"

#include <cmath>

#include "tir/functor.h"
#include "tir/op.h"

namespace ingot::tir::arith {

int64_t wrap_int(DataType d, __int128 v) {
  if (d.is_bool()) return v != 0;
  if (d.bits >= 64) return int64_t(uint64_t(v));
  uint64_t mask = (uint64_t(1) << d.bits) - 1;
  uint64_t low = uint64_t(v) & mask;
  if (d.is_uint()) return int64_t(low);
  uint64_t sign = uint64_t(1) << (d.bits - 1);
  return int64_t((low ^ sign) - sign);
}

namespace {

// The mathematical value of an IntImm (uint64 values are stored as their bit pattern).
__int128 int_value(const IntImm* imm) {
  if (imm->dtype.is_uint() && imm->dtype.bits == 64) return __int128(uint64_t(imm->value));
  return imm->value;
}

// Rounds to the float dtype; nullopt-like false for dtypes we do not fold (float16).
bool round_float(DataType d, double v, double* out) {
  if (d.bits == 32) {
    *out = double(float(v));
    return true;
  }
  if (d.bits == 64) {
    *out = v;
    return true;
  }
  return false;
}

__int128 floor_div(__int128 a, __int128 b) {
  __int128 q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
__int128 floor_mod(__int128 a, __int128 b) {
  return a - floor_div(a, b) * b;
}

template <NodeTag Tag>
Expr fold_int(DataType d, __int128 a, __int128 b) {
  auto out = [&](__int128 v) { return IntImm::make(d, wrap_int(d, v)); };
  switch (Tag) {
    case NodeTag::Add:
      return out(a + b);
    case NodeTag::Sub:
      return out(a - b);
    case NodeTag::Mul: {
      // Product of two values below 2^64 in magnitude fits in 128 bits; wrap takes the low bits.
      unsigned __int128 p = (unsigned __int128)a * (unsigned __int128)b;
      return out(__int128(p));
    }
    case NodeTag::Div:
      return b == 0 ? Expr() : out(a / b);
    case NodeTag::FloorDiv:
      return b == 0 ? Expr() : out(floor_div(a, b));
    case NodeTag::FloorMod:
      return b == 0 ? Expr() : out(floor_mod(a, b));
    case NodeTag::Min:
      return out(a < b ? a : b);
    case NodeTag::Max:
      return out(a > b ? a : b);
    case NodeTag::EQ:
      return out(a == b);
    case NodeTag::NE:
      return out(a != b);
    case NodeTag::LT:
      return out(a < b);
    case NodeTag::LE:
      return out(a <= b);
    case NodeTag::GT:
      return out(a > b);
    case NodeTag::GE:
      return out(a >= b);
    case NodeTag::And:
      return out(a && b);
    case NodeTag::Or:
      return out(a || b);
    default:
      return Expr();
  }
}

template <NodeTag Tag>
Expr fold_float(DataType d, double a, double b) {
  auto out = [&](double v) -> Expr {
    double r;
    return round_float(d, v, &r) ? FloatImm::make(d, r) : Expr();
  };
  auto cmp = [&](bool v) { return IntImm::make(d, v); };
  switch (Tag) {
    case NodeTag::Add:
      return out(a + b);
    case NodeTag::Sub:
      return out(a - b);
    case NodeTag::Mul:
      return out(a * b);
    case NodeTag::Div:
      return out(a / b);
    case NodeTag::Min:
      return std::isnan(a) || std::isnan(b) ? Expr() : out(a < b ? a : b);
    case NodeTag::Max:
      return std::isnan(a) || std::isnan(b) ? Expr() : out(a > b ? a : b);
    case NodeTag::EQ:
      return cmp(a == b);
    case NodeTag::NE:
      return cmp(a != b);
    case NodeTag::LT:
      return cmp(a < b);
    case NodeTag::LE:
      return cmp(a <= b);
    case NodeTag::GT:
      return cmp(a > b);
    case NodeTag::GE:
      return cmp(a >= b);
    default:
      return Expr();
  }
}

double call_value(Intrinsic op, double x, double y) {
  switch (op) {
    case Intrinsic::exp:
      return std::exp(x);
    case Intrinsic::log:
      return std::log(x);
    case Intrinsic::sqrt:
      return std::sqrt(x);
    case Intrinsic::tanh:
      return std::tanh(x);
    case Intrinsic::erf:
      return std::erf(x);
    case Intrinsic::sigmoid:
      return 1.0 / (1.0 + std::exp(-x));
    case Intrinsic::fabs:
      return std::fabs(x);
    case Intrinsic::floor:
      return std::floor(x);
    case Intrinsic::ceil:
      return std::ceil(x);
    case Intrinsic::round:
      return std::round(x);
    case Intrinsic::sin:
      return std::sin(x);
    case Intrinsic::cos:
      return std::cos(x);
    case Intrinsic::pow:
      return std::pow(x, y);
    case Intrinsic::fmod:
      return std::fmod(x, y);
    case Intrinsic::warp_shuffle_down:  // another lane's value: never folded
    case Intrinsic::prefetch:           // an effect, not a value
    case Intrinsic::dot_i32:            // vectors of integers
    case Intrinsic::dot_bf16:           // vectors
      return NAN;
    default:  // the AMX effects
      return NAN;
  }
  return NAN;
}

class Folder : public ExprFunctor<Expr(const Expr&)> {
 protected:
  Expr visit_expr_default(const Expr&) override { return Expr(); }

 public:
#define INGOT_X(N, sym)                                                    \
  Expr visit_##N(const N* op, const Expr&) override {                      \
    if (auto* x = op->a.as<IntImm>(), *y = op->b.as<IntImm>(); x && y)     \
      return fold_int<NodeTag::N>(op->dtype, int_value(x), int_value(y));  \
    if (auto* x = op->a.as<FloatImm>(), *y = op->b.as<FloatImm>(); x && y) \
      return fold_float<NodeTag::N>(op->dtype, x->value, y->value);        \
    return Expr();                                                         \
  }
  INGOT_TIR_BINARY_NODES(INGOT_X)
#undef INGOT_X

  Expr visit_Not(const Not* op, const Expr&) override {
    auto* x = op->a.as<IntImm>();
    return x ? IntImm::make(op->dtype, x->value == 0) : Expr();
  }
  Expr visit_Select(const Select* op, const Expr&) override {
    auto* c = op->condition.as<IntImm>();
    if (!c) return Expr();
    return c->value ? op->true_value : op->false_value;
  }
  Expr visit_Cast(const Cast* op, const Expr&) override {
    DataType to = op->dtype;
    double r;
    if (auto* x = op->value.as<IntImm>()) {
      if (to.is_float())
        return round_float(to, double(int_value(x)), &r) ? FloatImm::make(to, r) : Expr();
      return IntImm::make(to, wrap_int(to, int_value(x)));
    }
    if (auto* x = op->value.as<FloatImm>()) {
      if (to.is_float()) return round_float(to, x->value, &r) ? FloatImm::make(to, r) : Expr();
      if (to.is_bool()) return IntImm::make(to, x->value != 0);
      // float -> int is only defined when the truncated value fits the target.
      double t = std::trunc(x->value);
      ConstIntBoundLike range = range_of(to);
      if (!(t >= range.lo && t < range.hi)) return Expr();
      return IntImm::make(to, wrap_int(to, __int128(t)));
    }
    return Expr();
  }
  Expr visit_Call(const Call* op, const Expr&) override {
    if (op->op == Intrinsic::warp_shuffle_down || op->op == Intrinsic::prefetch ||
        op->op == Intrinsic::dot_i32 || op->op == Intrinsic::dot_bf16 || is_amx_intrinsic(op->op))
      return Expr();
    std::vector<double> v;
    for (const Expr& a : op->args) {
      auto* f = a.as<FloatImm>();
      if (!f) return Expr();
      v.push_back(f->value);
    }
    double r;
    double y = v.size() > 1 ? v[1] : 0.0;
    return round_float(op->dtype, call_value(op->op, v[0], y), &r) ? FloatImm::make(op->dtype, r)
                                                                   : Expr();
  }
  Expr visit_Let(const Let* op, const Expr&) override {
    return op->body.as<IntImm>() || op->body.as<FloatImm>() ? op->body : Expr();
  }

 private:
  struct ConstIntBoundLike {
    double lo, hi;  // [lo, hi)
  };
  static ConstIntBoundLike range_of(DataType d) {
    if (d.is_uint()) return {0, std::ldexp(1.0, d.bits)};
    return {-std::ldexp(1.0, d.bits - 1), std::ldexp(1.0, d.bits - 1)};
  }
};

}  // namespace

Expr const_fold(const Expr& e) {
  if (!e.dtype().is_scalar()) return e;
  Expr r = Folder().visit_expr(e);
  return r.defined() ? r : e;
}

}  // namespace ingot::tir::arith
