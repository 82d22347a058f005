// The Winograd convolution ops of graph pass winograd_conv (never imported from ONNX), the data
// and inverse transforms around a batched product (TVM's conv2d_winograd data_pack / bgemm /
// inverse), for a `kernel_shape` of 3x3 (default), 1x3 or 3x1 (alpha along a 1-tap axis is 1
// and its tile 1; below alpha^2 is alpha_h x alpha_w):
//   WinogradInputTransform  X [N, C/c, H, W, c] -> V [alpha^2, T, C/c * c]: for each m x m output
//     tile t = (n, th, tw) of the 3 x 3 stride-1 conv of X padded by `pads` (top, left, bottom,
//     right), its alpha x alpha input tile d transformed, B^T d B (support/winograd.h), one row
//     of V per transformed element; T = N * ceil(OH / m) * ceil(OW / m).
//   WinogradOutputTransform M [alpha^2, T, OC/c * c] (+ bias B [OC], summand Z) -> Y [N, OC/c,
//     OH, OW, c] (`output_shape`): A^T m A of each tile, cropped to the output, with the conv's
//     fused epilogue (activation, activation_params, ...).
#include "support/winograd.h"
#include "ops/op_families.h"
#include "ops/shape_util.h"
#include "support/error.h"

namespace ingot::ops::detail {

namespace {

int64_t tile_attr(const Node& n) {
  int64_t m = n.attrs.get_int("tile", 0);
  if (!winograd::supported_tile(m))
    fail_user("{}: attribute 'tile' must be 2 or 4, got {}", n.describe(), m);
  return m;
}

// The kernel the transforms are for, [kh, kw] (3x3, 1x3 or 3x1; default 3x3), made explicit.
std::vector<int64_t> kernel_attr(Node& n) {
  std::vector<int64_t> k = n.attrs.get_ints("kernel_shape", {3, 3});
  if (k.size() != 2 || !winograd::supported_kernel(k[0], k[1]))
    fail_user("{}: attribute 'kernel_shape' must be [3, 3], [1, 3] or [3, 1]", n.describe());
  n.attrs.set("kernel_shape", k);
  return k;
}

void require_static_f32(const Node& n, const TensorType& t, const char* what) {
  for (const Dim& d : t.shape)
    if (!d.is_static()) fail_user("{}: input {} {} must be static", n.describe(), what, t.str());
  if (t.dtype != DType::kF32)
    fail_user("{}: input {} {} must be float32", n.describe(), what, t.str());
}

std::vector<TensorType> infer_input_transform(Node& n) {
  const TensorType& x = input_type(n, 0, "X");
  if (x.rank() != 5)
    fail_user("{}: needs a blocked 2-D input [N, C/c, H, W, c], got X {}", n.describe(), x.str());
  require_static_f32(n, x, "X");
  const int64_t m = tile_attr(n);
  const std::vector<int64_t> k = kernel_attr(n);
  const winograd::Transforms2d t = winograd::transforms(int(m), k[0], k[1]);
  std::vector<int64_t> pads = n.attrs.get_ints("pads", std::vector<int64_t>(4, 0));
  if (pads.size() != 4)
    fail_user("{}: attribute 'pads' must have 4 values (top, left, bottom, right)", n.describe());
  for (int64_t p : pads)
    if (p < 0) fail_user("{}: attribute 'pads' must not be negative, got {}", n.describe(), p);
  n.attrs.set("pads", pads);
  std::vector<int64_t> xs = x.static_shape();
  const int64_t oh = xs[2] + pads[0] + pads[2] - k[0] + 1;
  const int64_t ow = xs[3] + pads[1] + pads[3] - k[1] + 1;
  if (oh < 1 || ow < 1) fail_user("{}: empty output", n.describe());
  const int64_t tiles = winograd::tile_count(t, xs[0], oh, ow);
  return {TensorType{
      DType::kF32,
      {Dim::fixed(int64_t(t.h.a) * t.w.a), Dim::fixed(tiles), Dim::fixed(xs[1] * xs[4])}}};
}

std::vector<TensorType> infer_output_transform(Node& n) {
  const TensorType& mt = input_type(n, 0, "M");
  if (mt.rank() != 3) fail_user("{}: input M {} must be 3-D", n.describe(), mt.str());
  require_static_f32(n, mt, "M");
  const int64_t m = tile_attr(n);
  const std::vector<int64_t> k = kernel_attr(n);
  const winograd::Transforms2d t = winograd::transforms(int(m), k[0], k[1]);
  std::vector<int64_t> ys = n.attrs.get_ints("output_shape", {});
  if (ys.size() != 5)
    fail_user("{}: attribute 'output_shape' must be [N, OC/c, OH, OW, c]", n.describe());
  for (int64_t d : ys)
    if (d < 1) fail_user("{}: attribute 'output_shape' has a dim {}", n.describe(), d);
  std::vector<int64_t> ms = mt.static_shape();
  const int64_t tiles = winograd::tile_count(t, ys[0], ys[2], ys[3]);
  if (ms[0] != int64_t(t.h.a) * t.w.a || ms[1] != tiles || ms[2] != ys[1] * ys[4])
    fail_user("{}: input M {} does not hold {} tiles of {} x {} of {} channels", n.describe(),
              mt.str(), tiles, t.h.a, t.w.a, ys[1] * ys[4]);
  TensorType out{DType::kF32, {}};
  for (int64_t d : ys) out.shape.push_back(Dim::fixed(d));
  if (has_input(n, 1)) {
    const TensorType& b = n.inputs[1]->type;
    require_static_f32(n, b, "B");
    if (b.rank() != 1 || b.static_shape()[0] > ms[2])
      fail_user("{}: bias B {} must be 1-D with at most {} channels", n.describe(), b.str(), ms[2]);
  }
  if (has_input(n, 2) && n.inputs[2]->type != out)
    fail_user("{}: summand Z {} must have the output type {}", n.describe(),
              n.inputs[2]->type.str(), out.str());
  check_fused_activation(n);
  return {out};
}

// Additions and multiplications of a 1-D pass, one per nonzero coefficient of its matrix
// (rows x cols), `other` times per tile and channel.
double pass_flops(int rows, int cols, const double* mat, double tile_channels, int other) {
  int nonzero = 0;
  for (int k = 0; k < rows * cols; ++k) nonzero += mat[k] != 0;
  return 2.0 * nonzero * other * tile_channels;
}

winograd::Transforms2d node_transforms(const Node& n) {
  std::vector<int64_t> k = n.attrs.get_ints("kernel_shape", {3, 3});
  return winograd::transforms(int(n.attrs.get_int("tile", 4)), k[0], k[1]);
}

double input_transform_flops(const Node& n) {
  std::vector<int64_t> vs = n.outputs[0]->type.static_shape();
  const auto [th, tw] = node_transforms(n);
  const double tc = double(vs[1] * vs[2]);
  return pass_flops(tw.a, tw.a, tw.bt, tc, th.a) + pass_flops(th.a, th.a, th.bt, tc, tw.a);
}

double output_transform_flops(const Node& n) {
  std::vector<int64_t> ms = n.inputs[0]->type.static_shape();
  const auto [th, tw] = node_transforms(n);
  const double tc = double(ms[1] * ms[2]);
  return pass_flops(th.m, th.a, th.at, tc, tw.a) + pass_flops(tw.m, tw.a, tw.at, tc, th.m);
}

}  // namespace

void add_winograd_ops(std::vector<OpInfo>& t) {
  OpInfo in{OpKind::WinogradInputTransform,
            "WinogradInputTransform",
            PatternKind::kOpaque,
            {{"tile", AttrType::kInt, true},
             {"pads", AttrType::kInts},
             {"kernel_shape", AttrType::kInts}}};
  in.infer_fn = infer_input_transform;
  in.flops_fn = input_transform_flops;
  t.push_back(in);

  std::vector<AttrSpec> out_attrs = {{"tile", AttrType::kInt, true},
                                     {"output_shape", AttrType::kInts, true},
                                     {"kernel_shape", AttrType::kInts}};
  for (AttrSpec& a : epilogue_attr_specs()) out_attrs.push_back(a);
  OpInfo out{OpKind::WinogradOutputTransform, "WinogradOutputTransform", PatternKind::kOpaque,
             out_attrs};
  out.min_inputs = 1;
  out.max_inputs = 3;
  out.infer_fn = infer_output_transform;
  out.flops_fn = output_transform_flops;
  t.push_back(out);
}

}  // namespace ingot::ops::detail
