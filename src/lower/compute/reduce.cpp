// Compute rule of the Reduce* ops: for each kept index, accumulate over the reduced axes in a
// local buffer, then store the finished value. Each op is an (init, update, finish) triple;
// ReduceLogSumExp first finds the slice maximum and accumulates exp(x - max) for stability.
#include <algorithm>

#include "lower/compute/common.h"
#include "lower/compute/compute.h"
#include "support/error.h"
#include "tir/arith/analyzer.h"
#include "tir/block_nest.h"
#include "tir/region_analysis.h"

namespace ingot::lower {

using namespace tir;
using ops::OpKind;

namespace {

Expr init_value(OpKind op, DataType dt) {
  switch (op) {
    case OpKind::ReduceMax:
      return min_value(dt);
    case OpKind::ReduceMin:
      return max_value(dt);
    case OpKind::ReduceProd:
      return make_const(dt, 1);
    default:
      return make_const(dt, 0);
  }
}

// acc' = update(acc, x); `shift` is the slice maximum (ReduceLogSumExp only).
Expr update(OpKind op, Expr acc, Expr x, Expr shift) {
  switch (op) {
    case OpKind::ReduceMax:
      return max(acc, x);
    case OpKind::ReduceMin:
      return min(acc, x);
    case OpKind::ReduceProd:
      return acc * x;
    case OpKind::ReduceL1:
      return acc + (x.dtype().is_float() ? fabs(x) : select(x < 0, -x, x));
    case OpKind::ReduceL2:
    case OpKind::ReduceSumSquare:
      return acc + x * x;
    case OpKind::ReduceLogSumExp:
      return acc + exp(x - shift);
    default:  // ReduceSum, ReduceMean, ReduceLogSum
      return acc + x;
  }
}

Expr finish(OpKind op, Expr acc, const Expr& count, Expr shift) {
  DataType dt = acc.dtype();
  switch (op) {
    case OpKind::ReduceMean: {
      int64_t n = 0;
      Expr c = is_const_int(count, &n) ? make_const(dt, double(n)) : cast(dt, count);
      return dt.is_float() ? acc / c : trunc_div(acc, c);
    }
    case OpKind::ReduceL2:
      return dt.is_float() ? sqrt(acc)
                           : cast(dt, call(Intrinsic::round, {sqrt(cast(DataType::f64(), acc))}));
    case OpKind::ReduceLogSum:
      return log(acc);
    case OpKind::ReduceLogSumExp:
      return log(acc) + shift;
    default:
      return acc;
  }
}

bool float_only(OpKind op) {
  return op == OpKind::ReduceLogSum || op == OpKind::ReduceLogSumExp;
}

// ReduceMax / ReduceMin of bool (any / all) accumulate the stored bytes as uint8.
struct BoolAsByte {
  bool on = false;
  DataType acc_dtype(DataType y) const { return on ? DataType::u8() : y; }
  Expr load(const Buffer& x, const Index& i) const {
    return on ? cast(DataType::u8(), x.load(i)) : x.load(i);
  }
  Expr store_value(Expr v) const { return on ? (v != make_const(DataType::u8(), 0)) : v; }
};

// Checks x's dtype for the op; ReduceMax/ReduceMin of bool accumulate its bytes.
BoolAsByte checked_input(const graph::Node& node, const Buffer& x) {
  const OpKind op = node.op;
  BoolAsByte as_byte{x->dtype.is_bool() && (op == OpKind::ReduceMax || op == OpKind::ReduceMin)};
  if (!as_byte.on) check_dtype(node, x, float_only(op) ? DTypeClass::kFloat : DTypeClass::kNumeric);
  return as_byte;
}

// One output element: accumulate x_at over the reduced extents and store the finished value
// at y[yi] (ReduceLogSumExp: the maximum first, for stability).
Stmt reduce_one(OpKind op, const BoolAsByte& as_byte, DataType dt,
                const std::function<Expr(const Index&)>& x_at, const std::vector<Expr>& red_shape,
                const Expr& count, const Buffer& y, const Index& yi) {
  Accumulator acc("acc", dt), mx("max", dt);
  bool lse = op == OpKind::ReduceLogSumExp;
  Expr shift = lse ? mx.get() : Expr();
  std::vector<Stmt> body;
  if (lse) {
    body.push_back(mx.set(min_value(dt)));
    body.push_back(
        mx.reduce(Extents(red_shape), "r", [&](const Index& r) { return max(mx.get(), x_at(r)); }));
  }
  body.push_back(acc.set(init_value(op, dt)));
  body.push_back(acc.reduce(Extents(red_shape), "r",
                            [&](const Index& r) { return update(op, acc.get(), x_at(r), shift); }));
  body.push_back(
      BufferStore::make(y, as_byte.store_value(finish(op, acc.get(), count, shift)), yi));
  Stmt s = acc.scope(SeqStmt::make(body));
  return lse ? mx.scope(s) : s;
}

// Reduction over outer axes with the innermost axis kept (a blocked tensor's spatial dims, a
// column sum): one block "reduce", Y[kept..., j] = init, then Y[kept..., j] = update(Y, X[...])
// over the reduced dims, its loops in iteration order (kept dims, j, reduced dims; dims of
// extent 1 take index 0). How it runs (j in vector chunks innermost, inside the reduction, held
// in Y) is the schedule's: rules/lanes_reduction.h. The ops with a finish (Mean, L2, LogSum)
// then update Y in place in a second block. Undefined when nothing is reduced, or an empty set.
Stmt reduce_lanes_inner(OpKind op, const Buffer& x, const Buffer& y,
                        const std::vector<bool>& reduced, bool keepdims, int64_t count) {
  const std::vector<int64_t> xs = const_shape(x);
  const int rank = int(xs.size());
  const DataType dt = y->dtype;
  std::vector<IterVar> spatial, reduce;
  std::vector<Var> spatial_loops, reduce_loops;
  Index xi(size_t(rank), i64(0));
  auto iter = [&](int d, bool red) {
    if (xs[size_t(d)] == 1) return;
    Var v((red ? "r" : "v") + std::to_string(d));
    (red ? reduce : spatial)
        .push_back({v, i64(0), i64(xs[size_t(d)]), red ? IterKind::kReduce : IterKind::kSpatial});
    (red ? reduce_loops : spatial_loops).push_back(Var((red ? "k" : "i") + std::to_string(d)));
    xi[size_t(d)] = v;
  };
  for (int d = 0; d < rank; ++d)
    if (!reduced[size_t(d)]) iter(d, false);
  for (int d = 0; d < rank; ++d)
    if (reduced[size_t(d)]) iter(d, true);
  // (An empty reduction keeps the row form: a block's init runs inside its reduce loops.)
  if (reduce.empty() || count == 0) return Stmt();
  Index yi;
  for (int d = 0; d < rank; ++d)
    if (!reduced[size_t(d)]) {
      yi.push_back(xi[size_t(d)]);
    } else if (keepdims) {
      yi.push_back(i64(0));
    }
  std::vector<IterVar> ivs = spatial;
  ivs.insert(ivs.end(), reduce.begin(), reduce.end());
  std::vector<Var> loops = spatial_loops;
  loops.insert(loops.end(), reduce_loops.begin(), reduce_loops.end());
  Stmt body = BufferStore::make(y, update(op, y.load(yi), x.load(xi), Expr()), yi);
  Stmt init = BufferStore::make(y, init_value(op, dt), yi);
  Stmt nest = block_loop_nest(loops, ivs, make_block("reduce", ivs, body, init));
  if (op != OpKind::ReduceMean && op != OpKind::ReduceL2 && op != OpKind::ReduceLogSum) return nest;
  Stmt finished = loop_nest(y->shape, "f", [&](const Index& i) {
    return BufferStore::make(y, finish(op, y.load(i), i64(count), Expr()), i);
  });
  return SeqStmt::make({nest, finished});
}

}  // namespace

Stmt compute_reduce(const graph::Node& node, const std::vector<Buffer>& inputs,
                    const std::vector<Buffer>& outputs) {
  const Buffer& x = inputs.at(0);
  const Buffer& y = outputs.at(0);
  OpKind op = node.op;
  const BoolAsByte as_byte = checked_input(node, x);
  const std::vector<Expr>& xs = x->shape;
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
  std::vector<Expr> kept_shape = xs, red_shape;
  for (int d = 0; d < rank; ++d) {
    if (!reduced[d]) continue;
    kept_shape[d] = i64(1);
    red_shape.push_back(xs[d]);
  }
  const Expr count = arith::simplify(product(red_shape));
  DataType dt = as_byte.acc_dtype(y->dtype);
  int64_t inner = 0, n = 0;
  // The lane form needs static shapes; a symbolic reduction takes the row form below.
  if (!reduced[rank - 1] && is_const_int(xs[rank - 1], &inner) && inner > 1 && !is_symbolic(x) &&
      is_const_int(count, &n) && op != OpKind::ReduceLogSumExp && !as_byte.on)
    if (Stmt s = reduce_lanes_inner(op, x, y, reduced, keepdims, n); s.defined()) return s;

  return loop_nest(Extents(kept_shape), "o", [&](const Index& o) {
    auto x_at = [&](const Index& r) {
      Index xi = o;
      int n = 0;
      for (int d = 0; d < rank; ++d)
        if (reduced[d]) xi[d] = r[n++];
      return as_byte.load(x, xi);
    };
    Index yi;
    for (int d = 0; d < rank; ++d)
      if (keepdims || !reduced[d]) yi.push_back(o[d]);
    return reduce_one(op, as_byte, dt, x_at, red_shape, count, y, yi);
  });
}

Stmt compute_reduce_value_axes(const graph::Node& node, const std::vector<Buffer>& inputs,
                               const std::vector<Buffer>& outputs, const std::vector<Expr>& kept) {
  const Buffer& x = inputs.at(0);
  const Buffer& y = outputs.at(0);
  OpKind op = node.op;
  const BoolAsByte as_byte = checked_input(node, x);
  const std::vector<Expr>& xs = x->shape;
  const size_t rank = xs.size();
  INGOT_ICHECK(kept.size() == rank, "{}: {} kept extents for rank {}", node_label(node),
               kept.size(), rank);
  // Each dim is either kept (extent xs[d], reduced extent 1) or reduced (1 and xs[d]), so the
  // input index is the sum of the two loops' indices.
  std::vector<Expr> red;
  for (size_t d = 0; d < rank; ++d) red.push_back(floordiv(xs[d], max(kept[d], i64(1))));
  const Expr count = product(red);
  const bool keepdims = node.attrs.get_int("keepdims", 1) != 0;
  DataType dt = as_byte.acc_dtype(y->dtype);
  return loop_nest(Extents(kept), "o", [&](const Index& o) {
    auto x_at = [&](const Index& r) {
      Index xi;
      for (size_t d = 0; d < rank; ++d) xi.push_back(o[d] + r[d]);
      return as_byte.load(x, xi);
    };
    Index yi = o;
    if (!keepdims) {  // the kept dims, flat, unravelled over y's dims
      Expr flat = i64(0);
      for (size_t d = 0; d < rank; ++d) flat = flat * kept[d] + o[d];
      yi.clear();
      Expr inner = i64(1);
      for (size_t j = y->shape.size(); j-- > 0;) {
        Expr q = floordiv(flat, inner);
        yi.insert(yi.begin(), j == 0 ? q : floormod(q, y->shape[j]));
        inner = inner * y->shape[j];
      }
    }
    return reduce_one(op, as_byte, dt, x_at, red, count, y, yi);
  });
}

}  // namespace ingot::lower
