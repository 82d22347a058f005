// A MatMul operand as the product reads it: through the transposed view `perm_a` / `perm_b` that
// fold_transpose_matmul records, and with numpy-broadcast batch dims. Shared by the row form
// (matmul.cpp) and the block form (matmul_block.cpp) of the products.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "graph/graph.h"
#include "lower/compute/common.h"
#include "tir/op.h"

namespace ingot::lower {

struct OperandView {
  tir::Buffer buf;
  std::vector<int64_t> perm;  // empty: the buffer itself
  // The viewed shape (symbolic dims included), and the same for static shapes only.
  std::vector<tir::Expr> shape() const {
    const std::vector<tir::Expr>& s = buf->shape;
    if (perm.empty()) return s;
    std::vector<tir::Expr> v;
    for (int64_t p : perm) v.push_back(s[size_t(p)]);
    return v;
  }
  std::vector<int64_t> static_shape() const {
    std::vector<int64_t> s = const_shape(buf);
    if (perm.empty()) return s;
    std::vector<int64_t> v;
    for (int64_t p : perm) v.push_back(s[size_t(p)]);
    return v;
  }
  tir::Expr load(const Index& idx) const {
    if (perm.empty()) return buf.load(idx);
    Index phys(idx.size());
    for (size_t d = 0; d < perm.size(); ++d) phys[size_t(perm[d])] = idx[d];
    return buf.load(phys);
  }
};

// The batch index of an operand of `shape` (its dims before its `matrix_rank` matrix dims) for
// the output's batch index `batch` (`batch_rank` dims), numpy-broadcast.
inline Index operand_batch_index(const std::vector<tir::Expr>& shape, int matrix_rank,
                                 int batch_rank, const Index& batch) {
  Index idx;
  int rank = int(shape.size()) - matrix_rank;
  for (int d = 0; d < rank; ++d) {
    int64_t v = 0;
    bool one = tir::is_const_int(shape[size_t(d)], &v) && v == 1;
    idx.push_back(one ? tir::i64(0) : batch[size_t(batch_rank - rank + d)]);
  }
  return idx;
}
inline Index operand_batch_index(const std::vector<int64_t>& shape, int matrix_rank, int batch_rank,
                                 const Index& batch) {
  return operand_batch_index(exprs(shape), matrix_rank, batch_rank, batch);
}

// Gemm's attributes: Y = alpha * A' B' + beta * C (A' = A or its transpose, as B').
struct GemmAttrs {
  double alpha, beta;
  bool trans_a, trans_b;
  explicit GemmAttrs(const graph::Node& node)
      : alpha(node.attrs.get_float("alpha", 1.0)),
        beta(node.attrs.get_float("beta", 1.0)),
        trans_a(node.attrs.get_int("transA", 0) != 0),
        trans_b(node.attrs.get_int("transB", 0) != 0) {}
  // Whether C (the buffer, possibly undefined) adds anything.
  bool uses_c(const tir::Buffer& c) const { return c.defined() && beta != 0.0; }
  // alpha * product + beta * c (c undefined: no C term), in the product's dtype.
  tir::Expr scaled(tir::Expr product, const tir::Expr& c) const {
    tir::DataType t = product.dtype();
    if (alpha != 1.0) product = product * tir::make_const(t, alpha);
    if (c.defined()) product = product + (beta == 1.0 ? c : c * tir::make_const(t, beta));
    return product;
  }
};

// A transposed view `perm` of a tensor as the product reads it through a buffer of `rank` dims
// whose leading (batch) dims are the tensor's flattened (lowering's views of a dense product):
// the view's last `rank` dims, the leading ones of the permutation dropped (they must keep their
// place). Empty stays empty.
inline std::vector<int64_t> view_perm(const std::vector<int64_t>& perm, size_t rank) {
  if (perm.size() <= rank) return perm;
  const int64_t drop = int64_t(perm.size() - rank);
  std::vector<int64_t> out;
  for (size_t d = size_t(drop); d < perm.size(); ++d) out.push_back(perm[d] - drop);
  return out;
}

// Whether a transposed view keeps the batch dims (all but the last two) in place.
inline bool keeps_batch_dims(const std::vector<int64_t>& perm) {
  for (size_t d = 0; d + 2 < perm.size(); ++d)
    if (perm[d] != int64_t(d)) return false;
  return true;
}

// A float32 product the CPU schedule rule packs (schedule/rules/matmul.h, dense_matmul), its
// operands float32 or both bfloat16 (--dtype bfloat16):
// MatMul, or Gemm with transA = 0 (alpha other than 1: a scaling pass after the product, whose
// init is then 0), static shapes, either
// - B 2-D (constant or not, its transpose allowed), A's leading dims the rows (read through a
//   view of A, they are batch dims sharing B), or
// - A and B of one rank > 2 with the same batch dims (the batched product of attention: Q K^T,
//   then P V), read through any views.
// Lowering describes it on views whose batch dims are flattened into one where that is a
// reshape (rows: A as [M, K] and Y as [M, N]; batched: [batch, .., ..]; an operand whose view
// moves batch dims as it is, and with more than one batch dim of extent > 1, every operand)
// as one reduction block (compute_product_block).
inline bool is_dense_product(const graph::Node& node) {
  const bool gemm = node.op == ops::OpKind::Gemm;
  if ((node.op != ops::OpKind::MatMul && !gemm) || node.inputs.size() < 2) return false;
  const graph::Value* a = node.inputs[0];
  const graph::Value* b = node.inputs[1];
  const graph::Value* y = node.outputs.at(0);
  auto of = [](const graph::Value* v, graph::DType t) {
    return v != nullptr && v->type.dtype == t && v->type.is_static();
  };
  // float32 operands, or bfloat16 ones (--dtype bfloat16: read widened, summed in float32)
  const graph::DType operands =
      of(a, graph::DType::kBF16) ? graph::DType::kBF16 : graph::DType::kF32;
  if (!of(a, operands) || !of(b, operands) || !of(y, graph::DType::kF32) || a->type.rank() < 2 ||
      b->type.rank() < 2)
    return false;
  // One 2-D tensor as both operands (x x^T): lowering gives B a parameter of its own.
  if (a == b && a->type.rank() != 2) return false;
  if (gemm) {
    GemmAttrs g(node);
    return !g.trans_a;
  }
  const std::vector<int64_t> pa = node.attrs.get_ints("perm_a"), pb = node.attrs.get_ints("perm_b");
  if (b->type.rank() == 2) return true;
  if (b->is_constant() || a->type.rank() != b->type.rank()) return false;
  auto view = [](std::vector<int64_t> shape, const std::vector<int64_t>& perm) {
    if (perm.empty()) return shape;
    std::vector<int64_t> v;
    for (int64_t p : perm) v.push_back(shape[size_t(p)]);
    return v;
  };
  std::vector<int64_t> as = view(a->type.static_shape(), pa), bs = view(b->type.static_shape(), pb);
  return std::equal(as.begin(), as.end() - 2, bs.begin());
}

// MatMul or Gemm whose rows are symbolic (a sequence length) over one constant 2-D float32 B:
// A [.., K] float32 read as it is (its leading dims the rows; MatMul's perm_b may transpose B,
// Gemm's transB), Y float32; MatMul's fused bias row must be constant and its summand of Y's
// type; Gemm without transA and with alpha 1. Lowering describes it on row-major views A [M, K]
// and Y [M, N] (M the product of the leading dims) as one reduction block
// (compute_symbolic_rows_block), scheduled by rule symbolic_rows_matmul.
inline bool is_symbolic_rows_product(const graph::Node& node) {
  const bool gemm = node.op == ops::OpKind::Gemm;
  if ((node.op != ops::OpKind::MatMul && !gemm) || node.inputs.size() < 2) return false;
  const graph::Value *a = node.inputs[0], *b = node.inputs[1], *y = node.outputs.at(0);
  auto f32 = [](const graph::Value* v) {
    return v != nullptr && v->type.dtype == graph::DType::kF32;
  };
  if (!f32(a) || !f32(b) || !f32(y) || a == b || !b->is_constant() || b->type.rank() != 2 ||
      a->type.rank() < 2 || y->type.is_static() || y->type.rank() != a->type.rank() ||
      !std::all_of(a->type.shape.end() - 1, a->type.shape.end(),
                   [](const graph::Dim& d) { return d.is_static(); }))
    return false;
  if (gemm) {
    const GemmAttrs g(node);
    const graph::Value* c = node.inputs.size() > 2 ? node.inputs[2] : nullptr;
    return !g.trans_a && g.alpha == 1.0 && (c == nullptr || (c->is_constant() && f32(c)));
  }
  if (node.inputs.size() > 4 || !node.attrs.get_ints("perm_a").empty()) return false;
  const std::vector<int64_t> pb = node.attrs.get_ints("perm_b");
  if (!pb.empty() && pb != std::vector<int64_t>{1, 0}) return false;
  const graph::Value* bias = node.inputs.size() > 2 ? node.inputs[2] : nullptr;
  const graph::Value* z = node.inputs.size() > 3 ? node.inputs[3] : nullptr;
  if (bias != nullptr && (!bias->is_constant() || bias->type.rank() != 1 || !f32(bias)))
    return false;
  return z == nullptr || z->type == y->type;
}

}  // namespace ingot::lower
