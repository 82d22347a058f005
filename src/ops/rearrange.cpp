// Element-rearranging ops: Trilu (triangle mask), DepthToSpace / SpaceToDepth (block moves
// between channels and space) and GatherElements (per-element gather along an axis).
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
}

}  // namespace ingot::ops::detail
