// MatMul / Gemm with a symbolic output and a constant float32 B: B stored at compile time in the
// column blocks of 64 that the symbolic product's parallel tasks read ([N/64, K, 64], padded), so
// each task streams one contiguous block instead of 64 elements from every row of a row-major B
// (compute/symbolic_product.h). At one row (decoding) this is the whole cost of the product.
#include <cstring>

#include "lower/compute/common.h"
#include "lower/compute/symbolic_product.h"
#include "lower/scheduled/scheduled.h"
#include "ops/op.h"

namespace ingot::lower {

using namespace tir;

std::optional<std::vector<NodeKernel>> lower_blocked_symbolic_product(
    const graph::Node& node, ValueFactory& values,
    const std::function<Buffer(const graph::Value*)>& buffer_of) {
  const bool matmul = node.op == ops::OpKind::MatMul, gemm = node.op == ops::OpKind::Gemm;
  if ((!matmul && !gemm) || node.inputs.size() < 2) return std::nullopt;
  const graph::Value *a = node.inputs[0], *b = node.inputs[1], *y = node.outputs.at(0);
  const graph::Value* c = gemm && node.inputs.size() > 2 ? node.inputs[2] : nullptr;
  if (!b->is_constant() || b->type.dtype != graph::DType::kF32 || b->type.rank() != 2 ||
      a->type.dtype != graph::DType::kF32 || y->type.is_static() || a->type.rank() < 1)
    return std::nullopt;
  bool trans = false;
  if (matmul) {
    if (node.inputs.size() != 2 || !node.attrs.get_ints("perm_a").empty()) return std::nullopt;
    for (const char* attr : {"activation", "summand", "bias"})
      if (node.attrs.has(attr)) return std::nullopt;
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
  const int64_t rows_b = b->type.shape[0].value, cols_b = b->type.shape[1].value;
  const int64_t k_dim = trans ? cols_b : rows_b, n_dim = trans ? rows_b : cols_b;
  const int64_t block = kProductColumnBlock, blocks = (n_dim + block - 1) / block;
  if (n_dim < 2 * block) return std::nullopt;
  const float* src = b->constant->data_as<float>();
  std::vector<uint8_t> bytes(size_t(blocks * k_dim * block) * sizeof(float), 0);
  auto* dst = reinterpret_cast<float*>(bytes.data());
  for (int64_t k = 0; k < k_dim; ++k)
    for (int64_t n = 0; n < n_dim; ++n)
      dst[((n / block) * k_dim + k) * block + n % block] =
          trans ? src[n * cols_b + k] : src[k * cols_b + n];
  const graph::Value* packed = values.constant(
      b->name + "_blocked",
      std::make_shared<graph::Tensor>(
          graph::DType::kF32, std::vector<int64_t>{blocks, k_dim, block}, std::move(bytes)));
  NodeKernel k;
  Buffer ab = buffer_of(a), yb = buffer_of(y);
  Buffer bb =
      Buffer::make("b_blocked", DataType::f32(), std::vector<int64_t>{blocks, k_dim, block});
  Buffer cb = c != nullptr ? buffer_of(c) : Buffer();
  k.func.params = {ab, bb};
  k.args = {a, packed};
  if (cb.defined()) {
    k.func.params.push_back(cb);
    k.args.push_back(c);
  }
  k.func.params.push_back(yb);
  k.args.push_back(y);
  SymbolicProduct p = vector_rows_product(ab, yb);
  p.b_block_at = [&](Expr kk, Expr blk, Expr lane) { return bb.load({blk, kk, lane}); };
  p.prefetch_at = [&](Expr kk, Expr blk) { return prefetch_ahead(bb, blk, kk, 1); };
  if (cb.defined()) p.finish = [&](Expr v, const Index&, Expr, Expr j) { return v + cb.load({j}); };
  k.func.body = symbolic_product(yb, p);
  if (!k.func.body.defined()) return std::nullopt;
  k.main = true;
  return std::vector<NodeKernel>{std::move(k)};
}

}  // namespace ingot::lower
