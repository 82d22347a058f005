// Compute rules of the Winograd transforms (graph pass winograd_conv; ops/winograd.cpp,
// support/winograd.h), per axis (a 1x3 / 3x1 kernel's 1-tap axis: alpha 1, tile 1). Both are one
// spatial block over the tiles and channel blocks, (n, th, tw, cb), each a row whose lane loop over
// the block's c channels holds the whole transform of one tile, so the injective rule runs the
// tiles in parallel and each lane loop as vectors:
//   input:  d[r][s] = X[n, cb, th*m - top + r, tw*m - left + s, l] (0 outside X: a guard on a
//           clamped load), V[r'*alpha + s', t, cb*c + l] = (B^T d B)[r'][s'];
//   output: Y[n, ob, th*m + i, tw*m + j, l] = epilogue((A^T M A)[i][j] + bias), stores past the
//           output cropped by a test on the tile (only where m does not divide OH or OW).
// Each transform is written as its two 1-D passes, the first pass's values lets that the second
// pass's stores share (vectorize_loops widens them to vector lets; written out in every store,
// they left LLVM copies to merge: docs/perf-runs/winograd_cost-20261206.txt); a coefficient 0 adds
// nothing and 1 or -1 no multiplication.
#include <fmt/format.h>

#include <optional>

#include "lower/compute/common.h"
#include "lower/compute/compute.h"
#include "lower/compute/epilogue.h"
#include "support/error.h"
#include "support/winograd.h"
#include "tir/op.h"

