// Compute rules of Concat (one copy nest per input, at its offset along the axis) and Split
// (one copy nest per output).
#include "lower/compute/common.h"
#include "lower/compute/compute.h"
#include "support/error.h"

namespace ingot::lower {

using namespace tir;

namespace {

Index shifted(Index idx, int axis, const Expr& offset) {
  int64_t c = 0;
  if (!is_const_int(offset, &c) || c != 0) idx[axis] = idx[axis] + offset;
  return idx;
}

// Whether a shape is known to hold no element.
bool provably_empty(const std::vector<Expr>& shape) {
  int64_t n = 0;
  return is_const_int(product(shape), &n) && n == 0;
}

Expr plus(const Expr& a, const Expr& b) {
  int64_t x = 0, y = 0;
  if (is_const_int(a, &x) && is_const_int(b, &y)) return i64(x + y);
  return is_const_int(a, &x) && x == 0 ? b : a + b;
}

}  // namespace

Stmt compute_concat(const graph::Node& node, const std::vector<Buffer>& inputs,
                    const std::vector<Buffer>& outputs) {
  const Buffer& y = outputs.at(0);
  int axis = node_axis(node, 0, y.ndim());
  std::vector<Stmt> parts;
  Expr offset = i64(0);
  for (const Buffer& x : inputs) {
    check_dtype(node, x, DTypeClass::kAny);
    const std::vector<Expr>& xs = x->shape;
    if (!provably_empty(xs)) {
      parts.push_back(loop_nest(xs, "i", [&](const Index& idx) {
        return BufferStore::make(y, x.load(idx), shifted(idx, axis, offset));
      }));
    }
    offset = plus(offset, xs[axis]);
  }
  if (parts.empty()) return Evaluate::make(i64(0));
  return SeqStmt::make(parts);
}

Stmt compute_split(const graph::Node& node, const std::vector<Buffer>& inputs,
                   const std::vector<Buffer>& outputs) {
  const Buffer& x = inputs.at(0);
  check_dtype(node, x, DTypeClass::kAny);
  int axis = node_axis(node, 0, x.ndim());
  std::vector<Stmt> parts;
  Expr offset = i64(0);
  for (const Buffer& y : outputs) {
    const std::vector<Expr>& ys = y->shape;
    if (!provably_empty(ys)) {
      parts.push_back(loop_nest(ys, "i", [&](const Index& idx) {
        return BufferStore::make(y, x.load(shifted(idx, axis, offset)), idx);
      }));
    }
    offset = plus(offset, ys[axis]);
  }
  if (parts.empty()) return Evaluate::make(i64(0));
  return SeqStmt::make(parts);
}

}  // namespace ingot::lower
