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
  INGOT_ICHECK(int(pads.size()) == 2 * rank, "{}: {} pads for rank {}", node_label(node),
               pads.size(), rank);
  std::vector<Expr> begins;
  for (int d = 0; d < rank; ++d) begins.push_back(i64(pads[size_t(d)]));
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
