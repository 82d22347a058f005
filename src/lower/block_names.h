// The block-form nests of a lowered kernel made ready for the schedule stage: compute rules
// give their blocks fixed names ("compute", "rows"), so a kernel of several nests (a Concat's
// inputs, a fused group) has repeats; this gives every block a unique name (the handle a
// schedule finds it by: _1, _2, ... in order, so equal kernels get equal names) and re-infers
// its read/write regions after fusion inlined producers into its body and constant loads were
// folded. A root block (a fused kernel's, allocating the intermediates the schedule inlines)
// is kept as it is.
#pragma once

#include "tir/stmt.h"

namespace ingot::lower {

// `body` with unique block names (repeats get _1, _2, ...; none is "root") and re-inferred
// regions.
tir::Stmt finish_blocks(const tir::Stmt& body);

}  // namespace ingot::lower
