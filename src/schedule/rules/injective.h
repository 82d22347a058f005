// The injective rule: the schedule of the block-form nests that compute rules build with
// compute/common.h:loop_nest, one block per nest whose spatial iter vars are bound to serial
// loops over the output's non-trivial dims. A block is either one store (elementwise ops, data
// movement, the in-place epilogue passes) or a row: an opaque body per output row (a softmax,
// normalisation or reduction row, a gather window) that keeps its own inner loops. A fused
// kernel (lower_graph's fused groups) keeps its elementwise members as blocks storing
// intermediates that its root allocates; the rule first inlines each into its readers
// (compute_inline), in order. Then per block, its design space as sampling instructions
// (rules/choice.h):
//  - one store, a nest of one loop: the chunk it is split into, a parallel loop over chunks
//    around a vectorized loop over one chunk (a power of two dividing the extent, from 256 up
//    to half of it), or no split (the default: the loop vectorized whole, on one thread);
//  - one store, a nest of several loops: how many of the innermost loops are fused into the
//    vectorized loop (1 to 3; default 1: a row too short to vectorize well alone can take the
//    rows around it), then how many of the outer loops are fused into the parallel loop (0,
//    for none, to 3; default 1);
//  - a row: how many of the outer loops are fused into the parallel loop (0 to 3; default 1);
//    its lane loops (compute/common.h lane_loop) vectorized; then the reductions inside it
//    (rules/row_reduction.h: lanes of partial results).
//  - a reduction that keeps its input's innermost dim (block "reduce" of compute/reduce.cpp):
//    rules/lanes_reduction.h (the chunk of that dim held in the output, the parallel loops).
// The default point is the loop kinds loop_nest set before this rule existed (the outermost
// loop parallel, the innermost vectorized for a store), so untuned code is unchanged. Other
// blocks with a reduce iter var, or whose loops are not their own, are left as they are.
#pragma once

#include "schedule/schedule.h"
#include "support/channel_block.h"

namespace ingot::schedule {

inline constexpr const char* kInjectiveRule = "injective";  // every spatial block

void schedule_injective(Schedule& s, const CpuVectorIsa& isa);

// The rule's schedule of one top-level block `name` (fusion's intermediates already inlined):
// nothing when its loops are not its own (a reduction, a block another rule placed).
void schedule_injective_block(Schedule& s, const std::string& name, const CpuVectorIsa& isa);

}  // namespace ingot::schedule
