// Compute rule of Conv (N-d, NCHW-style layout): per output row, initialise with the bias, then
// accumulate over input channels and kernel offsets with the output width innermost. The width
// loop's valid range is computed per kernel column, so the innermost loop has no bounds checks.
// A float16 row is accumulated in a float32 scratch row and rounded once.
#include "lower/compute/common.h"
#include "lower/compute/compute.h"
#include "lower/compute/epilogue.h"
#include "support/error.h"

namespace ingot::lower {

using namespace tir;

namespace {

int64_t floor_div(int64_t a, int64_t b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

struct ConvGeometry {
  int k = 0;                                      // spatial rank
  std::vector<int64_t> strides, dilations, pads;  // pads: begins then ends
};

ConvGeometry geometry(const graph::Node& node, int k) {
  ConvGeometry g;
  g.k = k;
  g.strides = node.attrs.get_ints("strides", std::vector<int64_t>(k, 1));
  g.dilations = node.attrs.get_ints("dilations", std::vector<int64_t>(k, 1));
  g.pads = node.attrs.get_ints("pads", std::vector<int64_t>(2 * k, 0));
  INGOT_ICHECK(
      int(g.strides.size()) == k && int(g.dilations.size()) == k && int(g.pads.size()) == 2 * k,
      "{}: strides/dilations/pads do not match the spatial rank {}", node_label(node), k);
  return g;
}

}  // namespace

// The loop nest of a convolution (N-d, NCHW-style): per output row `row_of(n, m)` is
// initialised with init(m), then accumulates term(x, w) over input channels and kernel offsets
// with the output width innermost, and wraps up (RowAccum::wrap). Shared by Conv and QConv.
Stmt conv_rows(const graph::Node& node, const Buffer& x, const Buffer& w, const Buffer& y,
               const std::function<RowAccum(const Index& outer_index, Expr m)>& row_of,
               const std::function<Expr(Expr m)>& init,
               const std::function<Expr(Expr xv, Expr wv)>& term) {
  std::vector<int64_t> xs = const_shape(x), ws = const_shape(w), ys = const_shape(y);
  int k = int(xs.size()) - 2;
  INGOT_ICHECK(k >= 1, "{}: input of rank {}", node_label(node), xs.size());
  ConvGeometry geo = geometry(node, k);
  int64_t groups = node.attrs.get_int("group", 1);
  int64_t cin_per_group = ws[1];
  int64_t m_per_group = ys[1] / groups;

  // Outer spatial loops: n, m, and every output dim but the last (width).
  std::vector<int64_t> outer(ys.begin(), ys.end() - 1);
  int64_t out_w = ys.back(), in_w = xs.back(), kernel_w = ws.back();
  int kw_dim = k - 1;

  return loop_nest(outer, "o", [&](const Index& o) {
    Expr n = o[0], m = o[1];
    RowAccum row = row_of(o, m);
    Expr first = init(m);
    Stmt init_row = lane_loop("ow", i64(0), out_w, [&](Expr ow) { return row.store(ow, first); });

    // Reduction over (c, kernel offsets of the non-width dims).
    std::vector<int64_t> red_shape = {cin_per_group};
    red_shape.insert(red_shape.end(), ws.begin() + 2, ws.end() - 1);
    Stmt accumulate = serial_nest(red_shape, "r", [&](const Index& r) {
      Expr c = r[0];
      Expr cin = groups == 1 ? c : floordiv(m, i64(m_per_group)) * i64(cin_per_group) + c;
      Index x_outer = {n, cin};
      Expr valid;
      for (int d = 0; d < k - 1; ++d) {
        Expr ih =
            o[2 + d] * i64(geo.strides[d]) - i64(geo.pads[d]) + r[1 + d] * i64(geo.dilations[d]);
        x_outer.push_back(ih);
        int64_t max_ih =
            (ys[2 + d] - 1) * geo.strides[d] - geo.pads[d] + (ws[2 + d] - 1) * geo.dilations[d];
        if (geo.pads[d] > 0) valid = valid.defined() ? (valid && ih >= i64(0)) : ih >= i64(0);
        if (max_ih >= xs[2 + d])
          valid = valid.defined() ? (valid && ih < i64(xs[2 + d])) : ih < i64(xs[2 + d]);
      }
      std::vector<Stmt> columns;
      for (int64_t kw = 0; kw < kernel_w; ++kw) {
        int64_t s = geo.strides[kw_dim], p = geo.pads[kw_dim], dil = geo.dilations[kw_dim];
        int64_t lo = std::max<int64_t>(0, floor_div(p - kw * dil + s - 1, s));
        int64_t hi = std::min<int64_t>(out_w, floor_div(in_w - 1 + p - kw * dil, s) + 1);
        if (hi <= lo) continue;
        columns.push_back(lane_loop("ow", i64(lo), hi - lo, [&](Expr ow) {
          Index xi = x_outer;
          xi.push_back(ow * i64(s) + i64(kw * dil - p));
          Index wi = {m, c};
          wi.insert(wi.end(), r.begin() + 1, r.end());
          wi.push_back(i64(kw));
          return row.store(ow, row.load(ow) + term(x.load(xi), w.load(wi)));
        }));
      }
      if (columns.empty()) return Evaluate::make(i64(0));
      Stmt body = SeqStmt::make(columns);
      return valid.defined() ? IfThenElse::make(valid, body) : body;
    });
    return row.wrap(SeqStmt::make({init_row, accumulate}));
  });
}

Stmt compute_conv(const graph::Node& node, const std::vector<Buffer>& inputs,
                  const std::vector<Buffer>& outputs) {
  const Buffer& x = inputs.at(0);
  const Buffer& w = inputs.at(1);
  Buffer b = inputs.size() > 2 ? inputs[2] : Buffer();
  const Buffer& y = outputs.at(0);
  check_dtype(node, x, DTypeClass::kFloat);
  check_dtype(node, w, DTypeClass::kFloat);
  DataType dt = y->dtype;
  const int64_t out_w = const_shape(y).back();
  Stmt conv = conv_rows(
      node, x, w, y,
      [&](const Index& o, Expr) {
        return RowAccum(y, i64(out_w), [o](Expr ow) {
          Index idx = o;
          idx.push_back(ow);
          return idx;
        });
      },
      [&](Expr m) { return b.defined() ? b.load({m}) : make_const(dt, 0); },
      [](Expr xv, Expr wv) { return widen(xv) * widen(wv); });
  if (!has_epilogue(node)) return conv;
  // The fused epilogue, a second pass over the output.
  Buffer z = inputs.size() > 3 ? inputs[3] : Buffer();
  Stmt epilogue = epilogue_pass(node, y, Buffer(), z);
  return SeqStmt::make({conv, epilogue});
}

}  // namespace ingot::lower
