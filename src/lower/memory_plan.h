// Static memory planning: places intermediate tensors in one workspace arena by liveness over
// the kernel order, reusing freed blocks (best fit), with 64-byte aligned offsets. A tensor may
// live inside another (a Concat input in its slice of the output): it takes no block of its own,
// and the enclosing block stays live while anything inside it is.
#pragma once

#include <cstdint>
#include <vector>

namespace ingot::lower {

inline constexpr int64_t kArenaAlignment = 64;

// A tensor live from the kernel that writes it (first_use) through the last kernel that reads
// it (last_use), both inclusive. A kernel's inputs and outputs are live at the same time, so a
// tensor may reuse only blocks whose last use is strictly before its first use.
struct BufferLifetime {
  int64_t bytes = 0;
  int first_use = 0;
  int last_use = 0;
  // >= 0: the tensor lives inside tensor `parent` (an index into the same list), at byte
  // `offset_in_parent`, and takes no block of its own. Chains (a slice of a slice) are allowed.
  int parent = -1;
  int64_t offset_in_parent = 0;
};

struct MemoryPlan {
  // One per BufferLifetime: tensors with a block of their own at multiples of kArenaAlignment,
  // the others at their enclosing tensor's offset plus offset_in_parent.
  std::vector<int64_t> offsets;
  int64_t total_bytes = 0;  // arena size, a multiple of kArenaAlignment
  // The arena without reuse: every tensor with a block of its own in a block of its own (what
  // the plan saves is unshared_bytes - total_bytes).
  int64_t unshared_bytes = 0;
};

int64_t align_up(int64_t n, int64_t alignment = kArenaAlignment);

// Greedy planning in order of first use (larger tensors first on ties): each tensor takes the
// smallest free block that fits, else grows the arena (extending a free block at its end). A
// tensor that encloses others is live from the first use to the last use of any of them.
MemoryPlan plan_memory(const std::vector<BufferLifetime>& buffers);

}  // namespace ingot::lower
