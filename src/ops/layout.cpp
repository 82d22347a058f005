// The channel-blocked layout ops that graph pass layout_nchwc introduces (never imported from
// ONNX): LayoutToBlocked / LayoutFromBlocked convert between NC[spatial] and NC[spatial]c
// ([N, ceil(C / c), spatial..., c], channel k at block k / c, lane k % c; padding lanes are
// zero after LayoutToBlocked and unspecified after a blocked op), and ConvNCHWc is a 1-, 2- or
// 3-D Conv (groups = 1, grouped in whole blocks, or depthwise) whose input X, summand Z and
// output Y are blocked. QConvNCHWc(X, W, bias, scale) is its 8-bit form (graph pass
// layout_nchwc, from a QConv of groups = 1 or depthwise whose weights are symmetric int8): X
// uint8 / int8 blocked (padded explicitly with its zero point), W int8, bias int32 with X's zero
// point folded in (bias - x_zero_point * sum of the channel's weights), so the int32 sum is
// plain X * W; each output channel requantized in float32 as ONNX Runtime's x86 kernels do:
// round_half_even(float(sum) * scale[c]) + y_zero_point saturated to [qmin, qmax] (`to`).
// With a fifth input Z (graph pass fuse_qconv_residual: a QDQ residual block's Add), that value
// q is dequantized (y_dequant_zero_point, y_scale), Z dequantized (z_zero_point, z_scale), the two
// added and the sum quantized (out_scale, out_zero_point, to `out_to`), in float32.
// A ConvNCHWc (groups = 1) may take bfloat16 X and W (graph pass convert_bfloat16_convs): the
// products in bfloat16, summed in float32 with the float32 bias and summand; `out_dtype`
// (float32 by default, or bfloat16) is the type its epilogue's result is stored in.
#include "ops/conv_geometry.h"
#include "ops/op_families.h"
#include "ops/shape_util.h"
#include "support/channel_block.h"
#include "support/error.h"

