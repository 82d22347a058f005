// A statement's work as an expression of the variables free in it: the estimate that decides at
// run time whether a parallel loop over symbolic extents is worth a thread-pool launch
// (codegen/llvm/loop_outlining.cpp).
#pragma once

#include <optional>

#include "tir/stmt.h"

namespace ingot::tir {

// Work units of one call of a transcendental intrinsic (tir::is_polynomial_math: exp, tanh, erf,
// pow, ...) per lane: a vectorized polynomial costs several FMAs where a store of an add costs
// about one.
inline constexpr int64_t kTranscendentalWork = 8;

// The work of `s`: each execution of a store or an evaluated expression counts its lanes, plus
// kTranscendentalWork per lane of each transcendental call in it; a loop multiplies its body's
// work by its extent, a sequence adds its parts', a branch counts both cases (an upper bound).
// std::nullopt when an extent depends on a variable that `s` binds itself (a loop or let
// variable), which the estimate cannot name, or divides by a non-constant (the estimate is
// evaluated before any branch in `s` could guard it).
std::optional<Expr> work_estimate(const Stmt& s);

}  // namespace ingot::tir
