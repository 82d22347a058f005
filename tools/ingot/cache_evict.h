// Evicting chosen memory from every cache level, line by line (x86 CLFLUSH, AArch64 DC CIVAC),
// and the memory an artifact occupies once loaded: what `--cache-state model` evicts before each
// timed run, in place of streaming over the whole last-level cache.
#pragma once

#include <cstddef>
#include <vector>

#include "ingot/runtime.hpp"

namespace ingot::cli {

struct MemoryRange {
  const void* begin = nullptr;
  size_t bytes = 0;
};

// The loaded segments of the shared object that holds `model`'s record: its code, its record and
// its constant blob (.rodata). Empty where the loader does not list them.
std::vector<MemoryRange> artifact_memory(const rt::Model& model);

// Writes back and invalidates every cache line of `ranges` in every cache level, then fences.
// False, having done nothing, on a CPU without such an instruction (the caller streams instead).
bool evict_lines(const std::vector<MemoryRange>& ranges);

}  // namespace ingot::cli
