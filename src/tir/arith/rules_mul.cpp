// Rewrite rules for Mul: identities, constants to the right, constant reassociation.
#include "tir/arith/pattern.h"
#include "tir/op.h"

namespace ingot::tir::arith {

std::span<const RewriteRule> mul_rules() {
  const PatternVars& v = pattern_vars();
  const Expr &x = v.x, &c1 = v.c1, &c2 = v.c2;
  static const std::vector<RewriteRule> rules = {
      {"x * 1", x * 1, x, Expr(), /*float_ok=*/true},
      {"x * 0", x * 0, i64(0)},
      {"c1 * x", c1 * x, x * c1},
      {"(x * c1) * c2", (x * c1) * c2, x * (c1 * c2)},
      {"(x + c1) * c2", (x + c1) * c2, x * c2 + c1 * c2},
      {"(x - c1) * c2", (x - c1) * c2, x * c2 - c1 * c2},
  };
  return rules;
}

}  // namespace ingot::tir::arith
