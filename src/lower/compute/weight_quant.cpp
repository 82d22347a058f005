// Compute rules of the weight-only quantized ops (ops/weight_quant.cpp): the weight is
// dequantized where it is read, element (k, j) = int(Wq) * scales[k / group_size, j] (int4: the
// nibble of byte k / 2 minus 8), so only the integer bytes stream from memory.
// WQMatMul takes the symbolic product's column-block form (compute/symbolic_product.h) for
// static and symbolic rows alike; with fewer than 128 columns, a dot product per output.
#include "lower/compute/common.h"
#include "lower/compute/compute.h"
#include "lower/compute/symbolic_product.h"
#include "support/error.h"

namespace ingot::lower {

using namespace tir;

namespace {

// The stored integer of weight element (k, j = block * 64 + lane) as float32 (int4: its nibble,
// the weight plus kInt4ZeroPoint), from the blocked layout [blocks, K (int4: K/2), 64].
constexpr int64_t kInt4ZeroPoint = 8;
Expr stored_weight(const graph::Node& node, const Buffer& wq, Expr k, Expr block, Expr lane) {
  if (node.attrs.get_int("bits", 8) == 8) return cast(DataType::f32(), wq.load({block, k, lane}));
  Expr byte = cast(DataType::i32(), wq.load({block, floordiv(k, i64(2)), lane}));
  Expr sixteen = make_const(DataType::i32(), 16);
  Expr nibble =
      select(floormod(k, i64(2)) == i64(0), floormod(byte, sixteen), floordiv(byte, sixteen));
  return cast(DataType::f32(), nibble);
}

int64_t zero_point(const graph::Node& node) {
  return node.attrs.get_int("bits", 8) == 8 ? 0 : kInt4ZeroPoint;
}

// The integer weight element (k, j) as float32.
Expr integer_weight(const graph::Node& node, const Buffer& wq, Expr k, Expr block, Expr lane) {
  Expr stored = stored_weight(node, wq, k, block, lane);
  return zero_point(node) == 0 ? stored
                               : stored - make_const(DataType::f32(), double(zero_point(node)));
}

// The dequantized weight element (k, j) as float32.
Expr dequantized(const graph::Node& node, const Buffer& wq, const Buffer& scales, Expr k, Expr j) {
  const int64_t group = node.attrs.get_int("group_size", 1);
  Expr block = floordiv(j, i64(kProductColumnBlock)), lane = floormod(j, i64(kProductColumnBlock));
  return integer_weight(node, wq, k, block, lane) *
         scales.load({block, floordiv(k, i64(group)), lane});
}

}  // namespace

Stmt compute_wq_matmul(const graph::Node& node, const std::vector<Buffer>& inputs,
                       const std::vector<Buffer>& outputs) {
  const Buffer& a = inputs.at(0);
  const Buffer& wq = inputs.at(1);
  const Buffer& scales = inputs.at(2);
  Buffer bias = inputs.size() > 3 ? inputs[3] : Buffer();
  const Buffer& y = outputs.at(0);
  SymbolicProduct p = vector_rows_product(a, y);
  p.b_at = [&](const Index&, Expr k, Expr j) { return dequantized(node, wq, scales, k, j); };
  if (bias.defined())
    p.finish = [&](Expr v, const Index&, Expr, Expr j) { return v + bias.load({j}); };
  // The column-block form scales each group's partial sums once.
  SymbolicProduct grouped = p;
  grouped.group = node.attrs.get_int("group_size", 1);
  grouped.b_block_at = [&](Expr k, Expr block, Expr lane) {
    return stored_weight(node, wq, k, block, lane);
  };
  grouped.zero_point = zero_point(node);
  grouped.scale_at = [&](Expr g, Expr block, Expr lane) { return scales.load({block, g, lane}); };
  const bool int8 = node.attrs.get_int("bits", 8) == 8;  // int4: one packed row per k pair
  grouped.prefetch_at = [&](Expr k, Expr block) {
    return int8 ? prefetch_ahead(wq, block, k, 2)
                : prefetch_ahead(wq, block, floordiv(k, i64(2)), 1);
  };
  if (Stmt s = symbolic_product(y, grouped); s.defined()) return s;
  // Few columns: a dot product per output element (the same nest with B read along k).
  p.b_along_k = true;
  return symbolic_product(y, p);
}

Stmt compute_wq_gather(const graph::Node& node, const std::vector<Buffer>& inputs,
                       const std::vector<Buffer>& outputs) {
  const Buffer& wq = inputs.at(0);
  const Buffer& scales = inputs.at(1);
  const Buffer& ids = inputs.at(2);
  const Buffer& y = outputs.at(0);
  const Expr rows = i64(node.attrs.get_int("columns", 0));  // the embedding's rows: B's columns
  return loop_nest(y->shape, "i", [&](const Index& idx) {
    Index at(idx.begin(), idx.end() - 1);
    Expr id = cast(DataType::i64(), ids.load(at));
    id = select(id < i64(0), id + rows, id);
    return BufferStore::make(y, dequantized(node, wq, scales, idx.back(), id), idx);
  });
}

}  // namespace ingot::lower
