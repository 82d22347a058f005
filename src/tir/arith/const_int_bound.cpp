// Interval analysis: the inclusive [min, max] of an integer expression given variable ranges.
// A result that leaves its dtype's range (an overflow could wrap) widens to the full range.
#include <algorithm>

#include "tir/arith/analyzer.h"
#include "tir/functor.h"

namespace ingot::tir::arith {

ConstIntBound dtype_bound(DataType d) {
  if (d.is_bool()) return {0, 1};
  if (!d.is_integer()) return {};
  if (d.bits >= 64) return d.is_uint() ? ConstIntBound{0, ConstIntBound::kPosInf} : ConstIntBound{};
  if (d.is_uint()) return {0, (int64_t(1) << d.bits) - 1};
  return {-(int64_t(1) << (d.bits - 1)), (int64_t(1) << (d.bits - 1)) - 1};
}

namespace {

using I128 = __int128;
constexpr int64_t kNegInf = ConstIntBound::kNegInf;
constexpr int64_t kPosInf = ConstIntBound::kPosInf;

bool is_inf(int64_t v) {
  return v == kNegInf || v == kPosInf;
}

// Interval endpoints as 128-bit values where infinities stay far outside any int64 value.
I128 wide(int64_t v) {
  if (v == kNegInf) return -(I128(1) << 100);
  if (v == kPosInf) return I128(1) << 100;
  return v;
}
int64_t narrow(I128 v) {
  if (v <= I128(kNegInf)) return kNegInf;
  if (v >= I128(kPosInf)) return kPosInf;
  return int64_t(v);
}
I128 floor_div(I128 a, I128 b) {
  I128 q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

class BoundEvaluator : public ExprFunctor<ConstIntBound(const Expr&)> {
 public:
  explicit BoundEvaluator(const Analyzer& a) : analyzer_(a) {}

  ConstIntBound visit_expr(const Expr& e) override {
    DataType d = e.dtype();
    if (!d.element_of().is_integer() && !d.is_bool()) return {};
    ConstIntBound r = ExprFunctor::visit_expr(e);
    ConstIntBound full = dtype_bound(d.element_of());
    // Out of the dtype's range: the value may have wrapped, so nothing is known.
    if (r.min_value < full.min_value || r.max_value > full.max_value) return full;
    return r;
  }

 protected:
  ConstIntBound visit_expr_default(const Expr& e) override {
    return dtype_bound(e.dtype().element_of());
  }

 public:
  ConstIntBound visit_IntImm(const IntImm* op, const Expr&) override {
    if (op->dtype.is_uint() && op->dtype.bits == 64 && op->value < 0) return dtype_bound(op->dtype);
    return {op->value, op->value};
  }
  ConstIntBound visit_Var(const VarNode* op, const Expr& e) override {
    if (auto it = lets_.find(op); it != lets_.end()) return it->second;
    const ConstIntBound* b = analyzer_.var_bound(op);
    return b ? *b : dtype_bound(op->dtype);
  }
  ConstIntBound visit_Add(const Add* op, const Expr&) override {
    ConstIntBound a = visit_expr(op->a), b = visit_expr(op->b);
    return make(wide(a.min_value) + wide(b.min_value), wide(a.max_value) + wide(b.max_value));
  }
  ConstIntBound visit_Sub(const Sub* op, const Expr&) override {
    ConstIntBound a = visit_expr(op->a), b = visit_expr(op->b);
    return make(wide(a.min_value) - wide(b.max_value), wide(a.max_value) - wide(b.min_value));
  }
  ConstIntBound visit_Mul(const Mul* op, const Expr&) override {
    ConstIntBound a = visit_expr(op->a), b = visit_expr(op->b);
    return corners(a, b, [](I128 x, I128 y) { return clamp_mul(x, y); });
  }
  ConstIntBound visit_FloorDiv(const FloorDiv* op, const Expr& e) override {
    ConstIntBound a = visit_expr(op->a), b = visit_expr(op->b);
    if (b.min_value <= 0 && b.max_value >= 0) return dtype_bound(e.dtype());
    return corners(a, b, [](I128 x, I128 y) { return floor_div(x, y); });
  }
  ConstIntBound visit_Div(const Div* op, const Expr& e) override {
    ConstIntBound a = visit_expr(op->a), b = visit_expr(op->b);
    if (b.min_value <= 0 && b.max_value >= 0) return dtype_bound(e.dtype());
    return corners(a, b, [](I128 x, I128 y) { return x / y; });
  }
  ConstIntBound visit_FloorMod(const FloorMod* op, const Expr& e) override {
    ConstIntBound a = visit_expr(op->a), b = visit_expr(op->b);
    if (b.min_value > 0) {
      if (b.is_point() && !is_inf(a.min_value) && !is_inf(a.max_value) &&
          floor_div(a.min_value, b.min_value) == floor_div(a.max_value, b.min_value)) {
        int64_t base = int64_t(floor_div(a.min_value, b.min_value) * b.min_value);
        return {a.min_value - base, a.max_value - base};
      }
      int64_t hi = b.max_value - 1;
      if (a.min_value >= 0) hi = std::min(hi, a.max_value);
      return {0, hi};
    }
    if (b.max_value < 0) return {b.min_value + 1, 0};
    return dtype_bound(e.dtype());
  }
  ConstIntBound visit_Min(const Min* op, const Expr&) override {
    ConstIntBound a = visit_expr(op->a), b = visit_expr(op->b);
    return {std::min(a.min_value, b.min_value), std::min(a.max_value, b.max_value)};
  }
  ConstIntBound visit_Max(const Max* op, const Expr&) override {
    ConstIntBound a = visit_expr(op->a), b = visit_expr(op->b);
    return {std::max(a.min_value, b.min_value), std::max(a.max_value, b.max_value)};
  }
  ConstIntBound visit_Select(const Select* op, const Expr&) override {
    ConstIntBound c = visit_expr(op->condition);
    if (c.min_value == 1) return visit_expr(op->true_value);
    if (c.max_value == 0) return visit_expr(op->false_value);
    ConstIntBound a = visit_expr(op->true_value), b = visit_expr(op->false_value);
    return {std::min(a.min_value, b.min_value), std::max(a.max_value, b.max_value)};
  }
  ConstIntBound visit_Cast(const Cast* op, const Expr& e) override {
    if (!op->value.dtype().element_of().is_integer() && !op->value.dtype().is_bool())
      return dtype_bound(e.dtype().element_of());
    ConstIntBound v = visit_expr(op->value);
    ConstIntBound to = dtype_bound(e.dtype().element_of());
    if (op->dtype.is_bool()) return {0, 1};
    if (v.min_value >= to.min_value && v.max_value <= to.max_value) return v;
    return to;
  }
  ConstIntBound visit_Ramp(const Ramp* op, const Expr&) override {
    ConstIntBound base = visit_expr(op->base), stride = visit_expr(op->stride);
    ConstIntBound span =
        corners(stride, {0, op->lanes - 1}, [](I128 x, I128 y) { return clamp_mul(x, y); });
    return make(wide(base.min_value) + wide(span.min_value),
                wide(base.max_value) + wide(span.max_value));
  }
  ConstIntBound visit_Broadcast(const Broadcast* op, const Expr&) override {
    return visit_expr(op->value);
  }
  ConstIntBound visit_Shuffle(const Shuffle* op, const Expr&) override {
    return visit_expr(op->vector);
  }
  ConstIntBound visit_Let(const Let* op, const Expr&) override {
    lets_[op->var.node()] = visit_expr(op->value);
    return visit_expr(op->body);
  }

 private:
  static I128 clamp_mul(I128 x, I128 y) {
    const I128 lim = I128(1) << 100;
    if (x == 0 || y == 0) return 0;
    bool neg = (x < 0) != (y < 0);
    I128 ax = x < 0 ? -x : x, ay = y < 0 ? -y : y;
    if (ax >= lim || ay >= lim || ax > lim / ay) return neg ? -lim : lim;
    return x * y;
  }
  template <typename F>
  static ConstIntBound corners(ConstIntBound a, ConstIntBound b, F f) {
    I128 v[4] = {f(wide(a.min_value), wide(b.min_value)), f(wide(a.min_value), wide(b.max_value)),
                 f(wide(a.max_value), wide(b.min_value)), f(wide(a.max_value), wide(b.max_value))};
    return make(*std::min_element(v, v + 4), *std::max_element(v, v + 4));
  }
  static ConstIntBound make(I128 lo, I128 hi) { return {narrow(lo), narrow(hi)}; }

  const Analyzer& analyzer_;
  std::unordered_map<const VarNode*, ConstIntBound> lets_;
};

}  // namespace

ConstIntBound Analyzer::bound_of(const Expr& e) const {
  return BoundEvaluator(*this).visit_expr(e);
}

void Analyzer::bind(const Var& v, ConstIntBound bound) {
  bounds_[v.node()] = bound;
}

void Analyzer::bind(const Var& v, const Expr& min, const Expr& extent) {
  ConstIntBound lo = bound_of(min), ext = bound_of(extent);
  I128 hi = wide(lo.max_value) + wide(ext.max_value) - 1;
  bind(v, ConstIntBound{lo.min_value, narrow(is_inf(ext.max_value) ? wide(kPosInf) : hi)});
}

const ConstIntBound* Analyzer::var_bound(const VarNode* v) const {
  auto it = bounds_.find(v);
  return it == bounds_.end() ? nullptr : &it->second;
}

}  // namespace ingot::tir::arith
