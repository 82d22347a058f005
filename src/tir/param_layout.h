// A tiled layout of a buffer: some dims split by factors (zero-padded to whole multiples), each
// into an outer and an inner dim in its place, then all dims permuted. Packed matmul panels
// ([K, N] -> [N/nr, K, nr]: split N by nr, perm {1, 0, 2}) and NCHWc blocking are such layouts.
// The schedule gives one to a buffer (Schedule::transform_layout); for a constant parameter the
// data is re-laid out after scheduling (relayout), so the schedule, not lowering, decides how
// weights are packed.
#pragma once

#include <cstdint>
#include <vector>

#include "tir/expr.h"

namespace ingot::tir {

struct TiledLayout {
  std::vector<int64_t> splits;  // (axis, factor) pairs over the original dims, axes increasing
  std::vector<int64_t> perm;    // new dim d is split dim perm[d]; empty: identity

  // The shape after the splits and the permutation; checks the layout against `shape`
  // (InternalError when malformed: an axis out of range or repeated, a factor < 1, a bad perm).
  std::vector<int64_t> apply_shape(const std::vector<int64_t>& shape) const;
  // The new indices of the element at `index` (floordiv / floormod for split dims).
  std::vector<Expr> apply_index(const std::vector<Expr>& index) const;
  // The original index of a new index (outer * factor + inner for split dims), and whether it
  // lies inside `shape` (an element of the padding otherwise).
  std::vector<int64_t> inverse_index(const std::vector<int64_t>& new_index) const;
  // The data of a dense row-major tensor of `shape` (elements of `elem_bytes`) in this layout,
  // the padding zero bytes.
  std::vector<uint8_t> relayout(const uint8_t* data, const std::vector<int64_t>& shape,
                                int64_t elem_bytes) const;
  // The same into `out`, which holds the new layout's bytes and is zero where the padding is.
  void relayout_into(const uint8_t* data, const std::vector<int64_t>& shape, int64_t elem_bytes,
                     uint8_t* out) const;
  bool empty() const { return splits.empty() && perm.empty(); }
};

}  // namespace ingot::tir
