// The sliding window of MaxPool / AveragePool / LpPool, shared by the NCHW compute rule
// (pool.cpp) and the channel-blocked one (pool_nchwc.cpp) so both read the same taps: per spatial
// dim, the input index of a tap and the conditions that it lies inside the input (`valid`) and
// inside the padded input (`in_padded`, the positions count_include_pad counts). ceil_mode is
// already in the output extents; a condition that holds for every output position is omitted.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "graph/graph.h"
#include "tir/expr.h"

namespace ingot::lower {

struct PoolWindow {
  // in / out: the spatial extents of X and Y.
  PoolWindow(const graph::Node& node, std::vector<int64_t> in, std::vector<int64_t> out);

  struct Tap {
    tir::Expr index;      // the input position
    tir::Expr valid;      // undefined: always inside the input
    tir::Expr in_padded;  // undefined: always inside the padded input
  };
  // Tap `w` of the window at output position `o` of spatial dim `d`.
  Tap tap(int d, const tir::Expr& o, const tir::Expr& w) const;
  // The output positions [lo, hi) of dim `d` whose taps all lie inside the input.
  std::pair<int64_t, int64_t> interior(int d) const;

  int rank = 0;
  std::vector<int64_t> in, out, kernel, strides, dilations;
  std::vector<int64_t> pads;  // begins, then ends
  bool include_pad = false;
};

}  // namespace ingot::lower
