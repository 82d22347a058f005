// GridSample and AffineGrid: sampling a tensor at normalised grid coordinates, and building such
// a grid from affine matrices. GridSample (N-d: X [N, C, D1..Dr], grid [N, O1..Or, r]) keeps
// `mode` (linear / nearest / cubic; opset 16's bilinear / bicubic are renamed at import),
// `padding_mode` and `align_corners` explicit. AffineGrid's `size` decides the output shape, so
// it must be a compile-time constant (attribute `size`).
#include <algorithm>
#include <string_view>

#include "ops/op_families.h"
#include "ops/shape_util.h"
#include "ops/value_symbols.h"
#include "support/error.h"

namespace ingot::ops::detail {

namespace {

bool is_float(DType d) {
  return is_float_dtype(d);
}

void check_choice(const Node& n, const char* attr, const std::string& v,
                  std::initializer_list<std::string_view> allowed) {
  if (std::find(allowed.begin(), allowed.end(), v) != allowed.end()) return;
  std::string valid;
  for (std::string_view a : allowed) valid += (valid.empty() ? "" : ", ") + std::string(a);
  fail_user("{}: attribute '{}' = '{}' is not supported (valid: {})", n.describe(), attr, v, valid);
}

int64_t flag_attr(Node& n, const char* name) {
  int64_t v = n.attrs.get_int(name, 0);
  if (v != 0 && v != 1)
    fail_user("{}: attribute '{}' must be 0 or 1, got {}", n.describe(), name, v);
  n.attrs.set(name, v);
  return v;
}

std::vector<TensorType> infer_grid_sample(Node& n) {
  const TensorType& x = input_type(n, 0, "X");
  const TensorType& grid = input_type(n, 1, "grid");
  std::string mode = n.attrs.get_string("mode", "linear");
  std::string padding = n.attrs.get_string("padding_mode", "zeros");
  check_choice(n, "mode", mode, {"linear", "nearest", "cubic"});
  check_choice(n, "padding_mode", padding, {"zeros", "border", "reflection"});
  n.attrs.set("mode", mode);
  n.attrs.set("padding_mode", padding);
  flag_attr(n, "align_corners");
  require_rank_at_least(n, x, 3, "X");
  if (x.dtype == DType::kBool) fail_user("{}: input 'X' must be numeric, got bool", n.describe());
  if (!is_float(grid.dtype))
    fail_user("{}: input 'grid' {} must be a float tensor", n.describe(), grid.str());
  int64_t r = x.rank() - 2;
  if (grid.rank() != x.rank())
    fail_user("{}: input 'grid' {} must have rank {} for X {}", n.describe(), grid.str(), x.rank(),
              x.str());
  const Dim& last = grid.shape.back();
  if (last.is_static() && last.value != r)
    fail_user("{}: the last dim of 'grid' {} must be {} (one coordinate per spatial dim of X)",
              n.describe(), grid.str(), r);
  for (int64_t d = 2; d < x.rank(); ++d)
    if (!x.shape[size_t(d)].is_static())
      fail_user("{}: spatial dim {} of X {} must be static", n.describe(), d, x.str());
  TensorType out{x.dtype, {merge_dims(n, x.shape[0], grid.shape[0], "batch"), x.shape[1]}};
  out.shape.insert(out.shape.end(), grid.shape.begin() + 1, grid.shape.end() - 1);
  return {out};
}

// Taps per output element: 1 (nearest), 2^r (linear) or 4^r (cubic), a multiply-add each.
double grid_sample_flops(const Node& n) {
  const TensorType& x = n.inputs.at(0)->type;
  std::string mode = n.attrs.get_string("mode", "linear");
  double taps = 1;
  for (int d = 2; d < x.rank(); ++d) taps *= mode == "nearest" ? 1 : mode == "linear" ? 2 : 4;
  return 2 * taps * approx_elements(n.outputs.at(0)->type);
}

std::vector<TensorType> infer_affine_grid(Node& n) {
  const TensorType& theta = input_type(n, 0, "theta");
  flag_attr(n, "align_corners");
  if (!is_float(theta.dtype))
    fail_user("{}: input 'theta' {} must be a float tensor", n.describe(), theta.str());
  if (n.inputs.size() > 1 && is_runtime_value(n.inputs[1])) {  // the caller's size
    const TensorType& s = n.inputs[1]->type;
    if (s.dtype != DType::kI64 || s.rank() != 1 || !s.is_static() ||
        (s.shape[0].value != 4 && s.shape[0].value != 5))
      fail_user("{}: input 'size' must be an int64 tensor of 4 or 5 values, got {}", n.describe(),
                s.str());
    const int64_t r = s.shape[0].value - 2;
    if (theta.rank() != 3 || !(theta.shape[1] == Dim::fixed(r)) ||
        !(theta.shape[2] == Dim::fixed(r + 1)))
      fail_user("{}: input 'theta' {} must have shape [N, {}, {}]", n.describe(), theta.str(), r,
                r + 1);
    TensorType out{theta.dtype, {theta.shape[0]}};  // (size[0] is checked against N at run time)
    for (int a = 1; a <= r; ++a) out.shape.push_back(value_dim(n, 0, a));
    out.shape.push_back(Dim::fixed(r));
    return {out};
  }
  if (!n.attrs.has("size")) fail_user("{}: input 'size' is missing", n.describe());
  std::vector<int64_t> size = n.attrs.get_ints("size");
  if (size.size() != 4 && size.size() != 5)
    fail_user("{}: input 'size' must hold 4 values (N, C, H, W) or 5 (N, C, D, H, W), got {}",
              n.describe(), size.size());
  for (int64_t s : size)
    if (s < 1) fail_user("{}: input 'size' values must be positive", n.describe());
  int64_t r = int64_t(size.size()) - 2;
  if (theta.rank() != 3)
    fail_user("{}: input 'theta' {} must have shape [N, {}, {}]", n.describe(), theta.str(), r,
              r + 1);
  const Dim &rows = theta.shape[1], &cols = theta.shape[2];
  if ((rows.is_static() && rows.value != r) || (cols.is_static() && cols.value != r + 1))
    fail_user("{}: input 'theta' {} must have shape [N, {}, {}] for a size of {} values",
              n.describe(), theta.str(), r, r + 1, size.size());
  Dim batch = merge_dims(n, theta.shape[0], Dim::fixed(size[0]), "batch (theta and size[0])");
  TensorType out{theta.dtype, {batch}};
  for (size_t d = 2; d < size.size(); ++d) out.shape.push_back(Dim::fixed(size[d]));
  out.shape.push_back(Dim::fixed(r));
  return {out};
}

// r multiply-adds per output element.
double affine_grid_flops(const Node& n) {
  const TensorType& y = n.outputs.at(0)->type;
  return 2 * double(y.rank() - 2) * approx_elements(y);
}

}  // namespace

void add_grid_sample_ops(std::vector<OpInfo>& t) {
  OpInfo gs{OpKind::GridSample,
            "GridSample",
            PatternKind::kOpaque,
            {{"mode", AttrType::kString},
             {"padding_mode", AttrType::kString},
             {"align_corners", AttrType::kInt}}};
  gs.min_inputs = gs.max_inputs = 2;
  gs.infer_fn = infer_grid_sample;
  gs.flops_fn = grid_sample_flops;
  t.push_back(gs);

  OpInfo ag{OpKind::AffineGrid,
            "AffineGrid",
            PatternKind::kOpaque,
            {{"align_corners", AttrType::kInt}, {"size", AttrType::kInts}}};
  ag.min_inputs = 1;
  ag.max_inputs = 2;  // theta, then size until type inference resolves it
  ag.const_inputs = {{1, "size", "size", false, /*runtime=*/true}};
  ag.infer_fn = infer_affine_grid;
  ag.flops_fn = affine_grid_flops;
  t.push_back(ag);
}

}  // namespace ingot::ops::detail
