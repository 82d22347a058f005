// DeformConv: a grouped N-d convolution whose kernel taps are moved by learned offsets
// (offset [N, offset_group * prod(kernel) * r, out...], tap-major with one coordinate per
// spatial dim) and optionally scaled by a mask [N, offset_group * prod(kernel), out...]; the
// input is sampled (multi)linearly with zeros outside. Window attributes are made explicit as
// for Conv (there is no auto_pad).
#include "ops/conv_geometry.h"
#include "ops/op_families.h"
#include "ops/shape_util.h"
#include "support/error.h"

namespace ingot::ops::detail {

namespace {

void require_dim(const Node& n, const TensorType& t, int d, int64_t want, const char* what) {
  const Dim& dim = t.shape[size_t(d)];
  if (dim.is_static() && dim.value != want)
    fail_user("{}: dim {} of input '{}' {} must be {}", n.describe(), d, what, t.str(), want);
}

std::vector<TensorType> infer_deform_conv(Node& n) {
  const TensorType& x = input_type(n, 0, "X");
  const TensorType& w = input_type(n, 1, "W");
  const TensorType& off = input_type(n, 2, "offset");
  if (!is_float_dtype(x.dtype))
    fail_user("{}: input 'X' {} must be a float tensor", n.describe(), x.str());
  require_same_dtype(n, x, w, "X", "W");
  require_same_dtype(n, x, off, "X", "offset");
  if (w.rank() < 3 || x.rank() != w.rank())
    fail_user("{}: input X {} and weight W {} must have the same rank (at least 3)", n.describe(),
              x.str(), w.str());
  int r = x.rank() - 2;
  std::vector<int64_t> kernel;
  for (int i = 2; i < w.rank(); ++i) {
    if (!w.shape[size_t(i)].is_static())
      fail_user("{}: weight W {} must have a static kernel shape", n.describe(), w.str());
    kernel.push_back(w.shape[size_t(i)].value);
  }
  if (n.attrs.has("kernel_shape") && n.attrs.get_ints("kernel_shape") != kernel)
    fail_user("{}: attribute 'kernel_shape' does not match weight W {}", n.describe(), w.str());
  for (int d = 2; d < x.rank(); ++d)
    if (!x.shape[size_t(d)].is_static())
      fail_user("{}: spatial dim {} of X {} must be static", n.describe(), d, x.str());
  int64_t group = n.attrs.get_int("group", 1), og = n.attrs.get_int("offset_group", 1);
  if (group < 1 || og < 1)
    fail_user("{}: attributes 'group' and 'offset_group' must be >= 1", n.describe());
  const Dim &c = x.shape[1], &wc = w.shape[1], &m = w.shape[0];
  if (c.is_static() && wc.is_static() && c.value != wc.value * group)
    fail_user("{}: input X has {} channels but W {} with group={} expects {}", n.describe(),
              c.value, w.str(), group, wc.value * group);
  if (m.is_static() && m.value % group != 0)
    fail_user("{}: {} output channels are not divisible by group={}", n.describe(), m.value, group);
  if (c.is_static() && c.value % og != 0)
    fail_user("{}: {} input channels are not divisible by offset_group={}", n.describe(), c.value,
              og);
  std::vector<Dim> spatial = window_output_dims(n, x, kernel, /*ceil_mode=*/false);
  int64_t taps = 1;
  for (int64_t k : kernel) taps *= k;
  if (off.rank() != x.rank())
    fail_user("{}: input 'offset' {} must have rank {}", n.describe(), off.str(), x.rank());
  require_dim(n, off, 1, og * taps * r, "offset");
  TensorType out{x.dtype, {merge_dims(n, x.shape[0], off.shape[0], "batch"), m}};
  for (int i = 0; i < r; ++i) {
    out.shape.push_back(spatial[size_t(i)]);
    if (spatial[size_t(i)].is_static())
      require_dim(n, off, 2 + i, spatial[size_t(i)].value, "offset");
  }
  if (has_input(n, 3)) {
    const TensorType& b = n.inputs[3]->type;
    require_same_dtype(n, x, b, "X", "B");
    if (b.rank() != 1 || (m.is_static() && b.shape[0].is_static() && b.shape[0].value != m.value))
      fail_user("{}: bias B {} must have shape [{}]", n.describe(), b.str(), m.str());
  }
  if (has_input(n, 4)) {
    const TensorType& mask = n.inputs[4]->type;
    require_same_dtype(n, x, mask, "X", "mask");
    if (mask.rank() != x.rank())
      fail_user("{}: input 'mask' {} must have rank {}", n.describe(), mask.str(), x.rank());
    require_dim(n, mask, 1, og * taps, "mask");
    for (int i = 0; i < r; ++i)
      if (spatial[size_t(i)].is_static())
        require_dim(n, mask, 2 + i, spatial[size_t(i)].value, "mask");
  }
  n.attrs.set("group", group);
  n.attrs.set("offset_group", og);
  return {out};
}

// Per output element: C/group * prod(kernel) taps, each a 2^r-point linear sample and a
// multiply-add.
double deform_conv_flops(const Node& n) {
  const TensorType& w = n.inputs.at(1)->type;
  double per_tap = 2 + 2 * double(1 << (w.rank() - 2));
  double taps = 1;
  for (int i = 1; i < w.rank(); ++i)
    if (w.shape[size_t(i)].is_static()) taps *= double(w.shape[size_t(i)].value);
  return per_tap * taps * approx_elements(n.outputs.at(0)->type);
}

}  // namespace

void add_deform_conv_ops(std::vector<OpInfo>& t) {
  OpInfo dc{OpKind::DeformConv,
            "DeformConv",
            PatternKind::kOpaque,
            {{"dilations", AttrType::kInts},
             {"group", AttrType::kInt},
             {"kernel_shape", AttrType::kInts},
             {"offset_group", AttrType::kInt},
             {"pads", AttrType::kInts},
             {"strides", AttrType::kInts}}};
  dc.min_inputs = 3;
  dc.max_inputs = 5;  // X, W, offset, B?, mask?
  dc.infer_fn = infer_deform_conv;
  dc.flops_fn = deform_conv_flops;
  t.push_back(dc);
}

}  // namespace ingot::ops::detail
