// Well-formedness check of a PrimFunc: every variable used is defined (by a param's shape or
// strides, an enclosing loop or let), every buffer accessed is a param or allocated around the
// access, and each access has one index per dimension (exactly one once flattened).
// Violations are InternalErrors naming the offending variable or buffer.
#pragma once

#include "tir/prim_func.h"

namespace ingot::tir {

void verify_prim_func(const PrimFunc& f, bool flattened = false);

}  // namespace ingot::tir
