// Compute rules of ArgMax / ArgMin (one serial scan per kept index, tracking the best value and
// its index; ties keep the first or, with select_last_index, the last) and of LogSoftmax and
// Hardmax over one axis (LogSoftmax: x - max - log(sum(exp(x - max))), the max and the sum as
// reduction blocks, see Accumulator::reduce).
#include "lower/compute/common.h"
#include "lower/compute/compute.h"
#include "support/error.h"

namespace ingot::lower {

using namespace tir;
using ops::OpKind;

Stmt compute_arg_reduce(const graph::Node& node, const std::vector<Buffer>& inputs,
                        const std::vector<Buffer>& outputs) {
  const Buffer& x = inputs.at(0);
  const Buffer& y = outputs.at(0);
  check_dtype(node, x, DTypeClass::kNumeric);
  std::vector<int64_t> xs = const_shape(x);
  int rank = int(xs.size());
  int axis = node_axis(node, 0, rank);
  bool keepdims = node.attrs.get_int("keepdims", 1) != 0;
  bool last = node.attrs.get_int("select_last_index", 0) != 0;
  bool is_max = node.op == OpKind::ArgMax;
  std::vector<int64_t> outer = xs;
  outer[axis] = 1;
  DataType dt = x->dtype;

  return loop_nest(outer, "o", [&](const Index& o) {
    Accumulator best("best", dt), arg("arg", DataType::i64());
    Stmt scan = serial_loop("k", i64(0), xs[axis], [&](Expr k) {
      Index xi = o;
      xi[axis] = k;
      Expr v = x.load(xi);
      Expr better = is_max ? (last ? v >= best.get() : v > best.get())
                           : (last ? v <= best.get() : v < best.get());
      return IfThenElse::make(better, SeqStmt::make({best.set(v), arg.set(k)}), Stmt());
    });
    Index yi;
    for (int d = 0; d < rank; ++d)
      if (keepdims || d != axis) yi.push_back(o[d]);
    Index first = o;
    first[axis] = i64(0);
    Stmt body = SeqStmt::make(
        {best.set(x.load(first)), arg.set(i64(0)), scan, BufferStore::make(y, arg.get(), yi)});
    return best.scope(arg.scope(body));
  });
}

Stmt compute_softmax_variant(const graph::Node& node, const std::vector<Buffer>& inputs,
                             const std::vector<Buffer>& outputs) {
  const Buffer& x = inputs.at(0);
  const Buffer& y = outputs.at(0);
  check_dtype(node, x, DTypeClass::kFloat);
  DataType dt = y->dtype;
  std::vector<int64_t> xs = const_shape(x);
  int axis = node_axis(node, -1, int(xs.size()));
  std::vector<int64_t> outer = xs;
  outer[axis] = 1;
  int64_t len = xs[axis];
  bool hardmax = node.op == OpKind::Hardmax;

  return loop_nest(outer, "o", [&](const Index& o) {
    auto at = [&](Expr k) {
      Index idx = o;
      idx[axis] = k;
      return idx;
    };
    Accumulator mx("max", dt), sum("sum", dt), arg("arg", DataType::i64());
    if (hardmax) {
      // The first index of the maximum gets 1, every other element 0.
      Stmt scan = serial_loop("k", i64(0), len, [&](Expr k) {
        Expr v = x.load(at(k));
        return IfThenElse::make(v > mx.get(), SeqStmt::make({mx.set(v), arg.set(k)}), Stmt());
      });
      Stmt write = serial_loop("k", i64(0), len, [&](Expr k) {
        return BufferStore::make(y, select(k == arg.get(), make_const(dt, 1), make_const(dt, 0)),
                                 at(k));
      });
      Stmt body = SeqStmt::make({mx.set(x.load(at(i64(0)))), arg.set(i64(0)), scan, write});
      return mx.scope(arg.scope(body));
    }
    Stmt find_max =
        mx.reduce({len}, "k", [&](const Index& k) { return max(mx.get(), x.load(at(k[0]))); });
    Stmt sum_exp = sum.reduce(
        {len}, "k", [&](const Index& k) { return sum.get() + exp(x.load(at(k[0])) - mx.get()); });
    Stmt write = serial_loop("k", i64(0), len, [&](Expr k) {
      return BufferStore::make(y, x.load(at(k)) - sum.get(), at(k));
    });
    // sum becomes the total shift max + log(sum) before the write loop.
    Stmt body = SeqStmt::make({mx.set(min_value(dt)), find_max, sum.set(make_const(dt, 0)), sum_exp,
                               sum.set(mx.get() + log(sum.get())), write});
    return mx.scope(sum.scope(body));
  });
}

}  // namespace ingot::lower
