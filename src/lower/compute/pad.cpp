// Compute rules of Pad (constant, reflect, edge, wrap; negative pads crop) and CenterCropPad (zero
// pads or crops centred per dim, floor on the leading side). Source indices are clamped so every
// load stays in bounds even where a select evaluates both branches.
#include "lower/compute/common.h"
#include "lower/compute/compute.h"
#include "support/error.h"

namespace ingot::lower {

using namespace tir;

namespace {

Stmt pad_nest(const graph::Node& node, const Buffer& x, const Buffer& y,
              const std::vector<int64_t>& pads, const std::string& mode, double fill) {
  std::vector<int64_t> xs = const_shape(x), ys = const_shape(y);
  int rank = int(xs.size());
  INGOT_ICHECK(int(pads.size()) == 2 * rank, "{}: {} pads for rank {}", node_label(node),
               pads.size(), rank);
  if (mode != "constant" && mode != "reflect" && mode != "edge" && mode != "wrap")
    fail_user("{}: unsupported pad mode '{}'", node_label(node), mode);
  if (num_elements(xs) == 0 && mode != "constant")
    fail_user("{}: cannot {}-pad an empty tensor", node_label(node), mode);
  Expr value = make_const(y->dtype, fill);

  return loop_nest(ys, "i", [&](const Index& idx) {
    Index xi;
    Expr inside;
    for (int d = 0; d < rank; ++d) {
      int64_t begin = pads[d], end = pads[rank + d];
      Expr src = begin == 0 ? idx[d] : idx[d] - i64(begin);
      if (begin <= 0 && end <= 0) {  // no padding on this dim (maybe cropping)
        xi.push_back(src);
        continue;
      }
      Expr last = i64(xs[d] - 1);
      if (mode == "constant") {
        Expr ok = (src >= i64(0)) && (src <= last);
        inside = inside.defined() ? (inside && ok) : ok;
        xi.push_back(max(min(src, last), i64(0)));
      } else if (mode == "edge") {
        xi.push_back(max(min(src, last), i64(0)));
      } else if (mode == "wrap") {  // -1 -> n-1, n -> 0
        xi.push_back(floormod(src, i64(xs[d])));
      } else {  // reflect: -1 -> 1, n -> n-2 (pads are smaller than the dim)
        if (xs[d] == 1) {
          xi.push_back(i64(0));
          continue;
        }
        Expr r = select(src < i64(0), i64(0) - src, src);
        r = select(r > last, last * i64(2) - r, r);
        xi.push_back(max(min(r, last), i64(0)));
      }
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
  const std::string mode = node.attrs.get_string("mode", "constant");
  const int rank = x.ndim();
  Expr value = make_const(y->dtype, node.attrs.get_float("value", 0.0));
  if (inputs.size() > 2 && inputs[2].defined())
    value = cast(y->dtype, inputs[2].load(scalar_index(inputs[2])));
  // Every dim may be padded or cropped by the run's values. As ONNX Runtime does, negative pads
  // first crop x to [lo, hi); the positive ones then pad that region, whose edges edge, wrap and
  // reflect (as many times as the pads need) read.
  return loop_nest(Extents(y->shape), "i", [&](const Index& idx) {
    Index xi;
    Expr inside;
    for (int d = 0; d < rank; ++d) {
      const Expr n = x->shape[size_t(d)], b = begins[size_t(d)];
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
      xi.push_back(max(min(lo + r, n - i64(1)), i64(0)));
    }
    Expr v = x.load(xi);
    if (inside.defined()) v = select(inside, v, value);
    return BufferStore::make(y, v, idx);
  });
}

Stmt compute_pad(const graph::Node& node, const std::vector<Buffer>& inputs,
                 const std::vector<Buffer>& outputs) {
  const Buffer& x = inputs.at(0);
  check_dtype(node, x, DTypeClass::kAny);
  int rank = x.ndim();
  return pad_nest(node, x, outputs.at(0),
                  node.attrs.get_ints("pads", std::vector<int64_t>(2 * rank, 0)),
                  node.attrs.get_string("mode", "constant"), node.attrs.get_float("value", 0.0));
}

// Per dim d (input n, output m): a crop starts at (n - m) / 2, a pad puts (m - n) / 2 zeros
// before; as Pad's begin/end pads (negative crop).
Stmt compute_center_crop_pad(const graph::Node& node, const std::vector<Buffer>& inputs,
                             const std::vector<Buffer>& outputs) {
  const Buffer& x = inputs.at(0);
  check_dtype(node, x, DTypeClass::kAny);
  std::vector<int64_t> xs = const_shape(x), ys = const_shape(outputs.at(0));
  int rank = int(xs.size());
  std::vector<int64_t> pads(size_t(2 * rank), 0);
  for (int d = 0; d < rank; ++d) {
    int64_t begin = ys[d] >= xs[d] ? (ys[d] - xs[d]) / 2 : -((xs[d] - ys[d]) / 2);
    pads[d] = begin;
    pads[rank + d] = ys[d] - xs[d] - begin;
  }
  return pad_nest(node, x, outputs.at(0), pads, "constant", 0.0);
}

}  // namespace ingot::lower
