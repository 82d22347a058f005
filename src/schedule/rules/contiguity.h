// Contiguity of a loop's accesses, as the CPU rules ask it before vectorizing along the loop:
// whether each access that uses the variable moves by one element per step in its last index,
// either along the whole loop (a row-major row) or along runs of a fixed length (a channel-
// blocked read X[.., c / B, .., c % B] is contiguous in runs of any divisor of B); and the cut
// of a loop into whole runs that the rules vectorize along.
#pragma once

#include <cstdint>
#include <optional>

#include "schedule/schedule.h"
#include "tir/stmt.h"

namespace ingot::schedule {

// Whether every load and store in `body` that uses `v` (which takes the values [0, extent))
// moves contiguously along runs of `run` steps of it: with v = vo * run + vi (0 <= vi < run),
// vi appears only in the last index, as vi + offset. run = 1 asks for v itself as v + offset
// in the last index (the whole loop contiguous).
bool contiguous_in_runs(const tir::Stmt& body, const tir::VarNode* v, int64_t extent, int64_t run);

// The balance of contiguous over strided accesses along `v` in `body`: +1 for each load or store
// that uses `v` as v + offset in its last index only, -1 for each other load or store using it
// (accesses that do not use `v` are invariant along it and count for nothing).
int contiguity_score(const tir::Stmt& body, const tir::VarNode* v);

// `loop` (extent `extent`) cut into whole strips of `run` iterations, split (outer, inner), and
// the tail past the last whole strip (a partition; none when `run` divides `extent`).
struct Strips {
  LoopRV outer, inner;
  std::optional<LoopRV> tail;
};
Strips split_into_strips(Schedule& s, LoopRV loop, int64_t extent, int64_t run);

}  // namespace ingot::schedule
