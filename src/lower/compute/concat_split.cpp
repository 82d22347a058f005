// Compute rules of Concat (one copy nest per input, at its offset along the axis) and Split
// (one copy nest per output).
#include "lower/compute/common.h"
#include "lower/compute/compute.h"
#include "support/error.h"

namespace ingot::lower {

using namespace tir;

namespace {

Index shifted(Index idx, int axis, int64_t offset) {
  if (offset != 0) idx[axis] = idx[axis] + i64(offset);
  return idx;
}

}  // namespace

Stmt compute_concat(const graph::Node& node, const std::vector<Buffer>& inputs,
                    const std::vector<Buffer>& outputs) {
  const Buffer& y = outputs.at(0);
  int axis = node_axis(node, 0, y.ndim());
  std::vector<Stmt> parts;
  int64_t offset = 0;
  for (const Buffer& x : inputs) {
    check_dtype(node, x, DTypeClass::kAny);
    std::vector<int64_t> xs = const_shape(x);
    if (num_elements(xs) > 0) {
      parts.push_back(loop_nest(xs, "i", [&](const Index& idx) {
        return BufferStore::make(y, x.load(idx), shifted(idx, axis, offset));
      }));
    }
    offset += xs[axis];
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
  int64_t offset = 0;
  for (const Buffer& y : outputs) {
    std::vector<int64_t> ys = const_shape(y);
    if (num_elements(ys) > 0) {
      parts.push_back(loop_nest(ys, "i", [&](const Index& idx) {
        return BufferStore::make(y, x.load(shifted(idx, axis, offset)), idx);
      }));
    }
    offset += ys[axis];
  }
  if (parts.empty()) return Evaluate::make(i64(0));
  return SeqStmt::make(parts);
}

}  // namespace ingot::lower
