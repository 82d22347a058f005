// Cost-model features of a scheduled kernel, read from its loop IR after `lower_blocks` (loops
// with their kinds, stores with vector lanes, before unrolling and flattening), in the spirit of
// Ansor's per-store features. One row per group of stores that share their enclosing loops and
// destination buffer (a tensorized micro-kernel's stores form one row): store count and lanes,
// arithmetic counts, loop structure (parallel, vectorized, unrolled extents, thread balance),
// per buffer (the five with most bytes) bytes accessed and touched, innermost stride and reuse,
// and the bytes moved into caches of L1 and L2 size estimated from the loop footprints. All
// counts are scaled log2(1 + x) so that the model sees ratios. A kernel's score is the sum of
// its rows' scores (the cost model's pack-sum).
#pragma once

#include <string>
#include <vector>

#include "tir/prim_func.h"

namespace ingot::tune {

// Feature names, one per column.
const std::vector<std::string>& feature_names();
inline size_t feature_count() {
  return feature_names().size();
}

// A kernel's rows: rows.size() / feature_count() groups of stores.
struct KernelFeatures {
  std::vector<float> rows;
  size_t row_count() const { return rows.size() / feature_count(); }
  float at(size_t row, const std::string& name) const;
};

// `lowered`: a scheduled kernel after lower_blocks. `threads`: the threads the kernel runs on
// (the balance of its parallel loops over them is a feature).
KernelFeatures extract_features(const tir::PrimFunc& lowered, int threads);

}  // namespace ingot::tune
