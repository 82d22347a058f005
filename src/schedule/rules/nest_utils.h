// Helpers shared by the rules that schedule the block-form nests of the compute rules (the CPU
// injective rule, the GPU rules): a block's own loops, the top-level blocks, and the inlining of
// fusion's intermediates.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "schedule/schedule.h"

namespace ingot::schedule {

// The loops of the block's own nest (those its iter vars are bound to), outermost first, or
// nullopt when they are not the innermost loops around it, one is not serial, or the block has
// a reduce iter var. Iter vars are bound to loops (in any order) or (a layout conversion's
// channel c = cb * B + l) to expressions of them; each of the innermost loops must be used by
// some binding.
std::optional<std::vector<LoopRV>> own_loops(Schedule& s, BlockRV b);

// The loops of a reduction block whose iter vars are [spatial..., reduce...], each bound to its
// own serial loop in that order, these being all the loops around it: [spatial, reduce]; or
// nullopt.
std::optional<std::pair<std::vector<LoopRV>, std::vector<LoopRV>>> reduction_loops(Schedule& s,
                                                                                   BlockRV b);

// The constant extent of a loop (an internal error when it is not constant).
int64_t loop_extent_of(Schedule& s, LoopRV l);
// Whether any of the loops has a symbolic extent (a kernel over symbolic dims).
bool any_symbolic_extent(Schedule& s, const std::vector<LoopRV>& loops);

// The most loops a rule fuses into one parallel or one vectorized loop.
inline constexpr int kMaxFusedLoops = 3;

// Loops fused into one parallel loop, the first `par` of `loops`, where `par` is a sampling
// instruction over 0 (none) to min(limit, kMaxFusedLoops), `def` by default.
void parallelize_outer(Schedule& s, const std::vector<LoopRV>& loops, int limit, int def);

// The names of the top-level blocks, in order.
std::vector<std::string> top_level_block_names(const Schedule& s);

// Fusion's intermediates (buffers the root allocates) stored by a single elementwise block are
// inlined into their readers, in order: the fused kernel computes them where they are read. One
// that another block stores (a row reduction's result) is computed where it is stored: its one
// elementwise reader is reverse-inlined into that store (lowering makes an intermediate the
// kernel's own only where one of the two fits: lower/fuse_group.h).
void inline_intermediates(Schedule& s);

}  // namespace ingot::schedule
