// Grouped 2-D convolution on channel-blocked tensors whose groups are narrower than a vector
// (ResNeXt-50 32x4d: 4 and 8 channels per group; RegNet: 8), one vector per channel block.
// Packed as dense blocks with block-diagonal weights, such a conv would execute lanes / width
// times the FLOPs it needs (2x for 8-channel groups in 16 lanes, 4x for 4). Here each output
// lane l sums only over its own group's inputs:
//   Y[n, b, oh, ow, l] = bias[l] + sum over j < width, kh, kw of
//       Xp[n, b, oh * sh + kh * dh, ow * sw + kw * dw, group(l) * width + j] * W[b, kh, kw, j, l]
// with the input vector for (pixel, j) made of each group's j-th channel broadcast over that
// group's lanes (a shuffle of the pixel's channel block). Output rows run in parallel, R
// columns per register tile: the R accumulators stay in registers over all taps; for each
// (kh, j) a blended input vector is built once per input column and shared by every (column,
// kw) that reads it (stride 1: R + KW - 1 blends for R x KW FMAs), each weight vector loads
// once. The input is zero padded first, so no tap is masked; the fused summand / activation
// run over the strip after it is stored.
#include <algorithm>
#include <map>

#include "lower/compute/epilogue.h"
#include "lower/scheduled/conv_nchwc_geometry.h"
#include "lower/scheduled/layout_kernels.h"
#include "lower/scheduled/scheduled.h"
#include "tir/op.h"

