// Compute rule of Softmax over one axis, numerically stable: per slice, the max is subtracted
// before exponentiating, exponentials are written and summed, then scaled by 1/sum.
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
  std::vector<int64_t> xs = const_shape(x);
  int axis = node_axis(node, -1, int(xs.size()));
  // Loops over every dim but the axis; the axis is walked three times per slice.
  std::vector<int64_t> outer = xs;
  outer[axis] = 1;
  int64_t len = xs[axis];
  bool contiguous = axis == int(xs.size()) - 1;

  return loop_nest(
      outer, "o",
      [&](const Index& o) {
        auto at = [&](Expr k) {
          Index idx = o;
          idx[axis] = k;
          return idx;
        };
        Accumulator mx("max", dt), sum("sum", dt);
        Stmt find_max = serial_loop("k", i64(0), len,
                                    [&](Expr k) { return mx.set(max(mx.get(), x.load(at(k)))); });
        Stmt exps = serial_loop("k", i64(0), len, [&](Expr k) {
          Expr e = exp(x.load(at(k)) - mx.get());
          return SeqStmt::make(
              {BufferStore::make(y, e, at(k)), sum.set(sum.get() + y.load(at(k)))});
        });
        Stmt scale = serial_loop(
            "k", i64(0), len,
            [&](Expr k) { return BufferStore::make(y, y.load(at(k)) * sum.get(), at(k)); },
            contiguous ? ForKind::kVectorized : ForKind::kSerial);
        Stmt body = SeqStmt::make({mx.set(min_value(dt)), find_max, sum.set(make_const(dt, 0)),
                                   exps, sum.set(make_const(dt, 1) / sum.get()), scale});
        return mx.scope(sum.scope(body));
      },
      {.parallel_outer = true, .vectorize_inner = false});
}

}  // namespace ingot::lower
