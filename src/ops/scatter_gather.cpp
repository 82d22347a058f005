// Index-tuple gathers and scatters: GatherND (batch_dims), ScatterND and ScatterElements (the
// deprecated Scatter imports as ScatterElements), with reduction none/add/mul/max/min.
#include <algorithm>

#include "ops/op_families.h"
#include "ops/shape_util.h"
#include "support/error.h"

namespace ingot::ops::detail {

namespace {

void require_int_indices(const Node& n, const TensorType& t) {
  if (t.dtype != DType::kI64 && t.dtype != DType::kI32)
    fail_user("{}: input 'indices' must be int32 or int64, got {}", n.describe(), t.str());
}

void check_dims_equal(const Node& n, const Dim& a, const Dim& b, const std::string& what) {
  merge_dims(n, a, b, what);
}

// The index tuple length k = indices.shape[-1] (static), checked against data's rank.
int64_t tuple_length(const Node& n, const TensorType& data, const TensorType& idx, int64_t b) {
  require_rank_at_least(n, idx, 1, "indices");
  const Dim& last = idx.shape.back();
  if (!last.is_static())
    fail_user("{}: the last dim of 'indices' must be static, got '{}'", n.describe(), last.str());
  if (last.value < 1 || last.value > data.rank() - b)
    fail_user("{}: index tuples of length {} do not fit data {} (batch_dims {})", n.describe(),
              last.value, data.str(), b);
  return last.value;
}

std::vector<TensorType> infer_gather_nd(Node& n) {
  const TensorType& data = input_type(n, 0, "data");
  const TensorType& idx = input_type(n, 1, "indices");
  require_int_indices(n, idx);
  int64_t b = n.attrs.get_int("batch_dims", 0);
  if (b < 0 || b >= std::min<int64_t>(data.rank(), idx.rank()))
    fail_user("{}: attribute 'batch_dims' = {} must be in [0, {})", n.describe(), b,
              std::min<int64_t>(data.rank(), idx.rank()));
  n.attrs.set("batch_dims", b);
  int64_t k = tuple_length(n, data, idx, b);
  TensorType out{data.dtype, {}};
  for (int64_t d = 0; d < idx.rank() - 1; ++d) {
    Dim dim = idx.shape[size_t(d)];
    if (d < b) dim = merge_dims(n, data.shape[size_t(d)], dim, "batch dims of data and indices");
    out.shape.push_back(dim);
  }
  for (int64_t d = b + k; d < data.rank(); ++d) out.shape.push_back(data.shape[size_t(d)]);
  return {out};
}

void normalize_reduction(Node& n) {
  std::string red = n.attrs.get_string("reduction", "none");
  if (red != "none" && red != "add" && red != "mul" && red != "max" && red != "min")
    fail_user("{}: attribute 'reduction' = '{}' is not supported (valid: none, add, mul, max, min)",
              n.describe(), red);
  n.attrs.set("reduction", red);
}

std::vector<TensorType> infer_scatter_nd(Node& n) {
  const TensorType& data = input_type(n, 0, "data");
  const TensorType& idx = input_type(n, 1, "indices");
  const TensorType& upd = input_type(n, 2, "updates");
  require_int_indices(n, idx);
  require_same_dtype(n, data, upd, "data", "updates");
  normalize_reduction(n);
  int64_t k = tuple_length(n, data, idx, 0);
  // updates: indices.shape[:-1] ++ data.shape[k:]
  int64_t want = idx.rank() - 1 + data.rank() - k;
  if (upd.rank() != want)
    fail_user("{}: 'updates' {} must have rank {} for data {} and indices {}", n.describe(),
              upd.str(), want, data.str(), idx.str());
  for (int64_t d = 0; d < idx.rank() - 1; ++d)
    check_dims_equal(n, upd.shape[size_t(d)], idx.shape[size_t(d)], "dims of updates and indices");
  for (int64_t d = k; d < data.rank(); ++d)
    check_dims_equal(n, upd.shape[size_t(idx.rank() - 1 + d - k)], data.shape[size_t(d)],
                     "dims of updates and data");
  return {data};
}

std::vector<TensorType> infer_scatter_elements(Node& n) {
  const TensorType& data = input_type(n, 0, "data");
  const TensorType& idx = input_type(n, 1, "indices");
  const TensorType& upd = input_type(n, 2, "updates");
  require_int_indices(n, idx);
  require_same_dtype(n, data, upd, "data", "updates");
  normalize_reduction(n);
  require_rank_at_least(n, data, 1, "data");
  int64_t axis = normalize_axis(n, n.attrs.get_int("axis", 0), data.rank(), "axis");
  n.attrs.set("axis", axis);
  if (idx.rank() != data.rank() || upd.rank() != data.rank())
    fail_user("{}: data {}, indices {} and updates {} must have the same rank", n.describe(),
              data.str(), idx.str(), upd.str());
  for (int64_t d = 0; d < idx.rank(); ++d)
    check_dims_equal(n, idx.shape[size_t(d)], upd.shape[size_t(d)], "dims of indices and updates");
  return {data};
}

}  // namespace

void add_scatter_gather_ops(std::vector<OpInfo>& t) {
  OpInfo g = make_data_movement_op(OpKind::GatherND, "GatherND", {{"batch_dims", AttrType::kInt}},
                                   infer_gather_nd);
  g.min_inputs = g.max_inputs = 2;
  t.push_back(g);

  OpInfo snd = make_data_movement_op(OpKind::ScatterND, "ScatterND",
                                     {{"reduction", AttrType::kString}}, infer_scatter_nd);
  snd.pattern = PatternKind::kOpaque;  // a copy, then updates in order
  snd.min_inputs = snd.max_inputs = 3;
  t.push_back(snd);

  OpInfo se = make_data_movement_op(OpKind::ScatterElements, "ScatterElements",
                                    {{"axis", AttrType::kInt}, {"reduction", AttrType::kString}},
                                    infer_scatter_elements);
  se.pattern = PatternKind::kOpaque;
  se.min_inputs = se.max_inputs = 3;
  t.push_back(se);
}

}  // namespace ingot::ops::detail
