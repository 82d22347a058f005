// Rewrite rules for Div (truncating on integers), FloorDiv and FloorMod, including the
// range-based ones: floordiv(x, c) -> 0 and floormod(x, c) -> x when 0 <= x < c.
#include "tir/arith/pattern.h"
#include "tir/op.h"

namespace ingot::tir::arith {

std::span<const RewriteRule> div_mod_rules(NodeTag tag) {
  const PatternVars& v = pattern_vars();
  const Expr &x = v.x, &y = v.y, &c1 = v.c1, &c2 = v.c2;
  static const std::vector<RewriteRule> div = {
      {"x / 1", x / 1, x, Expr(), /*float_ok=*/true},
      {"(x * c1) / c1", (x * c1) / c1, x, c1 != 0},
  };
  static const std::vector<RewriteRule> floor_div = {
      {"floordiv(x, 1)", floordiv(x, i64(1)), x},
      {"floordiv(x, c1) in [0, c1)", floordiv(x, c1), i64(0), 0 <= x && x < c1},
      {"floordiv(x * c1, c2) exact", floordiv(x * c1, c2), x * floordiv(c1, c2),
       c2 != 0 && floormod(c1, c2) == 0},
      {"floordiv(x * c1, c2) coarser", floordiv(x * c1, c2), floordiv(x, floordiv(c2, c1)),
       c1 > 0 && c2 > 0 && floormod(c2, c1) == 0},
      {"floordiv(x * c1 + y, c1)", floordiv(x * c1 + y, c1), x + floordiv(y, c1), c1 != 0},
      {"floordiv(y + x * c1, c1)", floordiv(y + x * c1, c1), floordiv(y, c1) + x, c1 != 0},
      {"floordiv(x + c1, c2)", floordiv(x + c1, c2), floordiv(x, c2) + floordiv(c1, c2),
       c2 != 0 && floormod(c1, c2) == 0},
      {"floordiv(floordiv(x, c1), c2)", floordiv(floordiv(x, c1), c2), floordiv(x, c1 * c2),
       c1 > 0 && c2 > 0},
  };
  static const std::vector<RewriteRule> floor_mod = {
      {"floormod(x, 1)", floormod(x, i64(1)), i64(0)},
      {"floormod(x, c1) in [0, c1)", floormod(x, c1), x, 0 <= x && x < c1},
      {"floormod(x * c1, c2)", floormod(x * c1, c2), i64(0), c2 != 0 && floormod(c1, c2) == 0},
      {"floormod(x * c1 + y, c2)", floormod(x * c1 + y, c2), floormod(y, c2),
       c2 != 0 && floormod(c1, c2) == 0},
      {"floormod(y + x * c1, c2)", floormod(y + x * c1, c2), floormod(y, c2),
       c2 != 0 && floormod(c1, c2) == 0},
      {"floormod(x + c1, c2)", floormod(x + c1, c2), floormod(x, c2),
       c2 != 0 && floormod(c1, c2) == 0},
      {"floormod(floormod(x, c1), c2)", floormod(floormod(x, c1), c2), floormod(x, c2),
       c1 > 0 && c2 > 0 && floormod(c1, c2) == 0},
  };
  if (tag == NodeTag::Div) return div;
  return tag == NodeTag::FloorDiv ? std::span<const RewriteRule>(floor_div)
                                  : std::span<const RewriteRule>(floor_mod);
}

}  // namespace ingot::tir::arith
