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

// The dequantized weight element (k, j) as float32.
Expr dequantized(const graph::Node& node, const Buffer& wq, const Buffer& scales, Expr k, Expr j) {
  const int64_t bits = node.attrs.get_int("bits", 8), group = node.attrs.get_int("group_size", 1);
  Expr q;
  if (bits == 8) {
    q = cast(DataType::f32(), wq.load({k, j}));
  } else {
    Expr byte = cast(DataType::i32(), wq.load({floordiv(k, i64(2)), j}));
    Expr sixteen = make_const(DataType::i32(), 16);
    Expr nibble =
        select(floormod(k, i64(2)) == i64(0), floormod(byte, sixteen), floordiv(byte, sixteen));
    q = cast(DataType::f32(), nibble - make_const(DataType::i32(), 8));
  }
  return q * scales.load({floordiv(k, i64(group)), j});
}

}  // namespace

Stmt compute_wq_matmul(const graph::Node& node, const std::vector<Buffer>& inputs,
                       const std::vector<Buffer>& outputs) {
  const Buffer& a = inputs.at(0);
  const Buffer& wq = inputs.at(1);
  const Buffer& scales = inputs.at(2);
  Buffer bias = inputs.size() > 3 ? inputs[3] : Buffer();
  const Buffer& y = outputs.at(0);
  const std::vector<Expr>& ys = y->shape;
  const int rank = int(ys.size());
  const bool has_rows = rank >= 2;
  SymbolicProduct p;
  p.batch.assign(ys.begin(), ys.end() - std::min(rank, 2));
  p.rows = has_rows ? ys[size_t(rank - 2)] : i64(1);
  p.cols = ys.back();
  p.depth = a->shape.back();
  p.a_at = [&](const Index& batch, Expr i, Expr k) {
    Index idx = batch;
    if (has_rows) idx.push_back(i);
    idx.push_back(k);
    return a.load(idx);
  };
  p.b_at = [&](const Index&, Expr k, Expr j) { return dequantized(node, wq, scales, k, j); };
  p.y_at = [&](const Index& batch, Expr i, Expr j) {
    Index idx = batch;
    if (has_rows) idx.push_back(i);
    idx.push_back(j);
    return idx;
  };
  if (bias.defined())
    p.finish = [&](Expr v, const Index&, Expr, Expr j) { return v + bias.load({j}); };
  if (Stmt s = symbolic_product(y, p); s.defined()) return s;
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
  const Expr rows = scales->shape.at(1);  // the embedding's rows are the weight's columns
  return loop_nest(y->shape, "i", [&](const Index& idx) {
    Index at(idx.begin(), idx.end() - 1);
    Expr id = cast(DataType::i64(), ids.load(at));
    id = select(id < i64(0), id + rows, id);
    return BufferStore::make(y, dequantized(node, wq, scales, idx.back(), id), idx);
  });
}

}  // namespace ingot::lower
