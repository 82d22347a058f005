// Compute rule of Resize (canonical form: full-rank `scales`, `roi` for tf_crop_and_resize; the
// output shape is the buffer's). Per output element and resized axis, the source coordinate is
// computed in float64 with the operation order of the ONNX reference (so nearest rounding ties
// agree), then either one element is read (nearest) or the taps of a separable linear / cubic
// kernel (antialias widens it by 1/scale; exclude_outside drops taps outside the input and
// renormalises) are summed. Out-of-range indices read the edge (clamped).
#include <cmath>

#include "lower/compute/common.h"
#include "lower/compute/compute.h"
#include "support/error.h"

namespace ingot::lower {

using namespace tir;

namespace {

struct Modes {
  std::string mode, ctm, nearest;
  double a;  // cubic_coeff_a
  bool exclude, antialias;
};

// One resized axis: its source coordinate, floor / fraction and the kernel's tap count.
struct Axis {
  int dim;
  int64_t in;
  double scale;       // the kernel's scale (antialias: min(scale, 1))
  int64_t taps = 1;   // n: taps floor(x) - n/2 + 1 ... floor(x) + n/2
  Expr floor_i = {};  // the source coordinate's floor (i64)
  Expr frac = {};     // and its fraction (f64)
};

Expr f64c(double v) {
  return FloatImm::make(DataType::f64(), v);
}

// Source coordinate of output index `o` (int64) along an axis, as the ONNX reference computes
// it (Resize's coordinate_transformation_mode). `extrapolate` receives, for tf_crop_and_resize,
// the condition that the coordinate lies outside the input.
Expr source_coordinate(const std::string& ctm, Expr o, int64_t in, int64_t out, double scale,
                       double roi_start, double roi_end, Expr* extrapolate) {
  Expr y = cast(DataType::f64(), o);
  double out_w = scale * double(in);  // the reference's float output width
  if (ctm == "asymmetric") return y / f64c(scale);
  if (ctm == "align_corners")
    return out_w == 1 ? f64c(0) : y * f64c(double(in - 1)) / f64c(out_w - 1);
  if (ctm == "pytorch_half_pixel" && out_w == 1) return f64c(-0.5);
  if (ctm == "half_pixel_symmetric") {
    double adjustment = double(out) / out_w;
    double offset = double(in) / 2 * (1 - adjustment);
    return f64c(offset) + (y + f64c(0.5)) / f64c(scale) - f64c(0.5);
  }
  if (ctm == "tf_crop_and_resize") {
    // roi is float32 in the model: its difference and start offset are float32 products.
    float r0 = float(roi_start), r1 = float(roi_end);
    double extent = double(r1 - r0);
    Expr x = out_w == 1 ? f64c(extent * double(in - 1) / 2)
                        : y * f64c(extent) * f64c(double(in - 1)) / f64c(out_w - 1);
    x = x + f64c(double(r0 * float(in - 1)));
    *extrapolate = x < f64c(0) || x > f64c(double(in - 1));
    return x;
  }
  return (y + f64c(0.5)) / f64c(scale) - f64c(0.5);  // half_pixel, pytorch_half_pixel
}

// Keys cubic kernel at distance |d| (0 beyond 2).
Expr cubic_kernel(Expr d, double a) {
  Expr d2 = d * d, d3 = d2 * d;
  Expr near = f64c(a + 2) * d3 - f64c(a + 3) * d2 + f64c(1);
  Expr far = f64c(a) * d3 - f64c(5 * a) * d2 + f64c(8 * a) * d - f64c(4 * a);
  return select(d <= f64c(1), near, select(d < f64c(2), far, f64c(0)));
}

// Unnormalised weight of tap k (loop var) along `ax`.
Expr tap_weight(const Modes& m, const Axis& ax, Expr k) {
  // distance from the tap floor(x) + k - n/2 + 1 to x
  Expr d = fabs(cast(DataType::f64(), k) - f64c(double(ax.taps / 2 - 1)) - ax.frac);
  if (m.antialias) d = d * f64c(ax.scale);
  Expr w = m.mode == "linear" ? max(f64c(1) - d, f64c(0)) : cubic_kernel(d, m.a);
  if (m.exclude) {
    Expr t = ax.floor_i + k - i64(ax.taps / 2 - 1);
    w = select(t >= i64(0) && t < i64(ax.in), w, f64c(0));
  }
  return w;
}

Expr clamp_index(Expr i, int64_t in) {
  return max(min(i, i64(in - 1)), i64(0));
}

// Nearest index of coordinate floor + frac for the nearest_mode.
Expr nearest_index(const std::string& nearest, const Axis& ax) {
  Expr up;  // whether to take floor + 1
  if (nearest == "floor") return clamp_index(ax.floor_i, ax.in);
  if (nearest == "ceil") up = ax.frac > f64c(0);
  if (nearest == "round_prefer_floor") up = ax.frac > f64c(0.5);
  if (nearest == "round_prefer_ceil") up = ax.frac >= f64c(0.5);
  return clamp_index(ax.floor_i + select(up, i64(1), i64(0)), ax.in);
}

// The interpolated value as the output dtype: integers are rounded half to even and saturated.
Expr to_output(Expr v, DataType out) {
  if (out.is_float()) return cast(out, v);
  v = call(Intrinsic::round, {v});
  v = max(min(v, cast(v.dtype(), max_value(out))), cast(v.dtype(), min_value(out)));
  return cast(out, v);
}

}  // namespace

Stmt compute_resize(const graph::Node& node, const std::vector<Buffer>& inputs,
                    const std::vector<Buffer>& outputs) {
  const Buffer& x = inputs.at(0);
  const Buffer& y = outputs.at(0);
  check_dtype(node, x, DTypeClass::kNumeric);
  std::vector<int64_t> xs = const_shape(x), ys = const_shape(y);
  int r = int(xs.size());
  const auto& at = node.attrs;
  Modes m{at.get_string("mode", "nearest"),
          at.get_string("coordinate_transformation_mode", "half_pixel"),
          at.get_string("nearest_mode", "round_prefer_floor"),
          at.get_float("cubic_coeff_a", -0.75),
          at.get_int("exclude_outside", 0) != 0,
          at.get_int("antialias", 0) != 0};
  std::vector<double> scales = at.get_floats("scales");
  std::vector<double> roi = at.get_floats("roi");
  bool crop = m.ctm == "tf_crop_and_resize";
  INGOT_ICHECK(int(scales.size()) == r && (!crop || int(roi.size()) == 2 * r),
               "{}: resize attributes do not match rank {}", node_label(node), r);
  DataType dt = y->dtype;
  DataType acc_t = dt.is_float() ? dt : DataType::f64();
  Expr extrap_value = make_const(acc_t, at.get_float("extrapolation_value", 0.0));
  bool nearest = m.mode == "nearest";
  // Linear / cubic without antialias or exclude_outside: at most 2^r or 4^r taps, written out.
  int64_t tap_count = 1;
  for (int d = 0; d < r; ++d)
    if (std::abs(scales[d] - 1) > 1e-9 || xs[d] != ys[d]) tap_count *= m.mode == "linear" ? 2 : 4;
  bool unrolled_taps = !nearest && !m.antialias && !m.exclude && tap_count <= 16;

  return loop_nest(
      ys, "o",
      [&](const Index& o) {
        // Axes that the reference leaves alone: scale 1, same size, the whole roi.
        std::vector<Axis> axes;
        std::vector<std::pair<Var, Expr>> lets;
        Expr outside;
        for (int d = 0; d < r; ++d) {
          bool full_roi = !crop || (std::abs(roi[d]) < 1e-9 && std::abs(roi[r + d] - 1) < 1e-9);
          if (std::abs(scales[d] - 1) <= 1e-9 && xs[d] == ys[d] && full_roi) continue;
          Axis ax{.dim = d, .in = xs[d], .scale = scales[d]};
          Expr ext;
          Expr coord = source_coordinate(m.ctm, o[d], xs[d], ys[d], scales[d], crop ? roi[d] : 0.0,
                                         crop ? roi[r + d] : 1.0, &ext);
          std::string s = std::to_string(d);
          Var xv("x" + s, DataType::f64()), fv("floor" + s, DataType::i64()),
              rv("frac" + s, DataType::f64());
          lets.push_back({xv, coord});
          lets.push_back({fv, cast(DataType::i64(), call(Intrinsic::floor, {xv}))});
          lets.push_back({rv, xv - cast(DataType::f64(), Expr(fv))});
          ax.floor_i = fv;
          ax.frac = rv;
          if (ext.defined()) outside = outside.defined() ? (outside || ext) : ext;
          if (!nearest) {
            double s_k = m.antialias ? std::min(scales[d], 1.0) : 1.0;
            double support = m.mode == "linear" ? 1 : 2;
            ax.scale = s_k;
            ax.taps = m.antialias ? 2 - 2 * (int64_t(std::floor(-support / s_k)) + 1)
                                  : int64_t(2 * support);
          }
          axes.push_back(ax);
        }
        Stmt body;
        if (nearest) {
          Index xi = o;
          for (const Axis& ax : axes) xi[size_t(ax.dim)] = nearest_index(m.nearest, ax);
          Expr v = x.load(xi);
          if (outside.defined()) v = select(outside, to_output(extrap_value, dt), v);
          body = BufferStore::make(y, v, o);
        } else if (unrolled_taps) {
          // Few taps (linear: 2 per axis, cubic: 4), no normalisation: one expression, so the
          // output's innermost loop is straight-line code LLVM vectorizes (gathering the taps).
          std::vector<int64_t> k(axes.size(), 0);
          Expr v;
          for (;;) {
            Index xi = o;
            Expr w;
            for (size_t i = 0; i < axes.size(); ++i) {
              const Axis& ax = axes[i];
              xi[size_t(ax.dim)] =
                  clamp_index(ax.floor_i + i64(k[i]) - i64(ax.taps / 2 - 1), ax.in);
              Expr wi = tap_weight(m, ax, i64(k[i]));
              w = w.defined() ? w * wi : wi;
            }
            if (!w.defined()) w = f64c(1);
            Expr term = cast(acc_t, w) * cast(acc_t, x.load(xi));
            v = v.defined() ? v + term : term;
            size_t i = axes.size();
            while (i > 0 && ++k[i - 1] == axes[i - 1].taps) k[--i] = 0;
            if (i == 0) break;
          }
          if (!v.defined()) v = cast(acc_t, x.load(o));
          if (outside.defined()) v = select(outside, extrap_value, v);
          body = BufferStore::make(y, to_output(v, dt), o);
        } else {
          bool normalise = m.antialias || m.exclude;
          Accumulator acc("acc", acc_t), wsum("wsum", DataType::f64());
          std::vector<int64_t> tap_shape;
          for (const Axis& ax : axes) tap_shape.push_back(ax.taps);
          Stmt taps = loop_nest(
              tap_shape, "k",
              [&](const Index& k) {
                Index xi = o;
                Expr w;
                for (size_t i = 0; i < axes.size(); ++i) {
                  const Axis& ax = axes[i];
                  xi[size_t(ax.dim)] = clamp_index(ax.floor_i + k[i] - i64(ax.taps / 2 - 1), ax.in);
                  Expr wi = tap_weight(m, ax, k[i]);
                  w = w.defined() ? w * wi : wi;
                }
                if (!w.defined()) w = f64c(1);
                Stmt add = acc.set(acc.get() + cast(acc_t, w) * cast(acc_t, x.load(xi)));
                return normalise ? SeqStmt::make({add, wsum.set(wsum.get() + w)}) : add;
              },
              {.parallel_outer = false, .vectorize_inner = false});
          Expr v = acc.get();
          if (normalise)
            v = select(wsum.get() == f64c(0), make_const(acc_t, 0), v / cast(acc_t, wsum.get()));
          if (outside.defined()) v = select(outside, extrap_value, v);
          std::vector<Stmt> seq{acc.set(make_const(acc_t, 0))};
          if (normalise) seq.push_back(wsum.set(f64c(0)));
          seq.push_back(taps);
          seq.push_back(BufferStore::make(y, to_output(v, dt), o));
          body = acc.scope(SeqStmt::make(seq));
          if (normalise) body = wsum.scope(body);
        }
        for (auto it = lets.rbegin(); it != lets.rend(); ++it)
          body = LetStmt::make(it->first, it->second, body);
        return body;
      },
      {.parallel_outer = true, .vectorize_inner = unrolled_taps});
}

}  // namespace ingot::lower
