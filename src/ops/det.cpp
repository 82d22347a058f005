// Det: the determinant of each square matrix in the last two dims of X ([*, M, M] -> [*]).
#include "ops/op_families.h"
#include "ops/shape_util.h"
#include "support/error.h"

namespace ingot::ops::detail {

namespace {

std::vector<TensorType> infer_det(Node& n) {
  const TensorType& x = input_type(n, 0, "X");
  require_rank_at_least(n, x, 2, "X");
  if (!is_float_dtype(x.dtype))
    fail_user("{}: input 'X' must be a float tensor, got {}", n.describe(), dtype_name(x.dtype));
  size_t r = size_t(x.rank());
  merge_dims(n, x.shape[r - 2], x.shape[r - 1], "rows and columns of X");
  TensorType out{x.dtype, std::vector<Dim>(x.shape.begin(), x.shape.end() - 2)};
  return {out};
}

// LU elimination: about 2/3 M^3 multiply-adds per matrix.
double det_flops(const Node& n) {
  const TensorType& x = n.inputs.at(0)->type;
  const Dim& m = x.shape.back();
  double size = m.is_static() ? double(m.value) : 1.0;
  return approx_elements(n.outputs[0]->type) * (2.0 / 3.0 * size * size * size * 2.0);
}

}  // namespace

void add_det_ops(std::vector<OpInfo>& t) {
  OpInfo det{OpKind::Det, "Det", PatternKind::kOpaque, {}};
  det.infer_fn = infer_det;
  det.flops_fn = det_flops;
  t.push_back(det);
}

}  // namespace ingot::ops::detail
