// ConvNCHWc kernels (graph pass layout_nchwc): convolutions whose input, summand and output stay
// channel-blocked, so chains of convolutions need no layout copies between them.
// - groups = 1 or grouped (1 to 3 spatial dims): [zero padding of the blocked input] then the
//   blocked direct convolution over the node's weights (lower/compute/blocked_conv.h; rule
//   blocked_conv2d lays them out and applies the fused summand and activation per output strip
//   right after the register tile); a pointwise conv is described over one row of all its
//   pixels;
// - depthwise (2-D): depthwise_nchwc.cpp.
#include <algorithm>

#include "lower/compute/blocked_conv.h"
#include "lower/compute/epilogue.h"
#include "lower/scheduled/conv_nchwc_geometry.h"
#include "lower/scheduled/layout_kernels.h"
#include "lower/scheduled/scheduled.h"
#include "support/error.h"
#include "tir/op.h"

namespace ingot::lower {

using namespace tir;

const graph::Value* pad_blocked_input(const graph::Node& node, const ConvNchwcGeometry& g,
                                      ValueFactory& values, std::vector<NodeKernel>& kernels) {
  const graph::Value* x = node.inputs[0];
  bool padded = false;
  for (int64_t p : g.pads) padded = padded || p != 0;
  if (!padded) return x;
  // Rows of (pixel, lane) are contiguous, so the padding kernel serves with the lanes folded
  // into the row.
  size_t sp = g.spatial;
  int64_t ib = g.xs.back();
  std::vector<int64_t> ps = {g.xs[0], g.xs[1]}, xs = ps, before = {0, 0}, blocked = ps;
  for (size_t d = 0; d < sp; ++d) {
    bool row = d + 1 == sp;
    int64_t in = g.xs[2 + d] + g.pads[d] + g.pads[sp + d];
    ps.push_back(in * (row ? ib : 1));
    xs.push_back(g.xs[2 + d] * (row ? ib : 1));
    before.push_back(g.pads[d] * (row ? ib : 1));
    blocked.push_back(in);
  }
  blocked.push_back(ib);
  const graph::Value* input =
      values.temporary(node.outputs[0]->name + "_padded_input", graph::DType::kF32, blocked);
  PrimFunc pad = pad_kernel(xs, ps, before);
  pad.name = "pad";
  kernels.push_back({pad, {x, input}});
  return input;
}

namespace {

std::vector<NodeKernel> lower_grouped(const graph::Node& node, ValueFactory& values) {
  ConvNchwcGeometry g = conv_nchwc_geometry(node);
  const graph::Value* w = node.inputs[1];
  const graph::Value* bias = optional_input(node, 2);
  const graph::Value* z = optional_input(node, 3);
  const graph::Value* y = node.outputs[0];
  size_t sp = g.spatial;
  BlockedConvShape s;
  s.groups = node.attrs.get_int("group", 1);
  s.n = g.xs[0], s.ic = g.ws[1] * s.groups, s.oc = g.ws[0];
  s.ib = g.xs.back(), s.nr = g.ys.back();
  for (size_t d = 0; d < sp; ++d) {
    s.in.push_back(g.xs[2 + d] + g.pads[d] + g.pads[sp + d]);
    s.out.push_back(g.ys[2 + d]);
    s.kernel.push_back(g.ws[2 + d]);
  }
  s.strides = g.strides, s.dilations = g.dil;
  // Groups narrower than the block with equal blocks on both sides (ResNeXt's 4 and 8 channels,
  // RegNet's 8): each lane sums its own group's inputs (support/channel_block.h).
  s.lane_groups = s.groups > 1 && s.oc / s.groups < s.nr;
  // A pointwise conv (1x1, stride 1, no padding) is a product over all pixels: it is described
  // over the row-major view of them as one row, so register strips do not restart (and leave a
  // tail) at every row.
  auto ones = [](const std::vector<int64_t>& v) {
    return std::all_of(v.begin(), v.end(), [](int64_t e) { return e == 1; });
  };
  bool no_pads = std::all_of(g.pads.begin(), g.pads.end(), [](int64_t p) { return p == 0; });
  std::vector<int64_t> ys = g.ys;
  if (sp > 1 && ones(s.kernel) && ones(s.strides) && no_pads) {
    int64_t in = 1, out = 1;
    for (size_t d = 0; d < sp; ++d) in *= s.in[d], out *= s.out[d];
    s.in = {in}, s.out = {out}, s.kernel = {1}, s.strides = {1}, s.dilations = {1};
    ys = {ys[0], ys[1], out, ys.back()};
  }
  std::vector<NodeKernel> kernels;
  // 1. Zero padding.
  const graph::Value* input = pad_blocked_input(node, g, values, kernels);
  // 2. The convolution over the node's weights (the rule lays them out) with its epilogue.
  ConvEpilogue epilogue;
  std::vector<Buffer> extra;
  Buffer zb = f32_buffer("Z", ys);
  if (z) extra.push_back(zb);
  if (has_epilogue(node))
    epilogue = [&node, z, zb](const Expr& v, const std::vector<Expr>& idx) {
      return apply_epilogue(node, v, z ? zb.load(idx) : Expr());
    };
  NodeKernel k{blocked_conv_compute(s, bias != nullptr, epilogue, extra), {input, w}};
  if (bias) k.args.push_back(bias);
  if (z) k.args.push_back(z);
  k.args.push_back(y);
  k.main = true;
  kernels.push_back(std::move(k));
  return kernels;
}

}  // namespace

std::optional<std::vector<NodeKernel>> lower_conv_nchwc(const graph::Node& node,
                                                        ValueFactory& values) {
  if (node.op != ops::OpKind::ConvNCHWc) return std::nullopt;
  int64_t group = node.attrs.get_int("group", 1);
  const auto& ws = node.inputs.at(1)->type.shape;
  bool depthwise = group > 1 && ws[1].value == 1 && ws[0].value == group;
  if (depthwise) return lower_depthwise_nchwc(node);
  return lower_grouped(node, values);
}

}  // namespace ingot::lower
