// TensorScatter (opset 24): a KV-cache update. present_cache is past_cache with update written
// along `axis` (the sequence dim, not the batch dim 0) from write_indices[batch] on (0 when
// omitted); mode "circular" wraps positions modulo the cache length. Inference makes `axis`
// non-negative and `mode` explicit.
#include "ops/op_families.h"
#include "ops/shape_util.h"
#include "support/error.h"

namespace ingot::ops::detail {

namespace {

std::vector<TensorType> infer_tensor_scatter(Node& n) {
  const TensorType& past = input_type(n, 0, "past_cache");
  const TensorType& upd = input_type(n, 1, "update");
  require_same_dtype(n, past, upd, "past_cache", "update");
  if (past.rank() != upd.rank())
    fail_user("{}: inputs 'past_cache' {} and 'update' {} must have the same rank", n.describe(),
              past.str(), upd.str());
  int64_t rank = past.rank();
  int64_t axis = normalize_axis(n, n.attrs.get_int("axis", -2), rank, "axis");
  if (axis == 0)
    fail_user("{}: attribute 'axis' must not be the batch dim 0 (rank {})", n.describe(), rank);
  TensorType out = past;
  for (int64_t i = 0; i < rank; ++i) {
    const Dim& p = past.shape[size_t(i)];
    const Dim& u = upd.shape[size_t(i)];
    if (i != axis) {
      out.shape[size_t(i)] =
          merge_dims(n, p, u, fmt::format("dim {} of 'past_cache' and 'update'", i));
    } else if (p.is_static() && u.is_static() && u.value > p.value) {
      fail_user("{}: the update's sequence length {} exceeds the cache length {} (axis {})",
                n.describe(), u.value, p.value, axis);
    }
  }
  if (has_input(n, 2)) {
    const TensorType& w = n.inputs[2]->type;
    if (w.dtype != DType::kI64 || w.rank() != 1)
      fail_user("{}: input 'write_indices' {} must be int64 (batch_size)", n.describe(), w.str());
    out.shape[0] =
        merge_dims(n, out.shape[0], w.shape[0], "batch sizes of 'past_cache' and 'write_indices'");
  }
  std::string mode = n.attrs.get_string("mode", "linear");
  if (mode != "linear" && mode != "circular")
    fail_user("{}: attribute 'mode' = '{}' must be 'linear' or 'circular'", n.describe(), mode);
  n.attrs.set("axis", axis);
  n.attrs.set("mode", mode);
  return {out};
}

}  // namespace

void add_tensor_scatter_ops(std::vector<OpInfo>& t) {
  OpInfo s = make_data_movement_op(OpKind::TensorScatter, "TensorScatter",
                                   {{"axis", AttrType::kInt}, {"mode", AttrType::kString}},
                                   infer_tensor_scatter);
  s.min_inputs = 2;
  s.max_inputs = 3;
  t.push_back(s);
}

}  // namespace ingot::ops::detail
