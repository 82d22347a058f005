// Compute rules of QConv and QMatMul (ops/qlinear.cpp): int32 accumulation of the centred
// operands (x - x_zero_point) * (w - w_zero_point) on top of the int32 bias, in a local row per
// output row, then fixed-point requantization per element: the accumulator times the channel's
// int32 multiplier in int64, plus 2^(shift-1), floor-divided by 2^shift (rounding half up), plus
// y_zero_point, saturated to [qmin, qmax]. A 32-bit core does the product as one 32x32->64
// multiply and the division as a shift.
// IntMatMul (A's zero point already in its bias, B's zero) is that accumulator alone, and
// Requantize the output arithmetic alone, per element: the two steps of a QMatMul whose weights
// are symmetric. On a CPU target with schedules IntMatMul is one block "matmul" over its row views
// (rows, j | k), int32(A) * int32(B) on the bias row, which rule int8_matmul schedules.
#include "lower/compute/common.h"
#include "lower/compute/compute.h"
#include "lower/compute/product_nest.h"
#include "support/error.h"

namespace ingot::lower {

using namespace tir;

namespace {

Expr requantize(const graph::Node& node, Expr acc, Expr multiplier, DataType out) {
  const int64_t shift = node.attrs.get_int("shift", 0);
  INGOT_ICHECK(shift >= 1 && shift <= 62, "{}: shift {}", node_label(node), shift);
  Expr p = cast(DataType::i64(), std::move(acc)) * cast(DataType::i64(), std::move(multiplier)) +
           i64(int64_t(1) << (shift - 1));
  Expr q = floordiv(p, i64(int64_t(1) << shift)) + i64(node.attrs.get_int("y_zero_point", 0));
  q = min(max(q, i64(node.attrs.get_int("qmin", 0))), i64(node.attrs.get_int("qmax", 0)));
  return cast(out, q);
}

// An operand widened to int32 and centred on its zero point.
Expr centred(Expr v, int64_t zero_point) {
  Expr w = cast(DataType::i32(), std::move(v));
  return zero_point == 0 ? w : w - make_const(DataType::i32(), double(zero_point));
}

}  // namespace

Stmt compute_qconv(const graph::Node& node, const std::vector<Buffer>& inputs,
                   const std::vector<Buffer>& outputs) {
  const Buffer& x = inputs.at(0);
  const Buffer& w = inputs.at(1);
  const Buffer& bias = inputs.at(2);
  const Buffer& multiplier = inputs.at(3);
  const Buffer& y = outputs.at(0);
  const int64_t x_zp = node.attrs.get_int("x_zero_point", 0);
  const int64_t w_zp = node.attrs.get_int("w_zero_point", 0);
  const int64_t out_w = const_shape(y).back();
  return conv_rows(
      node, x, w, y,
      [&](const Index& o, Expr m) {
        return RowAccum(
            y, i64(out_w),
            [o](Expr ow) {
              Index idx = o;
              idx.push_back(ow);
              return idx;
            },
            DataType::i32(),
            [&node, &multiplier, &y, m](Expr acc, Expr) {
              return requantize(node, acc, multiplier.load({m}), y->dtype);
            });
      },
      [&](Expr m) { return bias.load({m}); },
      [&](Expr xv, Expr wv) { return centred(xv, x_zp) * centred(wv, w_zp); });
}

Stmt compute_qmatmul(const graph::Node& node, const std::vector<Buffer>& inputs,
                     const std::vector<Buffer>& outputs) {
  const Buffer& a = inputs.at(0);
  const Buffer& b = inputs.at(1);
  const Buffer& bias = inputs.at(2);
  const Buffer& multiplier = inputs.at(3);
  const Buffer& y = outputs.at(0);
  const int64_t a_zp = node.attrs.get_int("x_zero_point", 0);
  const int64_t b_zp = node.attrs.get_int("w_zero_point", 0);
  std::vector<int64_t> ys = const_shape(y);
  const int64_t n = ys.back(), k = const_shape(a).back();
  std::vector<int64_t> outer(ys.begin(), ys.end() - 1);
  return loop_nest(outer, "o", [&](const Index& o) {
    RowAccum row(
        y, i64(n),
        [o](Expr j) {
          Index idx = o;
          idx.push_back(j);
          return idx;
        },
        DataType::i32(),
        [&](Expr acc, Expr j) { return requantize(node, acc, multiplier.load({j}), y->dtype); });
    Stmt init = lane_loop("j", i64(0), n, [&](Expr j) { return row.store(j, bias.load({j})); });
    Stmt accumulate = serial_loop("r", i64(0), k, [&](Expr r) {
      Index ai = o;
      ai.push_back(r);
      Expr av = centred(a.load(ai), a_zp);
      return lane_loop("j", i64(0), n, [&](Expr j) {
        return row.store(j, row.load(j) + av * centred(b.load({r, j}), b_zp));
      });
    });
    return row.wrap(SeqStmt::make({init, accumulate}));
  });
}

Stmt compute_int_matmul(const graph::Node& node, const std::vector<Buffer>& inputs,
                        const std::vector<Buffer>& outputs) {
  const Buffer& a = inputs.at(0);
  const Buffer& b = inputs.at(1);
  Buffer bias = inputs.size() > 2 ? inputs[2] : Buffer();
  const Buffer& y = outputs.at(0);
  std::vector<int64_t> ys = const_shape(y);
  const int64_t n = ys.back(), k = const_shape(a).back();
  std::vector<int64_t> outer(ys.begin(), ys.end() - 1);
  const DataType i32 = DataType::i32();
  return loop_nest(outer, "o", [&](const Index& o) {
    auto at = [&](Expr last) {
      Index idx = o;
      idx.push_back(last);
      return idx;
    };
    Stmt init = lane_loop("j", i64(0), n, [&](Expr j) {
      return BufferStore::make(y, bias.defined() ? bias.load({j}) : make_const(i32, 0), at(j));
    });
    Stmt accumulate = serial_loop("r", i64(0), k, [&](Expr r) {
      Expr av = cast(i32, a.load(at(r)));
      return lane_loop("j", i64(0), n, [&](Expr j) {
        return BufferStore::make(y, y.load(at(j)) + av * cast(i32, b.load({r, j})), at(j));
      });
    });
    return SeqStmt::make({init, accumulate});
  });
}

Stmt compute_int_matmul_block(const graph::Node& node, const std::vector<Buffer>& inputs,
                              const std::vector<Buffer>& outputs) {
  // Views: A [rows, K], Y [rows, N]; B [K, N].
  const Buffer& a = inputs.at(0);
  const Buffer& b = inputs.at(1);
  Buffer bias = inputs.size() > 2 ? inputs[2] : Buffer();
  const Buffer& y = outputs.at(0);
  INGOT_ICHECK(a.ndim() == 2 && y.ndim() == 2, "{}: the block form takes 2-D row views",
               node_label(node));
  const DataType i32 = DataType::i32();
  ProductNest nest;
  Var i = nest.add("i", y->shape[0], IterKind::kSpatial);
  Var j = nest.add("j", const_shape(b)[1], IterKind::kSpatial);
  Var k = nest.add("k", const_shape(b)[0], IterKind::kReduce);
  Stmt init = BufferStore::make(y, bias.defined() ? bias.load({j}) : make_const(i32, 0), {i, j});
  Stmt update = BufferStore::make(
      y, y.load({i, j}) + cast(i32, a.load({i, k})) * cast(i32, b.load({k, j})), {i, j});
  return nest.make(update, init);
}

Stmt compute_requantize(const graph::Node& node, const std::vector<Buffer>& inputs,
                        const std::vector<Buffer>& outputs) {
  const Buffer& acc = inputs.at(0);
  const Buffer& multiplier = inputs.at(1);
  const Buffer& y = outputs.at(0);
  return loop_nest(y->shape, "i", [&](const Index& idx) {
    return BufferStore::make(
        y, requantize(node, acc.load(idx), multiplier.load({idx.back()}), y->dtype), idx);
  });
}

}  // namespace ingot::lower
