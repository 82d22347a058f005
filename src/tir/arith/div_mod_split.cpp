// Linear-form splitting of floordiv / floormod (see div_mod_split.h).
#include "tir/arith/div_mod_split.h"

#include "tir/arith/linear_form.h"
#include "tir/op.h"

namespace ingot::tir::arith {

namespace {

int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

}  // namespace

std::optional<Expr> split_div_mod(const Expr& e, const Analyzer& analyzer) {
  Expr num, den;
  bool is_div = false;
  if (auto* d = e.as<FloorDiv>()) {
    num = d->a, den = d->b, is_div = true;
  } else if (auto* m = e.as<FloorMod>()) {
    num = m->a, den = m->b;
  } else {
    return std::nullopt;
  }
  DataType dt = e.dtype();
  auto* c_imm = den.as<IntImm>();
  if (!dt.is_scalar() || !dt.is_integer() || c_imm == nullptr || c_imm->value <= 0)
    return std::nullopt;
  int64_t c = c_imm->value;
  LinearForm f = linear_form(num);
  LinearForm exact, rest;  // num = exact * c + rest
  for (const auto& [atom, k] : f.terms) {
    if (k % c == 0) {
      exact.terms.push_back({atom, k / c});
    } else {
      rest.terms.push_back({atom, k});
    }
  }
  exact.constant = floor_div(f.constant, c);
  rest.constant = f.constant - exact.constant * c;
  bool has_exact = !exact.terms.empty() || exact.constant != 0;
  Expr r = rest.to_expr(dt);
  ConstIntBound b = analyzer.bound_of(r);
  bool in_range = b.min_value >= 0 && b.max_value < c;
  if (!has_exact && !in_range) return std::nullopt;  // nothing to gain
  if (is_div) {
    Expr q = exact.to_expr(dt);
    return in_range ? q : q + floordiv(r, den);
  }
  return in_range ? r : floormod(r, den);
}

}  // namespace ingot::tir::arith
