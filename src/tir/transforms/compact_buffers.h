// Compact buffers (GPU targets; TVM's CompactBufferAllocation): each shared or local buffer
// allocated in the body shrinks to the region one thread block (shared) or one thread (local)
// touches, and its Allocate moves down to the deepest loop body enclosing every access. Every
// index becomes its offset from the region's start. Runs after lower_blocks, whose cache
// buffers are allocated around the whole kernel with the full shape of the tensor they cache,
// and before flatten_buffers.
//
// Loops bound to one thread tag are one hardware index, so a local buffer used under two
// threadIdx.x loops stays per thread (its Allocate may then sit outside them), and a shared
// buffer's Allocate may sit inside threadIdx loops: it is still one per block (GPU semantics).
// The loops bound to a tag must share one range, except loops of one at its start (the first
// thread only).
// A buffer is left as it is when its region is not a constant-size box the same for every
// block (or thread): an index the interval analysis does not understand, a data-dependent
// index, a size that depends on a variable. Vector (Ramp) indices also leave the buffer as it
// is (the simple choice: the GPU lowering takes no vector code, so none reach the pass there).
#pragma once

#include "tir/prim_func.h"

namespace ingot::tir {

Stmt compact_buffers_stmt(const Stmt& s);
PrimFunc compact_buffers(PrimFunc f);

}  // namespace ingot::tir
