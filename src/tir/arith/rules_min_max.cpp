// Rewrite rules for Min and Max: idempotence, constant reassociation, and the range-based
// choice of one operand when the analyzer proves which is smaller.
#include "tir/arith/pattern.h"
#include "tir/op.h"

namespace ingot::tir::arith {

std::span<const RewriteRule> min_max_rules(NodeTag tag) {
  const PatternVars& v = pattern_vars();
  const Expr &x = v.x, &y = v.y, &c1 = v.c1, &c2 = v.c2;
  static const std::vector<RewriteRule> mn = {
      {"min(x, x)", min(x, x), x, Expr(), /*float_ok=*/true},
      {"min(c1, x)", min(c1, x), min(x, c1)},
      {"min(min(x, c1), c2)", min(min(x, c1), c2), min(x, min(c1, c2))},
      {"min(x + c1, x + c2)", min(x + c1, x + c2), x + min(c1, c2)},
      {"min(max(x, y), x)", min(max(x, y), x), x},
      {"min(x, y) -> x", min(x, y), x, x <= y},
      {"min(x, y) -> y", min(x, y), y, y <= x},
  };
  static const std::vector<RewriteRule> mx = {
      {"max(x, x)", max(x, x), x, Expr(), /*float_ok=*/true},
      {"max(c1, x)", max(c1, x), max(x, c1)},
      {"max(max(x, c1), c2)", max(max(x, c1), c2), max(x, max(c1, c2))},
      {"max(x + c1, x + c2)", max(x + c1, x + c2), x + max(c1, c2)},
      {"max(min(x, y), x)", max(min(x, y), x), x},
      {"max(x, y) -> x", max(x, y), x, y <= x},
      {"max(x, y) -> y", max(x, y), y, x <= y},
  };
  return tag == NodeTag::Min ? std::span<const RewriteRule>(mn) : std::span<const RewriteRule>(mx);
}

}  // namespace ingot::tir::arith
