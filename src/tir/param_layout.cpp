// Tiled layouts (see param_layout.h).
#include "tir/param_layout.h"

#include <cstring>

#include "support/error.h"
#include "tir/op.h"

namespace ingot::tir {

namespace {

// Per original dim: its split factor (0: not split).
std::vector<int64_t> factors_of(const TiledLayout& l, size_t rank) {
  std::vector<int64_t> f(rank, 0);
  INGOT_ICHECK(l.splits.size() % 2 == 0, "tiled layout: splits must be (axis, factor) pairs");
  for (size_t k = 0; k < l.splits.size(); k += 2) {
    int64_t axis = l.splits[k], factor = l.splits[k + 1];
    INGOT_ICHECK(axis >= 0 && size_t(axis) < rank && f[size_t(axis)] == 0 && factor >= 1,
                 "tiled layout: bad split ({}, {}) of a rank-{} buffer", axis, factor, rank);
    f[size_t(axis)] = factor;
  }
  return f;
}

size_t split_rank(const std::vector<int64_t>& factors) {
  size_t n = factors.size();
  for (int64_t f : factors) n += f > 0 ? 1 : 0;
  return n;
}

template <typename T>
std::vector<T> permuted(const TiledLayout& l, std::vector<T> v) {
  if (l.perm.empty()) return v;
  INGOT_ICHECK(l.perm.size() == v.size(), "tiled layout: the permutation has {} dims, not {}",
               l.perm.size(), v.size());
  std::vector<T> out;
  std::vector<bool> seen(v.size(), false);
  for (int64_t p : l.perm) {
    INGOT_ICHECK(p >= 0 && size_t(p) < v.size() && !seen[size_t(p)],
                 "tiled layout: the permutation is not one of {} dims", v.size());
    seen[size_t(p)] = true;
    out.push_back(v[size_t(p)]);
  }
  return out;
}

}  // namespace

std::vector<int64_t> TiledLayout::apply_shape(const std::vector<int64_t>& shape) const {
  std::vector<int64_t> f = factors_of(*this, shape.size()), split;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (f[d] == 0) {
      split.push_back(shape[d]);
      continue;
    }
    split.push_back((shape[d] + f[d] - 1) / f[d]);
    split.push_back(f[d]);
  }
  return permuted(*this, split);
}

std::vector<Expr> TiledLayout::apply_index(const std::vector<Expr>& index) const {
  std::vector<int64_t> f = factors_of(*this, index.size());
  std::vector<Expr> split;
  for (size_t d = 0; d < index.size(); ++d) {
    if (f[d] == 0) {
      split.push_back(index[d]);
      continue;
    }
    split.push_back(floordiv(index[d], make_const(index[d].dtype(), double(f[d]))));
    split.push_back(floormod(index[d], make_const(index[d].dtype(), double(f[d]))));
  }
  return permuted(*this, split);
}

std::vector<int64_t> TiledLayout::inverse_index(const std::vector<int64_t>& new_index) const {
  std::vector<int64_t> split(new_index.size());
  if (perm.empty()) {
    split = new_index;
  } else {
    for (size_t d = 0; d < perm.size(); ++d) split[size_t(perm[d])] = new_index[d];
  }
  std::vector<int64_t> out;
  size_t s = 0;
  // The original rank: the split rank less one per split.
  size_t rank = split.size() - splits.size() / 2;
  std::vector<int64_t> f = factors_of(*this, rank);
  for (size_t d = 0; d < rank; ++d) {
    if (f[d] == 0) {
      out.push_back(split[s++]);
      continue;
    }
    out.push_back(split[s] * f[d] + split[s + 1]);
    s += 2;
  }
  return out;
}

std::vector<uint8_t> TiledLayout::relayout(const uint8_t* data, const std::vector<int64_t>& shape,
                                           int64_t elem_bytes) const {
  int64_t n_out = elem_bytes;
  for (int64_t d : apply_shape(shape)) n_out *= d;
  std::vector<uint8_t> out(size_t(n_out), 0);  // the padding stays zero
  relayout_into(data, shape, elem_bytes, out.data());
  return out;
}

void TiledLayout::relayout_into(const uint8_t* data, const std::vector<int64_t>& shape,
                                int64_t elem_bytes, uint8_t* out) const {
  const std::vector<int64_t> out_shape = apply_shape(shape);
  const std::vector<int64_t> f = factors_of(*this, shape.size());
  INGOT_ICHECK(split_rank(f) == out_shape.size(), "tiled layout: rank mismatch");
  if (shape.empty()) {  // a scalar
    std::memcpy(out, data, size_t(elem_bytes));
    return;
  }
  // Element strides of the new layout, per split dim (before the permutation).
  std::vector<int64_t> new_stride(out_shape.size(), 1);
  for (size_t d = out_shape.size() - 1; d-- > 0;)
    new_stride[d] = new_stride[d + 1] * out_shape[d + 1];
  std::vector<int64_t> split_stride(out_shape.size());
  for (size_t d = 0; d < out_shape.size(); ++d)
    split_stride[perm.empty() ? d : size_t(perm[d])] = new_stride[d];
  // Per original dim and index: its part of the element's new offset.
  std::vector<std::vector<int64_t>> part(shape.size());
  size_t s = 0;
  for (size_t d = 0; d < shape.size(); ++d) {
    part[d].resize(size_t(shape[d]));
    for (int64_t i = 0; i < shape[d]; ++i)
      part[d][size_t(i)] = f[d] == 0
                               ? i * split_stride[s]
                               : (i / f[d]) * split_stride[s] + (i % f[d]) * split_stride[s + 1];
    s += f[d] == 0 ? 1 : 2;
  }
  int64_t n_in = 1;
  for (int64_t d : shape) n_in *= d;
  if (n_in == 0) return;
  // The source in row-major order, an odometer over its dims.
  std::vector<int64_t> idx(shape.size(), 0);
  int64_t base = 0;  // the new offset of idx without its last dim's part
  for (size_t d = 0; d + 1 < shape.size(); ++d) base += part[d][0];
  const size_t last = shape.size() - 1;
  // A source row in runs that stay contiguous in the new layout (a panel's width, or the whole
  // row when the last dim keeps its place), each one copy.
  const std::vector<int64_t>& inner = part[last];
  std::vector<std::pair<int64_t, int64_t>> runs;  // (first index, length)
  for (int64_t i = 0; i < shape[last]; ++i) {
    if (!runs.empty() && inner[size_t(i)] == inner[size_t(i - 1)] + 1) {
      ++runs.back().second;
    } else {
      runs.push_back({i, 1});
    }
  }
  for (int64_t flat = 0; flat < n_in; flat += shape[last]) {
    for (auto [i, len] : runs)
      std::memcpy(out + (base + inner[size_t(i)]) * elem_bytes, data + (flat + i) * elem_bytes,
                  size_t(len * elem_bytes));
    for (size_t d = last; d-- > 0;) {  // next row
      base -= part[d][size_t(idx[d])];
      if (++idx[d] < shape[d]) {
        base += part[d][size_t(idx[d])];
        break;
      }
      idx[d] = 0;
      base += part[d][0];
    }
  }
}

}  // namespace ingot::tir
