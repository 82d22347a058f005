// A hash consistent with structural_equal (either mode): structurally equal IR hashes equal.
// Variables and buffers hash by their order of first appearance, not by identity or name.
#pragma once

#include <cstddef>

#include "tir/prim_func.h"

namespace ingot::tir {

size_t structural_hash(const Expr& e);
size_t structural_hash(const Stmt& s);
size_t structural_hash(const PrimFunc& f);

}  // namespace ingot::tir
