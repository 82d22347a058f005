// Flatten buffers: every BufferLoad/BufferStore gets one flat element index computed from the
// buffer's strides (dense row-major when it has none). Buffers keep their shape for printing.
// A vector access (Ramp/Broadcast indices) becomes a Ramp over the flat index.
// The LLVM and C backends run this first.
#pragma once

#include "tir/prim_func.h"

namespace ingot::tir {

PrimFunc flatten_buffers(PrimFunc f);
// The flat index of `indices` into `buffer` (exposed for codegen and tests).
Expr flat_index(const BufferNode& buffer, const std::vector<Expr>& indices);

}  // namespace ingot::tir