namespace ingot::lower {

using namespace tir;

namespace {

// sum_k coef(k) * term(k) over the nonzero coefficients.
Expr combination(int n, const std::function<double(int)>& coef,
                 const std::function<Expr(int)>& term) {
  Expr sum;
  for (int k = 0; k < n; ++k) {
    double c = coef(k);
    if (c == 0) continue;
    Expr t = term(k);
    if (!sum.defined()) {
      sum = c == 1 ? t : c == -1 ? -t : make_const(t.dtype(), c) * t;
    } else if (c == 1) {
      sum = sum + t;
    } else if (c == -1) {
      sum = sum - t;
    } else {
      sum = sum + make_const(t.dtype(), c) * t;
    }
  }
  INGOT_ICHECK(sum.defined(), "Winograd transform row of zeros");
  return sum;
}

// `body` under lets of vars[k] = values[k], the first outermost.
Stmt bind_all(const std::vector<Var>& vars, const std::vector<Expr>& values, Stmt body) {
  for (size_t k = vars.size(); k-- > 0;) body = LetStmt::make(vars[k], values[k], body);
  return body;
}

// The node's transforms along H and W (its tile and kernel_shape: 3x3, 1x3 or 3x1).
winograd::Transforms2d node_transforms(const graph::Node& node) {
  int64_t m = node.attrs.get_int("tile", 0);
  INGOT_ICHECK(winograd::supported_tile(m), "{}: tile {}", node_label(node), m);
  std::vector<int64_t> k = node.attrs.get_ints("kernel_shape", {3, 3});
  INGOT_ICHECK(k.size() == 2 && winograd::supported_kernel(k[0], k[1]), "{}: kernel",
               node_label(node));
  return winograd::transforms(int(m), k[0], k[1]);
}

}  // namespace

Stmt compute_winograd_input(const graph::Node& node, const std::vector<Buffer>& inputs,
                            const std::vector<Buffer>& outputs) {
  const Buffer& x = inputs.at(0);
  const Buffer& v = outputs.at(0);
  const auto [th_t, tw_t] = node_transforms(node);
  const int ah = th_t.a, aw = tw_t.a;
  const std::vector<int64_t> xs = const_shape(x), pads = node.attrs.get_ints("pads");
  const int64_t h = xs[2], w = xs[3], c = xs[4];
  const int64_t th_n = winograd::tiles_along(h + pads[0] + pads[2] - th_t.k + 1, th_t);
  const int64_t tw_n = winograd::tiles_along(w + pads[1] + pads[3] - tw_t.k + 1, tw_t);
  return loop_nest({xs[0], th_n, tw_n, xs[1]}, "t", [&](const Index& i) {
    Expr n = i[0], th = i[1], tw = i[2], cb = i[3];
    Expr tile = (n * th_n + th) * tw_n + tw;
    return lane_loop("l", i64(0), c, [&](Expr l) {
      // d[r][s], then the row pass t[r][s2] = sum_s d[r][s] * BTw[s2][s], each a let; the
      // stores sum the column pass over t with BTh.
      std::vector<Var> d(size_t(ah * aw)), rows(size_t(ah * aw));
      std::vector<Expr> d_value(d.size()), row_value(d.size());
      for (int r = 0; r < ah; ++r)
        for (int s = 0; s < aw; ++s) {
          Expr hr = th * th_t.m + (r - pads[0]), ws = tw * tw_t.m + (s - pads[1]);
          Expr load = x.load(
              {n, cb, min(max(hr, i64(0)), i64(h - 1)), min(max(ws, i64(0)), i64(w - 1)), l});
          Expr inside = hr >= i64(0) && hr < i64(h) && ws >= i64(0) && ws < i64(w);
          d[size_t(r * aw + s)] = Var(fmt::format("d{}{}", r, s), x->dtype);
          d_value[size_t(r * aw + s)] = select(inside, load, make_const(x->dtype, 0));
        }
      for (int r = 0; r < ah; ++r)
        for (int s2 = 0; s2 < aw; ++s2) {
          rows[size_t(r * aw + s2)] = Var(fmt::format("t{}{}", r, s2), x->dtype);
          row_value[size_t(r * aw + s2)] = combination(
              aw, [&](int s) { return tw_t.b_t(s2, s); },
              [&](int s) { return d[size_t(r * aw + s)]; });
        }
      std::vector<Stmt> stores;
      for (int r2 = 0; r2 < ah; ++r2)
        for (int s2 = 0; s2 < aw; ++s2) {
          Expr value = combination(
              ah, [&](int r) { return th_t.b_t(r2, r); },
              [&](int r) { return rows[size_t(r * aw + s2)]; });
          stores.push_back(BufferStore::make(v, value, {i64(r2 * aw + s2), tile, cb * c + l}));
        }
      Stmt body = SeqStmt::make(std::move(stores));
      body = bind_all(rows, row_value, body);
      return bind_all(d, d_value, body);
    });
  });
}

Stmt compute_winograd_output(const graph::Node& node, const std::vector<Buffer>& inputs,
                             const std::vector<Buffer>& outputs) {
  const Buffer& mb = inputs.at(0);
  const Buffer bias = inputs.size() > 1 ? inputs[1] : Buffer();
  const Buffer z = inputs.size() > 2 ? inputs[2] : Buffer();
  const Buffer& y = outputs.at(0);
  const auto [th_t, tw_t] = node_transforms(node);
  const int ah = th_t.a, aw = tw_t.a, mh = th_t.m, mw = tw_t.m;
  const std::vector<int64_t> ys = const_shape(y);
  const int64_t oh = ys[2], ow = ys[3], c = ys[4];
  const int64_t th_n = winograd::tiles_along(oh, th_t), tw_n = winograd::tiles_along(ow, tw_t);
  const int64_t channels = bias.defined() ? const_shape(bias).at(0) : 0;
  return loop_nest({ys[0], th_n, tw_n, ys[1]}, "t", [&](const Index& i) {
    Expr n = i[0], th = i[1], tw = i[2], ob = i[3];
    Expr tile = (n * th_n + th) * tw_n + tw;
    return lane_loop("l", i64(0), c, [&](Expr l) {
      Expr o = ob * c + l;
      // The row pass u[r][j] = sum_i ATh[r][i] * M[i][j], each a let; the stores sum the
      // column pass over u with ATw.
      std::vector<Var> rows(size_t(mh * aw));
      std::vector<Expr> row_value(rows.size());
      for (int r = 0; r < mh; ++r)
        for (int j = 0; j < aw; ++j) {
          rows[size_t(r * aw + j)] = Var(fmt::format("u{}{}", r, j), y->dtype);
          row_value[size_t(r * aw + j)] = combination(
              ah, [&](int i2) { return th_t.a_t(r, i2); },
              [&](int i2) {
                return mb.load({i64(i2 * aw + j), tile, o});
              });
        }
      Expr b;
      if (bias.defined()) {
        b = channels == ys[1] * c
                ? bias.load({o})
                : select(o < i64(channels), bias.load({min(o, i64(channels - 1))}),
                         make_const(y->dtype, 0));
      }
      std::vector<Stmt> stores;
      for (int r = 0; r < mh; ++r)
        for (int s = 0; s < mw; ++s) {
          // (A^T M A)[r][s] = sum_j (sum_i ATh[r][i] * M[i][j]) * ATw[s][j]
          Expr value = combination(
              aw, [&](int j) { return tw_t.a_t(s, j); },
              [&](int j) { return rows[size_t(r * aw + j)]; });
          if (b.defined()) value = value + b;
          Index yi = {n, ob, th * mh + r, tw * mw + s, l};
          Expr zv = z.defined() ? z.load(yi) : Expr();
          Stmt store = BufferStore::make(y, apply_epilogue(node, value, zv), yi);
          // Rows / columns past the output exist only in the last tile of a partial grid.
          std::optional<Expr> cond;
          if (oh % mh != 0 && r >= oh % mh) cond = th * mh + r < i64(oh);
          if (ow % mw != 0 && s >= ow % mw) {
            Expr cs = tw * mw + s < i64(ow);
            cond = cond ? *cond && cs : cs;
          }
          stores.push_back(cond ? IfThenElse::make(*cond, store) : store);
        }
      return bind_all(rows, row_value, SeqStmt::make(std::move(stores)));
    });
  });
}

}  // namespace ingot::lower
