// Compute rule of CumSum and CumProd: a serial running sum / product along the axis per outer
// index (parallel over the outer indices); exclusive stores before combining, reverse walks from
// the end. A run-time axis (input 1) selects one of the rank's loop nests.
#include "lower/compute/common.h"
#include "lower/compute/compute.h"
#include "support/error.h"

namespace ingot::lower {

using namespace tir;

namespace {

Stmt scan_along(const Buffer& x, const Buffer& y, int axis, bool exclusive, bool reverse,
                bool product) {
  std::vector<int64_t> xs = const_shape(x);
  int64_t n = xs[size_t(axis)];
  std::vector<int64_t> rows = xs;
  rows[size_t(axis)] = 1;
  DataType dt = y->dtype;
  return loop_nest(rows, "o", [&](const Index& o) {
    Accumulator acc("acc", dt);
    Stmt scan = serial_loop("t", i64(0), n, [&](Expr t) {
      Index xi = o;
      xi[size_t(axis)] = reverse ? i64(n - 1) - t : t;
      Expr v = x.load(xi);
      Stmt add = acc.set(product ? acc.get() * v : acc.get() + v);
      Stmt store = BufferStore::make(y, acc.get(), xi);
      return exclusive ? SeqStmt::make({store, add}) : SeqStmt::make({add, store});
    });
    Expr init = make_const(dt, product ? 1 : 0);
    return acc.scope(SeqStmt::make({acc.set(init), scan}));
  });
}

}  // namespace

Stmt compute_cumsum(const graph::Node& node, const std::vector<Buffer>& inputs,
                    const std::vector<Buffer>& outputs) {
  const Buffer& x = inputs.at(0);
  const Buffer& y = outputs.at(0);
  check_dtype(node, x, DTypeClass::kNumeric);
  bool exclusive = node.attrs.get_int("exclusive", 0) != 0;
  bool reverse = node.attrs.get_int("reverse", 0) != 0;
  bool product = node.op == ops::OpKind::CumProd;
  int r = x.ndim();
  if (node.attrs.has("axis"))
    return scan_along(x, y, node_axis(node, 0, r), exclusive, reverse, product);
  INGOT_ICHECK(inputs.size() > 1 && inputs[1].defined(), "{}: no axis", node_label(node));
  Expr a = cast(DataType::i64(), inputs[1].load(scalar_index(inputs[1])));
  a = select(a < i64(0), a + i64(r), a);
  std::vector<Stmt> cases;
  for (int d = 0; d < r; ++d)
    cases.push_back(
        IfThenElse::make(a == i64(d), scan_along(x, y, d, exclusive, reverse, product)));
  return SeqStmt::make(cases);
}

}  // namespace ingot::lower
