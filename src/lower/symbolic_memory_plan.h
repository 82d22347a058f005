// The memory plan of a module with symbolic dims (docs/dynamic-shapes.md, section 3): which
// tensors share memory is decided at compile time, by liveness, as for static plans; their sizes
// and offsets are expressions of the symbols, evaluated when the symbols are bound, so a run at
// short lengths uses a short arena. Tensors share *slots*: a slot holds one live tensor at a
// time and is as large as the largest tensor it ever holds (a max of expressions); slots follow
// each other in the arena, 64-byte aligned.
#pragma once

#include <cstdint>
#include <vector>

#include "graph/sym_expr.h"

namespace ingot::lower {

struct SymbolicBuffer {
  graph::SymExpr bytes;
  int64_t hint_bytes = 0;  // at the symbols' largest values: what the slot choices compare
  int first_use = 0;       // as BufferLifetime (memory_plan.h), inclusive
  int last_use = 0;
  int parent = -1;  // lives inside buffer `parent` at `offset_in_parent` (a Concat's slice)
  int64_t offset_in_parent = 0;
};

struct SymbolicPlan {
  std::vector<graph::SymExpr> offsets;  // per buffer
  std::vector<int> slots;               // per buffer: its slot (-1: takes no memory)
  graph::SymExpr total_bytes = 0;       // the arena, a multiple of 64
  int64_t unshared_hint_bytes = 0;      // every buffer in its own block, at the largest values
};

// Greedy in order of first use (larger first on ties): a tensor takes the free slot that fits
// it best at the largest values, else grows the largest free slot, else opens a slot.
SymbolicPlan plan_memory_symbolic(const std::vector<SymbolicBuffer>& buffers);

}  // namespace ingot::lower
