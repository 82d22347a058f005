// Test fixture (tests only): the blocked convolutions in the packed form the conv rule's core
// schedules, built directly with the weights already packed, Wp[ceil(OC / NR), IC, KH, KW, NR]
// (NCHW input) or Wp[ceil(OC / NR), ICb, k..., IB, NR] (channel-blocked input), and the host
// packings to feed them. The compiler itself never builds this form: lowering describes the
// convolution over the node's own weights (lower/compute/blocked_conv.h) and the rule lays them
// out with transform_layout (schedule/rules/conv_weight_layout.h); this fixture pins the
// schedule's own tests to the form it schedules.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "schedule/rules/conv2d.h"
#include "support/channel_block.h"
#include "support/error.h"
#include "tir/block_nest.h"
#include "tir/op.h"
#include "tir/region_analysis.h"

namespace ingot::schedule {

namespace packed_conv_detail {
inline int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}
inline int64_t product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}
inline std::string dim_names(size_t spatial) {
  return std::string("dhw").substr(3 - spatial);
}
}  // namespace packed_conv_detail

struct Conv2dShape {
  int64_t n = 1, ic = 0, ih = 0, iw = 0;  // the padded input
  int64_t oc = 0, oh = 0, ow = 0;
  int64_t kh = 1, kw = 1, sh = 1, sw = 1, dh = 1, dw = 1;
};

struct BlockedConv2d {
  tir::Buffer X, Wp, bias, Y;  // X[n, ic, ih, iw], Wp[ocb, ic, kh, kw, nr], bias[ocb * nr],
                               // Y[n, ocb, oh, ow, nr]
  int nr = 0;
  tir::PrimFunc func;  // params X, Wp, bias, Y; one block "conv"
};

// The output channel block: support/channel_block.h's for the conv's OC.
inline int conv2d_channel_block(const Conv2dShape& s, int vector_bits) {
  return channel_block(s.oc, vector_bits);
}

// X[n, ic, ih, iw] (padded), Wp[ocb, ic, kh, kw, nr], bias[ocb * nr], Y[n, ocb, oh, ow, nr].
inline BlockedConv2d make_blocked_conv2d(const Conv2dShape& s, int nr) {
  using namespace tir;
  BlockedConv2d c;
  c.nr = nr;
  int64_t ocb = packed_conv_detail::ceil_div(s.oc, nr);
  DataType f = DataType::f32();
  c.X = Buffer::make("X", f, std::vector<int64_t>{s.n, s.ic, s.ih, s.iw});
  c.Wp = Buffer::make("Wp", f, std::vector<int64_t>{ocb, s.ic, s.kh, s.kw, nr});
  c.bias = Buffer::make("bias", f, std::vector<int64_t>{ocb * nr});
  c.Y = Buffer::make("Y", f, std::vector<int64_t>{s.n, ocb, s.oh, s.ow, nr});
  Var vn("vn"), vb("vb"), vh("vh"), vw("vw"), vr("vr"), vc("vc"), vkh("vkh"), vkw("vkw");
  std::vector<Expr> yi = {vn, vb, vh, vw, vr};
  Expr x = c.X(vn, vc, Expr(vh) * s.sh + Expr(vkh) * s.dh, Expr(vw) * s.sw + Expr(vkw) * s.dw);
  Stmt body = BufferStore::make(c.Y, c.Y.load(yi) + x * c.Wp(vb, vc, vkh, vkw, vr), yi);
  Stmt init = BufferStore::make(c.Y, c.bias(Expr(vb) * int64_t(nr) + vr), yi);
  std::vector<IterVar> ivs = {
      {vn, i64(0), i64(s.n), IterKind::kSpatial},  {vb, i64(0), i64(ocb), IterKind::kSpatial},
      {vh, i64(0), i64(s.oh), IterKind::kSpatial}, {vw, i64(0), i64(s.ow), IterKind::kSpatial},
      {vr, i64(0), i64(nr), IterKind::kSpatial},   {vc, i64(0), i64(s.ic), IterKind::kReduce},
      {vkh, i64(0), i64(s.kh), IterKind::kReduce}, {vkw, i64(0), i64(s.kw), IterKind::kReduce}};
  Stmt blk = make_block("conv", ivs, body, init);
  std::vector<Var> loops = {Var("n"), Var("ocb"), Var("oh"), Var("ow"),
                            Var("r"), Var("ic"),  Var("kh"), Var("kw")};
  std::vector<Expr> values(loops.begin(), loops.end());
  Stmt st = BlockRealize::make(values, IntImm::make(DataType::boolean(), 1), blk);
  for (size_t l = loops.size(); l-- > 0;)
    st = For::make(loops[l], i64(0), ivs[l].extent, ForKind::kSerial, st);
  c.func = PrimFunc{"conv2d_blocked", {c.X, c.Wp, c.bias, c.Y}, st};
  c.func.flops = 2.0 * double(s.n * s.oc * s.oh * s.ow) * double(s.ic * s.kh * s.kw);
  return c;
}

