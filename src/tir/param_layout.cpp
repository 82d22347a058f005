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
  std::vector<int64_t> out_shape = apply_shape(shape);
  INGOT_ICHECK(split_rank(factors_of(*this, shape.size())) == out_shape.size(),
               "tiled layout: rank mismatch");
  int64_t n = 1;
  for (int64_t d : out_shape) n *= d;
  std::vector<uint8_t> out(size_t(n * elem_bytes), 0);
  std::vector<int64_t> idx(out_shape.size(), 0);
  for (int64_t flat = 0; flat < n; ++flat) {
    std::vector<int64_t> src = inverse_index(idx);
    bool inside = true;
    int64_t off = 0;
    for (size_t d = 0; d < shape.size(); ++d) {
      inside = inside && src[d] < shape[d];
      off = off * shape[d] + src[d];
    }
    if (inside)
      std::memcpy(out.data() + flat * elem_bytes, data + off * elem_bytes, size_t(elem_bytes));
    for (size_t d = out_shape.size(); d-- > 0;) {  // next index, row-major
      if (++idx[d] < out_shape[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

}  // namespace ingot::tir
