// Reductions inside a row (the injective rule's row blocks: a softmax, normalisation or
// reduction row): each reduction block the compute rule built (accumulator = combine(accumulator,
// value) over serial loops, lower/compute/common.h Accumulator::reduce) can be split into
// partial results across `lanes` independent accumulators (rfactor), which turns a serial chain
// of dependent adds or maxes into vector operations: the innermost reduction loop is cut into
// whole strips of `lanes` and a scalar tail (partition), the strips split (strip, lane), the lane
// loop rfactored, and the partial results' initialisation and accumulation vectorized; after the
// strips the lanes are folded into the accumulator, and the tail added to it.
// The choice is a sampling instruction: no split (0) or lanes of 1, 2 or 4 vector registers of
// the accumulator's dtype (from the target's vector width), and 16 (the lanes softmax used before
// this rule, one AVX-512 or two AVX2 registers of float32). The default is 16 when the innermost
// loop reads its input contiguously (the last index moves by one per step) and is at least 16
// long, else no split. A reduction loop over a symbolic extent (a kernel over symbolic dims) is
// marked vectorized instead, which LLVM's loop vectorizer carries out with partial results in
// vector lanes and a remainder loop.
#pragma once

#include <string>

#include "schedule/schedule.h"
#include "support/channel_block.h"

namespace ingot::schedule {

// Lanes of the default split.
inline constexpr int64_t kDefaultReductionLanes = 16;

// Splits block `name` as above when it is such a reduction (its innermost loop binds a reduce
// iter var); false, nothing done, otherwise. The injective rule also applies it to a reduction
// at a kernel's root (DynamicQuantizeLinear's range: every iter var reduced).
bool schedule_reduction_lanes(Schedule& s, const std::string& name, const CpuVectorIsa& isa);

// Schedules the reduction blocks directly inside the block named `row`.
void schedule_row_reductions(Schedule& s, const std::string& row, const CpuVectorIsa& isa);

}  // namespace ingot::schedule
