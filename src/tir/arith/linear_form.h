// Linear (affine) forms of integer expressions: c0 + sum of c_i * atom_i, where an atom is a
// variable or any sub-expression that is not a sum, difference or product by a constant
// (compared structurally). Used where two index expressions must be compared term by term, e.g.
// (a + i) * 2 + k against i * 2 + k, which the rewrite simplifier does not expand.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "tir/expr.h"

namespace ingot::tir::arith {

struct LinearForm {
  std::vector<std::pair<Expr, int64_t>> terms;  // atom, coefficient (non-zero, atoms distinct)
  int64_t constant = 0;

  LinearForm operator-(const LinearForm& o) const;
  // The expression of the form (in the given integer dtype).
  Expr to_expr(DataType dtype) const;
};

LinearForm linear_form(const Expr& e);

// e as offset + v, where v is a variable `wanted` accepts, with coefficient 1, and no other
// term uses a wanted variable (offset: the rest, as an expression of e's dtype); nullopt if e
// is not of that form (no wanted variable, several, or one scaled or inside another atom).
struct VarPlusOffset {
  Var var;
  Expr offset;
};
std::optional<VarPlusOffset> var_plus_offset(const Expr& e,
                                             const std::function<bool(const VarNode*)>& wanted);

}  // namespace ingot::tir::arith
