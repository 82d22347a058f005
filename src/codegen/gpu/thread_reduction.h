// Reductions across the threads of a block. A loop bound to a threadIdx axis whose body
// combines into one element that does not depend on the loop, `acc[i] = combine(acc[i], v(t))`
// (the schedule's bind of a reduction loop, after rfactor left one partial result per thread),
// becomes a tree over shared memory, the portable form of TVM's thread allreduce: every thread
// of the block writes its term into a scratch array (the combiner's identity where the loop is
// shorter than the block or its predicate is false), the live half folds the other half in,
// halving each step (the barriers come from thread_sync.h), and every thread combines the
// result into its own accumulator, which must be a per-thread (local) buffer. The block's other
// thread axes each reduce separately (one tree per row of threadIdx.y). With `warp_shuffles`
// (CUDA) and a reduction along threadIdx.x over whole warps, the shared-memory folds stop at 32
// values, which the first warp of each row folds in registers (__shfl_down_sync, no barrier:
// five of the log2(block) + 1 barriers saved) and writes to a second shared array that every
// thread then reads. Runs before the thread loops become thread indices, on one launch's
// statement.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "tir/stmt.h"

namespace ingot::codegen {

// `launch` with its cross-thread reductions lowered for a block of `block` threads per axis
// (x, y, z). UserError naming `kernel` for a reduction into a buffer that is not per-thread.
tir::Stmt lower_thread_reductions(const tir::Stmt& launch, const std::array<uint32_t, 3>& block,
                                  const std::string& kernel, bool warp_shuffles = false);

}  // namespace ingot::codegen
