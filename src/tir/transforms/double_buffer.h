// Double buffering of shared-memory slabs (ForKind::kDoubleBuffered, GPU targets; TVM's
// software pipeline of two stages). The loop's body opens with copies into shared buffers (the
// cache_read stages of a tiled product) and then reads them. The loop becomes the copies for
// its first iteration, then a loop over pairs of iterations that alternates between the buffers
// and a second set of them, each copy running one iteration ahead of the compute, then the rest:
//
//   copy(0) -> B0
//   for u in [0, P):                        P = K / 2 - 1 (K even), (K - 1) / 2 (K odd)
//     copy(2u + 1) -> B1;  compute(2u) <- B0
//     copy(2u + 2) -> B0;  compute(2u + 1) <- B1
//   K even: copy(K - 1) -> B1;  compute(K - 2) <- B0;  compute(K - 1) <- B1
//   K odd:  compute(K - 1) <- B0
//
// (No condition in the loop: a guarded refill inside a loop with barriers was miscompiled by
// PoCL 3.1, and a GPU need not branch.)
// Since the two sets are distinct buffers, the barrier planner (codegen/gpu/thread_sync.h),
// which compares statements by the buffers they touch, puts one barrier per iteration where
// there were two, and a copy (asynchronous on CUDA from sm_80: cp.async) is in flight while the
// compute before the next barrier runs. Loops of one iteration stay as they are.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tir/prim_func.h"

namespace ingot::tir {

// A double-buffered loop's body: the copies that open it (each stores to shared buffers only and
// loads from none), the statements after them (which store to none of those buffers), and the
// buffers the copies fill.
struct DoubleBufferedBody {
  std::vector<Stmt> copies, rest;
  std::set<const BufferNode*> buffers;
};
// The parts of `body` (a sequence), or nullopt with the reason in `why`.
std::optional<DoubleBufferedBody> split_double_buffered(const Stmt& body, std::string* why);

PrimFunc double_buffer(PrimFunc f);

}  // namespace ingot::tir
