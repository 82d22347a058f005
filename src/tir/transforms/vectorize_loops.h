// Vectorize loops: a short kVectorized loop (constant extent 2..64 from 0) whose body is
// straight-line stores becomes those stores on vectors: the loop variable's contiguous run is a
// Ramp in the last index of each access (one vector load or store), loop-invariant values are
// broadcast. Executing each statement for all lanes before the next is what the loop's
// vectorized kind allows (its iterations are independent). A loop whose body is anything else
// (nested loops, calls, the variable outside the last index or with a stride, a condition that
// depends on it) is left to LLVM's loop vectorizer, as before.
//
// Why in the loop IR: the loop vectorizer turns each such loop (a channel block of 32 lanes
// under an unrolled tile, say) into a loop of its own with run-time alias checks and a scalar
// remainder, one per statement; explicit vectors give straight-line code that keeps values in
// registers and compiles in a fraction of the time.
#pragma once

#include "tir/prim_func.h"

namespace ingot::tir {

Stmt vectorize_loops(const Stmt& s);
PrimFunc vectorize_loops(PrimFunc f);

}  // namespace ingot::tir
