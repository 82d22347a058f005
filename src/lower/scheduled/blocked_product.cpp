// MatMul / Gemm with a symbolic output and a constant float32 B: B stored at compile time in the
// column blocks of 64 that the symbolic product's parallel tasks read ([N/64, K, 64], padded), so
// each task streams one contiguous block instead of 64 elements from every row of a row-major B
// (compute/symbolic_product.h). At one row (decoding) this is the whole cost of the product. A
// tied embedding's Gather reads its rows from the same blocks (one copy of the table).
#include <algorithm>
#include <cstring>

#include "lower/compute/common.h"
#include "lower/compute/epilogue.h"
#include "lower/compute/symbolic_product.h"
#include "lower/scheduled/scheduled.h"
#include "ops/op.h"
#include "support/error.h"

namespace ingot::lower {

using namespace tir;

std::optional<bool> blocked_product_transposes(const graph::Node& node) {
  const bool matmul = node.op == ops::OpKind::MatMul, gemm = node.op == ops::OpKind::Gemm;
  if ((!matmul && !gemm) || node.inputs.size() < 2) return std::nullopt;
  const graph::Value *a = node.inputs[0], *b = node.inputs[1], *y = node.outputs.at(0);
  const graph::Value* c = gemm && node.inputs.size() > 2 ? node.inputs[2] : nullptr;
  if (a == nullptr || b == nullptr || !b->is_constant() || b->type.dtype != graph::DType::kF32 ||
      b->type.rank() != 2 || a->type.dtype != graph::DType::kF32 || y->type.is_static() ||
      a->type.rank() < 1)
    return std::nullopt;
  bool trans = false;
  if (matmul) {
    // The fused epilogue (graph pass fuse_epilogue): a constant bias row (input 2), a summand of
    // y's type (input 3) and an activation, applied as each block's rows are written.
    if (node.inputs.size() > 4 || !node.attrs.get_ints("perm_a").empty()) return std::nullopt;
    const graph::Value* bias = node.inputs.size() > 2 ? node.inputs[2] : nullptr;
    const graph::Value* z = node.inputs.size() > 3 ? node.inputs[3] : nullptr;
    if (bias != nullptr &&
        (!bias->is_constant() || bias->type.rank() != 1 || bias->type.dtype != graph::DType::kF32))
      return std::nullopt;
    if (z != nullptr && z->type != y->type) return std::nullopt;
    std::vector<int64_t> perm = node.attrs.get_ints("perm_b");
    if (!perm.empty() && perm != std::vector<int64_t>{1, 0}) return std::nullopt;
    trans = !perm.empty();
  } else {
    if (node.attrs.get_int("transA", 0) != 0 || node.attrs.get_float("alpha", 1.0) != 1.0 ||
        a->type.rank() != 2)
      return std::nullopt;
    if (c != nullptr &&
        (!c->is_constant() || c->type.rank() != 1 || c->type.dtype != graph::DType::kF32 ||
         node.attrs.get_float("beta", 1.0) != 1.0))
      return std::nullopt;
    trans = node.attrs.get_int("transB", 0) != 0;
  }
  const int64_t n_dim = b->type.shape[trans ? 0 : 1].value;
  if (n_dim < 2 * kProductColumnBlock) return std::nullopt;
  return trans;
}

graph::TensorPtr block_columns(const graph::Value* b, bool trans) {
  const int64_t rows_b = b->type.shape[0].value, cols_b = b->type.shape[1].value;
  const int64_t k_dim = trans ? cols_b : rows_b, n_dim = trans ? rows_b : cols_b;
  const int64_t block = kProductColumnBlock, blocks = (n_dim + block - 1) / block;
  const float* src = b->constant->data_as<float>();
  std::vector<uint8_t> bytes(size_t(blocks * k_dim * block) * sizeof(float), 0);
  auto* dst = reinterpret_cast<float*>(bytes.data());
  for (int64_t k = 0; k < k_dim; ++k)
    for (int64_t n = 0; n < n_dim; ++n)
      dst[((n / block) * k_dim + k) * block + n % block] =
          trans ? src[n * cols_b + k] : src[k * cols_b + n];
  return std::make_shared<graph::Tensor>(
      graph::DType::kF32, std::vector<int64_t>{blocks, k_dim, block}, std::move(bytes));
}

std::optional<std::vector<NodeKernel>> lower_blocked_symbolic_product(
    const graph::Node& node, const BlockedWeightFn& blocked_of,
    const std::function<Buffer(const graph::Value*)>& buffer_of) {
  std::optional<bool> trans = blocked_product_transposes(node);
  if (!trans) return std::nullopt;
  const graph::Value *a = node.inputs[0], *b = node.inputs[1], *y = node.outputs.at(0);
  const graph::Value* c = node.inputs.size() > 2 ? node.inputs[2] : nullptr;  // the bias row
  const graph::Value* z = node.op == ops::OpKind::MatMul && node.inputs.size() > 3
                              ? node.inputs[3]
                              : nullptr;  // the summand
  const graph::Value* packed = blocked_of(b, *trans);
  NodeKernel k;
  Buffer ab = buffer_of(a), yb = buffer_of(y);
  std::vector<int64_t> blocked_shape;
  for (const graph::Dim& d : packed->type.shape) blocked_shape.push_back(d.value);
  Buffer bb = Buffer::make("b_blocked", DataType::f32(), blocked_shape);
  Buffer cb = c != nullptr ? buffer_of(c) : Buffer();
  Buffer zb = z != nullptr ? buffer_of(z) : Buffer();
  k.func.params = {ab, bb};
  k.args = {a, packed};
  for (auto [v, buf] : {std::pair{c, cb}, std::pair{z, zb}}) {
    if (v == nullptr) continue;
    k.func.params.push_back(buf);
    k.args.push_back(v);
  }
  k.func.params.push_back(yb);
  k.args.push_back(y);
  SymbolicProduct p = vector_rows_product(ab, yb);
  p.b_block_at = [&](Expr kk, Expr blk, Expr lane) { return bb.load({blk, kk, lane}); };
  p.prefetch_at = [&](Expr kk, Expr blk) { return prefetch_ahead(bb, blk, kk, 1); };
  if (cb.defined() || zb.defined() || has_epilogue(node))
    p.finish = [&](Expr v, const Index& batch, Expr i, Expr j) {
      if (cb.defined()) v = v + cb.load({j});
      return apply_epilogue(node, v, zb.defined() ? zb.load(p.y_at(batch, i, j)) : Expr());
    };
  k.func.body = symbolic_product(yb, p);
  if (!k.func.body.defined()) return std::nullopt;
  k.main = true;
  return std::vector<NodeKernel>{std::move(k)};
}

std::set<const graph::Value*> tied_tables(const graph::Graph& g) {
  std::set<const graph::Value*> tied;
  for (const auto& n : g.nodes()) {
    std::optional<bool> trans = blocked_product_transposes(*n);
    if (!trans || !*trans) continue;
    const graph::Value* w = n->inputs[1];
    std::vector<graph::Node*> users = g.users(w);
    if (users.size() < 2) continue;
    bool gathers_only = true;
    for (const graph::Node* u : users)
      gathers_only =
          gathers_only && (u == n.get() || (u->op == ops::OpKind::Gather && u->inputs.at(0) == w &&
                                            u->inputs[1] != w && u->attrs.get_int("axis", 0) == 0));
    if (gathers_only && std::find(g.outputs.begin(), g.outputs.end(), w) == g.outputs.end())
      tied.insert(w);
  }
  return tied;
}

std::vector<NodeKernel> lower_blocked_gather(
    const graph::Node& node, const graph::Value* blocked,
    const std::function<Buffer(const graph::Value*)>& buffer_of) {
  const graph::Value *table = node.inputs.at(0), *indices = node.inputs.at(1);
  const graph::Value* y = node.outputs.at(0);
  const int64_t vocab = table->type.shape[0].value;
  std::vector<int64_t> blocked_shape;
  for (const graph::Dim& d : blocked->type.shape) blocked_shape.push_back(d.value);
  Buffer bb = Buffer::make("table_blocked", DataType::f32(), blocked_shape);
  Buffer ib = buffer_of(indices), yb = buffer_of(y);
  if (!ib->dtype.is_int())
    fail_user("{}: indices must be int32 or int64, got {}", node_label(node), ib->dtype.str());
  const int q = ib.ndim();
  NodeKernel k;
  k.func.params = {bb, ib, yb};
  k.args = {blocked, indices, y};
  // As the Gather compute rule: a negative index counts from the end, then it is clamped.
  k.func.body = loop_nest(Extents{yb->shape}, "i", [&](const Index& idx) {
    Expr v = cast(DataType::i64(), ib.load(Index(idx.begin(), idx.begin() + q)));
    v = select(v < i64(0), v + i64(vocab), v);
    v = min(max(v, i64(0)), i64(vocab - 1));
    const Expr block = i64(kProductColumnBlock);
    return BufferStore::make(yb, bb.load({floordiv(v, block), idx.back(), floormod(v, block)}),
                             idx);
  });
  k.main = true;
  return {std::move(k)};
}

}  // namespace ingot::lower
