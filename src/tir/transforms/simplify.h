// Simplify pass: simplifies every expression with the ranges of the enclosing loops, replaces
// loops of extent 1 by their body (the variable substituted by min), resolves if-statements
// whose condition is provably constant and drops statements left with no effect.
#pragma once

#include "tir/prim_func.h"

namespace ingot::tir {

Stmt simplify_stmt(const Stmt& s);
PrimFunc simplify(PrimFunc f);

}  // namespace ingot::tir