inline std::vector<float> pack_conv2d_weights(const float* w, const Conv2dShape& s, int nr) {
  int64_t ocb = packed_conv_detail::ceil_div(s.oc, nr), taps = s.kh * s.kw;
  std::vector<float> out(size_t(ocb * s.ic * taps * nr), 0.0f);
  for (int64_t o = 0; o < s.oc; ++o)
    for (int64_t c = 0; c < s.ic; ++c)
      for (int64_t t = 0; t < taps; ++t)
        out[size_t((((o / nr) * s.ic + c) * taps + t) * nr + o % nr)] =
            w[(o * s.ic + c) * taps + t];
  return out;
}

inline std::vector<float> pack_conv2d_bias(const float* bias, const Conv2dShape& s, int nr) {
  std::vector<float> out(size_t(packed_conv_detail::ceil_div(s.oc, nr) * nr), 0.0f);
  if (bias) std::copy(bias, bias + s.oc, out.begin());
  return out;
}

struct ConvNchwcShape {
  int64_t n = 1, ic = 0, oc = 0;  // ic: all input channels, of every group
  int64_t groups = 1;             // > 1: see conv_input_blocks (support/channel_block.h)
  // Groups narrower than the (equal) input and output blocks, `width` = ic / groups channels
  // each: output lane r sums only over its group's inputs, X[n, ocb, ..., floor(r / width) *
  // width + ici] * Wp[ocb, 0, k..., ici, r] for ici < width (no block-diagonal zeros).
  bool lane_groups = false;
  // Per spatial dim, outermost first (D, H, W): the padded input, the output, the kernel.
  std::vector<int64_t> in, out, kernel, strides, dilations;
};

using ConvEpilogue =
    std::function<tir::Expr(const tir::Expr& y, const std::vector<tir::Expr>& index)>;

