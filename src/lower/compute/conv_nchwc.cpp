// The compute of a ConvNCHWc node (graph pass layout_nchwc; blocked input, summand and output):
// its shapes, strides, dilations and pads read from the node, then the block-form computes of
// blocked_conv.h with the node's fused epilogue. Scheduled by rules blocked_conv2d and
// depthwise_conv_nchwc, which lay the weights out.
#include <algorithm>

#include "lower/compute/blocked_conv.h"
#include "lower/compute/epilogue.h"
#include "support/error.h"

namespace ingot::lower {

using namespace tir;

namespace {

struct ConvNchwcGeometry {
  std::vector<int64_t> xs, ws, ys, strides, dil, pads;
  size_t spatial = 0;
};

ConvNchwcGeometry conv_nchwc_geometry(const graph::Node& node) {
  ConvNchwcGeometry g;
  g.xs = node.inputs.at(0)->type.static_shape();
  g.ws = node.inputs.at(1)->type.static_shape();
  g.ys = node.outputs.at(0)->type.static_shape();
  g.spatial = g.ws.size() - 2;
  g.strides = node.attrs.get_ints("strides", std::vector<int64_t>(g.spatial, 1));
  g.dil = node.attrs.get_ints("dilations", std::vector<int64_t>(g.spatial, 1));
  g.pads = node.attrs.get_ints("pads", std::vector<int64_t>(2 * g.spatial, 0));
  INGOT_ICHECK(g.spatial >= 1 && g.spatial <= 3 && g.xs.size() == g.spatial + 3 &&
                   g.ys.size() == g.spatial + 3 && g.pads.size() == 2 * g.spatial,
               "{}: not a 1-D to 3-D blocked convolution", node.describe());
  INGOT_ICHECK(node.inputs[1]->is_constant() &&
                   (node.inputs.size() < 3 || !node.inputs[2] || node.inputs[2]->is_constant()),
               "{}: blocked convolution needs constant weights and bias", node.describe());
  return g;
}

const graph::Value* optional_input(const graph::Node& node, size_t i) {
  return node.inputs.size() > i ? node.inputs[i] : nullptr;
}

bool all_ones(const std::vector<int64_t>& v) {
  return std::all_of(v.begin(), v.end(), [](int64_t e) { return e == 1; });
}

// The node's fused summand and activation as the compute's epilogue (none without them); `zb`
// the summand's buffer, appended to `extra` when the node has one.
ConvEpilogue node_epilogue(const graph::Node& node, const Buffer& zb, std::vector<Buffer>& extra) {
  const bool has_z = optional_input(node, 3) != nullptr;
  if (has_z) extra.push_back(zb);
  if (!has_epilogue(node)) return {};
  return [&node, has_z, zb](const Expr& v, const std::vector<Expr>& idx) {
    return apply_epilogue(node, v, has_z ? zb.load(idx) : Expr());
  };
}

// A QConvNCHWc's input signedness and output type.
bool x_signed(const graph::Node& node) {
  return node.inputs[0]->type.dtype == graph::DType::kI8;
}
DataType out_type(const graph::Node& node) {
  return node.outputs[0]->type.dtype == graph::DType::kI8 ? DataType::i8() : DataType::u8();
}

// A QConvNCHWc's requantization of each int32 sum (its scale input appended to `extra`), for
// the channel of [n, ob, o..., r] (clamped into the scales: the padding lanes'), in float32:
// round_half_even(float(sum) * scale) + y_zero_point, saturated (ops/layout.cpp). The rounded
// product plus the zero point is exact below 2^24 and saturates alike above.
// `ys`: the output's shape in the compute (Z, a fused residual, is read at the same index).
ConvEpilogue requantizing_epilogue(const graph::Node& node, int64_t channels, int64_t block,
                                   const std::vector<int64_t>& ys, std::vector<Buffer>& extra) {
  // (Scales padded to whole blocks, layout_nchwc's, are read at every lane; [OC] ones clamped.)
  const int64_t scales = node.inputs[3]->type.num_elements();
  const bool clamp = scales < (channels + block - 1) / block * block;
  Buffer scale = Buffer::make("scale", DataType::f32(), std::vector<int64_t>{scales});
  extra.push_back(scale);
  const DataType out = out_type(node), f = DataType::f32();
  const double zp = double(node.attrs.get_int("y_zero_point", 0));
  const double lo = double(node.attrs.get_int("qmin", 0)),
               hi = double(node.attrs.get_int("qmax", 0));
  auto requantized = [scale, channels, block, clamp, f, zp, lo, hi](const Expr& acc,
                                                                    const std::vector<Expr>& idx) {
    Expr c = idx[1] * block + idx.back();
    if (clamp) c = min(c, i64(channels - 1));
    Expr v = call(Intrinsic::round, {cast(f, acc) * scale.load({c})}) + make_const(f, zp);
    return min(max(v, make_const(f, lo)), make_const(f, hi));
  };
  if (optional_input(node, 4) == nullptr)
    return [requantized, out](const Expr& acc, const std::vector<Expr>& idx) {
      return cast(out, requantized(acc, idx));
    };
  // A fused residual (ops/layout.cpp): the separate kernels' float32 arithmetic, in their order
  // (DequantizeLinear's (q - zp) * scale, the Add, QuantizeLinear's round(v / scale) + zp
  // saturated), so the result is theirs bit for bit.
  const DataType z_t =
      node.inputs[4]->type.dtype == graph::DType::kI8 ? DataType::i8() : DataType::u8();
  Buffer z = Buffer::make("Z", z_t, ys);
  extra.push_back(z);
  const auto& a = node.attrs;
  const double y_scale = a.get_float("y_scale", 1),
               y_zp = double(a.get_int("y_dequant_zero_point", 0));
  const double z_scale = a.get_float("z_scale", 1), z_zp = double(a.get_int("z_zero_point", 0));
  const double o_scale = a.get_float("out_scale", 1), o_zp = double(a.get_int("out_zero_point", 0));
  const bool o_signed = out == DataType::i8();
  const double o_lo = o_signed ? -128 : 0, o_hi = o_signed ? 127 : 255;
  return [=](const Expr& acc, const std::vector<Expr>& idx) {
    auto c = [f](double v) { return make_const(f, v); };
    // (The requantized value is an integer inside its type's range: as float32 it is what the
    // separate DequantizeLinear would read.)
    Expr y = (requantized(acc, idx) - c(y_zp)) * c(y_scale);
    Expr r = (cast(f, z.load(idx)) - c(z_zp)) * c(z_scale);
    Expr v = call(Intrinsic::round, {(y + r) / c(o_scale)}) + c(o_zp);
    return cast(out, min(max(v, c(o_lo)), c(o_hi)));
  };
}

PrimFunc depthwise(const graph::Node& node, const ConvNchwcGeometry& g) {
  INGOT_ICHECK(g.spatial == 2, "{}: depthwise blocked convolution is 2-D only", node.describe());
  DepthwiseConvShape s;
  s.n = g.xs[0], s.blocks = g.xs[1], s.blk = g.xs[4], s.channels = g.ws[0];
  s.ih = g.xs[2], s.iw = g.xs[3], s.oh = g.ys[2], s.ow = g.ys[3], s.kh = g.ws[2], s.kw = g.ws[3];
  s.sh = g.strides[0], s.sw = g.strides[1], s.dh = g.dil[0], s.dw = g.dil[1];
  s.top = g.pads[0], s.left = g.pads[1];
  INGOT_ICHECK(g.ys[4] == s.blk && g.ys[1] == s.blocks, "{}: depthwise blocks differ",
               node.describe());
  std::vector<Buffer> extra;
  INGOT_ICHECK(node.inputs[0]->type.dtype != graph::DType::kBF16,
               "{}: a depthwise blocked conv reads float32 or 8-bit", node.describe());
  if (node.op == ops::OpKind::QConvNCHWc) {
    s.int8 = true;
    s.x_signed = x_signed(node);
    s.out_type = out_type(node);
    return depthwise_conv_compute(
        s, true, requantizing_epilogue(node, s.channels, s.blk, g.ys, extra), extra);
  }
  if (node.outputs[0]->type.dtype == graph::DType::kBF16) s.out_type = DataType::bf16();
  ConvEpilogue epilogue = node_epilogue(node, Buffer::make("Z", DataType::f32(), g.ys), extra);
  return depthwise_conv_compute(s, optional_input(node, 2) != nullptr, epilogue, extra);
}

PrimFunc direct(const graph::Node& node, const ConvNchwcGeometry& g) {
  INGOT_ICHECK(std::all_of(g.pads.begin(), g.pads.end(), [](int64_t p) { return p == 0; }),
               "{}: a blocked direct convolution reads an explicitly padded input",
               node.describe());
  const size_t sp = g.spatial;
  BlockedConvShape s;
  s.groups = node.attrs.get_int("group", 1);
  s.n = g.xs[0], s.ic = g.ws[1] * s.groups, s.oc = g.ws[0];
  s.ib = g.xs.back(), s.nr = g.ys.back();
  for (size_t d = 0; d < sp; ++d) {
    s.in.push_back(g.xs[2 + d]);
    s.out.push_back(g.ys[2 + d]);
    s.kernel.push_back(g.ws[2 + d]);
  }
  s.strides = g.strides, s.dilations = g.dil;
  // Groups narrower than the block with equal blocks on both sides (ResNeXt's 4 and 8 channels,
  // RegNet's 8): each lane sums its own group's inputs (support/channel_block.h).
  s.lane_groups = s.groups > 1 && s.oc / s.groups < s.nr;
  std::vector<int64_t> ys = g.ys;
  if (sp > 1 && all_ones(s.kernel) && all_ones(s.strides)) {  // pointwise: all pixels one row
    int64_t in = 1, out = 1;
    for (size_t d = 0; d < sp; ++d) in *= s.in[d], out *= s.out[d];
    s.in = {in}, s.out = {out}, s.kernel = {1}, s.strides = {1}, s.dilations = {1};
    ys = {ys[0], ys[1], out, ys.back()};
  }
  std::vector<Buffer> extra;
  if (node.op == ops::OpKind::QConvNCHWc) {
    s.int8 = true;
    s.x_signed = x_signed(node);
    s.out_type = out_type(node);
    return blocked_conv_compute(s, true, requantizing_epilogue(node, s.oc, s.nr, ys, extra), extra);
  }
  // bfloat16 products, and a bfloat16 output (ops/layout.cpp): the sums stay float32.
  s.bf16 = node.inputs[0]->type.dtype == graph::DType::kBF16;
  if (node.outputs[0]->type.dtype == graph::DType::kBF16) s.out_type = DataType::bf16();
  ConvEpilogue epilogue = node_epilogue(node, Buffer::make("Z", DataType::f32(), ys), extra);
  return blocked_conv_compute(s, optional_input(node, 2) != nullptr, epilogue, extra);
}

}  // namespace

PrimFunc conv_nchwc_compute(const graph::Node& node) {
  INGOT_ICHECK(node.op == ops::OpKind::ConvNCHWc || node.op == ops::OpKind::QConvNCHWc,
               "{}: not a ConvNCHWc", node.describe());
  ConvNchwcGeometry g = conv_nchwc_geometry(node);
  const int64_t group = node.attrs.get_int("group", 1);
  const bool is_depthwise = group > 1 && g.ws[1] == 1 && g.ws[0] == group;
  return is_depthwise ? depthwise(node, g) : direct(node, g);
}

}  // namespace ingot::lower
