// A rule's tunable choice: sample_categorical over the candidates (sorted, without repeats, the
// default among them), uniform probabilities, with the default as the given decision. The
// untuned schedule takes the default; a tuner's sampling policy draws or forces another, and the
// trace records which.
#pragma once

#include <cstdint>
#include <vector>

#include "schedule/schedule.h"

namespace ingot::schedule {

// The sampled value's handle (Schedule::value reads it; split takes it as a factor).
ExprRV sample_choice(Schedule& s, std::vector<int64_t> candidates, int64_t default_value);

// Powers of two from 1 up to `limit` (at least {1}), with `extra` added.
std::vector<int64_t> powers_of_two_upto(int64_t limit, int64_t extra);

}  // namespace ingot::schedule
