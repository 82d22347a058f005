// Compute rule of ConvTranspose (N-d, NCHW-style layout, canonical form: begin pads and an
// explicit output_shape). Gather form, so output rows are independent: per output row,
// initialise with the bias, then for each input channel of the group and kernel offset of the
// non-width dims read the input row whose position maps onto this output row
// (o = i * stride - pad + k * dilation), and scatter it along the width with the output stride.
// A float16 row is accumulated in a float32 scratch row and rounded once.
#include "lower/compute/common.h"
#include "lower/compute/compute.h"
#include "support/error.h"

namespace ingot::lower {

using namespace tir;

namespace {

int64_t floor_div(int64_t a, int64_t b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}
int64_t ceil_div(int64_t a, int64_t b) {
  return -floor_div(-a, b);
}

Expr and_also(Expr a, Expr b) {
  return a.defined() ? (a && b) : b;
}

}  // namespace

Stmt compute_conv_transpose(const graph::Node& node, const std::vector<Buffer>& inputs,
                            const std::vector<Buffer>& outputs) {
  const Buffer& x = inputs.at(0);
  const Buffer& w = inputs.at(1);
  Buffer b = inputs.size() > 2 ? inputs[2] : Buffer();
  const Buffer& y = outputs.at(0);
  check_dtype(node, x, DTypeClass::kFloat);
  check_dtype(node, w, DTypeClass::kFloat);
  std::vector<int64_t> xs = const_shape(x), ws = const_shape(w), ys = const_shape(y);
  int k = int(xs.size()) - 2;
  INGOT_ICHECK(k >= 1 && ws.size() == xs.size() && ys.size() == xs.size(), "{}: input of rank {}",
               node_label(node), xs.size());
  std::vector<int64_t> strides = node.attrs.get_ints("strides", std::vector<int64_t>(k, 1));
  std::vector<int64_t> dilations = node.attrs.get_ints("dilations", std::vector<int64_t>(k, 1));
  std::vector<int64_t> pads = node.attrs.get_ints("pads", std::vector<int64_t>(2 * k, 0));
  INGOT_ICHECK(int(strides.size()) == k && int(dilations.size()) == k && int(pads.size()) == 2 * k,
               "{}: strides/dilations/pads do not match the spatial rank {}", node_label(node), k);
  int64_t groups = node.attrs.get_int("group", 1);
  int64_t cin_per_group = xs[1] / groups;
  int64_t m_per_group = ws[1];
  INGOT_ICHECK(ys[1] == m_per_group * groups, "{}: {} output channels, expected {}",
               node_label(node), ys[1], m_per_group * groups);
  DataType dt = y->dtype;

  std::vector<int64_t> outer(ys.begin(), ys.end() - 1);
  int64_t out_w = ys.back(), in_w = xs.back(), kernel_w = ws.back();
  int wd = k - 1;  // the width dim among the spatial dims

  return loop_nest(outer, "o", [&](const Index& o) {
    Expr n = o[0], m = o[1];
    Expr g = groups == 1 ? i64(0) : floordiv(m, i64(m_per_group));
    Expr mm = groups == 1 ? m : floormod(m, i64(m_per_group));
    auto y_index = [&](Expr ow) {
      Index idx = o;
      idx.push_back(ow);
      return idx;
    };
    RowAccum row(y, i64(out_w), y_index);
    Expr init = b.defined() ? b.load({m}) : make_const(dt, 0);
    Stmt init_row = lane_loop("ow", i64(0), out_w, [&](Expr ow) { return row.store(ow, init); });

    // Reduction over (c, kernel offsets of the non-width dims).
    std::vector<int64_t> red_shape = {cin_per_group};
    red_shape.insert(red_shape.end(), ws.begin() + 2, ws.end() - 1);
    Stmt accumulate = serial_nest(red_shape, "r", [&](const Index& r) {
      Expr c = r[0];
      Expr cin = groups == 1 ? c : g * i64(cin_per_group) + c;
      Index x_outer = {n, cin};
      Expr valid;
      for (int d = 0; d < k - 1; ++d) {
        int64_t s = strides[d], p = pads[d], dil = dilations[d];
        // t = i * s: the input position scaled by the stride.
        Expr t = o[2 + d] + i64(p) - r[1 + d] * i64(dil);
        if (p - (ws[2 + d] - 1) * dil < 0) valid = and_also(valid, t >= i64(0));
        if (s > 1) valid = and_also(valid, floormod(t, i64(s)) == i64(0));
        if (floor_div(ys[2 + d] - 1 + p, s) >= xs[2 + d])
          valid = and_also(valid, t < i64(xs[2 + d] * s));
        x_outer.push_back(s == 1 ? t : floordiv(t, i64(s)));
      }
      std::vector<Stmt> columns;
      for (int64_t kw = 0; kw < kernel_w; ++kw) {
        int64_t s = strides[wd], p = pads[wd], dil = dilations[wd];
        // ow = iw * s - p + kw * dil must lie in [0, out_w).
        int64_t lo = std::max<int64_t>(0, ceil_div(p - kw * dil, s));
        int64_t hi = std::min<int64_t>(in_w, floor_div(out_w - 1 + p - kw * dil, s) + 1);
        if (hi <= lo) continue;
        columns.push_back(serial_loop("iw", i64(lo), hi - lo, [&](Expr iw) {
          Index xi = x_outer;
          xi.push_back(iw);
          Index wi = {cin, mm};
          wi.insert(wi.end(), r.begin() + 1, r.end());
          wi.push_back(i64(kw));
          Expr ow = iw * i64(s) + i64(kw * dil - p);
          return row.store(ow, row.load(ow) + widen(x.load(xi)) * widen(w.load(wi)));
        }));
      }
      if (columns.empty()) return Evaluate::make(i64(0));
      Stmt body = SeqStmt::make(columns);
      return valid.defined() ? IfThenElse::make(valid, body) : body;
    });
    return row.wrap(SeqStmt::make({init_row, accumulate}));
  });
}

}  // namespace ingot::lower
