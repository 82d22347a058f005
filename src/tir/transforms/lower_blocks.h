// LowerBlocks pass: turns a block-form PrimFunc into plain loops. Each block's iter vars are
// replaced by their bindings, its init runs under `if (every reduce binding == its min)`, a
// non-trivial predicate becomes an IfThenElse and alloc_buffers become Allocate statements.
#pragma once

#include "tir/prim_func.h"

namespace ingot::tir {

Stmt lower_blocks_stmt(const Stmt& s);
PrimFunc lower_blocks(PrimFunc f);

}  // namespace ingot::tir
