// Compute rules of the generators (ConstantOfShape, Size, Range) and the index-mapping ops
// (Slice, Expand, Tile): each output element reads at most one input element.
#include "lower/compute/common.h"
#include "lower/compute/compute.h"
#include "support/error.h"

namespace ingot::lower {

using namespace tir;

Stmt compute_constant_of_shape(const graph::Node& node, const std::vector<Buffer>&,
                               const std::vector<Buffer>& outputs) {
  const Buffer& y = outputs.at(0);
  check_dtype(node, y, DTypeClass::kAny);
  Expr v = make_const(y->dtype, node.attrs.get_float("value", 0.0));
  return loop_nest(y->shape, "i", [&](const Index& idx) { return BufferStore::make(y, v, idx); });
}

Stmt compute_size(const graph::Node&, const std::vector<Buffer>& inputs,
                  const std::vector<Buffer>& outputs) {
  const Buffer& y = outputs.at(0);
  Expr n = num_elements(inputs.at(0));
  int64_t c = 0;
  return BufferStore::make(
      y, is_const_int(n, &c) ? make_const(y->dtype, double(c)) : cast(y->dtype, n),
      scalar_index(y));
}

// out[i] = start + i * delta, in the output dtype.
Stmt compute_range(const graph::Node& node, const std::vector<Buffer>& inputs,
                   const std::vector<Buffer>& outputs) {
  const Buffer& y = outputs.at(0);
  check_dtype(node, y, DTypeClass::kNumeric);
  Expr start = inputs.at(0).load(scalar_index(inputs.at(0)));
  Expr delta = inputs.at(2).load(scalar_index(inputs.at(2)));
  return loop_nest(y->shape, "i", [&](const Index& idx) {
    // float16 in float32: start + i * delta rounded once.
    DataType acc = accum_dtype(y->dtype);
    return BufferStore::make(y, cast(y->dtype, widen(start) + cast(acc, idx[0]) * widen(delta)),
                             idx);
  });
}

// out[i] = x[starts[d] + i[d] * steps[d]] (attributes normalised to one entry per dim).
Stmt compute_slice(const graph::Node& node, const std::vector<Buffer>& inputs,
                   const std::vector<Buffer>& outputs) {
  const Buffer& x = inputs.at(0);
  const Buffer& y = outputs.at(0);
  check_dtype(node, x, DTypeClass::kAny);
  std::vector<int64_t> starts = node.attrs.get_ints("starts"), steps = node.attrs.get_ints("steps");
  INGOT_ICHECK(int(starts.size()) == x.ndim() && int(steps.size()) == x.ndim(),
               "{}: slice attributes not normalised", node_label(node));
  return loop_nest(y->shape, "i", [&](const Index& idx) {
    Index xi;
    for (int d = 0; d < x.ndim(); ++d) {
      Expr e = idx[d];
      if (steps[d] != 1) e = e * i64(steps[d]);
      if (starts[d] < 0) {  // a symbolic dim's start from its end (ops/slice_tile.cpp)
        e = e + max(x->shape[d] + i64(starts[d]), i64(0));
      } else if (starts[d] != 0) {
        e = e + i64(starts[d]);
      }
      xi.push_back(e);
    }
    return BufferStore::make(y, x.load(xi), idx);
  });
}

Stmt compute_slice_values(const graph::Node& node, const std::vector<Buffer>& inputs,
                          const std::vector<Buffer>& outputs, const std::vector<Expr>& starts,
                          const std::vector<Expr>& steps) {
  const Buffer& x = inputs.at(0);
  const Buffer& y = outputs.at(0);
  check_dtype(node, x, DTypeClass::kAny);
  INGOT_ICHECK(int(starts.size()) == x.ndim() && int(steps.size()) == x.ndim(),
               "{}: one start and step per dim", node_label(node));
  return loop_nest(y->shape, "i", [&](const Index& idx) {
    Index xi;
    for (int d = 0; d < x.ndim(); ++d) xi.push_back(starts[size_t(d)] + idx[d] * steps[size_t(d)]);
    return BufferStore::make(y, x.load(xi), idx);
  });
}

Stmt compute_expand(const graph::Node& node, const std::vector<Buffer>& inputs,
                    const std::vector<Buffer>& outputs) {
  const Buffer& x = inputs.at(0);
  const Buffer& y = outputs.at(0);
  check_dtype(node, x, DTypeClass::kAny);
  return loop_nest(y->shape, "i", [&](const Index& idx) {
    return BufferStore::make(y, x.load(broadcast_index(x, idx)), idx);
  });
}

// out[i] = x[i mod dims(x)].
Stmt compute_tile(const graph::Node& node, const std::vector<Buffer>& inputs,
                  const std::vector<Buffer>& outputs) {
  const Buffer& x = inputs.at(0);
  const Buffer& y = outputs.at(0);
  check_dtype(node, x, DTypeClass::kAny);
  if (is_symbolic(x) || is_symbolic(y)) {  // run-time repeats (value symbols)
    return loop_nest(y->shape, "i", [&](const Index& idx) {
      Index xi;
      for (size_t d = 0; d < x->shape.size(); ++d) xi.push_back(floormod(idx[d], x->shape[d]));
      return BufferStore::make(y, x.load(xi), idx);
    });
  }
  std::vector<int64_t> xs = const_shape(x), ys = const_shape(y);
  return loop_nest(ys, "i", [&](const Index& idx) {
    Index xi;
    for (size_t d = 0; d < xs.size(); ++d)
      xi.push_back(xs[d] == ys[d] ? idx[d] : floormod(idx[d], i64(xs[d])));
    return BufferStore::make(y, x.load(xi), idx);
  });
}

}  // namespace ingot::lower
