// Compute rule of Resize: the canonical form (full-rank `scales`, `roi` for tf_crop_and_resize,
// constants), or roi / scales / sizes read at run time (resize_params.h); the output shape is
// the buffer's. Per output element and resized axis, the source coordinate is
// computed in float64 with the operation order of the ONNX reference (so nearest rounding ties
// agree), then either one element is read (nearest) or the taps of a separable linear / cubic
// kernel (antialias widens it by 1/scale; exclude_outside drops taps outside the input and
// renormalises) are summed. Out-of-range indices read the edge (clamped).
#include <algorithm>
#include <cmath>
#include <tuple>

#include "lower/compute/common.h"
#include "lower/compute/compute.h"
#include "lower/compute/resize_params.h"
#include "support/error.h"
#include "tir/arith/analyzer.h"
#include "tir/substitute.h"

namespace ingot::lower {

using namespace tir;

namespace {

struct Modes {
  std::string mode, ctm, nearest;
  double a;  // cubic_coeff_a
  bool exclude, antialias;
};

// One resized axis: what the reference's formulas read (constants when the compile knows them),
// its source coordinate's floor and fraction, and the kernel's taps.
struct Axis {
  int dim;
  Expr in, out;             // int64 lengths
  Expr scale;               // float64: the reference's scale factor
  Expr roi_start, roi_end;  // float32 (tf_crop_and_resize)
  Expr identity;            // bool: the run-time values leave x alone (undefined: never)
  Expr kscale = {};         // the kernel's scale (antialias: min(scale, 1))
  Expr taps = {};           // int64 n: taps floor(x) - n/2 + 1 ... floor(x) + n/2
  int64_t static_taps = 0;  // n when the compile knows it, else 0
  Expr floor_i = {};        // the source coordinate's floor (i64)
  Expr frac = {};           // and its fraction (f64)
};

Expr f64c(double v) {
  return FloatImm::make(DataType::f64(), v);
}
Expr to_f64(Expr v) {
  return cast(DataType::f64(), std::move(v));
}

// Source coordinate of output index `o` (int64) along an axis, as the ONNX reference computes
// it (Resize's coordinate_transformation_mode). `extrapolate` receives, for tf_crop_and_resize,
// the condition that the coordinate lies outside the input.
Expr source_coordinate(const std::string& ctm, Expr o, const Axis& ax, Expr* extrapolate) {
  Expr y = to_f64(o);
  Expr out_w = ax.scale * to_f64(ax.in);  // the reference's float output width
  Expr one_wide = out_w == f64c(1);
  if (ctm == "asymmetric") return y / ax.scale;
  if (ctm == "align_corners")
    return select(one_wide, f64c(0), y * to_f64(ax.in - i64(1)) / (out_w - f64c(1)));
  if (ctm == "half_pixel_symmetric") {
    Expr adjustment = to_f64(ax.out) / out_w;
    Expr offset = to_f64(ax.in) / f64c(2) * (f64c(1) - adjustment);
    return offset + (y + f64c(0.5)) / ax.scale - f64c(0.5);
  }
  if (ctm == "tf_crop_and_resize") {
    // roi is float32 in the model: its difference and start offset are float32 products.
    Expr extent = to_f64(ax.roi_end - ax.roi_start);
    Expr in_1 = to_f64(ax.in - i64(1));
    Expr x = select(one_wide, extent * in_1 / f64c(2), y * extent * in_1 / (out_w - f64c(1)));
    x = x + to_f64(ax.roi_start * cast(DataType::f32(), ax.in - i64(1)));
    *extrapolate = x < f64c(0) || x > in_1;
    return x;
  }
  Expr half_pixel = (y + f64c(0.5)) / ax.scale - f64c(0.5);
  if (ctm == "pytorch_half_pixel") return select(one_wide, f64c(-0.5), half_pixel);
  return half_pixel;  // half_pixel
}

// Keys cubic kernel at distance |d| (0 beyond 2).
Expr cubic_kernel(Expr d, double a) {
  Expr d2 = d * d, d3 = d2 * d;
  Expr near = f64c(a + 2) * d3 - f64c(a + 3) * d2 + f64c(1);
  Expr far = f64c(a) * d3 - f64c(5 * a) * d2 + f64c(8 * a) * d - f64c(4 * a);
  return select(d <= f64c(1), near, select(d < f64c(2), far, f64c(0)));
}

// The offset of tap 0 from floor(x): 1 - n/2.
Expr first_tap(const Axis& ax) {
  return i64(1) - floordiv(ax.taps, i64(2));
}

// Unnormalised weight of tap k (loop var) along `ax`.
Expr tap_weight(const Modes& m, const Axis& ax, Expr k) {
  // distance from the tap floor(x) + k - n/2 + 1 to x
  Expr d = fabs(to_f64(k) + to_f64(first_tap(ax)) - ax.frac);
  if (m.antialias) d = d * ax.kscale;
  Expr w = m.mode == "linear" ? max(f64c(1) - d, f64c(0)) : cubic_kernel(d, m.a);
  if (m.exclude) {
    Expr t = ax.floor_i + k + first_tap(ax);
    w = select(t >= i64(0) && t < ax.in, w, f64c(0));
  }
  return w;
}

Expr clamp_index(Expr i, Expr in) {
  return max(min(i, in - i64(1)), i64(0));
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

// Canonical form (full-rank `scales` and `roi` attributes, static shapes): the axes the
// reference does not leave alone (scale 1, same size, the whole roi), with constant parameters.
std::vector<Axis> static_axes(const graph::Node& node, const Buffer& x, const Buffer& y,
                              bool crop) {
  std::vector<int64_t> xs = const_shape(x), ys = const_shape(y);
  const int r = int(xs.size());
  std::vector<double> scales = node.attrs.get_floats("scales");
  std::vector<double> roi = node.attrs.get_floats("roi");
  INGOT_ICHECK(int(scales.size()) == r && (!crop || int(roi.size()) == 2 * r),
               "{}: resize attributes do not match rank {}", node_label(node), r);
  std::vector<Axis> axes;
  for (int d = 0; d < r; ++d) {
    bool full_roi = !crop || (std::abs(roi[d]) < 1e-9 && std::abs(roi[r + d] - 1) < 1e-9);
    if (std::abs(scales[d] - 1) <= 1e-9 && xs[d] == ys[d] && full_roi) continue;
    axes.push_back({.dim = d,
                    .in = i64(xs[d]),
                    .out = i64(ys[d]),
                    .scale = f64c(scales[d]),
                    .roi_start = f32(crop ? roi[d] : 0.0),
                    .roi_end = f32(crop ? roi[r + d] : 1.0),
                    .identity = {}});
  }
  return axes;
}

// Run-time roi, scales or sizes (ops::resize_reads_values): every axis the node's `axes` names,
// its parameters loaded from the inputs (resize_params.h); an axis the values leave alone is
// `identity` at run time.
std::vector<Axis> runtime_axes(const graph::Node& node, const std::vector<Buffer>& inputs,
                               const Buffer& x, const Buffer& y, bool crop) {
  const std::vector<int64_t> names = node.attrs.get_ints("axes");
  ResizeLoad load = [&](int slot, int64_t j) {
    return to_f64(inputs.at(size_t(slot)).load({i64(j)}));
  };
  std::vector<Expr> in;
  for (int64_t d : names) in.push_back(x->shape[size_t(d)]);
  std::vector<ResizeAxis> params = resize_axes(node, in, load);
  std::vector<Axis> axes;
  for (size_t j = 0; j < names.size(); ++j) {
    const int d = int(names[j]);
    Axis ax{.dim = d,
            .in = in[j],
            .out = y->shape[size_t(d)],
            .scale = params[j].scale,
            .roi_start = f32(0.0),
            .roi_end = f32(1.0),
            .identity = {}};
    if (crop) std::tie(ax.roi_start, ax.roi_end) = resize_roi(node, int64_t(j), load);
    ax.identity = ax.scale == f64c(1) && ax.in == ax.out;
    if (crop) ax.identity = ax.identity && ax.roi_start == f32(0.0) && ax.roi_end == f32(1.0);
    axes.push_back(ax);
  }
  return axes;
}

}  // namespace

Stmt compute_resize(const graph::Node& node, const std::vector<Buffer>& inputs,
                    const std::vector<Buffer>& outputs) {
  const Buffer& x = inputs.at(0);
  const Buffer& y = outputs.at(0);
  check_dtype(node, x, DTypeClass::kNumeric);
  const auto& at = node.attrs;
  Modes m{at.get_string("mode", "nearest"),
          at.get_string("coordinate_transformation_mode", "half_pixel"),
          at.get_string("nearest_mode", "round_prefer_floor"),
          at.get_float("cubic_coeff_a", -0.75),
          at.get_int("exclude_outside", 0) != 0,
          at.get_int("antialias", 0) != 0};
  const bool crop = m.ctm == "tf_crop_and_resize";
  bool runtime = false;  // roi, scales or sizes are run-time inputs
  for (size_t slot = 1; slot < inputs.size(); ++slot) runtime = runtime || inputs[slot].defined();
  std::vector<Axis> axes =
      runtime ? runtime_axes(node, inputs, x, y, crop) : static_axes(node, x, y, crop);
  DataType dt = y->dtype;
  DataType acc_t = dt.is_float() ? dt : DataType::f64();
  Expr extrap_value = make_const(acc_t, at.get_float("extrapolation_value", 0.0));
  bool nearest = m.mode == "nearest";
  for (Axis& ax : axes) {
    if (nearest) continue;
    double support = m.mode == "linear" ? 1 : 2;
    ax.kscale = m.antialias ? min(ax.scale, f64c(1)) : f64c(1);
    ax.taps = m.antialias
                  ? i64(2) - i64(2) * (cast(DataType::i64(),
                                            call(Intrinsic::floor, {f64c(-support) / ax.kscale})) +
                                       i64(1))
                  : i64(int64_t(2 * support));
    ax.taps = arith::simplify(ax.taps);
    is_const_int(ax.taps, &ax.static_taps);
  }
  // Linear / cubic without antialias or exclude_outside: at most 2^r or 4^r taps, written out.
  int64_t tap_count = 1;
  for (const Axis& ax : axes) tap_count *= std::max<int64_t>(ax.static_taps, 1);
  bool unrolled_taps = !nearest && !m.antialias && !m.exclude && tap_count <= 16;

  return loop_nest(Extents(y->shape), "o", [&](const Index& o) {
    std::vector<std::pair<Var, Expr>> lets;
    Expr outside;
    for (Axis& ax : axes) {
      Expr ext;
      Expr coord = source_coordinate(m.ctm, o[size_t(ax.dim)], ax, &ext);
      std::string s = std::to_string(ax.dim);
      Var xv("x" + s, DataType::f64()), fv("floor" + s, DataType::i64()),
          rv("frac" + s, DataType::f64());
      lets.push_back({xv, coord});
      lets.push_back({fv, cast(DataType::i64(), call(Intrinsic::floor, {xv}))});
      lets.push_back({rv, xv - to_f64(Expr(fv))});
      ax.floor_i = fv;
      ax.frac = rv;
      if (ext.defined()) outside = outside.defined() ? (outside || ext) : ext;
    }
    // (Unrolled, an axis the run-time values leave alone needs no special case: its source
    // coordinate is the output index exactly, so its taps weigh 1 and 0.)
    auto tap_index = [&](const Axis& ax, Expr k) {
      return clamp_index(ax.floor_i + k + first_tap(ax), ax.in);
    };
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
          xi[size_t(ax.dim)] = tap_index(ax, i64(k[i]));
          Expr wi = tap_weight(m, ax, i64(k[i]));
          w = w.defined() ? w * wi : wi;
        }
        if (!w.defined()) w = f64c(1);
        Expr term = cast(acc_t, w) * cast(acc_t, x.load(xi));
        v = v.defined() ? v + term : term;
        size_t i = axes.size();
        while (i > 0 && ++k[i - 1] == axes[i - 1].static_taps) k[--i] = 0;
        if (i == 0) break;
      }
      if (!v.defined()) v = cast(acc_t, x.load(o));
      if (outside.defined()) v = select(outside, extrap_value, v);
      body = BufferStore::make(y, to_output(v, dt), o);
    } else {
      // A tap loop per axis; an axis the run-time values leave alone takes one tap, its
      // own index, at weight 1.
      bool normalise = m.antialias || m.exclude;
      Accumulator acc("acc", acc_t), wsum("wsum", DataType::f64());
      std::vector<Expr> tap_shape;
      for (const Axis& ax : axes)
        tap_shape.push_back(ax.identity.defined() ? select(ax.identity, i64(1), ax.taps) : ax.taps);
      Stmt taps = serial_nest(Extents(tap_shape), "k", [&](const Index& k) {
        Index xi = o;
        Expr w;
        for (size_t i = 0; i < axes.size(); ++i) {
          const Axis& ax = axes[i];
          Expr index = tap_index(ax, k[i]);
          Expr wi = tap_weight(m, ax, k[i]);
          if (ax.identity.defined()) {
            index = select(ax.identity, o[size_t(ax.dim)], index);
            wi = select(ax.identity, f64c(1), wi);
          }
          xi[size_t(ax.dim)] = index;
          w = w.defined() ? w * wi : wi;
        }
        if (!w.defined()) w = f64c(1);
        Stmt add = acc.set(acc.get() + cast(acc_t, w) * cast(acc_t, x.load(xi)));
        return normalise ? SeqStmt::make({add, wsum.set(wsum.get() + w)}) : add;
      });
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
    if (unrolled_taps) {
      // One store, its coordinates written into it: a block the injective rule vectorizes
      // (LLVM computes each coordinate once).
      VarMap values;
      for (const auto& [var, value] : lets) values[var.node()] = substitute(value, values);
      return substitute(body, values);
    }
    for (auto it = lets.rbegin(); it != lets.rend(); ++it)
      body = LetStmt::make(it->first, it->second, body);
    return body;
  });
}

}  // namespace ingot::lower
