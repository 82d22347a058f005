// Compute rule of TopK by k selection passes per row: pass j scans the axis for the best element
// that comes after pass j-1's pick in the order (value descending for largest, ascending for
// smallest; ties by index), so the output is sorted with ties in index order and no per-row
// scratch memory is needed. O(k * n) per row.
#include "lower/compute/common.h"
#include "lower/compute/compute.h"
#include "support/error.h"

namespace ingot::lower {

using namespace tir;

Stmt compute_topk(const graph::Node& node, const std::vector<Buffer>& inputs,
                  const std::vector<Buffer>& outputs) {
  const Buffer& x = inputs.at(0);
  Buffer values = outputs.at(0), indices = outputs.size() > 1 ? outputs[1] : Buffer();
  check_dtype(node, x, DTypeClass::kNumeric);
  std::vector<int64_t> xs = const_shape(x);
  int axis = node_axis(node, -1, x.ndim());
  int64_t n = xs[size_t(axis)];
  // k: static, or a value symbol (the caller's K) that the values output's shape holds.
  const Expr k = values.defined() ? values->shape[size_t(axis)] : indices->shape[size_t(axis)];
  bool largest = node.attrs.get_int("largest", 1) != 0;
  DataType dt = x->dtype;
  std::vector<int64_t> rows = xs;
  rows[size_t(axis)] = 1;
  if (int64_t kc = -1; is_const_int(k, &kc) && kc == 0) return Evaluate::make(i64(0));
  return loop_nest(rows, "o", [&](const Index& o) {
    Accumulator pv("prev_v", dt), pi("prev_i", DataType::i64()), bv("best_v", dt),
        bi("best_i", DataType::i64());
    Stmt picks = serial_loop("j", i64(0), k, [&](Expr j) {
      Stmt scan = serial_loop("t", i64(0), n, [&](Expr t) {
        Index xi = o;
        xi[size_t(axis)] = t;
        Expr v = x.load(xi);
        Expr after = pi.get() < i64(0) || (largest ? v < pv.get() : v > pv.get()) ||
                     (v == pv.get() && t > pi.get());
        Expr better = bi.get() < i64(0) || (largest ? v > bv.get() : v < bv.get());
        return IfThenElse::make(after && better, SeqStmt::make({bv.set(v), bi.set(t)}));
      });
      Index yi = o;
      yi[size_t(axis)] = j;
      std::vector<Stmt> seq{bi.set(i64(-1)), bv.set(make_const(dt, 0)), scan};
      if (values.defined()) seq.push_back(BufferStore::make(values, bv.get(), yi));
      if (indices.defined()) seq.push_back(BufferStore::make(indices, bi.get(), yi));
      seq.push_back(pv.set(bv.get()));
      seq.push_back(pi.set(bi.get()));
      return SeqStmt::make(seq);
    });
    Stmt body = SeqStmt::make({pi.set(i64(-1)), pv.set(make_const(dt, 0)), picks});
    return pv.scope(pi.scope(bv.scope(bi.scope(body))));
  });
}

}  // namespace ingot::lower
