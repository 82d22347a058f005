// Compute rule of RoiAlign. Per output element (roi, channel, bin row, bin column) the roi's
// box is scaled (and shifted by half a pixel for half_pixel; output_half_pixel forces at least
// a 1x1 box), the bin is sampled on a grid of sampling_ratio^2 points (or ceil(bin size) per
// dim, a run-time loop extent, when sampling_ratio is 0) and each point is read bilinearly
// (points more than one pixel outside read 0, others are clamped to the edge). avg averages the
// points; max takes the largest of the four weighted taps over all points (the ONNX reference's
// definition). Coordinates are in X's float type (float32 for float16), in the reference order.
#include "lower/compute/common.h"
#include "lower/compute/compute.h"
#include "support/error.h"

namespace ingot::lower {

using namespace tir;

namespace {

Expr clamp_index(Expr i, int64_t n) {
  return max(min(i, i64(n - 1)), i64(0));
}

}  // namespace

Stmt compute_roi_align(const graph::Node& node, const std::vector<Buffer>& inputs,
                       const std::vector<Buffer>& outputs) {
  const Buffer& x = inputs.at(0);
  const Buffer& rois = inputs.at(1);
  const Buffer& batch = inputs.at(2);
  const Buffer& y = outputs.at(0);
  check_dtype(node, x, DTypeClass::kFloat);
  std::vector<int64_t> xs = const_shape(x), ys = const_shape(y);
  const auto& at = node.attrs;
  bool max_mode = at.get_string("mode", "avg") == "max";
  bool half_pixel = at.get_string("coordinate_transformation_mode", "half_pixel") == "half_pixel";
  int64_t ratio = at.get_int("sampling_ratio", 0);
  double scale = at.get_float("spatial_scale", 1.0);
  int64_t n_batch = xs[0], h = xs[2], w = xs[3], ph_n = ys[2], pw_n = ys[3];
  DataType ct = accum_dtype(x->dtype);
  auto c = [&](double v) { return make_const(ct, v); };

  return loop_nest(ys, "o", [&](const Index& o) {
    std::vector<std::pair<Var, Expr>> lets;
    auto let = [&](const std::string& name, Expr v) {
      Var var(name, v.dtype());
      lets.push_back({var, v});
      return Expr(var);
    };
    Expr b = clamp_index(cast(DataType::i64(), batch.load({o[0]})), n_batch);
    auto roi = [&](int64_t i) {
      return cast(ct, rois.load({o[0], i64(i)})) * c(scale) - c(half_pixel ? 0.5 : 0.0);
    };
    Expr start_w = let("start_w", roi(0)), start_h = let("start_h", roi(1));
    Expr roi_w = roi(2) - start_w, roi_h = roi(3) - start_h;
    if (!half_pixel) {
      roi_w = max(roi_w, c(1));
      roi_h = max(roi_h, c(1));
    }
    Expr bin_h = let("bin_h", roi_h / c(double(ph_n)));
    Expr bin_w = let("bin_w", roi_w / c(double(pw_n)));
    // sampling points per bin and dim: sampling_ratio, or ceil(bin size) at run time
    auto grid_n = [&](const std::string& name, Expr roi_len, int64_t bins) {
      if (ratio > 0) return i64(ratio);
      Expr g = cast(DataType::i64(), call(Intrinsic::ceil, {roi_len / c(double(bins))}));
      return let(name, max(g, i64(0)));
    };
    Expr gh = grid_n("grid_h", roi_h, ph_n), gw = grid_n("grid_w", roi_w, pw_n);
    Expr count = cast(ct, max(gh * gw, i64(1)));
    Expr row0 = let("row0", start_h + cast(ct, o[2]) * bin_h);
    Expr col0 = let("col0", start_w + cast(ct, o[3]) * bin_w);

    Accumulator acc("acc", ct);
    Var iy("iy"), ix("ix");
    Expr yy = row0 + (cast(ct, Expr(iy)) + c(0.5)) * bin_h / cast(ct, gh);
    Expr xx = col0 + (cast(ct, Expr(ix)) + c(0.5)) * bin_w / cast(ct, gw);
    Var yv("y", ct), xv("x", ct);
    Expr outside =
        Expr(yv) < c(-1) || Expr(yv) > c(double(h)) || Expr(xv) < c(-1) || Expr(xv) > c(double(w));
    // Clamped to [0, size] first so the index conversion stays in range.
    Expr ycl = min(max(Expr(yv), c(0)), c(double(h)));
    Expr xcl = min(max(Expr(xv), c(0)), c(double(w)));
    Var ylv("y_low", DataType::i64()), xlv("x_low", DataType::i64());
    Expr y_low_raw = cast(DataType::i64(), ycl), x_low_raw = cast(DataType::i64(), xcl);
    Expr y_edge = Expr(ylv) >= i64(h - 1), x_edge = Expr(xlv) >= i64(w - 1);
    Expr y_low = select(y_edge, i64(h - 1), Expr(ylv));
    Expr x_low = select(x_edge, i64(w - 1), Expr(xlv));
    Expr y_high = select(y_edge, i64(h - 1), Expr(ylv) + i64(1));
    Expr x_high = select(x_edge, i64(w - 1), Expr(xlv) + i64(1));
    Expr ly = select(y_edge, c(0), ycl - cast(ct, Expr(ylv)));
    Expr lx = select(x_edge, c(0), xcl - cast(ct, Expr(xlv)));
    Var lyv("ly", ct), lxv("lx", ct);
    Expr hy = c(1) - lyv, hx = c(1) - lxv;
    auto tap = [&](Expr wgt, Expr yi, Expr xi) {
      return wgt * cast(ct, x.load({b, o[1], yi, xi}));
    };
    Expr t1 = tap(hy * hx, y_low, x_low), t2 = tap(hy * lxv, y_low, x_high);
    Expr t3 = tap(Expr(lyv) * hx, y_high, x_low), t4 = tap(Expr(lyv) * lxv, y_high, x_high);
    Expr val = max_mode ? max(max(max(t1, t2), t3), t4) : ((t1 + t2) + t3) + t4;
    val = select(outside, c(0), val);
    Stmt update =
        max_mode
            ? acc.set(select(Expr(iy) == i64(0) && Expr(ix) == i64(0), val, max(acc.get(), val)))
            : acc.set(acc.get() + val);
    update = LetStmt::make(lxv, lx, update);
    update = LetStmt::make(lyv, ly, update);
    update = LetStmt::make(xlv, x_low_raw, update);
    update = LetStmt::make(ylv, y_low_raw, update);
    update = LetStmt::make(xv, xx, update);
    update = LetStmt::make(yv, yy, update);
    Stmt points = For::make(iy, i64(0), gh, ForKind::kSerial,
                            For::make(ix, i64(0), gw, ForKind::kSerial, update));
    Expr result = max_mode ? acc.get() : acc.get() / count;
    Stmt body = acc.scope(
        SeqStmt::make({acc.set(c(0)), points, BufferStore::make(y, cast(y->dtype, result), o)}));
    for (auto it = lets.rbegin(); it != lets.rend(); ++it)
      body = LetStmt::make(it->first, it->second, body);
    return body;
  });
}

}  // namespace ingot::lower
