// Compute rule of Softmax over one axis, numerically stable: per slice (row), the max is
// reduced, exponentials of x - max are written and summed in one pass, then y is scaled by
// 1/sum; the rows run in parallel. The two reductions are reduction blocks (Accumulator::reduce),
// which the schedule splits into vector lanes of partial results (rules/row_reduction.h: over
// the contiguous last axis, 16 lanes by default); over the last axis the scaling is vectorized.
#include "lower/compute/common.h"
#include "lower/compute/compute.h"
#include "support/error.h"

namespace ingot::lower {

using namespace tir;

Stmt compute_softmax(const graph::Node& node, const std::vector<Buffer>& inputs,
                     const std::vector<Buffer>& outputs) {
  const Buffer& x = inputs.at(0);
  const Buffer& y = outputs.at(0);
  check_dtype(node, x, DTypeClass::kFloat);
  DataType dt = y->dtype;
  const std::vector<Expr>& xs = x->shape;
  int axis = node_axis(node, -1, int(xs.size()));
  std::vector<Expr> outer = xs;
  outer[axis] = i64(1);
  Expr len = xs[axis];
  // Over the last axis the scaling pass is contiguous: a lane loop (vectorized).
  bool last_axis = axis + 1 == int(xs.size());

  return loop_nest(outer, "o", [&](const Index& o) {
    auto at = [&](Expr k) {
      Index idx = o;
      idx[axis] = k;
      return idx;
    };
    Accumulator mx("max", dt), sum("sum", dt);
    Stmt find_max = mx.reduce(Extents({len}), "k",
                              [&](const Index& k) { return max(mx.get(), x.load(at(k[0]))); });
    // y = exp(x - max), summed in the same pass.
    Stmt exps = sum.reduce(
        Extents({len}), "k", [&](const Index& k) { return sum.get() + y.load(at(k[0])); },
        [&](const Index& k) {
          return BufferStore::make(y, exp(x.load(at(k[0])) - mx.get()), at(k[0]));
        });
    auto scale_at = [&](Expr k) { return BufferStore::make(y, y.load(at(k)) * sum.get(), at(k)); };
    Stmt scale =
        last_axis ? lane_loop("k", i64(0), len, scale_at) : serial_loop("k", i64(0), len, scale_at);
    Stmt body = SeqStmt::make({mx.set(min_value(dt)), find_max, sum.set(make_const(dt, 0)), exps,
                               sum.set(make_const(dt, 1) / sum.get()), scale});
    return mx.scope(sum.scope(body));
  });
}

}  // namespace ingot::lower
