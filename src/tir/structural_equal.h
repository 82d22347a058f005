// Structural equality of loop IR: same node kinds, dtypes and fields, where variables and buffers
// bound inside the compared IR (loop vars, let vars, PrimFunc params, Allocate buffers) are
// matched positionally. Free variables must be the same object unless map_free_vars is set,
// in which case they are matched one-to-one on first use.
#pragma once

#include "tir/prim_func.h"

namespace ingot::tir {

bool structural_equal(const Expr& a, const Expr& b, bool map_free_vars = false);
bool structural_equal(const Stmt& a, const Stmt& b, bool map_free_vars = false);
bool structural_equal(const PrimFunc& a, const PrimFunc& b, bool map_free_vars = false);

}  // namespace ingot::tir
