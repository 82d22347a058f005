// Depthwise 2-D convolution on channel-blocked tensors (ConvNCHWc with groups = channels; the
// MobileNet / EfficientNet / ConvNeXt layers), a loop nest scheduled by construction: output rows
// of each channel block in parallel; padding handled in place (border pixels read clamped, masked
// inputs), so no padded copy of the input is made.
// - Interior columns (every tap inside the input's width) run in register tiles of R output
//   columns x the channel block's vectors: the accumulators live in registers across all taps
//   (constant offsets into a local buffer, as in the FMA micro-kernel), each tap loads its
//   weight vectors once and one input vector per column, so the R x vectors FMA chains are
//   independent (one output vector per chain of KH x KW dependent FMAs would leave the FMA
//   units waiting on their latency) and loads stay near one per FMA. The fused summand and
//   activation then run over the strip while it is in L1. In the top and bottom border rows
//   the tile skips the kernel rows that fall outside the input.
// - Border columns compute one output vector at a time, taps unrolled and masked.
#include <algorithm>

#include "lower/compute/epilogue.h"
#include "lower/scheduled/conv_nchwc_geometry.h"
#include "lower/scheduled/layout_kernels.h"
#include "lower/scheduled/scheduled.h"
#include "support/error.h"
#include "tir/op.h"

