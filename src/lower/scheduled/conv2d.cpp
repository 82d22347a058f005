// Blocked direct-convolution kernels for 2-D Conv with constant weights outside the layout pass's
// chains (see scheduled.h): a zero-padding kernel when the conv pads, the blocked convolution
// over the node's weights (lower/compute/blocked_conv.h; rule blocked_conv2d lays them out) into
// a channel-blocked temporary, and a copy back to NCHW that also applies the fused epilogue
// (summand, activation).
#include <cstring>

#include "lower/compute/blocked_conv.h"
#include "lower/compute/common.h"
#include "lower/compute/epilogue.h"
#include "lower/scheduled/layout_kernels.h"
#include "lower/scheduled/scheduled.h"
#include "support/channel_block.h"

namespace ingot::lower {

using namespace tir;

namespace {

// Y[n, o, h, w] = epilogue(Yb[n, o / nr, h, w, o % nr], Z[n, o, h, w]): a row block per (n,
// channel block, row, channel), a [w, nr] to [nr, w] transpose written channel by channel
// (contiguous stores) as a lane loop, with the node's fused summand and activation applied on the
// way. The injective rule sets the loop kinds (by default: (n, block) parallel, lanes vectorized).
PrimFunc unblock_kernel(const std::vector<int64_t>& bs, const std::vector<int64_t>& ys, int nr,
                        const graph::Node& node, bool has_z) {
  Buffer yb = f32_buffer("Yb", bs), y = f32_buffer("Y", ys), z = f32_buffer("Z", ys);
  auto row = [&](const Index& i) {
    Expr n = floordiv(i[0], i64(bs[1])), ob = floormod(i[0], i64(bs[1])), h = i[1];
    Expr o = ob * int64_t(nr) + i[2];
    Stmt lanes = lane_loop("w", i64(0), ys[3], [&](Expr w) {
      std::vector<Expr> yi = {n, o, h, w};
      Expr v = apply_epilogue(node, yb.load({n, ob, h, w, i[2]}), has_z ? z.load(yi) : Expr());
      return BufferStore::make(y, v, yi);
    });
    if (ys[1] % nr != 0) lanes = IfThenElse::make(o < i64(ys[1]), lanes);  // padding channels
    return lanes;
  };
  PrimFunc f;
  f.params = {yb};
  if (has_z) f.params.push_back(z);
  f.params.push_back(y);
  f.body = loop_nest({bs[0] * bs[1], ys[2], nr}, "nb", row);
  return f;
}

}  // namespace

std::optional<std::vector<NodeKernel>> lower_blocked_conv2d(const graph::Node& node,
                                                            const ChannelBlockPolicy& blocks,
                                                            ValueFactory& values) {
  if (node.op != ops::OpKind::Conv) return std::nullopt;
  const graph::Value* x = node.inputs.at(0);
  const graph::Value* w = node.inputs.at(1);
  const graph::Value* bias = node.inputs.size() > 2 ? node.inputs[2] : nullptr;
  const graph::Value* y = node.outputs.at(0);
  auto f32 = [](const graph::Value* v) { return v->type.dtype == graph::DType::kF32; };
  if (!f32(x) || !f32(w) || !f32(y) || x->type.rank() != 4 || !w->is_constant() ||
      node.attrs.get_int("group", 1) != 1 || (bias && (!f32(bias) || !bias->is_constant())))
    return std::nullopt;
  std::vector<int64_t> xs = x->type.static_shape(), ws = w->type.static_shape(),
                       ys = y->type.static_shape();
  std::vector<int64_t> strides = node.attrs.get_ints("strides", {1, 1});
  std::vector<int64_t> dil = node.attrs.get_ints("dilations", {1, 1});
  std::vector<int64_t> pads = node.attrs.get_ints("pads", {0, 0, 0, 0});
  if (strides.size() != 2 || dil.size() != 2 || pads.size() != 4) return std::nullopt;
  for (int64_t p : pads)
    if (p < 0) return std::nullopt;

  const int64_t ic = xs[1], ih = xs[2] + pads[0] + pads[2], iw = xs[3] + pads[1] + pads[3];
  const int64_t nr = blocks.conv_output(ys[1]);
  const int64_t ocb = (ys[1] + nr - 1) / nr;
  std::vector<NodeKernel> kernels;
  std::string base = node.outputs[0]->name;
  // 1. Zero padding.
  const graph::Value* input = x;
  if (pads[0] || pads[1] || pads[2] || pads[3]) {
    std::vector<int64_t> ps = {xs[0], ic, ih, iw};
    input = values.temporary(base + "_padded_input", graph::DType::kF32, ps);
    PrimFunc pad = pad_kernel(xs, ps, pads[0], pads[1]);
    pad.name = "pad";
    kernels.push_back({pad, {x, input}});
  }
  // 2. The blocked convolution over the node's weights (the rule lays them out).
  BlockedConvShape s;
  s.n = xs[0], s.ic = ic, s.oc = ys[1], s.blocked_input = false, s.nr = nr;
  s.in = {ih, iw}, s.out = {ys[2], ys[3]}, s.kernel = {ws[2], ws[3]};
  s.strides = strides, s.dilations = dil;
  std::vector<int64_t> blocked = {xs[0], ocb, ys[2], ys[3], nr};
  const graph::Value* yb = values.temporary(base + "_blocked", graph::DType::kF32, blocked);
  NodeKernel conv{blocked_conv_compute(s, bias != nullptr), {input, w}};
  if (bias) conv.args.push_back(bias);
  conv.args.push_back(yb);
  conv.main = true;
  kernels.push_back(std::move(conv));
  // 3. Back to NCHW.
  const graph::Value* z = node.inputs.size() > 3 ? node.inputs[3] : nullptr;
  PrimFunc unblock = unblock_kernel(blocked, ys, nr, node, z != nullptr);
  unblock.name = "unblock";
  std::vector<const graph::Value*> args = {yb};
  if (z != nullptr) args.push_back(z);
  args.push_back(y);
  kernels.push_back({unblock, args});
  return kernels;
}

}  // namespace ingot::lower
