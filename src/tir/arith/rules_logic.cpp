// Rewrite rules for And, Or, Not and Select: identities and absorbing constants, double
// negation, negated comparisons, and selects whose condition is proven.
#include "tir/arith/pattern.h"
#include "tir/op.h"

namespace ingot::tir::arith {

std::span<const RewriteRule> logic_rules(NodeTag tag) {
  const PatternVars& v = pattern_vars();
  const Expr &x = v.x, &y = v.y, &p = v.p, &T = v.t, &F = v.f;
  static const std::vector<RewriteRule> conj = {
      {"p && true", p && T, p},  {"true && p", T && p, p}, {"p && false", p && F, F},
      {"false && p", F && p, F}, {"p && p", p && p, p},    {"p && !p", p && !p, F},
      {"!p && p", !p && p, F},
  };
  static const std::vector<RewriteRule> disj = {
      {"p || false", p || F, p}, {"false || p", F || p, p}, {"p || true", p || T, T},
      {"true || p", T || p, T},  {"p || p", p || p, p},     {"p || !p", p || !p, T},
      {"!p || p", !p || p, T},
  };
  static const std::vector<RewriteRule> neg = {
      {"!!p", !!p, p},
      {"!(x == y)", !(x == y), x != y, Expr(), /*float_ok=*/true},
      {"!(x != y)", !(x != y), x == y, Expr(), /*float_ok=*/true},
      {"!(x < y)", !(x < y), y <= x},
      {"!(x <= y)", !(x <= y), y < x},
  };
  if (tag == NodeTag::And) return conj;
  return tag == NodeTag::Or ? std::span<const RewriteRule>(disj)
                            : std::span<const RewriteRule>(neg);
}

std::span<const RewriteRule> select_rules() {
  const PatternVars& v = pattern_vars();
  const Expr &x = v.x, &y = v.y, &p = v.p;
  static const std::vector<RewriteRule> rules = {
      {"select(p, x, x)", select(p, x, x), x, Expr(), /*float_ok=*/true},
      {"select(p, x, y) proven", select(p, x, y), x, p, /*float_ok=*/true},
      {"select(p, x, y) disproven", select(p, x, y), y, !p, /*float_ok=*/true},
  };
  return rules;
}

}  // namespace ingot::tir::arith
