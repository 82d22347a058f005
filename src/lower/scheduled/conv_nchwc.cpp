// ConvNCHWc kernels (graph pass layout_nchwc): convolutions whose input, summand and output stay
// channel-blocked, so chains of convolutions need no layout copies between them.
// - groups = 1 or grouped (1 to 3 spatial dims): [zero padding of the blocked input] then the
//   blocked direct convolution (rule blocked_conv2d, weights packed
//   [OCb, ICb, [KD,] [KH,] KW, IB, NR]; with groups, ICb is the input blocks of the output
//   block's groups) with the fused summand and activation applied per output strip right after
//   the register tile; a pointwise conv runs as one row of all its pixels;
// - depthwise (2-D): a loop nest scheduled by construction: rows in parallel, the channel block
//   vectorized, taps unrolled; padding handled in place (border pixels read clamped, masked
//   inputs), so no padded copy of the input is made.
#include <algorithm>

#include "lower/compute/epilogue.h"
#include "lower/scheduled/layout_kernels.h"
#include "lower/scheduled/scheduled.h"
#include "schedule/rules/conv_nchwc.h"
#include "schedule/rules/default_rules.h"
#include "support/error.h"
#include "tir/op.h"

namespace ingot::lower {

using namespace tir;

namespace {

struct ConvNchwcGeometry {
  std::vector<int64_t> xs, ws, ys, strides, dil, pads;
  size_t spatial = 0;
};

ConvNchwcGeometry geometry(const graph::Node& node) {
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

// bias (or zeros) padded to `padded` channels.
std::vector<float> padded_bias(const graph::Value* bias, int64_t channels, int64_t padded) {
  std::vector<float> out(size_t(padded), 0.0f);
  if (bias) {
    const float* b = bias->constant->data_as<float>();
    std::copy(b, b + channels, out.begin());
  }
  return out;
}

std::vector<NodeKernel> lower_grouped(const graph::Node& node, int vector_bits,
                                      ValueFactory& values) {
  ConvNchwcGeometry g = geometry(node);
  const graph::Value* x = node.inputs[0];
  const graph::Value* w = node.inputs[1];
  const graph::Value* bias = optional_input(node, 2);
  const graph::Value* z = optional_input(node, 3);
  const graph::Value* y = node.outputs[0];
  int lanes = vector_bits >= 512 ? 16 : 8;
  size_t sp = g.spatial;
  int ib = int(g.xs.back()), nr = int(g.ys.back());
  INGOT_ICHECK(nr % lanes == 0 && nr <= 2 * lanes, "{}: output block {} does not fit the tile",
               node.describe(), nr);
  schedule::ConvNchwcShape s;
  s.groups = node.attrs.get_int("group", 1);
  s.n = g.xs[0], s.ic = g.ws[1] * s.groups, s.oc = g.ws[0];
  for (size_t d = 0; d < sp; ++d) {
    s.in.push_back(g.xs[2 + d] + g.pads[d] + g.pads[sp + d]);
    s.out.push_back(g.ys[2 + d]);
    s.kernel.push_back(g.ws[2 + d]);
  }
  s.strides = g.strides, s.dilations = g.dil;
  // A pointwise conv (1x1, stride 1, no padding) is a GEMM over all pixels: the kernel sees one
  // row of all of them, so register strips do not restart (and leave a tail) at every row.
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
  std::string base = y->name;
  // 1. Zero padding: rows of (pixel, lane) are contiguous, so the padding kernel serves with the
  //    lanes folded into the row.
  const graph::Value* input = x;
  bool padded = false;
  for (int64_t p : g.pads) padded = padded || p != 0;
  if (padded) {
    std::vector<int64_t> ps = {s.n, g.xs[1]}, xs = {s.n, g.xs[1]}, before = {0, 0};
    for (size_t d = 0; d < sp; ++d) {
      bool row = d + 1 == sp;
      ps.push_back(s.in[d] * (row ? ib : 1));
      xs.push_back(g.xs[2 + d] * (row ? ib : 1));
      before.push_back(g.pads[d] * (row ? ib : 1));
    }
    std::vector<int64_t> blocked = {s.n, g.xs[1]};
    blocked.insert(blocked.end(), s.in.begin(), s.in.end());
    blocked.push_back(ib);
    input = values.temporary(base + "_padded_input", graph::DType::kF32, blocked);
    PrimFunc pad = pad_kernel(xs, ps, before);
    pad.name = "pad";
    kernels.push_back({pad, {x, input}});
  }
  // 2. The convolution with its epilogue.
  int64_t ocb = g.ys[1];
  std::vector<float> wp =
      schedule::pack_conv_weights_nchwc(w->constant->data_as<float>(), s, ib, nr);
  std::vector<int64_t> wshape = {ocb, int64_t(wp.size()) / (ocb * ib * nr)};
  for (int64_t k : s.kernel) wshape[1] /= k;
  wshape.insert(wshape.end(), s.kernel.begin(), s.kernel.end());
  wshape.push_back(ib);
  wshape.push_back(nr);
  const graph::Value* wv = values.constant(w->name + "_nchwc", f32_tensor(wshape, wp));
  const graph::Value* bv =
      values.constant((bias ? bias->name : base) + "_nchwc_bias",
                      f32_tensor({ocb * nr}, padded_bias(bias, s.oc, ocb * nr)));
  schedule::ConvEpilogue epilogue;
  std::vector<Buffer> extra;
  Buffer zb = f32_buffer("Z", ys);
  if (z) extra.push_back(zb);
  if (has_epilogue(node))
    epilogue = [&node, z, zb](const Expr& v, const std::vector<Expr>& idx) {
      return apply_epilogue(node, v, z ? zb.load(idx) : Expr());
    };
  schedule::BlockedConv2d conv = schedule::make_blocked_conv_nchwc(s, ib, nr, epilogue, extra);
  conv.func.schedule_rule = schedule::kBlockedConv2dRule;
  NodeKernel k{conv.func, {input, wv, bv}};
  if (z) k.args.push_back(z);
  k.args.push_back(y);
  kernels.push_back(std::move(k));
  return kernels;
}

std::vector<NodeKernel> lower_depthwise(const graph::Node& node, ValueFactory& values) {
  ConvNchwcGeometry g = geometry(node);
  INGOT_ICHECK(g.spatial == 2, "{}: depthwise blocked convolution is 2-D only", node.describe());
  const graph::Value* bias = optional_input(node, 2);
  const graph::Value* z = optional_input(node, 3);
  const graph::Value* y = node.outputs[0];
  int64_t blk = g.xs[4], cb = g.xs[1], c = g.ws[0], kh = g.ws[2], kw = g.ws[3];
  int64_t ih = g.xs[2], iw = g.xs[3], oh = g.ys[2], ow = g.ys[3];
  INGOT_ICHECK(g.ys[4] == blk && g.ys[1] == cb, "{}: depthwise blocks differ", node.describe());
  // Weights [C, 1, KH, KW] -> [CB, KH, KW, BLK], zero padded.
  const float* wd = node.inputs[1]->constant->data_as<float>();
  std::vector<float> wp(size_t(cb * kh * kw * blk), 0.0f);
  for (int64_t ch = 0; ch < c; ++ch)
    for (int64_t t = 0; t < kh * kw; ++t)
      wp[size_t(((ch / blk) * kh * kw + t) * blk + ch % blk)] = wd[ch * kh * kw + t];
  const graph::Value* wv =
      values.constant(node.inputs[1]->name + "_nchwc", f32_tensor({cb, kh, kw, blk}, wp));
  const graph::Value* bv = values.constant((bias ? bias->name : y->name) + "_nchwc_bias",
                                           f32_tensor({cb * blk}, padded_bias(bias, c, cb * blk)));
  Buffer xb = f32_buffer("X", g.xs), wb = f32_buffer("W", {cb, kh, kw, blk}),
         bb = f32_buffer("B", {cb * blk}), zb = f32_buffer("Z", g.ys), yb = f32_buffer("Y", g.ys);
  int64_t sh = g.strides[0], sw = g.strides[1], dh = g.dil[0], dw = g.dil[1];
  int64_t top = g.pads[0], left = g.pads[1];
  // Output rows / columns whose taps all fall inside the input.
  auto interior = [](int64_t pad, int64_t s, int64_t d, int64_t k, int64_t in, int64_t out) {
    int64_t lo = (pad + s - 1) / s;
    int64_t last = in - 1 - (k - 1) * d + pad;  // o * s <= last
    int64_t hi = last < 0 ? 0 : last / s + 1;
    lo = std::min(lo, out);
    hi = std::max(lo, std::min(hi, out));
    return std::pair<int64_t, int64_t>{lo, hi};
  };
  auto [row_lo, row_hi] = interior(top, sh, dh, kh, ih, oh);
  auto [col_lo, col_hi] = interior(left, sw, dw, kw, iw, ow);
  Var t("t");
  Expr n = floordiv(t, i64(cb * oh)), ch = floormod(floordiv(t, i64(oh)), i64(cb)),
       row = floormod(t, i64(oh));
  Expr zero = make_const(DataType::f32(), 0);
  // One output vector at column `col`, taps unrolled; `checked` masks taps outside the input.
  auto pixel = [&](const Expr& col, const Var& l, bool check_rows, bool check_cols) {
    Expr acc = bb.load({Expr(ch) * blk + l});
    for (int64_t a = 0; a < kh; ++a)
      for (int64_t b = 0; b < kw; ++b) {
        Expr r = row * sh + (a * dh - top), q = col * sw + (b * dw - left);
        Expr valid;
        auto need = [&](Expr cond) { valid = valid.defined() ? (valid && cond) : cond; };
        if (check_rows) {
          need(r >= i64(0) && r < i64(ih));
          r = max(min(r, i64(ih - 1)), i64(0));
        }
        if (check_cols) {
          need(q >= i64(0) && q < i64(iw));
          q = max(min(q, i64(iw - 1)), i64(0));
        }
        Expr v = xb.load({n, ch, r, q, l});
        if (valid.defined()) v = select(valid, v, zero);
        acc = acc + v * wb.load({ch, i64(a), i64(b), l});
      }
    std::vector<Expr> yi = {n, ch, row, col, l};
    return BufferStore::make(yb, apply_epilogue(node, acc, z ? zb.load(yi) : Expr()), yi);
  };
  auto columns = [&](int64_t lo, int64_t hi, bool check_rows, bool check_cols) -> Stmt {
    if (hi <= lo) return Stmt();
    Var v("ow"), l("l");
    Stmt body = loop(l, blk, pixel(Expr(v) + lo, l, check_rows, check_cols), ForKind::kVectorized);
    return For::make(v, i64(0), i64(hi - lo), ForKind::kSerial, body);
  };
  auto row_body = [&](bool check_rows) {
    std::vector<Stmt> parts;
    for (Stmt s : {columns(0, col_lo, check_rows, true), columns(col_lo, col_hi, check_rows, false),
                   columns(col_hi, ow, check_rows, true)})
      if (s.defined()) parts.push_back(s);
    return SeqStmt::make(parts);
  };
  Stmt body = row_body(true);
  if (row_hi > row_lo)
    body = IfThenElse::make(row >= i64(row_lo) && row < i64(row_hi), row_body(false), body);
  PrimFunc f;
  f.name = "depthwise_conv2d_nchwc";
  f.params = {xb, wb, bb};
  if (z) f.params.push_back(zb);
  f.params.push_back(yb);
  f.body = loop(t, g.ys[0] * cb * oh, body, ForKind::kParallel);
  NodeKernel k{f, {node.inputs[0], wv, bv}};
  if (z) k.args.push_back(z);
  k.args.push_back(y);
  k.main = true;
  return {k};
}

}  // namespace

std::optional<std::vector<NodeKernel>> lower_conv_nchwc(const graph::Node& node, int vector_bits,
                                                        ValueFactory& values) {
  if (node.op != ops::OpKind::ConvNCHWc) return std::nullopt;
  int64_t group = node.attrs.get_int("group", 1);
  const auto& ws = node.inputs.at(1)->type.shape;
  bool depthwise = group > 1 && ws[1].value == 1 && ws[0].value == group;
  if (depthwise) return lower_depthwise(node, values);
  return lower_grouped(node, vector_bits, values);
}

}  // namespace ingot::lower