namespace ingot::lower {

using namespace tir;

std::optional<std::vector<NodeKernel>> lower_narrow_group_conv_nchwc(const graph::Node& node,
                                                                     int vector_bits,
                                                                     ValueFactory& values) {
  int64_t groups = node.attrs.get_int("group", 1);
  const auto& wshape = node.inputs.at(1)->type.shape;
  if (groups <= 1 || wshape.size() != 4 || !node.inputs[1]->is_constant()) return std::nullopt;
  ConvNchwcGeometry g = conv_nchwc_geometry(node);
  int64_t lanes = std::clamp<int64_t>(vector_bits / 32, 4, 16);
  int64_t oc = g.ws[0], width = g.ws[1], blk = g.xs[4], cb = g.xs[1];
  // One vector per block on both sides, groups as wide on both sides, several per vector.
  if (oc != groups * width || width >= lanes || lanes % width != 0 || blk != lanes ||
      g.ys[4] != lanes || g.ys[1] != cb)
    return std::nullopt;
  const graph::Value* bias = optional_input(node, 2);
  const graph::Value* z = optional_input(node, 3);
  const graph::Value* y = node.outputs[0];
  int64_t kh = g.ws[2], kw = g.ws[3], oh = g.ys[2], ow = g.ys[3];
  int64_t sh = g.strides[0], sw = g.strides[1], dh = g.dil[0], dw = g.dil[1];
  std::vector<NodeKernel> kernels;
  const graph::Value* input = pad_blocked_input(node, g, values, kernels);
  std::vector<int64_t> xs = input->type.static_shape();
  // Weights W[OC, width, KH, KW] -> [CB, KH, KW, width, BLK] (zero in the padding lanes).
  const float* wd = node.inputs[1]->constant->data_as<float>();
  std::vector<float> wp(size_t(cb * kh * kw * width * blk), 0.0f);
  for (int64_t o = 0; o < oc; ++o)
    for (int64_t j = 0; j < width; ++j)
      for (int64_t t = 0; t < kh * kw; ++t)
        wp[size_t((((o / blk) * kh * kw + t) * width + j) * blk + o % blk)] =
            wd[(o * width + j) * kh * kw + t];
  const graph::Value* wv =
      values.constant(node.inputs[1]->name + "_nchwc", f32_tensor({cb, kh, kw, width, blk}, wp));
  const graph::Value* bv = values.constant((bias ? bias->name : y->name) + "_nchwc_bias",
                                           f32_tensor({cb * blk}, padded_bias(bias, oc, cb * blk)));
  Buffer xb = f32_buffer("X", xs), wb = f32_buffer("W", {cb, kh, kw, width, blk}),
         bb = f32_buffer("B", {cb * blk}), zb = f32_buffer("Z", g.ys), yb = f32_buffer("Y", g.ys);
  Var t("t");
  Expr n = floordiv(t, i64(cb * oh)), ch = floormod(floordiv(t, i64(oh)), i64(cb)),
       row = floormod(t, i64(oh));
  Expr lane = Ramp::make(i64(0), i64(1), int(lanes));
  // The input vector of column q for channel j of every group: group k's channel broadcast
  // over its lanes, shuffled from one load of the column's channel block (an in-lane permute
  // when a group fits a 128-bit lane).
  auto group_broadcast = [&](const Expr& in_row, const Expr& q, int64_t j) {
    std::vector<int> pick;
    for (int64_t l = 0; l < lanes; ++l) pick.push_back(int(l / width * width + j));
    return Shuffle::make(xb.load({n, ch, in_row, q, lane}), pick);
  };
  auto strip = [&](const Expr& col, int64_t cols) -> Stmt {
    Buffer acc =
        Buffer::make("acc", DataType::f32(), std::vector<int64_t>{cols, blk}, StorageScope::kLocal);
    Var a("kh");
    std::vector<Stmt> init, taps, store;
    for (int64_t r = 0; r < cols; ++r) {
      init.push_back(BufferStore::make(
          acc, bb.load({Ramp::make(Expr(ch) * blk, i64(1), int(lanes))}), {i64(r), lane}));
      store.push_back(BufferStore::make(yb, acc.load({i64(r), lane}), {n, ch, row, col + r, lane}));
    }
    // Unrolled over j as well, so every load is at a constant offset from its row.
    Expr in_row = row * sh + Expr(a) * dh;
    for (int64_t j = 0; j < width; ++j) {
      std::map<int64_t, Expr> inputs;  // by column offset from col * sw
      for (int64_t b = 0; b < kw; ++b) {
        Expr weight = wb.load({ch, Expr(a), i64(b), i64(j), lane});
        for (int64_t r = 0; r < cols; ++r) {
          int64_t off = r * sw + b * dw;
          auto it = inputs.find(off);
          if (it == inputs.end())
            it = inputs.emplace(off, group_broadcast(in_row, col * sw + off, j)).first;
          std::vector<Expr> ai = {i64(r), lane};
          taps.push_back(BufferStore::make(acc, acc.load(ai) + it->second * weight, ai));
        }
      }
    }
    Stmt reduce = For::make(a, i64(0), i64(kh), ForKind::kSerial, SeqStmt::make(taps));
    Stmt body =
        Allocate::make(acc, SeqStmt::make({SeqStmt::make(init), reduce, SeqStmt::make(store)}));
    if (!z && !has_epilogue(node)) return body;
    Var r("r"), l("l");
    std::vector<Expr> yi = {n, ch, row, col + Expr(r), l};
    Stmt post = loop(
        r, cols,
        loop(l, blk,
             BufferStore::make(yb, apply_epilogue(node, yb.load(yi), z ? zb.load(yi) : Expr()), yi),
             ForKind::kVectorized));
    return SeqStmt::make({body, post});
  };
  // R accumulators + R + KW - 1 input vectors + a weight within the register file.
  int64_t per = std::min<int64_t>(vector_bits >= 512 ? 8 : 4, ow);
  int64_t full = ow / per, rest = ow - full * per;
  Var s("strip");
  std::vector<Stmt> parts = {
      For::make(s, i64(0), i64(full), ForKind::kSerial, strip(Expr(s) * per, per))};
  if (rest > 0) parts.push_back(strip(i64(full * per), rest));
  kernels.push_back(
      conv_loop_kernel("narrow_group_conv2d_nchwc",
                       loop(t, g.ys[0] * cb * oh, SeqStmt::make(parts), ForKind::kParallel),
                       {xb, wb, bb, zb, yb}, {input, wv, bv}, z, y));
  return kernels;
}

}  // namespace ingot::lower
