// Compute rule of ReduceSum / ReduceMean: for each kept index, accumulate over the reduced axes
// in a local buffer, then store (divided by the count for the mean).
#include <algorithm>

#include "lower/compute/common.h"
#include "lower/compute/compute.h"
#include "support/error.h"

namespace ingot::lower {

using namespace tir;

Stmt compute_reduce(const graph::Node& node, const std::vector<Buffer>& inputs,
                    const std::vector<Buffer>& outputs) {
  const Buffer& x = inputs.at(0);
  const Buffer& y = outputs.at(0);
  check_dtype(node, x, DTypeClass::kNumeric);
  std::vector<int64_t> xs = const_shape(x);
  int rank = int(xs.size());
  std::vector<int64_t> axes = node.attrs.get_ints("axes");
  bool keepdims = node.attrs.get_int("keepdims", 1) != 0;
  if (axes.empty()) {
    if (node.attrs.get_int("noop_with_empty_axes", 0) != 0)
      return compute_copy(node, inputs, outputs);
    for (int d = 0; d < rank; ++d) axes.push_back(d);
  }
  std::vector<bool> reduced(rank, false);
  for (int64_t a : axes) {
    if (a < 0) a += rank;
    INGOT_ICHECK(a >= 0 && a < rank, "{}: axis out of range", node_label(node));
    reduced[a] = true;
  }
  std::vector<int64_t> kept_shape = xs, red_shape;
  int64_t count = 1;
  for (int d = 0; d < rank; ++d) {
    if (!reduced[d]) continue;
    kept_shape[d] = 1;
    red_shape.push_back(xs[d]);
    count *= xs[d];
  }
  DataType dt = y->dtype;
  bool mean = node.op == ops::OpKind::ReduceMean;

  return loop_nest(kept_shape, "o",
                   [&](const Index& o) {
                     Accumulator acc("acc", dt);
                     Stmt sum = loop_nest(red_shape, "r",
                                          [&](const Index& r) {
                                            Index xi = o;
                                            int n = 0;
                                            for (int d = 0; d < rank; ++d)
                                              if (reduced[d]) xi[d] = r[n++];
                                            return acc.set(acc.get() + x.load(xi));
                                          },
                                          {.parallel_outer = false, .vectorize_inner = false});
                     Index yi;
                     for (int d = 0; d < rank; ++d)
                       if (keepdims || !reduced[d]) yi.push_back(o[d]);
                     Expr result = acc.get();
                     if (mean) {
                       Expr c = make_const(dt, double(count));
                       result = dt.is_float() ? result / c : trunc_div(result, c);
                     }
                     return acc.scope(SeqStmt::make(
                         {acc.set(make_const(dt, 0)), sum, BufferStore::make(y, result, yi)}));
                   },
                   {.parallel_outer = true, .vectorize_inner = false});
}

}  // namespace ingot::lower
