// Compute rules of GatherND (batch_dims) and of ScatterND / ScatterElements: a copy of data,
// then one serial pass over the updates in order (so repeated indices combine as the ONNX
// reference does: the last write wins, or the reduction accumulates). Negative indices count
// from the end; out-of-range indices are clamped so no access leaves the buffer.
#include "lower/compute/common.h"
#include "lower/compute/compute.h"
#include "support/error.h"

namespace ingot::lower {

using namespace tir;

namespace {

// indices value -> a valid position along an axis of length `len` (symbolic or not).
Expr wrap_index(Expr k, const Expr& len) {
  k = cast(DataType::i64(), k);
  k = select(k < i64(0), k + len, k);
  return max(min(k, len - i64(1)), i64(0));
}
Expr wrap_index(Expr k, int64_t len) {
  return wrap_index(std::move(k), i64(len));
}

void check_indices(const graph::Node& node, const Buffer& indices) {
  if (!indices->dtype.is_int())
    fail_user("{}: indices must be int32 or int64, got {}", node_label(node), indices->dtype.str());
}

Expr combine(const std::string& reduction, Expr old, Expr upd) {
  if (reduction == "add") return old + upd;
  if (reduction == "mul") return old * upd;
  if (reduction == "max") return max(old, upd);
  if (reduction == "min") return min(old, upd);
  return upd;
}

Stmt copy_data(const Buffer& data, const Buffer& y) {
  return loop_nest(y->shape, "i",
                   [&](const Index& i) { return BufferStore::make(y, data.load(i), i); });
}

}  // namespace

Stmt compute_gather_nd(const graph::Node& node, const std::vector<Buffer>& inputs,
                       const std::vector<Buffer>& outputs) {
  const Buffer& data = inputs.at(0);
  const Buffer& indices = inputs.at(1);
  const Buffer& y = outputs.at(0);
  check_dtype(node, data, DTypeClass::kAny);
  check_indices(node, indices);
  // Symbolic dims (NonZero's count of index rows) are fine; the index depth k is static.
  const std::vector<Expr>& ds = data->shape;
  int b = int(node.attrs.get_int("batch_dims", 0));
  int q = int(indices.ndim());
  int64_t k = 0;
  INGOT_ICHECK(is_const_int(indices->shape.back(), &k), "{}: a symbolic index depth",
               node_label(node));
  return loop_nest(Extents(y->shape), "i", [&](const Index& o) {
    Index di(o.begin(), o.begin() + b);
    Index ii(o.begin(), o.begin() + q - 1);
    ii.push_back(i64(0));
    for (int j = 0; j < k; ++j) {
      ii.back() = i64(j);
      di.push_back(wrap_index(indices.load(ii), ds[size_t(b + j)]));
    }
    di.insert(di.end(), o.begin() + q - 1, o.end());
    return BufferStore::make(y, data.load(di), o);
  });
}

Stmt compute_scatter_nd(const graph::Node& node, const std::vector<Buffer>& inputs,
                        const std::vector<Buffer>& outputs) {
  const Buffer& data = inputs.at(0);
  const Buffer& indices = inputs.at(1);
  const Buffer& updates = inputs.at(2);
  const Buffer& y = outputs.at(0);
  check_dtype(node, data, DTypeClass::kAny);
  check_indices(node, indices);
  std::vector<int64_t> ds = const_shape(data), is = const_shape(indices);
  int q = int(is.size()), k = int(is.back());
  std::string reduction = node.attrs.get_string("reduction", "none");
  Stmt scatter = serial_nest(updates->shape, "u", [&](const Index& u) {
    Index ii(u.begin(), u.begin() + q - 1), target;
    ii.push_back(i64(0));
    for (int j = 0; j < k; ++j) {
      ii.back() = i64(j);
      target.push_back(wrap_index(indices.load(ii), ds[size_t(j)]));
    }
    target.insert(target.end(), u.begin() + q - 1, u.end());
    return BufferStore::make(y, combine(reduction, y.load(target), updates.load(u)), target);
  });
  return SeqStmt::make({copy_data(data, y), scatter});
}

Stmt compute_scatter_elements(const graph::Node& node, const std::vector<Buffer>& inputs,
                              const std::vector<Buffer>& outputs) {
  const Buffer& data = inputs.at(0);
  const Buffer& indices = inputs.at(1);
  const Buffer& updates = inputs.at(2);
  const Buffer& y = outputs.at(0);
  check_dtype(node, data, DTypeClass::kAny);
  check_indices(node, indices);
  int axis = node_axis(node, 0, data.ndim());
  int64_t len = const_shape(data)[size_t(axis)];
  std::string reduction = node.attrs.get_string("reduction", "none");
  Stmt scatter = serial_nest(indices->shape, "u", [&](const Index& u) {
    Index target = u;
    target[size_t(axis)] = wrap_index(indices.load(u), len);
    return BufferStore::make(y, combine(reduction, y.load(target), updates.load(u)), target);
  });
  return SeqStmt::make({copy_data(data, y), scatter});
}

}  // namespace ingot::lower
