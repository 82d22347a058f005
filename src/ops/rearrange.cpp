// Element-rearranging ops: Trilu (triangle mask), EyeLike (ones on one diagonal), DepthToSpace /
// SpaceToDepth (block moves between channels and space), GatherElements (per-element gather
// along an axis) and ReverseSequence (per-batch reversal of a sequence prefix).
#include "ops/op_families.h"
#include "ops/shape_util.h"
#include "support/error.h"

namespace ingot::ops::detail {

namespace {

std::vector<TensorType> infer_trilu(Node& n) {
  const TensorType& x = input_type(n, 0, "input");
  require_rank_at_least(n, x, 2, "input");
  n.attrs.set("upper", int64_t(n.attrs.get_int("upper", 1) != 0));
  if (has_input(n, 1)) {
    const TensorType& k = input_type(n, 1, "k");
    if (k.dtype != DType::kI64 || k.num_elements() != 1)
      fail_user("{}: input 'k' must be an int64 scalar, got {}", n.describe(), k.str());
  }
  return {x};
}

int64_t static_dim(const Node& n, const TensorType& t, int64_t i) {
  if (!t.shape[size_t(i)].is_static())
    fail_user("{}: dim {} of {} must be static", n.describe(), i, t.str());
  return t.shape[size_t(i)].value;
}

std::vector<TensorType> infer_depth_space(Node& n) {
  const TensorType& x = input_type(n, 0, "input");
  if (x.rank() != 4) fail_user("{}: input must be 4-D (NCHW), got {}", n.describe(), x.str());
  int64_t b = n.attrs.get_int("blocksize", 0);
  if (b <= 0) fail_user("{}: attribute 'blocksize' must be positive, got {}", n.describe(), b);
  TensorType out = x;
  int64_t c = static_dim(n, x, 1), h = static_dim(n, x, 2), w = static_dim(n, x, 3);
  std::string mode = n.attrs.get_string("mode", "DCR");
  if (mode != "DCR" && mode != "CRD")
    fail_user("{}: attribute 'mode' must be DCR or CRD, got \"{}\"", n.describe(), mode);
  n.attrs.set("mode", mode);
  if (n.op == OpKind::DepthToSpace) {
    if (c % (b * b) != 0)
      fail_user("{}: channels {} are not divisible by blocksize^2 = {}", n.describe(), c, b * b);
    out.shape[1] = Dim::fixed(c / (b * b));
    out.shape[2] = Dim::fixed(h * b);
    out.shape[3] = Dim::fixed(w * b);
  } else {
    if (h % b != 0 || w % b != 0)
      fail_user("{}: spatial dims {}x{} are not divisible by blocksize {}", n.describe(), h, w, b);
    out.shape[1] = Dim::fixed(c * b * b);
    out.shape[2] = Dim::fixed(h / b);
    out.shape[3] = Dim::fixed(w / b);
  }
  return {out};
}

std::vector<TensorType> infer_gather_elements(Node& n) {
  const TensorType& data = input_type(n, 0, "data");
  const TensorType& idx = input_type(n, 1, "indices");
  require_rank_at_least(n, data, 1, "data");
  if (idx.dtype != DType::kI64 && idx.dtype != DType::kI32)
    fail_user("{}: input 'indices' must be int32 or int64, got {}", n.describe(), idx.str());
  if (idx.rank() != data.rank())
    fail_user("{}: inputs 'data' {} and 'indices' {} have different ranks", n.describe(),
              data.str(), idx.str());
  n.attrs.set("axis", normalize_axis(n, n.attrs.get_int("axis", 0), data.rank(), "axis"));
  return {TensorType{data.dtype, idx.shape}};
}

// EyeLike: the input gives only the 2-D shape; `dtype` (a graph::DType) defaults to its dtype.
std::vector<TensorType> infer_eye_like(Node& n) {
  const TensorType& x = input_type(n, 0, "input");
  if (x.rank() != 2) fail_user("{}: input must be 2-D, got {}", n.describe(), x.str());
  int64_t dtype = n.attrs.get_int("dtype", int64_t(x.dtype));
  if (!graph::is_dtype_code(dtype))
    fail_user("{}: attribute 'dtype' = {} is not a valid dtype", n.describe(), dtype);
  n.attrs.set("dtype", dtype);
  n.attrs.set("k", n.attrs.get_int("k", 0));
  return {TensorType{DType(dtype), x.shape}};
}

std::vector<TensorType> infer_reverse_sequence(Node& n) {
  const TensorType& x = input_type(n, 0, "input");
  const TensorType& lens = input_type(n, 1, "sequence_lens");
  require_rank_at_least(n, x, 2, "input");
  int64_t batch = n.attrs.get_int("batch_axis", 1), time = n.attrs.get_int("time_axis", 0);
  if ((batch != 0 && batch != 1) || (time != 0 && time != 1) || batch == time)
    fail_user("{}: attributes 'batch_axis' = {} and 'time_axis' = {} must be 0 and 1 in some order",
              n.describe(), batch, time);
  if (lens.dtype != DType::kI64)
    fail_user("{}: input 'sequence_lens' must be int64, got {}", n.describe(), lens.str());
  if (lens.rank() != 1)
    fail_user("{}: input 'sequence_lens' {} must be 1-D", n.describe(), lens.str());
  merge_dims(n, x.shape[size_t(batch)], lens.shape[0], "batch size of input and sequence_lens");
  n.attrs.set("batch_axis", batch);
  n.attrs.set("time_axis", time);
  return {x};
}

}  // namespace

void add_rearrange_ops(std::vector<OpInfo>& t) {
  OpInfo trilu =
      make_data_movement_op(OpKind::Trilu, "Trilu", {{"upper", AttrType::kInt}}, infer_trilu);
  trilu.max_inputs = 2;  // k (a scalar tensor, may be a run-time value)
  t.push_back(trilu);
  t.push_back(make_data_movement_op(
      OpKind::DepthToSpace, "DepthToSpace",
      {{"blocksize", AttrType::kInt, true}, {"mode", AttrType::kString}}, infer_depth_space));
  t.push_back(make_data_movement_op(
      OpKind::SpaceToDepth, "SpaceToDepth",
      {{"blocksize", AttrType::kInt, true}, {"mode", AttrType::kString}}, infer_depth_space));
  OpInfo ge = make_data_movement_op(OpKind::GatherElements, "GatherElements",
                                    {{"axis", AttrType::kInt}}, infer_gather_elements);
  ge.min_inputs = ge.max_inputs = 2;
  t.push_back(ge);
  t.push_back(make_data_movement_op(OpKind::EyeLike, "EyeLike",
                                    {{"dtype", AttrType::kInt}, {"k", AttrType::kInt}},
                                    infer_eye_like));
  OpInfo rs = make_data_movement_op(OpKind::ReverseSequence, "ReverseSequence",
                                    {{"batch_axis", AttrType::kInt}, {"time_axis", AttrType::kInt}},
                                    infer_reverse_sequence);
  rs.min_inputs = rs.max_inputs = 2;
  t.push_back(rs);
}

}  // namespace ingot::ops::detail
