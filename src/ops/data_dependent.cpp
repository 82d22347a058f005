// Ops whose output size is decided by their input *data*: NonZero (the coordinates of the
// non-zero elements), Compress (the slices a boolean condition keeps), Unique (the distinct
// elements or slices) and NonMaxSuppression (the boxes it selects). Inference names the
// data-dependent dim with a value symbol (ops/value_symbols.h) bounded by the most the data can
// give; the artifact sizes it at that bound before the run, and the kernel that counts writes
// the true size into the symbol during the run (docs/dynamic-shapes.md, "Data-dependent
// outputs").
#include "ops/op_families.h"
#include "ops/shape_util.h"
#include "ops/value_symbols.h"
#include "support/error.h"

namespace ingot::ops::detail {

namespace {

// NonZero(X): int64 [rank(X), count], the indices of X's non-zero elements in row-major order.
std::vector<TensorType> infer_non_zero(Node& n) {
  const TensorType& x = input_type(n, 0, "X");
  if (x.rank() == 0)
    fail_user("{}: input 'X' must have at least one dim, got a scalar", n.describe());
  return {TensorType{DType::kI64, {Dim::fixed(x.rank()), value_dim(n, 0, 1)}}};
}

// Compress(input, condition, axis): the slices along `axis` (of the flattened input without it)
// whose condition is true; a condition shorter than the axis keeps none past its end.
std::vector<TensorType> infer_compress(Node& n) {
  const TensorType& x = input_type(n, 0, "input");
  const TensorType& c = input_type(n, 1, "condition");
  if (c.dtype != DType::kBool || c.rank() != 1)
    fail_user("{}: input 'condition' must be a 1-D bool tensor, got {}", n.describe(), c.str());
  if (!n.attrs.has("axis")) return {TensorType{x.dtype, {value_dim(n, 0, 0)}}};
  if (x.rank() == 0) fail_user("{}: cannot compress a scalar along an axis", n.describe());
  int64_t axis = normalize_axis(n, n.attrs.get_int("axis", 0), x.rank(), "axis");
  n.attrs.set("axis", axis);
  TensorType out = x;
  out.shape[size_t(axis)] = value_dim(n, 0, int(axis));
  return {out};
}

// Unique(X, axis, sorted): Y, the distinct elements of X (flattened) or slices along `axis`,
// ascending or in order of first occurrence; indices (each one's first position), inverse_indices
// (each element's or slice's position in Y) and counts. Every output present is computed.
std::vector<TensorType> infer_unique(Node& n) {
  const TensorType& x = input_type(n, 0, "X");
  if (n.outputs.size() > 4)
    fail_user("{}: expects at most 4 outputs, got {}", n.describe(), n.outputs.size());
  const int64_t sorted = n.attrs.get_int("sorted", 1);
  if (sorted != 0 && sorted != 1)
    fail_user("{}: attribute 'sorted' must be 0 or 1, got {}", n.describe(), sorted);
  TensorType y{x.dtype, {value_dim(n, 0, 0)}};
  Dim positions = dim_product(x.shape);
  if (n.attrs.has("axis")) {
    if (x.rank() == 0) fail_user("{}: cannot take unique slices of a scalar", n.describe());
    int64_t axis = normalize_axis(n, n.attrs.get_int("axis", 0), x.rank(), "axis");
    n.attrs.set("axis", axis);
    y = x;
    y.shape[size_t(axis)] = value_dim(n, 0, int(axis));
    positions = x.shape[size_t(axis)];
  }
  const Dim count = y.shape[size_t(n.attrs.get_int("axis", 0))];
  std::vector<TensorType> out{y, TensorType{DType::kI64, {count}},
                              TensorType{DType::kI64, {positions}},
                              TensorType{DType::kI64, {count}}};
  out.resize(n.outputs.size());
  return out;
}

// NonMaxSuppression(boxes [B, N, 4], scores [B, C, N], max_output_boxes_per_class,
// iou_threshold, score_threshold): int64 [selected, 3] rows (batch, class, box).
std::vector<TensorType> infer_nms(Node& n) {
  const TensorType& boxes = input_type(n, 0, "boxes");
  const TensorType& scores = input_type(n, 1, "scores");
  if (boxes.dtype != DType::kF32 || scores.dtype != DType::kF32)
    fail_user("{}: boxes and scores must be float32, got {} and {}", n.describe(), boxes.str(),
              scores.str());
  if (boxes.rank() != 3 || !(boxes.shape[2] == Dim::fixed(4)) || scores.rank() != 3 ||
      !(boxes.shape[0] == scores.shape[0]) || !(boxes.shape[1] == scores.shape[2]))
    fail_user("{}: boxes must be [B, N, 4] and scores [B, C, N], got {} and {}", n.describe(),
              boxes.str(), scores.str());
  const char* what[] = {"", "", "max_output_boxes_per_class", "iou_threshold", "score_threshold"};
  for (size_t i = 2; i < n.inputs.size(); ++i) {
    const graph::Value* v = n.inputs[i];
    if (v == nullptr) continue;
    const DType want = i == 2 ? DType::kI64 : DType::kF32;
    if (v->type.dtype != want || !v->type.is_static() || v->type.num_elements() != 1)
      fail_user("{}: input '{}' must be one {} value, got {}", n.describe(), what[i],
                i == 2 ? "int64" : "float32", v->type.str());
  }
  const int64_t center = n.attrs.get_int("center_point_box", 0);
  if (center != 0 && center != 1)
    fail_user("{}: attribute 'center_point_box' must be 0 or 1, got {}", n.describe(), center);
  return {TensorType{DType::kI64, {value_dim(n, 0, 0), Dim::fixed(3)}}};
}

}  // namespace

void add_data_dependent_ops(std::vector<OpInfo>& t) {
  OpInfo nz = make_data_movement_op(OpKind::NonZero, "NonZero", {}, infer_non_zero);
  nz.min_inputs = nz.max_inputs = 1;
  t.push_back(nz);
  OpInfo cp = make_data_movement_op(OpKind::Compress, "Compress", {{"axis", AttrType::kInt}},
                                    infer_compress);
  cp.min_inputs = cp.max_inputs = 2;
  t.push_back(cp);
  OpInfo un =
      make_data_movement_op(OpKind::Unique, "Unique",
                            {{"axis", AttrType::kInt}, {"sorted", AttrType::kInt}}, infer_unique);
  un.min_inputs = un.max_inputs = 1;
  un.num_outputs = -1;  // Y, and any of indices, inverse_indices, counts
  t.push_back(un);
  OpInfo nms = make_data_movement_op(OpKind::NonMaxSuppression, "NonMaxSuppression",
                                     {{"center_point_box", AttrType::kInt}}, infer_nms);
  nms.min_inputs = 2;
  nms.max_inputs = 5;
  t.push_back(nms);
}

}  // namespace ingot::ops::detail
