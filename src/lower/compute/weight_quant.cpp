// Compute rules of the weight-only quantized ops (ops/weight_quant.cpp): the weight is
// dequantized where it is read, B(k, j) = (float(Wq(k, j)) - z) * scales[k / group_size, j]
// (int8: z = 0; int4: the nibble of byte k / 2, stored + 8, z = 8), so only the integers stream
// from memory.
// WQMatMul is one reduction block "matmul" over [rows..., j | k] with the bias row as its init:
// what is computed, on A's and Y's row-major layout (lowering passes the 2-D row views A [M, K],
// Y [M, N] where it can). How it runs (the column panels of the integers, tiles, the group-wise
// scaling of partial sums, prefetch) is rule dequant_matmul's (schedule/rules/matmul_dequant.h).
#include "lower/compute/common.h"
#include "lower/compute/compute.h"
#include "lower/compute/product_nest.h"
#include "support/error.h"
#include "tir/dequantize.h"

namespace ingot::lower {

using namespace tir;

namespace {

// The dequantized weight element (k, j) as float32 (tir/dequantize.h).
Expr dequantized(const graph::Node& node, const Buffer& wq, const Buffer& scales, Expr k, Expr j) {
  return dequantized_weight(int(node.attrs.get_int("bits", 8)), node.attrs.get_int("group_size", 1),
                            wq, scales, k, j);
}

}  // namespace

Stmt compute_wq_matmul(const graph::Node& node, const std::vector<Buffer>& inputs,
                       const std::vector<Buffer>& outputs) {
  const Buffer& a = inputs.at(0);
  const Buffer& wq = inputs.at(1);
  const Buffer& scales = inputs.at(2);
  Buffer bias = inputs.size() > 3 ? inputs[3] : Buffer();
  const Buffer& y = outputs.at(0);
  INGOT_ICHECK(a.ndim() == y.ndim() && y.ndim() >= 1, "{}: A and Y of different ranks",
               node_label(node));
  // Y's leading dims (A's too), then the column j, then the depth k.
  ProductNest nest;
  Index rows;
  for (size_t d = 0; d + 1 < y->shape.size(); ++d)
    rows.push_back(nest.add(y.ndim() == 2 ? std::string("i") : fmt::format("i{}", d), y->shape[d],
                            IterKind::kSpatial));
  Var j = nest.add("j", y->shape.back(), IterKind::kSpatial);
  Var k = nest.add("k", a->shape.back(), IterKind::kReduce);
  Index ai = rows, yi = rows;
  ai.push_back(k);
  yi.push_back(j);
  Stmt init =
      BufferStore::make(y, bias.defined() ? bias.load({j}) : make_const(DataType::f32(), 0), yi);
  Stmt update =
      BufferStore::make(y, y.load(yi) + a.load(ai) * dequantized(node, wq, scales, k, j), yi);
  return nest.make(update, init);
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
