// Part of the injective rule: a reduction that keeps the innermost dim of its input, as lowering
// describes it (compute/reduce.cpp: block "reduce" over [kept dims..., j | reduced dims...], j
// the input's and output's last index: a blocked tensor's global pooling, a column sum). The
// schedule runs j innermost, inside the reduction, in chunks of j held in the output:
//   kept dims [, j chunks] (the outer one parallel) | reduced dims | j in the chunk (vectorized)
// with the init decomposed before the reduced loops (vectorized over the chunk), so each
// reduction step is one contiguous row update and the input is read once in memory order.
// The chunk is a sampling instruction: the whole extent or a power of two from 16 to 256 that
// divides it; by default the whole extent up to 256, else 64 when it divides (as lowering's
// fixed chunks of 64 before), else the largest dividing one. A second instruction chooses how
// many of the outer loops fuse into the parallel loop (0 to 3; default 1).
#pragma once

#include <string>

#include "schedule/schedule.h"

namespace ingot::schedule {

// Schedules block `name` when it has that form; false (nothing done) otherwise.
bool schedule_lanes_reduction(Schedule& s, const std::string& name);

}  // namespace ingot::schedule
