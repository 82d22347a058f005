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
// index, a size that depends on a variable. A vector index Ramp(base, stride, lanes) with a
// constant stride covers its first to its last element (a CPU register tile's rows); other
// vector indices leave the buffer as it is.
#pragma once

#include "tir/prim_func.h"

namespace ingot::tir {

// local_only (CPU targets): only local buffers, a kernel's own memory (schedule primitive
// set_scope; each CPU thread runs a parallel loop's iterations in its own frame), so a buffer
// whose accesses all lie in one iteration of a parallel loop is allocated per iteration.
Stmt compact_buffers_stmt(const Stmt& s, bool local_only = false);
PrimFunc compact_buffers(PrimFunc f, bool local_only = false);

}  // namespace ingot::tir
