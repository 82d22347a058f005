// Floor division and modulo of a multi-term index by a constant, through its linear form:
// terms whose coefficient the divisor divides leave the division exactly, and what remains
// vanishes when its interval lies in [0, c). E.g. with i < 197 and k < 768,
// floordiv(j * 151296 + i * 768 + k, 768) -> j * 197 + i and floormod(j * 197 + i, 197) -> i:
// the index chains of fused reshapes and transposes collapse back to loop variables.
#pragma once

#include <optional>

#include "tir/arith/analyzer.h"

namespace ingot::tir::arith {

// The simpler form of an integer FloorDiv / FloorMod by a positive constant, or nullopt when
// the split gains nothing.
std::optional<Expr> split_div_mod(const Expr& e, const Analyzer& analyzer);

}  // namespace ingot::tir::arith
