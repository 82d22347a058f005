// Rewrite rules for Add and Sub: identities, constant reassociation, like-term merging.
#include "tir/arith/pattern.h"
#include "tir/op.h"

namespace ingot::tir::arith {

std::span<const RewriteRule> add_sub_rules(NodeTag tag) {
  const PatternVars& v = pattern_vars();
  const Expr &x = v.x, &y = v.y, &c1 = v.c1, &c2 = v.c2;
  static const std::vector<RewriteRule> add = {
      {"x + 0", x + 0, x},
      {"c1 + x", c1 + x, x + c1},
      {"(x + c1) + c2", (x + c1) + c2, x + (c1 + c2)},
      {"(x - c1) + c2", (x - c1) + c2, x + (c2 - c1)},
      {"(c1 - x) + c2", (c1 - x) + c2, (c1 + c2) - x},
      {"(x + c1) + y", (x + c1) + y, (x + y) + c1},
      {"x + (y + c1)", x + (y + c1), (x + y) + c1},
      {"x + (y - c1)", x + (y - c1), (x + y) - c1},
      {"x + x", x + x, x * 2},
      {"x * c1 + x", x * c1 + x, x * (c1 + 1)},
      {"x + x * c1", x + x * c1, x * (c1 + 1)},
      {"x * c1 + x * c2", x * c1 + x * c2, x * (c1 + c2)},
      {"x + (y - x)", x + (y - x), y},
      {"(y - x) + x", (y - x) + x, y},
      {"x + (0 - y)", x + (0 - y), x - y},
      {"floordiv(x, c1) * c1 + floormod(x, c1)", floordiv(x, c1) * c1 + floormod(x, c1), x,
       c1 != 0},
      {"floormod(x, c1) + floordiv(x, c1) * c1", floormod(x, c1) + floordiv(x, c1) * c1, x,
       c1 != 0},
  };
  static const std::vector<RewriteRule> sub = {
      {"x - 0", x - 0, x, Expr(), /*float_ok=*/true},
      {"x - x", x - x, i64(0)},
      {"(x + c1) - c2", (x + c1) - c2, x + (c1 - c2)},
      {"(x - c1) - c2", (x - c1) - c2, x - (c1 + c2)},
      {"c1 - (x + c2)", c1 - (x + c2), (c1 - c2) - x},
      {"(x + y) - x", (x + y) - x, y},
      {"(x + y) - y", (x + y) - y, x},
      {"x - (x + y)", x - (x + y), 0 - y},
      {"y - (x + y)", y - (x + y), 0 - x},
      {"(x + c1) - (y + c2)", (x + c1) - (y + c2), (x - y) + (c1 - c2)},
      {"x * c1 - x", x * c1 - x, x * (c1 - 1)},
      {"x - x * c1", x - x * c1, x * (1 - c1)},
      {"x * c1 - x * c2", x * c1 - x * c2, x * (c1 - c2)},
  };
  return tag == NodeTag::Add ? std::span<const RewriteRule>(add)
                             : std::span<const RewriteRule>(sub);
}

}  // namespace ingot::tir::arith
