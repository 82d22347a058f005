// Unroll loops: each For of kind kUnrolled with a constant extent of at most max_extent becomes
// its body repeated, the loop variable replaced by min, min + 1, ... Longer unrolled loops are
// left as they are (codegen may still unroll them).
#pragma once

#include "tir/prim_func.h"

namespace ingot::tir {

Stmt unroll_loops(const Stmt& s, int max_extent);
PrimFunc unroll_loops(PrimFunc f, int max_extent);

}  // namespace ingot::tir