inline BlockedConv2d make_blocked_conv_nchwc(const ConvNchwcShape& s, int ib, int nr,
                                             const ConvEpilogue& epilogue = {},
                                             const std::vector<tir::Buffer>& epilogue_params = {}) {
  using namespace tir;
  size_t sp = s.in.size();
  INGOT_ICHECK(sp >= 1 && sp <= 3 && s.out.size() == sp && s.kernel.size() == sp &&
                   s.strides.size() == sp && s.dilations.size() == sp,
               "blocked conv: {} spatial dims", sp);
  BlockedConv2d c;
  c.nr = nr;
  int64_t ocb = packed_conv_detail::ceil_div(s.oc, nr),
          icb = packed_conv_detail::ceil_div(s.ic, ib);
  std::optional<ConvInputBlocks> in = conv_input_blocks(s.ic, s.oc, s.groups, ib, nr);
  INGOT_ICHECK(in.has_value(),
               "blocked conv: {} groups of {} -> {} channels do not fit blocks {}/{}", s.groups,
               s.ic, s.oc, ib, nr);
  DataType f = DataType::f32();
  auto shape = [](std::vector<int64_t> head, const std::vector<int64_t>& mid,
                  std::vector<int64_t> tail) {
    head.insert(head.end(), mid.begin(), mid.end());
    head.insert(head.end(), tail.begin(), tail.end());
    return head;
  };
  c.X = Buffer::make("X", f, shape({s.n, icb}, s.in, {ib}));
  int64_t width = s.ic / s.groups;
  INGOT_ICHECK(!s.lane_groups || (ib == nr && nr % width == 0 && in->count == 1),
               "blocked conv: lane groups of {} in blocks {}/{}", width, ib, nr);
  // Channels the reduction covers per input block.
  int64_t ici = s.lane_groups ? width : icb == 1 && s.groups == 1 ? s.ic : ib;
  c.Wp = Buffer::make("Wp", f, shape({ocb, in->count}, s.kernel, {s.lane_groups ? width : ib, nr}));
  c.bias = Buffer::make("bias", f, std::vector<int64_t>{ocb * nr});
  c.Y = Buffer::make("Y", f, shape({s.n, ocb}, s.out, {nr}));
  std::string names = packed_conv_detail::dim_names(sp);
  Var vn("vn"), vb("vb"), vr("vr"), vc("vc"), vi("vi");
  std::vector<Var> vo, vk;
  for (char d : names) {
    vo.push_back(Var(std::string("v") + d));
    vk.push_back(Var(std::string("vk") + d));
  }
  // The output block's first input block (0 without groups).
  Expr first = in->in_per_step == 0    ? i64(0)
               : in->out_per_step == 1 ? Expr(vb) * in->in_per_step
                                       : floordiv(vb, i64(in->out_per_step)) * in->in_per_step;
  Expr xb = in->in_per_step == 0 ? Expr(vc) : first + vc;
  std::vector<Expr> yi = {vn, vb}, xi = {vn, xb}, wi = {vb, vc};
  for (size_t d = 0; d < sp; ++d) {
    yi.push_back(vo[d]);
    xi.push_back(Expr(vo[d]) * s.strides[d] + Expr(vk[d]) * s.dilations[d]);
    wi.push_back(vk[d]);
  }
  yi.push_back(vr);
  xi.push_back(s.lane_groups ? floordiv(Expr(vr), i64(width)) * width + vi : Expr(vi));
  wi.push_back(vi);
  wi.push_back(vr);
  Stmt body = BufferStore::make(c.Y, c.Y.load(yi) + c.X.load(xi) * c.Wp.load(wi), yi);
  Stmt init = BufferStore::make(c.Y, c.bias(Expr(vb) * int64_t(nr) + vr), yi);
  // Iteration order n, ocb, o..., r | icb, k..., ici (one input block: only its real lanes).
  std::vector<IterVar> ivs = {{vn, i64(0), i64(s.n), IterKind::kSpatial},
                              {vb, i64(0), i64(ocb), IterKind::kSpatial}};
  std::vector<Var> loops = {Var("n"), Var("ocb")};
  for (size_t d = 0; d < sp; ++d) {
    ivs.push_back({vo[d], i64(0), i64(s.out[d]), IterKind::kSpatial});
    loops.push_back(Var(std::string("o") + names[d]));
  }
  ivs.push_back({vr, i64(0), i64(nr), IterKind::kSpatial});
  loops.push_back(Var("r"));
  size_t spatial_iters = ivs.size();
  ivs.push_back({vc, i64(0), i64(in->count), IterKind::kReduce});
  loops.push_back(Var("icb"));
  for (size_t d = 0; d < sp; ++d) {
    ivs.push_back({vk[d], i64(0), i64(s.kernel[d]), IterKind::kReduce});
    loops.push_back(Var(std::string("k") + names[d]));
  }
  ivs.push_back({vi, i64(0), i64(ici), IterKind::kReduce});
  loops.push_back(Var("ici"));
  Stmt st = block_loop_nest(loops, ivs, make_block("conv", ivs, body, init));
  c.func = PrimFunc{"conv" + std::to_string(sp) + "d_nchwc", {c.X, c.Wp, c.bias}, st};
  if (epilogue)
    append_in_place_block(c.func, "epilogue", c.Y, loops, ivs, spatial_iters, epilogue,
                          epilogue_params);
  c.func.params.push_back(c.Y);
  c.func.flops = 2.0 * double(s.n * s.oc * packed_conv_detail::product(s.out)) *
                 double(s.ic / s.groups * packed_conv_detail::product(s.kernel));
  return c;
}

inline std::vector<float> pack_conv_weights_nchwc(const float* w, const ConvNchwcShape& s, int ib,
                                                  int nr) {
  std::optional<ConvInputBlocks> in = conv_input_blocks(s.ic, s.oc, s.groups, ib, nr);
  INGOT_ICHECK(in.has_value(), "blocked conv weights: groups do not fit the blocks");
  int64_t ocb = packed_conv_detail::ceil_div(s.oc, nr),
          taps = packed_conv_detail::product(s.kernel), icg = s.ic / s.groups,
          ocg = s.oc / s.groups;
  if (s.lane_groups) {
    std::vector<float> out(size_t(ocb * taps * icg * nr), 0.0f);
    for (int64_t o = 0; o < s.oc; ++o)
      for (int64_t j = 0; j < icg; ++j)
        for (int64_t t = 0; t < taps; ++t)
          out[size_t((((o / nr) * taps + t) * icg + j) * nr + o % nr)] =
              w[(o * icg + j) * taps + t];
    return out;
  }
  std::vector<float> out(size_t(ocb * in->count * taps * ib * nr), 0.0f);
  // W[o, c - group(o) * icg] for every input channel c the output block reads in its group.
  for (int64_t o = 0; o < s.oc; ++o) {
    int64_t ob = o / nr, first = (ob / in->out_per_step) * in->in_per_step;
    for (int64_t k = 0; k < in->count * ib; ++k) {
      int64_t local = (first * ib + k) - (o / ocg) * icg;
      if (local < 0 || local >= icg) continue;
      for (int64_t t = 0; t < taps; ++t)
        out[size_t((((ob * in->count + k / ib) * taps + t) * ib + k % ib) * nr + o % nr)] =
            w[(o * icg + local) * taps + t];
    }
  }
  return out;
}

}  // namespace ingot::schedule
