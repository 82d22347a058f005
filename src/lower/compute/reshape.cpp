// Compute rules of the layout-preserving ops (Identity, Flatten, Reshape, Squeeze, Unsqueeze):
// a row-major copy (a fused kernel will turn these into index remapping); of BitCast, the same
// copy of an input that lowering declares with the output's dtype (reinterprets_input); and of
// Shape, which stores the input's static shape.
#include "lower/compute/common.h"
#include "lower/compute/compute.h"
#include "support/error.h"

namespace ingot::lower {

using namespace tir;

Stmt compute_copy(const graph::Node& node, const std::vector<Buffer>& inputs,
                  const std::vector<Buffer>& outputs) {
  const Buffer& x = inputs.at(0);
  const Buffer& y = outputs.at(0);
  check_dtype(node, x, DTypeClass::kAny);
  if (is_symbolic(x) || is_symbolic(y)) {  // flat parameters (lowering): one flat copy
    INGOT_ICHECK(x->shape.size() == 1 && y->shape.size() == 1,
                 "{}: a copy over symbolic shapes takes flat parameters", node_label(node));
    return loop_nest(Extents(y->shape), "i",
                     [&](const Index& idx) { return BufferStore::make(y, x.load(idx), idx); });
  }
  std::vector<int64_t> xs = const_shape(x), ys = const_shape(y);
  INGOT_ICHECK(num_elements(xs) == num_elements(ys), "{}: copy of {} into {} elements",
               node_label(node), num_elements(xs), num_elements(ys));
  if (xs == ys) {
    return loop_nest(ys, "i",
                     [&](const Index& idx) { return BufferStore::make(y, x.load(idx), idx); });
  }
  // Different shapes: linearise the output index and unravel it over the input shape.
  std::vector<int64_t> ystr = row_major_strides(ys), xstr = row_major_strides(xs);
  return loop_nest(ys, "i", [&](const Index& idx) {
    Expr flat;
    for (size_t d = 0; d < ys.size(); ++d) {
      if (ys[d] == 1) continue;
      Expr term = ystr[d] == 1 ? idx[d] : idx[d] * i64(ystr[d]);
      flat = flat.defined() ? flat + term : term;
    }
    if (!flat.defined()) flat = i64(0);
    Index xi;
    for (size_t d = 0; d < xs.size(); ++d) {
      if (xs[d] == 1) {
        xi.push_back(i64(0));
        continue;
      }
      Expr q = xstr[d] == 1 ? flat : floordiv(flat, i64(xstr[d]));
      xi.push_back(d == 0 ? q : floormod(q, i64(xs[d])));
    }
    return BufferStore::make(y, x.load(xi), idx);
  });
}

Stmt compute_bitcast(const graph::Node& node, const std::vector<Buffer>& inputs,
                     const std::vector<Buffer>& outputs) {
  INGOT_ICHECK(inputs.at(0)->dtype == outputs.at(0)->dtype,
               "{}: BitCast's input parameter must be declared with the output's dtype {}, got {}",
               node_label(node), outputs[0]->dtype.str(), inputs[0]->dtype.str());
  return compute_copy(node, inputs, outputs);
}

Stmt compute_shape(const graph::Node& node, const std::vector<Buffer>& inputs,
                   const std::vector<Buffer>& outputs) {
  std::vector<int64_t> xs = const_shape(inputs.at(0));
  const Buffer& y = outputs.at(0);
  int64_t rank = int64_t(xs.size());
  auto clamp = [&](int64_t v) {
    if (v < 0) v += rank;
    return std::clamp<int64_t>(v, 0, rank);
  };
  int64_t start = clamp(node.attrs.get_int("start", 0));
  int64_t end = clamp(node.attrs.get_int("end", rank));
  std::vector<Stmt> stores;
  for (int64_t d = start; d < end; ++d)
    stores.push_back(BufferStore::make(y, make_const(y->dtype, double(xs[d])), {i64(d - start)}));
  if (stores.empty()) return Evaluate::make(i64(0));
  return SeqStmt::make(stores);
}

}  // namespace ingot::lower
