// PoolWindow (see pool_window.h).
#include "lower/compute/pool_window.h"

#include <algorithm>

#include "lower/compute/common.h"
#include "support/error.h"
#include "tir/op.h"

namespace ingot::lower {

using namespace tir;

namespace {

Expr conj(const Expr& a, const Expr& b) {
  return a.defined() ? (a && b) : b;
}

}  // namespace

PoolWindow::PoolWindow(const graph::Node& node, std::vector<int64_t> in_, std::vector<int64_t> out_)
    : rank(int(in_.size())), in(std::move(in_)), out(std::move(out_)) {
  size_t k = size_t(rank);
  kernel = node.attrs.get_ints("kernel_shape");
  strides = node.attrs.get_ints("strides", std::vector<int64_t>(k, 1));
  dilations = node.attrs.get_ints("dilations", std::vector<int64_t>(k, 1));
  pads = node.attrs.get_ints("pads", std::vector<int64_t>(2 * k, 0));
  include_pad = node.attrs.get_int("count_include_pad", 0) != 0;
  INGOT_ICHECK(out.size() == k && kernel.size() == k && strides.size() == k &&
                   dilations.size() == k && pads.size() == 2 * k,
               "{}: pooling attributes do not match the spatial rank {}", node_label(node), k);
}

PoolWindow::Tap PoolWindow::tap(int d, const Expr& o, const Expr& w) const {
  size_t i = size_t(d), k = size_t(rank);
  Tap t;
  t.index = o * i64(strides[i]) - i64(pads[i]) + w * i64(dilations[i]);
  int64_t max_index = (out[i] - 1) * strides[i] - pads[i] + (kernel[i] - 1) * dilations[i];
  if (pads[i] > 0) t.valid = conj(t.valid, t.index >= i64(0));
  if (max_index >= in[i]) t.valid = conj(t.valid, t.index < i64(in[i]));
  if (max_index >= in[i] + pads[k + i])
    t.in_padded = conj(t.in_padded, t.index < i64(in[i] + pads[k + i]));
  return t;
}

std::pair<int64_t, int64_t> PoolWindow::interior(int d) const {
  size_t i = size_t(d);
  int64_t s = strides[i];
  int64_t lo = (pads[i] + s - 1) / s;                                   // o * s >= pad
  int64_t last = in[i] - 1 - (kernel[i] - 1) * dilations[i] + pads[i];  // o * s <= last
  int64_t hi = last < 0 ? 0 : last / s + 1;
  lo = std::min(lo, out[i]);
  hi = std::max(lo, std::min(hi, out[i]));
  return {lo, hi};
}

}  // namespace ingot::lower
