// Compute rules of GridSample (N-d) and AffineGrid.
// GridSample: per output element and spatial dim the normalised grid coordinate is mapped to the
// input's pixel space in float32 (align_corners: -1..1 are the corner pixels' centres, else their
// outer edges), rounded half to even for nearest, and moved inside by padding_mode (border:
// clamped, reflection: mirrored at the borders) when outside; then a separable kernel (1 tap
// nearest, 2 linear, 4 cubic per dim, Keys a = -0.75) sums the taps, each tap index read with
// the padding rule (zeros: 0 outside). This follows the ONNX reference operation order, so
// rounding ties and floors agree with it.
// AffineGrid: grid[n, s..., j] = sum_k theta[n, j, k] * base_k + theta[n, j, r], base_k the
// normalised coordinate of the k-th spatial dim counted from the last (x, y, z), in float64.
#include "lower/compute/common.h"
#include "lower/compute/compute.h"
#include "support/error.h"

namespace ingot::lower {

using namespace tir;

namespace {

Expr f64c(double v) {
  return FloatImm::make(DataType::f64(), v);
}

// Mirrors f (float64) at lo and hi until it lies within [lo, hi] (the ONNX reference's
// reflection: the number of whole ranges passed decides from which side the rest is measured).
Expr reflect(Expr f, double lo, double hi) {
  double range = hi - lo;
  if (range <= 0) return f64c(lo);
  auto fold = [&](Expr dx, bool from_lo) {
    Expr n = call(Intrinsic::floor, {dx / f64c(range)});
    Expr rest = dx - n * f64c(range);
    Expr odd = n - f64c(2) * call(Intrinsic::floor, {n * f64c(0.5)}) > f64c(0.5);
    Expr near = from_lo ? f64c(lo) + rest : f64c(hi) - rest;
    Expr far = from_lo ? f64c(hi) - rest : f64c(lo) + rest;
    return select(odd, far, near);
  };
  return select(f < f64c(lo), fold(f64c(lo) - f, true),
                select(f > f64c(hi), fold(f - f64c(hi), false), f));
}

Expr clamp_i(Expr i, int64_t len) {
  return max(min(i, i64(len - 1)), i64(0));
}

// One spatial dim of X: its size, padding borders and the coordinate's floor / fraction.
struct SpatialDim {
  int64_t len = 0;
  double lo = 0, hi = 0;  // coordinates within [lo, hi] need no padding rule
  Expr coord = {};        // the (padded) coordinate, float32
  Expr floor_i = {};      // floor(coord), int64
  Expr frac = {};         // coord - floor(coord), weight dtype
};

// Keys cubic kernel (a = -0.75) at distance d >= 0.
Expr cubic_weight(Expr d) {
  const double a = -0.75;
  DataType t = d.dtype();
  auto c = [&](double v) { return make_const(t, v); };
  Expr near = (c(a + 2) * d - c(a + 3)) * d * d + c(1);
  Expr far = ((c(a) * d - c(5 * a)) * d + c(8 * a)) * d - c(4 * a);
  return select(d <= c(1), near, select(d < c(2), far, c(0)));
}

}  // namespace

Stmt compute_grid_sample(const graph::Node& node, const std::vector<Buffer>& inputs,
                         const std::vector<Buffer>& outputs) {
  const Buffer& x = inputs.at(0);
  const Buffer& grid = inputs.at(1);
  const Buffer& y = outputs.at(0);
  check_dtype(node, x, DTypeClass::kNumeric);
  check_dtype(node, grid, DTypeClass::kFloat);
  std::vector<int64_t> xs = const_shape(x), ys = const_shape(y);
  int r = int(xs.size()) - 2;
  std::string mode = node.attrs.get_string("mode", "linear");
  std::string padding = node.attrs.get_string("padding_mode", "zeros");
  bool align = node.attrs.get_int("align_corners", 0) != 0;
  bool nearest = mode == "nearest", cubic = mode == "cubic", zeros = padding == "zeros";
  INGOT_ICHECK(int(ys.size()) == r + 2, "{}: output rank {} for input rank {}", node_label(node),
               ys.size(), xs.size());
  const DataType ct = DataType::f32();  // the reference's coordinate dtype
  const DataType wt = x->dtype == DataType::f64() ? DataType::f64() : DataType::f32();
  const int64_t taps = nearest ? 1 : cubic ? 4 : 2;

  return loop_nest(ys, "o", [&](const Index& o) {
    std::vector<SpatialDim> dims(static_cast<size_t>(r));
    std::vector<std::pair<Var, Expr>> lets;
    for (int d = 0; d < r; ++d) {
      SpatialDim& dm = dims[size_t(d)];
      dm.len = xs[size_t(2 + d)];
      double len = double(dm.len);
      dm.lo = align ? 0 : -0.5;
      dm.hi = align ? len - 1 : len - 0.5;
      // grid's last axis lists the coordinates innermost dim first (x, y, z).
      Index gi{o[0]};
      for (int k = 0; k < r; ++k) gi.push_back(o[size_t(2 + k)]);
      gi.push_back(i64(r - 1 - d));
      Expr g = cast(ct, grid.load(gi));
      Expr c = align ? (g + f32(1)) / f32(2) * f32(len - 1)
                     : ((g + f32(1)) * f32(len) - f32(1)) / f32(2);
      if (nearest) c = call(Intrinsic::round, {c});
      if (padding == "border") {
        Expr outside = c < f32(dm.lo) || c > f32(dm.hi);
        c = select(outside, max(min(c, f32(len - 1)), f32(0)), c);
      } else if (padding == "reflection") {
        c = cast(ct, reflect(cast(DataType::f64(), c), dm.lo, dm.hi));
      } else {
        // Far outside every tap reads a zero; keep the index conversion in range.
        c = max(min(c, f32(len + 2)), f32(-4));
      }
      std::string s = std::to_string(d);
      Var cv("x" + s, ct), fv("floor" + s, DataType::i64());
      lets.push_back({cv, c});
      dm.coord = cv;
      if (nearest) {
        dm.floor_i = cast(DataType::i64(), Expr(cv));  // integral already: truncation
      } else {
        Var tv("frac" + s, wt);
        lets.push_back({fv, cast(DataType::i64(), call(Intrinsic::floor, {Expr(cv)}))});
        lets.push_back({tv, cast(wt, Expr(cv) - cast(ct, Expr(fv)))});
        dm.floor_i = fv;
        dm.frac = tv;
      }
    }
    // The input index of tap index i along a dim, and whether it reads a zero.
    auto tap_index = [&](const SpatialDim& dm, Expr i, Expr* valid) {
      if (zeros) {
        Expr v = i >= i64(0) && i < i64(dm.len);
        *valid = valid->defined() ? (*valid && v) : v;
        return clamp_i(i, dm.len);
      }
      if (padding == "reflection")
        i = cast(DataType::i64(), reflect(cast(DataType::f64(), i), dm.lo, dm.hi));
      return clamp_i(i, dm.len);
    };
    DataType yt = y->dtype;
    Stmt body;
    if (nearest) {
      Index xi{o[0], o[1]};
      Expr valid;
      for (const SpatialDim& dm : dims) xi.push_back(tap_index(dm, dm.floor_i, &valid));
      Expr v = x.load(xi);
      if (valid.defined()) v = select(valid, v, make_const(yt, 0));
      body = BufferStore::make(y, v, o);
    } else {
      Accumulator acc("acc", wt);
      Stmt sum = serial_nest(std::vector<int64_t>(size_t(r), taps), "k", [&](const Index& k) {
        Index xi{o[0], o[1]};
        Expr valid, w;
        for (int d = 0; d < r; ++d) {
          const SpatialDim& dm = dims[size_t(d)];
          Expr kd = k[size_t(d)];
          xi.push_back(tap_index(dm, dm.floor_i + kd - i64(cubic ? 1 : 0), &valid));
          Expr wd;
          if (cubic) {
            // distance from tap floor - 1 + k to the coordinate
            Expr dist = dm.frac + make_const(wt, 1) - cast(wt, kd);
            wd = cubic_weight(select(dist < make_const(wt, 0), -dist, dist));
          } else {
            wd = select(kd == i64(0), make_const(wt, 1) - dm.frac, dm.frac);
          }
          w = w.defined() ? w * wd : wd;
        }
        Expr v = cast(wt, x.load(xi));
        if (valid.defined()) v = select(valid, v, make_const(wt, 0));
        return acc.set(acc.get() + w * v);
      });
      body = acc.scope(SeqStmt::make(
          {acc.set(make_const(wt, 0)), sum, BufferStore::make(y, cast(yt, acc.get()), o)}));
    }
    for (auto it = lets.rbegin(); it != lets.rend(); ++it)
      body = LetStmt::make(it->first, it->second, body);
    return body;
  });
}

Stmt compute_affine_grid(const graph::Node& node, const std::vector<Buffer>& inputs,
                         const std::vector<Buffer>& outputs) {
  const Buffer& theta = inputs.at(0);
  const Buffer& y = outputs.at(0);
  check_dtype(node, theta, DTypeClass::kFloat);
  const std::vector<Expr>& ys = y->shape;  // spatial dims symbolic when the caller gives size
  int r = int(ys.size()) - 2;
  bool align = node.attrs.get_int("align_corners", 0) != 0;
  return loop_nest(Extents(ys), "o", [&](const Index& o) {
    Expr j = o[size_t(r + 1)];
    // theta[n, j, r] + sum over k of theta[n, j, k] * base_k (k = 0: x, the last
    // dim)
    Expr sum;
    for (int k = 0; k < r; ++k) {
      int s = r - k;  // output index of that spatial dim
      const Expr len = cast(DataType::f64(), ys[size_t(s)]);
      Expr i = cast(DataType::f64(), o[size_t(s)]);
      // (A length of 1 never divides: the select's other side is not taken.)
      Expr base = align ? select(len == f64c(1), f64c(-1),
                                 f64c(-1) + i * (f64c(2) / max(len - f64c(1), f64c(1))))
                        : f64c(-1) + f64c(1) / len + i * (f64c(2) / len);
      Expr t = cast(DataType::f64(), theta.load({o[0], j, i64(k)})) * base;
      sum = sum.defined() ? sum + t : t;
    }
    sum = sum + cast(DataType::f64(), theta.load({o[0], j, i64(r)}));
    return BufferStore::make(y, cast(y->dtype, sum), o);
  });
}

}  // namespace ingot::lower
