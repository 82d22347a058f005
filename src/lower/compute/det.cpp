// Compute rule of Det: per matrix (parallel over the batch dims), Gaussian elimination with
// partial pivoting on a float64 local copy; the determinant is the product of the pivots, negated
// once per row swap.
#include "lower/compute/common.h"
#include "lower/compute/compute.h"
#include "support/error.h"

namespace ingot::lower {

using namespace tir;

namespace {

constexpr int64_t kMaxOrder = 256;  // the local copy (M x M float64) lives on the stack

}  // namespace

Stmt compute_det(const graph::Node& node, const std::vector<Buffer>& inputs,
                 const std::vector<Buffer>& outputs) {
  const Buffer& x = inputs.at(0);
  const Buffer& y = outputs.at(0);
  check_dtype(node, x, DTypeClass::kFloat);
  std::vector<int64_t> xs = const_shape(x);
  size_t r = xs.size();
  int64_t m = xs[r - 1];
  INGOT_ICHECK(r >= 2 && xs[r - 2] == m, "{}: Det of a non-square input", node_label(node));
  if (m > kMaxOrder)
    fail_user("{}: matrices larger than {}x{} are not supported, got {}x{}", node_label(node),
              kMaxOrder, kMaxOrder, m, m);
  std::vector<int64_t> batch(xs.begin(), xs.end() - 2);
  DataType f = DataType::f64();
  return loop_nest(batch, "b", [&](const Index& b) {
    if (m == 0) return BufferStore::make(y, make_const(y->dtype, 1.0), b);
    Buffer a = Buffer::make("a", f, std::vector<int64_t>{m, m}, StorageScope::kLocal);
    Accumulator det("det", f), best("best", f), tmp("tmp", f), factor("factor", f);
    Accumulator piv("piv", DataType::i64());
    auto at = [&](Expr i, Expr j) {
      Index xi = b;
      xi.push_back(i);
      xi.push_back(j);
      return xi;
    };
    Stmt copy = serial_nest({m, m}, "c", [&](const Index& ij) {
      return BufferStore::make(a, cast(f, x.load(at(ij[0], ij[1]))), {ij[0], ij[1]});
    });
    Stmt eliminate = serial_loop("k", i64(0), m, [&](Expr k) {
      // The pivot: the row i >= k with the largest |a[i, k]| (the first one on ties).
      Stmt find = serial_loop("i", i64(0), m, [&](Expr i) {
        Expr v = fabs(a(i, k));
        return IfThenElse::make(i > k && v > best.get(), SeqStmt::make({best.set(v), piv.set(i)}));
      });
      Stmt swap = IfThenElse::make(
          piv.get() != k,
          SeqStmt::make({serial_loop("j", i64(0), m,
                                     [&](Expr j) {
                                       return SeqStmt::make(
                                           {tmp.set(a(k, j)),
                                            BufferStore::make(a, a(piv.get(), j), {k, j}),
                                            BufferStore::make(a, tmp.get(), {piv.get(), j})});
                                     }),
                         det.set(-det.get())}));
      Stmt reduce = serial_loop("i", i64(0), m, [&](Expr i) {
        Stmt row = serial_loop("j", i64(0), m, [&](Expr j) {
          return IfThenElse::make(j > k,
                                  BufferStore::make(a, a(i, j) - factor.get() * a(k, j), {i, j}));
        });
        return IfThenElse::make(i > k, SeqStmt::make({factor.set(a(i, k) / a(k, k)), row}));
      });
      return SeqStmt::make({best.set(fabs(a(k, k))), piv.set(k), find, swap,
                            det.set(det.get() * a(k, k)),
                            IfThenElse::make(a(k, k) != make_const(f, 0.0), reduce)});
    });
    Stmt body = SeqStmt::make({copy, det.set(make_const(f, 1.0)), eliminate,
                               BufferStore::make(y, cast(y->dtype, det.get()), b)});
    for (const Accumulator* s : {&det, &best, &tmp, &factor, &piv}) body = s->scope(body);
    return Allocate::make(a, body);
  });
}

}  // namespace ingot::lower
