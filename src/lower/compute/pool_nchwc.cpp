// Compute rule of MaxPoolNCHWc / AveragePoolNCHWc (graph pass layout_nchwc): 2-D pooling of a
// channel-blocked tensor [N, C/c, H, W, c] with the window of the NCHW rule (pool_window.h).
// A row per (image, block, output row) triple, which the injective rule runs in parallel; each
// output pixel is a lane loop over the c lanes (vectorized by that rule), its taps unrolled into
// one expression, so the window is read once per pixel and the result stored once. Rows and columns
// whose taps all lie inside the input read unchecked; the border ones read clamped, masked taps
// (max: the lowest value; average: 0, not counted unless count_include_pad counts the padding).
#include "graph/transforms/layout_nchwc.h"
#include "lower/compute/common.h"
#include "lower/compute/compute.h"
#include "lower/compute/pool_window.h"
#include "support/error.h"

namespace ingot::lower {

using namespace tir;

namespace {

Expr conj(const Expr& a, const Expr& b) {
  if (!a.defined()) return b;
  return b.defined() ? (a && b) : a;
}

}  // namespace

Stmt compute_pool_nchwc(const graph::Node& node, const std::vector<Buffer>& inputs,
                        const std::vector<Buffer>& outputs) {
  const Buffer& x = inputs.at(0);
  const Buffer& y = outputs.at(0);
  check_dtype(node, x, DTypeClass::kFloat);
  std::vector<int64_t> xs = const_shape(x), ys = const_shape(y);
  INGOT_ICHECK(xs.size() == 5 && ys.size() == 5 && xs[1] == ys[1] && xs[4] == ys[4],
               "{}: not a blocked 2-D pooling", node_label(node));
  PoolWindow win(node, {xs[2], xs[3]}, {ys[2], ys[3]});
  INGOT_ICHECK(win.kernel[0] * win.kernel[1] <= graph::kMaxBlockedPoolTaps,
               "{}: a window of {}x{} taps is too large to unroll", node_label(node), win.kernel[0],
               win.kernel[1]);
  bool is_max = node.op == ops::OpKind::MaxPoolNCHWc;
  DataType dt = y->dtype;
  int64_t blocks = ys[1], oh = ys[2], ow = ys[3], lanes = ys[4];
  Expr n, cb, row;  // of the row's index t
  Expr fill = is_max ? min_value(dt) : make_const(dt, 0);

  // The taps of dim d at output position o (no conditions where `checked` is false).
  auto taps = [&](int d, const Expr& o, bool checked) {
    std::vector<PoolWindow::Tap> out;
    for (int64_t w = 0; w < win.kernel[size_t(d)]; ++w) {
      PoolWindow::Tap tap = win.tap(d, o, i64(w));
      if (!checked) tap.valid = tap.in_padded = Expr();
      out.push_back(tap);
    }
    return out;
  };
  // The taps that count towards the average along one dim.
  auto count = [&](const std::vector<PoolWindow::Tap>& dim_taps) {
    Expr c;
    for (const PoolWindow::Tap& tap : dim_taps) {
      const Expr& cond = win.include_pad ? tap.in_padded : tap.valid;
      Expr one =
          cond.defined() ? select(cond, make_const(dt, 1), make_const(dt, 0)) : make_const(dt, 1);
      c = c.defined() ? c + one : one;
    }
    return c;
  };
  auto clamp = [](const PoolWindow::Tap& tap, int64_t extent) {
    return tap.valid.defined() ? max(min(tap.index, i64(extent - 1)), i64(0)) : tap.index;
  };
  // One output vector at column `col` over the lanes.
  auto pixel = [&](const Expr& col, const Expr& l, bool check_rows, bool check_cols) {
    std::vector<PoolWindow::Tap> rows = taps(0, row, check_rows), cols = taps(1, col, check_cols);
    Expr acc;
    for (const PoolWindow::Tap& r : rows)
      for (const PoolWindow::Tap& c : cols) {
        Expr v = x.load({n, cb, clamp(r, xs[2]), clamp(c, xs[3]), l});
        Expr valid = conj(r.valid, c.valid);
        if (valid.defined()) v = select(valid, v, fill);
        acc = !acc.defined() ? v : is_max ? max(acc, v) : acc + v;
      }
    if (!is_max) acc = acc / max(count(rows) * count(cols), make_const(dt, 1));
    return BufferStore::make(y, acc, {n, cb, row, col, l});
  };
  auto columns = [&](int64_t lo, int64_t hi, bool check_rows, bool check_cols) -> Stmt {
    if (hi <= lo) return Stmt();
    return serial_loop("ow", i64(0), hi - lo, [&](Expr v) {
      return lane_loop("l", i64(0), lanes,
                       [&](Expr l) { return pixel(v + i64(lo), l, check_rows, check_cols); });
    });
  };
  auto [col_lo, col_hi] = win.interior(1);
  auto row_body = [&](bool check_rows) {
    std::vector<Stmt> parts;
    for (Stmt s : {columns(0, col_lo, check_rows, true), columns(col_lo, col_hi, check_rows, false),
                   columns(col_hi, ow, check_rows, true)})
      if (s.defined()) parts.push_back(s);
    return SeqStmt::make(parts);
  };
  auto [row_lo, row_hi] = win.interior(0);
  return loop_nest({ys[0] * blocks * oh}, "t", [&](const Index& t) {
    n = floordiv(t[0], i64(blocks * oh)), cb = floormod(floordiv(t[0], i64(oh)), i64(blocks)),
    row = floormod(t[0], i64(oh));
    Stmt body = row_body(true);
    if (row_hi > row_lo)
      body = IfThenElse::make(row >= i64(row_lo) && row < i64(row_hi), row_body(false), body);
    return body;
  });
}

}  // namespace ingot::lower
