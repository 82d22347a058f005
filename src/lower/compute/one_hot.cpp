// Compute rule of OneHot: out[..., d, ...] = values[1] where d equals the index (negative
// indices count from depth; out-of-range ones match nothing), values[0] elsewhere.
#include "lower/compute/common.h"
#include "lower/compute/compute.h"
#include "support/error.h"

namespace ingot::lower {

using namespace tir;

Stmt compute_one_hot(const graph::Node& node, const std::vector<Buffer>& inputs,
                     const std::vector<Buffer>& outputs) {
  const Buffer& indices = inputs.at(0);
  const Buffer& values = inputs.at(2);
  const Buffer& y = outputs.at(0);
  check_dtype(node, indices, DTypeClass::kNumeric);
  int axis = node_axis(node, -1, y.ndim());
  const Expr depth = y->shape[size_t(axis)];  // static, or the caller's (a value symbol)
  Index off = {i64(0)}, on = {i64(1)};
  if (values.ndim() == 0) off = on = {};  // not reached: inference requires 2 values
  return loop_nest(y->shape, "i", [&](const Index& o) {
    Index ii = o;
    ii.erase(ii.begin() + axis);
    Expr v = indices.load(ii);
    DataType it = v.dtype().is_float() ? v.dtype() : DataType::i64();
    v = cast(it, v);
    v = select(v < make_const(it, 0), v + cast(it, depth), v);
    Expr hit = v == cast(it, o[size_t(axis)]);
    return BufferStore::make(y, select(hit, values.load(on), values.load(off)), o);
  });
}

}  // namespace ingot::lower
