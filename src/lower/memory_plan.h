// Static memory planning: places intermediate tensors in one workspace arena by liveness over
// the kernel order, reusing freed blocks (best fit), with 64-byte aligned offsets.
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
};

struct MemoryPlan {
  std::vector<int64_t> offsets;  // one per BufferLifetime, multiples of kArenaAlignment
  int64_t total_bytes = 0;       // arena size, a multiple of kArenaAlignment
};

int64_t align_up(int64_t n, int64_t alignment = kArenaAlignment);

// Greedy planning in order of first use (larger tensors first on ties): each tensor takes the
// smallest free block that fits, else grows the arena (extending a free block at its end).
MemoryPlan plan_memory(const std::vector<BufferLifetime>& buffers);

}  // namespace ingot::lower
