// Compute rule of Gather: out[pre, q, post] = data[pre, indices[q], post]; negative indices
// count from the end of the axis. An index still outside the axis (ONNX leaves it undefined, ONNX
// Runtime refuses it) is clamped to the axis, as TVM's `take` does in its default clip mode and as
// GatherElements, GatherND and the Scatter ops here do: a bad token id from a client reads the
// nearest row instead of memory past the tensor.
#include "lower/compute/common.h"
#include "lower/compute/compute.h"
#include "support/error.h"

namespace ingot::lower {

using namespace tir;

Stmt compute_gather(const graph::Node& node, const std::vector<Buffer>& inputs,
                    const std::vector<Buffer>& outputs) {
  const Buffer& data = inputs.at(0);
  const Buffer& indices = inputs.at(1);
  const Buffer& y = outputs.at(0);
  check_dtype(node, data, DTypeClass::kAny);
  if (!indices->dtype.is_int())
    fail_user("{}: indices must be int32 or int64, got {}", node_label(node), indices->dtype.str());
  int rank = data.ndim();
  int axis = node_axis(node, 0, rank);
  int q = indices.ndim();
  int64_t len = const_shape(data)[axis];

  return loop_nest(y->shape, "i", [&](const Index& idx) {
    Index qi(idx.begin() + axis, idx.begin() + axis + q);
    Expr k = cast(DataType::i64(), indices.load(qi));
    k = select(k < i64(0), k + i64(len), k);
    if (len > 0) k = min(max(k, i64(0)), i64(len - 1));
    Index di(idx.begin(), idx.begin() + axis);
    di.push_back(k);
    di.insert(di.end(), idx.begin() + axis + q, idx.end());
    return BufferStore::make(y, data.load(di), idx);
  });
}

}  // namespace ingot::lower
