// Rewrite rules for comparisons: reflexive cases, moving constants to one side, and folding
// comparisons the analyzer proves true or false.
#include "tir/arith/pattern.h"
#include "tir/op.h"

namespace ingot::tir::arith {

std::span<const RewriteRule> compare_rules(NodeTag tag) {
  const PatternVars& v = pattern_vars();
  const Expr &x = v.x, &y = v.y, &c1 = v.c1, &c2 = v.c2, &T = v.t, &F = v.f;
  static const std::vector<RewriteRule> eq = {
      {"x == x", x == x, T},
      {"x + c1 == c2", x + c1 == c2, x == c2 - c1},
      {"x == y proven", x == y, T, x == y},
      {"x == y disproven", x == y, F, x != y},
  };
  static const std::vector<RewriteRule> ne = {
      {"x != x", x != x, F},
      {"x + c1 != c2", x + c1 != c2, x != c2 - c1},
      {"x != y proven", x != y, T, x != y},
      {"x != y disproven", x != y, F, x == y},
  };
  static const std::vector<RewriteRule> lt = {
      {"x < x", x < x, F},
      {"x + c1 < c2", x + c1 < c2, x < c2 - c1},
      {"c1 < x + c2", c1 < x + c2, c1 - c2 < x},
      {"x < y proven", x < y, T, x < y},
      {"x < y disproven", x < y, F, y <= x},
  };
  static const std::vector<RewriteRule> le = {
      {"x <= x", x <= x, T},
      {"x + c1 <= c2", x + c1 <= c2, x <= c2 - c1},
      {"c1 <= x + c2", c1 <= x + c2, c1 - c2 <= x},
      {"x <= y proven", x <= y, T, x <= y},
      {"x <= y disproven", x <= y, F, y < x},
  };
  static const std::vector<RewriteRule> gt = {
      {"x > y", x > y, y < x, Expr(), /*float_ok=*/true},
  };
  static const std::vector<RewriteRule> ge = {
      {"x >= y", x >= y, y <= x, Expr(), /*float_ok=*/true},
  };
  switch (tag) {
    case NodeTag::EQ:
      return eq;
    case NodeTag::NE:
      return ne;
    case NodeTag::LT:
      return lt;
    case NodeTag::LE:
      return le;
    case NodeTag::GT:
      return gt;
    default:
      return ge;
  }
}

}  // namespace ingot::tir::arith