namespace ingot::lower {

using namespace tir;

namespace {

// Output rows / columns [lo, hi) whose taps all fall inside the input.
std::pair<int64_t, int64_t> interior(int64_t pad, int64_t s, int64_t d, int64_t k, int64_t in,
                                     int64_t out) {
  int64_t lo = (pad + s - 1) / s;
  int64_t last = in - 1 - (k - 1) * d + pad;  // o * s <= last
  int64_t hi = last < 0 ? 0 : last / s + 1;
  lo = std::min(lo, out);
  hi = std::max(lo, std::min(hi, out));
  return {lo, hi};
}

// Register-tile columns for `vecs` vectors per pixel: enough independent accumulators to cover
// the FMA latency (8 on two 4-cycle FMA pipes), within the register file (32 vector registers
// with 512-bit vectors, else 16) next to the weight and input vectors.
int64_t tile_columns(int vector_bits, int64_t vecs) {
  int64_t accumulators = vector_bits >= 512 ? 12 : 8;
  return std::max<int64_t>(1, accumulators / vecs);
}

}  // namespace

std::vector<NodeKernel> lower_depthwise_nchwc(const graph::Node& node, int vector_bits,
                                              ValueFactory& values) {
  ConvNchwcGeometry g = conv_nchwc_geometry(node);
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
  auto [row_lo, row_hi] = interior(top, sh, dh, kh, ih, oh);
  auto [col_lo, col_hi] = interior(left, sw, dw, kw, iw, ow);
  Var t("t");
  Expr n = floordiv(t, i64(cb * oh)), ch = floormod(floordiv(t, i64(oh)), i64(cb)),
       row = floormod(t, i64(oh));
  Expr zero = make_const(DataType::f32(), 0);
  auto epilogue = [&](const Expr& v, const std::vector<Expr>& yi) {
    return apply_epilogue(node, v, z ? zb.load(yi) : Expr());
  };
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
    return BufferStore::make(yb, epilogue(acc, yi), yi);
  };
  auto columns = [&](int64_t lo, int64_t hi, bool check_rows, bool check_cols) -> Stmt {
    if (hi <= lo) return Stmt();
    Var v("ow"), l("l");
    Stmt body = loop(l, blk, pixel(Expr(v) + lo, l, check_rows, check_cols), ForKind::kVectorized);
    return For::make(v, i64(0), i64(hi - lo), ForKind::kSerial, body);
  };
  // The register tile: `cols` output columns from `col`, the block as `vecs` vectors of `lanes`.
  int64_t lanes = std::clamp<int64_t>(vector_bits / 32, 4, 16);
  int64_t vecs = blk % lanes == 0 ? blk / lanes : 0;
  // The kernel rows that read inside the input at output row `row` (all of them in interior
  // rows): a <= first (ceil) .. last (floor) of row * sh + a * dh - top in [0, ih).
  Expr first_tap = max(floordiv(i64(top) - row * sh + (dh - 1), i64(dh)), i64(0));
  Expr end_tap = min(floordiv(i64(ih - 1 + top) - row * sh, i64(dh)) + 1, i64(kh));
  // `fixed_col` >= 0: the strip starts at that constant column (a border strip), and the taps
  // whose column falls outside the input are left out.
  auto strip = [&](const Expr& col, int64_t cols, bool check_rows, int64_t fixed_col = -1) -> Stmt {
    Buffer acc =
        Buffer::make("acc", DataType::f32(), std::vector<int64_t>{cols, blk}, StorageScope::kLocal);
    Var a("kh");
    std::vector<Stmt> init, taps;
    for (int64_t v = 0; v < vecs; ++v) {
      Expr lane = Ramp::make(i64(v * lanes), i64(1), int(lanes));
      for (int64_t r = 0; r < cols; ++r)
        init.push_back(BufferStore::make(
            acc, bb.load({Ramp::make(Expr(ch) * blk + v * lanes, i64(1), int(lanes))}),
            {i64(r), lane}));
    }
    for (int64_t b = 0; b < kw; ++b)
      for (int64_t v = 0; v < vecs; ++v) {
        Expr lane = Ramp::make(i64(v * lanes), i64(1), int(lanes));
        Expr weight = wb.load({ch, Expr(a), i64(b), lane});
        Expr in_row = row * sh + Expr(a) * dh - top;
        for (int64_t r = 0; r < cols; ++r) {
          int64_t fixed_q = (fixed_col + r) * sw + b * dw - left;
          if (fixed_col >= 0 && (fixed_q < 0 || fixed_q >= iw)) continue;
          Expr q = (col + r) * sw + (b * dw - left);
          std::vector<Expr> ai = {i64(r), lane};
          taps.push_back(BufferStore::make(
              acc, acc.load(ai) + xb.load({n, ch, in_row, q, lane}) * weight, ai));
        }
      }
    std::vector<Stmt> store;
    for (int64_t v = 0; v < vecs; ++v) {
      Expr lane = Ramp::make(i64(v * lanes), i64(1), int(lanes));
      for (int64_t r = 0; r < cols; ++r)
        store.push_back(
            BufferStore::make(yb, acc.load({i64(r), lane}), {n, ch, row, col + r, lane}));
    }
    Stmt body = Allocate::make(
        acc, SeqStmt::make(
                 {SeqStmt::make(init),
                  check_rows ? For::make(a, first_tap, max(end_tap - first_tap, i64(0)),
                                         ForKind::kSerial, SeqStmt::make(taps))
                             : For::make(a, i64(0), i64(kh), ForKind::kSerial, SeqStmt::make(taps)),
                  SeqStmt::make(store)}));
    if (!z && !has_epilogue(node)) return body;
    Var r("r"), l("l");
    std::vector<Expr> yi = {n, ch, row, col + Expr(r), l};
    Stmt post = loop(
        r, cols,
        loop(l, blk, BufferStore::make(yb, epilogue(yb.load(yi), yi), yi), ForKind::kVectorized));
    return SeqStmt::make({body, post});
  };
  // Interior columns: strips of `per` columns, then one shorter strip; in border rows the
  // kernel rows outside the input are skipped.
  auto tiled_columns = [&](int64_t lo, int64_t hi, bool check_rows) -> Stmt {
    if (hi <= lo) return Stmt();
    if (vecs == 0) return columns(lo, hi, check_rows, false);
    int64_t per = std::min(tile_columns(vector_bits, vecs), hi - lo);
    int64_t full = (hi - lo) / per, rest = (hi - lo) - full * per;
    Var s("strip");
    std::vector<Stmt> parts = {For::make(s, i64(0), i64(full), ForKind::kSerial,
                                         strip(Expr(s) * per + lo, per, check_rows))};
    if (rest > 0) parts.push_back(strip(i64(lo + full * per), rest, check_rows));
    return SeqStmt::make(parts);
  };
  // Border columns [lo, hi): strips at constant columns, taps outside the input left out.
  auto border_columns = [&](int64_t lo, int64_t hi, bool check_rows) -> Stmt {
    if (hi <= lo) return Stmt();
    if (vecs == 0) return columns(lo, hi, check_rows, true);
    int64_t per = tile_columns(vector_bits, vecs);
    std::vector<Stmt> parts;
    for (int64_t c0 = lo; c0 < hi; c0 += per) {
      int64_t cols = std::min(per, hi - c0);
      parts.push_back(strip(i64(c0), cols, check_rows, c0));
    }
    return SeqStmt::make(parts);
  };
  auto row_body = [&](bool check_rows) {
    std::vector<Stmt> parts;
    for (Stmt s : {border_columns(0, col_lo, check_rows), tiled_columns(col_lo, col_hi, check_rows),
                   border_columns(col_hi, ow, check_rows)})
      if (s.defined()) parts.push_back(s);
    return SeqStmt::make(parts);
  };
  Stmt body = row_body(true);
  if (row_hi > row_lo)
    body = IfThenElse::make(row >= i64(row_lo) && row < i64(row_hi), row_body(false), body);
  return {conv_loop_kernel("depthwise_conv2d_nchwc",
                           loop(t, g.ys[0] * cb * oh, body, ForKind::kParallel),
                           {xb, wb, bb, zb, yb}, {node.inputs[0], wv, bv}, z, y)};
}

}  // namespace ingot::lower
