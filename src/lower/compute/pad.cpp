// Compute rules of Pad (constant, reflect, edge, wrap; negative pads crop first, as ONNX Runtime
// does), with static pads or the run's (value symbols), and CenterCropPad (zero pads or crops
// centred per dim, floor on the leading side), all through one nest. Source indices are clamped
// so every load stays in bounds even where a select evaluates both branches.
#include "lower/compute/common.h"
#include "lower/compute/compute.h"
#include "support/error.h"

namespace ingot::lower {

using namespace tir;

namespace {

// Constant padding (no crop) of static extents, as rows: the index space split where the input
// starts and ends, so no element tests whether it is inside. Per index of the dims up to the last
// padded one (a block whose loop kinds the injective rule sets), a row outside the input along
// one of them is all `value`; the others are `value` before, a contiguous copy, `value` after
// (each a lane loop, or over the unpadded trailing dims when there are any: the lanes of a
// channel-blocked tensor). Undefined when the pads crop or a shape is symbolic.
Stmt pad_rows(const Buffer& x, const Buffer& y, const std::vector<Expr>& begins, Expr value) {
  const size_t rank = size_t(x.ndim());
  std::vector<int64_t> xs, ys, before;
  for (size_t d = 0; d < rank; ++d) {
    int64_t n = 0, m = 0, b = 0;
    if (!is_const_int(x->shape[d], &n) || !is_const_int(y->shape[d], &m) ||
        !is_const_int(begins[d], &b) || b < 0 || m - n - b < 0 || n == 0)
      return Stmt();
    xs.push_back(n), ys.push_back(m), before.push_back(b);
  }
  size_t last = rank;  // the last padded dim
  for (size_t d = 0; d < rank; ++d)
    if (ys[d] != xs[d]) last = d;
  if (last == rank) return Stmt();
  std::vector<Expr> lanes;
  for (size_t d = last + 1; d < rank; ++d) lanes.push_back(i64(ys[d]));
  std::vector<int64_t> outer(ys.begin(), ys.begin() + long(last));
  return loop_nest(outer, "i", [&](const Index& o) {
    Index xo;
    Expr inside;
    for (size_t d = 0; d < last; ++d) {
      xo.push_back(before[d] ? o[d] - i64(before[d]) : o[d]);
      if (ys[d] == xs[d]) continue;
      Expr in = (o[d] >= i64(before[d])) && (o[d] < i64(before[d] + xs[d]));
      inside = inside.defined() ? (inside && in) : in;
    }
    // Stores along the row for w in [start, start + len): x's element w - shift, or `value`.
    auto run = [&](const std::string& name, int64_t start, int64_t len, bool copy) -> Stmt {
      auto store = [&](const Expr& w, const Index& t) {
        Index yi = o, xi = xo;
        yi.push_back(w);
        xi.push_back(w - i64(before[last]));
        yi.insert(yi.end(), t.begin(), t.end());
        xi.insert(xi.end(), t.begin(), t.end());
        return BufferStore::make(y, copy ? x.load(xi) : value, yi);
      };
      if (lanes.empty())
        return lane_loop(name, i64(start), len, [&](Expr w) { return store(w, {}); });
      return serial_loop(name, i64(start), len, [&](Expr w) {
        return lane_nest(Extents(lanes), name + "_l", [&](const Index& t) { return store(w, t); });
      });
    };
    const int64_t left = before[last], right = ys[last] - left - xs[last];
    std::vector<Stmt> parts;
    if (left > 0) parts.push_back(run("w0", 0, left, false));
    parts.push_back(run("w1", left, xs[last], true));
    if (right > 0) parts.push_back(run("w2", left + xs[last], right, false));
    Stmt row = SeqStmt::make(parts);
    if (!inside.defined()) return row;
    return IfThenElse::make(inside, row, run("w3", 0, ys[last], false));
  });
}

// One nest for every Pad (static pads or the run's) and CenterCropPad. As ONNX Runtime does,
// negative pads first crop x to [lo, hi); the positive ones then pad that region, whose edges
// edge, wrap and reflect (as many times as the pads need) read. A dim whose pads are known to
// crop only (or do nothing) indexes x directly.
Stmt pad_nest(const graph::Node& node, const Buffer& x, const Buffer& y,
              const std::vector<Expr>& begins, const std::string& mode, Expr value) {
  const int rank = x.ndim();
  INGOT_ICHECK(int(begins.size()) == rank, "{}: {} begin pads for rank {}", node_label(node),
               begins.size(), rank);
  if (mode != "constant" && mode != "reflect" && mode != "edge" && mode != "wrap")
    fail_user("{}: unsupported pad mode '{}'", node_label(node), mode);
  for (const Expr& d : x->shape)
    if (int64_t v = -1; mode != "constant" && is_const_int(d, &v) && v == 0)
      fail_user("{}: cannot {}-pad an empty tensor", node_label(node), mode);
  if (mode == "constant")
    if (Stmt rows = pad_rows(x, y, begins, value); rows.defined()) return rows;
  return loop_nest(Extents(y->shape), "i", [&](const Index& idx) {
    Index xi;
    Expr inside;
    for (int d = 0; d < rank; ++d) {
      const Expr n = x->shape[size_t(d)], b = begins[size_t(d)];
      int64_t nv = 0, mv = 0, bv = 0;
      if (is_const_int(n, &nv) && is_const_int(y->shape[size_t(d)], &mv) && is_const_int(b, &bv) &&
          bv <= 0 && mv - nv - bv <= 0) {
        xi.push_back(bv == 0 ? idx[size_t(d)] : idx[size_t(d)] - i64(bv));  // a crop at most
        continue;
      }
      const Expr e = y->shape[size_t(d)] - n - b;
      const Expr lo = max(i64(0) - b, i64(0)), hi = n - max(i64(0) - e, i64(0));
      const Expr len = max(hi - lo, i64(1)), last = len - i64(1);
      const Expr q = idx[size_t(d)] - max(b, i64(0));  // in the cropped region's coordinates
      Expr r;
      if (mode == "constant") {
        Expr ok = (q >= i64(0)) && (q <= last);
        inside = inside.defined() ? (inside && ok) : ok;
        r = max(min(q, last), i64(0));
      } else if (mode == "edge") {
        r = max(min(q, last), i64(0));
      } else if (mode == "wrap") {
        r = floormod(q, len);
      } else {  // reflect, period 2 (len - 1); a region of one reflects onto itself
        const Expr period = max(last * i64(2), i64(1));
        const Expr m = floormod(q, period);
        r = select(m > last, period - m, m);
      }
      xi.push_back(max(min(lo + r, n - i64(1)), i64(0)));  // (clamped: selects load both sides)
    }
    Expr v = x.load(xi);
    if (inside.defined()) v = select(inside, v, value);
    return BufferStore::make(y, v, idx);
  });
}

}  // namespace

Stmt compute_pad_values(const graph::Node& node, const std::vector<Buffer>& inputs,
                        const std::vector<Buffer>& outputs, const std::vector<Expr>& begins) {
  const Buffer& x = inputs.at(0);
  const Buffer& y = outputs.at(0);
  check_dtype(node, x, DTypeClass::kAny);
  Expr value = make_const(y->dtype, node.attrs.get_float("value", 0.0));
  if (inputs.size() > 2 && inputs[2].defined())
    value = cast(y->dtype, inputs[2].load(scalar_index(inputs[2])));
  return pad_nest(node, x, y, begins, node.attrs.get_string("mode", "constant"), value);
}

Stmt compute_pad(const graph::Node& node, const std::vector<Buffer>& inputs,
                 const std::vector<Buffer>& outputs) {
  const Buffer& x = inputs.at(0);
  check_dtype(node, x, DTypeClass::kAny);
  const int rank = x.ndim();
  const std::vector<int64_t> pads = node.attrs.get_ints("pads", std::vector<int64_t>(2 * rank, 0));
  const int node_rank = int(pads.size() / 2);  // x's: fewer dims on the views of pad_views.h
  INGOT_ICHECK(pads.size() % 2 == 0 && rank <= node_rank, "{}: {} pads for rank {}",
               node_label(node), pads.size(), rank);
  std::vector<Expr> begins;
  for (int d = 0; d < rank; ++d) begins.push_back(i64(pads[size_t(d)]));
  if (rank < node_rank) {  // the trailing unpadded dims merged into the last padded one
    INGOT_ICHECK(!node.inputs.empty() && node.inputs[0] != nullptr &&
                     node.inputs[0]->type.rank() == node_rank,
                 "{}: a merged view without the node's input", node_label(node));
    int64_t merged = 1;
    for (int d = rank; d < node_rank; ++d) merged *= node.inputs[0]->type.shape[size_t(d)].value;
    begins.back() = i64(pads[size_t(rank - 1)] * merged);
  }
  const Buffer& y = outputs.at(0);
  return pad_nest(node, x, y, begins, node.attrs.get_string("mode", "constant"),
                  make_const(y->dtype, node.attrs.get_float("value", 0.0)));
}

// Per dim d (input n, output m): a crop starts at (n - m) / 2, a pad puts (m - n) / 2 zeros
// before; as Pad's begin/end pads (negative crop).
Stmt compute_center_crop_pad(const graph::Node& node, const std::vector<Buffer>& inputs,
                             const std::vector<Buffer>& outputs) {
  const Buffer& x = inputs.at(0);
  check_dtype(node, x, DTypeClass::kAny);
  std::vector<int64_t> xs = const_shape(x), ys = const_shape(outputs.at(0));
  std::vector<Expr> begins;
  for (size_t d = 0; d < xs.size(); ++d)
    begins.push_back(i64(ys[d] >= xs[d] ? (ys[d] - xs[d]) / 2 : -((xs[d] - ys[d]) / 2)));
  return pad_nest(node, x, outputs.at(0), begins, "constant", make_const(outputs.at(0)->dtype, 0));
}

}  // namespace ingot::lower
