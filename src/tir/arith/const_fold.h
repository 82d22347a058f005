// Constant folding: a node whose operands are all constants becomes a constant, with the
// wraparound of its integer dtype and the rounding of its float dtype. Also folds Select with a
// constant condition. Returns e itself when nothing folds.
#pragma once

#include "tir/expr.h"

namespace ingot::tir::arith {

Expr const_fold(const Expr& e);

// v reduced to the values representable in an integer/bool dtype (two's complement wrap).
int64_t wrap_int(DataType dtype, __int128 v);

}  // namespace ingot::tir::arith