namespace ingot::ops::detail {

namespace {

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

int64_t positive_attr(const Node& n, const char* name) {
  int64_t v = n.attrs.get_int(name, 0);
  if (v < 1) fail_user("{}: attribute '{}' must be positive, got {}", n.describe(), name, v);
  return v;
}

std::vector<TensorType> infer_to_blocked(Node& n) {
  const TensorType& x = input_type(n, 0, "X");
  require_rank_at_least(n, x, 3, "X");
  int64_t block = positive_attr(n, "block");
  if (!x.shape[1].is_static())
    fail_user("{}: input X {} needs a static channel count", n.describe(), x.str());
  TensorType out = x;
  out.shape[1] = Dim::fixed(ceil_div(x.shape[1].value, block));
  out.shape.push_back(Dim::fixed(block));
  return {out};
}

std::vector<TensorType> infer_from_blocked(Node& n) {
  const TensorType& x = input_type(n, 0, "X");
  require_rank_at_least(n, x, 4, "X");
  int64_t channels = positive_attr(n, "channels");
  const Dim& blocks = x.shape[1];
  const Dim& block = x.shape.back();
  if (!blocks.is_static() || !block.is_static() || blocks.value != ceil_div(channels, block.value))
    fail_user("{}: input X {} does not hold {} channels", n.describe(), x.str(), channels);
  TensorType out = x;
  out.shape.pop_back();
  out.shape[1] = Dim::fixed(channels);
  return {out};
}

std::vector<TensorType> infer_conv_nchwc(Node& n) {
  const TensorType& x = input_type(n, 0, "X");
  const TensorType& w = input_type(n, 1, "W");
  const bool int8 = n.op == OpKind::QConvNCHWc;
  const bool bf16 = !int8 && x.dtype == DType::kBF16;
  const bool types_fit =
      int8   ? (x.dtype == DType::kU8 || x.dtype == DType::kI8) && w.dtype == DType::kI8
      : bf16 ? w.dtype == DType::kBF16
             : x.dtype == DType::kF32 && w.dtype == DType::kF32;
  if (w.rank() < 3 || w.rank() > 5 || x.rank() != w.rank() + 1 || !types_fit)
    fail_user(
        "{}: needs a {} blocked input with 1 to 3 spatial dims and {} weights of one "
        "rank less, got X {} W {}",
        n.describe(), int8 ? "uint8 / int8" : "float32 (or bfloat16)", int8 ? "int8" : "same-typed",
        x.str(), w.str());
  for (const Dim& d : x.shape)
    if (!d.is_static()) fail_user("{}: input X {} must be static", n.describe(), x.str());
  size_t spatial = size_t(w.rank()) - 2;
  std::vector<int64_t> xs = x.static_shape(), ws = w.static_shape();
  int64_t group = n.attrs.get_int("group", 1);
  int64_t ic = ws[1] * group, oc = ws[0];
  if (xs[1] != ceil_div(ic, xs.back()))
    fail_user("{}: blocked input X {} does not hold the {} channels W {} expects", n.describe(),
              x.str(), ic, w.str());
  int64_t block = positive_attr(n, "block");
  bool depthwise = group == ic && ws[1] == 1 && oc == ic;
  if (group != 1 && !depthwise && !conv_input_blocks(ic, oc, group, xs.back(), block))
    fail_user("{}: group={} ({} -> {} channels) does not fit input block {} and output block {}",
              n.describe(), group, ic, oc, xs.back(), block);
  std::vector<int64_t> strides = n.attrs.get_ints("strides", std::vector<int64_t>(spatial, 1));
  std::vector<int64_t> dil = n.attrs.get_ints("dilations", std::vector<int64_t>(spatial, 1));
  std::vector<int64_t> pads = n.attrs.get_ints("pads", std::vector<int64_t>(2 * spatial, 0));
  if (strides.size() != spatial || dil.size() != spatial || pads.size() != 2 * spatial)
    fail_user("{}: strides, dilations and pads must be {}-D", n.describe(), spatial);
  DType out_dtype = DType::kF32;
  if (bf16) {
    // (Pairs of input lanes for the bfloat16 dot tiles.)
    if (group != 1 || ic % 2 != 0 || xs.back() % 2 != 0)
      fail_user(
          "{}: a bfloat16 blocked conv takes group = 1 and input channels ({}) and a block ({}) "
          "in multiples of 2",
          n.describe(), ic, xs.back());
    // (The dot tile's weight layout pads IC to pairs, not to whole input blocks.)
    if (ic % xs.back() != 0 && ic > xs.back())
      fail_user(
          "{}: a bfloat16 blocked conv takes its {} input channels in whole blocks of {} or "
          "one block",
          n.describe(), ic, xs.back());
  }
  if (!int8 && n.attrs.has("out_dtype")) {
    out_dtype = DType(n.attrs.get_int("out_dtype", 0));
    if (out_dtype != DType::kF32 && (out_dtype != DType::kBF16 || (group != 1 && !depthwise)))
      fail_user("{}: out_dtype {} is not float32 or (groups = 1 or depthwise) bfloat16",
                n.describe(), dtype_name(out_dtype));
  }
  if (int8) {
    if (group != 1 && !depthwise)
      fail_user("{}: an 8-bit blocked conv takes group = 1 or is depthwise", n.describe());
    // (Whole groups of 4 input lanes for the dot tiles: layout_nchwc pads the weights.)
    if (!depthwise && (ic % 4 != 0 || xs.back() % 4 != 0))
      fail_user(
          "{}: an 8-bit blocked conv takes input channels ({}) and a block ({}) in "
          "multiples of 4",
          n.describe(), ic, xs.back());
    // (The scales may run on past OC to whole output blocks: the epilogue reads them per lane.)
    const int64_t padded = ceil_div(oc, block) * block;
    for (int i : {2, 3}) {
      const TensorType& t = input_type(n, i, i == 2 ? "bias" : "scale");
      const DType want = i == 2 ? DType::kI32 : DType::kF32;
      if (t.dtype != want || t.rank() != 1 ||
          (t.num_elements() != oc && (i == 2 || t.num_elements() != padded)))
        fail_user("{}: input {} must be {} [{}{}], got {}", n.describe(), i == 2 ? "bias" : "scale",
                  dtype_name(want), oc, i == 3 && padded != oc ? fmt::format(" or {}", padded) : "",
                  t.str());
    }
    out_dtype = DType(n.attrs.get_int("to", int64_t(DType::kU8)));
    if (out_dtype != DType::kU8 && out_dtype != DType::kI8)
      fail_user("{}: output dtype {} is not uint8 or int8", n.describe(), dtype_name(out_dtype));
    if (n.attrs.get_int("qmin", 0) > n.attrs.get_int("qmax", 0))
      fail_user("{}: qmin is above qmax", n.describe());
    // A fused residual (graph pass fuse_qconv_residual): its scales and zero points, and the
    // final quantization's type.
    if (has_input(n, 4)) {
      if (depthwise) fail_user("{}: a depthwise 8-bit conv takes no residual", n.describe());
      for (const char* a : {"y_scale", "z_scale", "out_scale"})
        if (!(n.attrs.get_float(a, 0.0) > 0.0))
          fail_user("{}: attribute '{}' must be a positive scale", n.describe(), a);
      out_dtype = DType(n.attrs.get_int("out_to", int64_t(DType::kU8)));
      if (out_dtype != DType::kU8 && out_dtype != DType::kI8)
        fail_user("{}: out_to {} is not uint8 or int8", n.describe(), dtype_name(out_dtype));
    }
  }
  TensorType out{out_dtype, {x.shape[0], Dim::fixed(ceil_div(oc, block))}};
  for (size_t d = 0; d < spatial; ++d) {
    int64_t o =
        (xs[2 + d] + pads[d] + pads[spatial + d] - dil[d] * (ws[2 + d] - 1) - 1) / strides[d] + 1;
    if (o < 1) fail_user("{}: empty output", n.describe());
    out.shape.push_back(Dim::fixed(o));
  }
  out.shape.push_back(Dim::fixed(block));
  if (int8) {
    if (has_input(n, 4)) {
      const TensorType& z = n.inputs[4]->type;
      if ((z.dtype != DType::kU8 && z.dtype != DType::kI8) || z.shape != out.shape)
        fail_user("{}: residual Z {} must be uint8 / int8 of the output's shape {}", n.describe(),
                  z.str(), out.str());
    }
    return {out};
  }
  if (has_input(n, 2) && n.inputs[2]->type.num_elements() != oc)
    fail_user("{}: bias B {} must have {} elements", n.describe(), n.inputs[2]->type.str(), oc);
  // (The summand is float32, the sums' type, whatever the output's.)
  TensorType summand = out;
  summand.dtype = DType::kF32;
  if (has_input(n, 3) && n.inputs[3]->type != summand)
    fail_user("{}: summand Z {} must have the type {}", n.describe(), n.inputs[3]->type.str(),
              summand.str());
  check_fused_activation(n);
  return {out};
}

double conv_nchwc_flops(const Node& n) {
  std::vector<int64_t> ws = n.inputs[1]->type.static_shape();
  std::vector<int64_t> ys = n.outputs[0]->type.static_shape();
  double outs = double(ys[0] * ws[0]);  // real channels only
  double taps = double(ws[1]);
  for (size_t d = 2; d + 1 < ys.size(); ++d) outs *= double(ys[d]);
  for (size_t d = 2; d < ws.size(); ++d) taps *= double(ws[d]);
  return 2 * taps * outs + (has_input(n, 2) ? outs : 0) + (has_input(n, 3) ? outs : 0);
}

}  // namespace

void add_layout_ops(std::vector<OpInfo>& t) {
  t.push_back(make_data_movement_op(OpKind::LayoutToBlocked, "LayoutToBlocked",
                                    {{"block", AttrType::kInt, true}}, infer_to_blocked));
  t.push_back(make_data_movement_op(OpKind::LayoutFromBlocked, "LayoutFromBlocked",
                                    {{"channels", AttrType::kInt, true}}, infer_from_blocked));
  OpInfo conv{OpKind::ConvNCHWc, "ConvNCHWc", PatternKind::kOutEWiseFusable,
              conv_attr_specs({{"block", AttrType::kInt, true}, {"out_dtype", AttrType::kInt}})};
  conv.min_inputs = 2;
  conv.max_inputs = 4;
  conv.infer_fn = infer_conv_nchwc;
  conv.flops_fn = conv_nchwc_flops;
  t.push_back(conv);
  std::vector<AttrSpec> requant = conv_attr_specs({{"block", AttrType::kInt, true}});
  for (const char* a : {"y_zero_point", "qmin", "qmax", "to", "y_dequant_zero_point",
                        "z_zero_point", "out_zero_point", "out_to"})
    requant.push_back({a, AttrType::kInt});
  for (const char* a : {"y_scale", "z_scale", "out_scale"})
    requant.push_back({a, AttrType::kFloat});
  OpInfo qconv{OpKind::QConvNCHWc, "QConvNCHWc", PatternKind::kOpaque, requant};
  qconv.min_inputs = 4;
  qconv.max_inputs = 5;
  qconv.infer_fn = infer_conv_nchwc;
  qconv.flops_fn = conv_nchwc_flops;
  t.push_back(qconv);
}

}  // namespace ingot::ops::detail
