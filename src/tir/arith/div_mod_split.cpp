// Linear-form splitting of floordiv / floormod (see div_mod_split.h).
#include "tir/arith/div_mod_split.h"

#include <algorithm>

#include "tir/arith/linear_form.h"
#include "tir/op.h"

namespace ingot::tir::arith {

namespace {

int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

// num = big + small with every term of big a multiple of a unit g that divides c and
// 0 <= small < g (a flat index of a fused reshape: floordiv(i * 784 + (j * 28 + k), 1568) with
// j * 28 + k < 784): floordiv(num, c) = floordiv(big / g, c / g) and floormod(num, c) =
// floormod(big / g, c / g) * g + small. Tries the terms' coefficients as g, largest first.
std::optional<Expr> split_at_coarser_unit(const LinearForm& f, int64_t c, bool is_div, DataType dt,
                                          const Analyzer& analyzer) {
  std::vector<int64_t> units;
  for (const auto& [atom, k] : f.terms)
    if (k > 1 && k < c && c % k == 0) units.push_back(k);
  std::sort(units.rbegin(), units.rend());
  for (int64_t g : units) {
    LinearForm big, small;
    for (const auto& [atom, k] : f.terms) {
      if (k % g == 0) {
        big.terms.push_back({atom, k / g});
      } else {
        small.terms.push_back({atom, k});
      }
    }
    big.constant = floor_div(f.constant, g);
    small.constant = f.constant - big.constant * g;
    Expr sm = small.to_expr(dt);
    ConstIntBound b = analyzer.bound_of(sm);
    if (b.min_value < 0 || b.max_value >= g) continue;
    Expr coarse = big.to_expr(dt), unit = make_const(dt, c / g);
    if (is_div) return floordiv(coarse, unit);
    return floormod(coarse, unit) * make_const(dt, g) + sm;
  }
  return std::nullopt;
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
  if (!in_range) {
    if (auto coarse = split_at_coarser_unit(rest, c, is_div, dt, analyzer)) {
      if (!has_exact) return coarse;
      Expr q = exact.to_expr(dt);
      return is_div ? q + *coarse : *coarse;
    }
  }
  if (!has_exact && !in_range) return std::nullopt;  // nothing to gain
  if (is_div) {
    Expr q = exact.to_expr(dt);
    return in_range ? q : q + floordiv(r, den);
  }
  return in_range ? r : floormod(r, den);
}

}  // namespace ingot::tir::arith
