// The block form of MatMul and Gemm, which the GPU targets lower instead of the row form: one
// block "matmul" over [batch dims of extent > 1], i, j (always, extent 1 included) and the depth k
// as a reduce iter var, with a zero init; MatMul's fused epilogue and Gemm's alpha / beta * C as
// an in-place pass after it. The GPU rules find the product by this shape (rules/gpu_matmul.h).
// A float16 product accumulates in float32: the block writes a float32 buffer of y's shape
// allocated at the kernel's root, and a pass (with the epilogue, in float32) rounds it into y;
// the GPU matmul rule folds that pass into the write-back of its per-thread accumulators, so the
// float32 buffer never reaches memory. A product of two vectors in float16 keeps the row form.
// bfloat16 operands under a float32 output (--dtype bfloat16) are widened where they are read.
#include <fmt/format.h>

#include "lower/compute/common.h"
#include "lower/compute/compute.h"
#include "lower/compute/epilogue.h"
#include "lower/compute/matmul_operand.h"
#include "lower/compute/product_nest.h"
#include "support/error.h"
#include "tir/op.h"
#include "tir/region_analysis.h"

namespace ingot::lower {

using namespace tir;

namespace {

bool accumulates_in_own_dtype(const Buffer& y) {
  return accum_dtype(y->dtype) == y->dtype;
}

// Operands of the output's dtype, or both bfloat16 under a float32 output (--dtype bfloat16:
// widened where they are read, accumulated in float32).
bool operands_fit(const Buffer& a, const Buffer& b, const Buffer& y) {
  if (a->dtype == y->dtype && b->dtype == y->dtype) return true;
  return a->dtype == DataType::bf16() && b->dtype == DataType::bf16() &&
         y->dtype == DataType::f32();
}

// Whether `bias` is one row added to every row of a [.., N] product (shape [N], [1, N], [1] or
// []): the product's init then, instead of a pass after it.
bool is_row(const Buffer& bias, int64_t n) {
  if (!bias.defined()) return false;
  std::vector<int64_t> bs = const_shape(bias);
  int64_t elems = 1;
  for (int64_t d : bs) elems *= d;
  return elems == 1 || (elems == n && bs.back() == n);
}

// y[index] = init (zero when undefined); y[index] += a * b as the product block.
Stmt product_block(ProductNest& nest, const Buffer& y, const Index& y_index, Expr a, Expr b,
                   Expr init_value = Expr()) {
  Stmt init = BufferStore::make(
      y, init_value.defined() ? cast(y->dtype, init_value) : make_const(y->dtype, 0), y_index);
  Stmt update = BufferStore::make(y, y.load(y_index) + a * b, y_index);
  return nest.make(update, init);
}

Stmt matmul_block(const graph::Node& node, const std::vector<Buffer>& inputs,
                  const std::vector<Buffer>& outputs) {
  // (Lowering may pass views with the batch dims flattened: the permutations follow.)
  const OperandView a{inputs.at(0), view_perm(node.attrs.get_ints("perm_a"), inputs[0].ndim())};
  const OperandView b{inputs.at(1), view_perm(node.attrs.get_ints("perm_b"), inputs[1].ndim())};
  const Buffer& y = outputs.at(0);
  check_dtype(node, a.buf, DTypeClass::kNumeric);
  check_dtype(node, b.buf, DTypeClass::kNumeric);
  if (!operands_fit(a.buf, b.buf, y)) return Stmt();
  std::vector<int64_t> as = a.static_shape(), bs = b.static_shape(), ys = const_shape(y);
  if (!accumulates_in_own_dtype(y) && ys.empty()) return Stmt();
  const bool a_vec = as.size() == 1, b_vec = bs.size() == 1;
  const int batch_rank = int(ys.size()) - (a_vec ? 0 : 1) - (b_vec ? 0 : 1);
  ProductNest nest;
  Index batch;
  for (int d = 0; d < batch_rank; ++d)
    batch.push_back(ys[size_t(d)] == 1
                        ? i64(0)
                        : Expr(nest.add(fmt::format("b{}", d), ys[size_t(d)], IterKind::kSpatial)));
  Var i = nest.add("i", a_vec ? 1 : as[as.size() - 2], IterKind::kSpatial);
  Var j = nest.add("j", b_vec ? 1 : bs.back(), IterKind::kSpatial);
  Var k = nest.add("k", as.back(), IterKind::kReduce);
  Index yi = batch;
  if (!a_vec) yi.push_back(i);
  if (!b_vec) yi.push_back(j);
  Index ai = a_vec ? Index{k} : operand_batch_index(as, 2, batch_rank, batch);
  if (!a_vec) {
    ai.push_back(i);
    ai.push_back(k);
  }
  Index bi = b_vec ? Index{k} : operand_batch_index(bs, 2, batch_rank, batch);
  if (!b_vec) {
    bi.push_back(k);
    bi.push_back(j);
  }
  const Buffer acc = accumulator_of(y);
  Buffer bias = inputs.size() > 2 ? inputs[2] : Buffer();
  Buffer z = inputs.size() > 3 ? inputs[3] : Buffer();
  // A fused bias row is the product's init (each output starts from its column's bias).
  Expr init;
  if (acc.same_as(y) && !b_vec && is_row(bias, bs.back())) {
    init = bias.load(broadcast_index(bias, {i64(0), j}));
    bias = Buffer();
  }
  Stmt product = product_block(nest, acc, yi, widen(a.load(ai)), widen(b.load(bi)), init);
  if (!acc.same_as(y)) return widened_kernel(acc, product, epilogue_pass(node, y, bias, z, acc));
  if (!bias.defined() && !has_epilogue(node)) return product;
  return SeqStmt::make({product, epilogue_pass(node, y, bias, z)});
}

Stmt gemm_block(const graph::Node& node, const std::vector<Buffer>& inputs,
                const std::vector<Buffer>& outputs) {
  const Buffer& a = inputs.at(0);
  const Buffer& b = inputs.at(1);
  Buffer c = inputs.size() > 2 ? inputs[2] : Buffer();
  const Buffer& y = outputs.at(0);
  check_dtype(node, a, DTypeClass::kNumeric);
  check_dtype(node, b, DTypeClass::kNumeric);
  if (!operands_fit(a, b, y)) return Stmt();
  const GemmAttrs g(node);
  const bool has_c = g.uses_c(c);
  std::vector<int64_t> as = const_shape(a), ys = const_shape(y);
  ProductNest nest;
  Var i = nest.add("i", ys[0], IterKind::kSpatial);
  Var j = nest.add("j", ys[1], IterKind::kSpatial);
  Var k = nest.add("k", g.trans_a ? as[0] : as[1], IterKind::kReduce);
  Expr av = g.trans_a ? a.load({k, i}) : a.load({i, k});
  Expr bv = g.trans_b ? b.load({j, k}) : b.load({k, j});
  const Buffer acc = accumulator_of(y);
  // alpha = 1 and C one row: beta * C is the product's init.
  if (g.alpha == 1.0 && acc.same_as(y) && (!has_c || is_row(c, ys[1]))) {
    Expr init;
    if (has_c) {
      init = c.load(broadcast_index(c, {i64(0), j}));
      if (g.beta != 1.0) init = init * make_const(init.dtype(), g.beta);
    }
    return product_block(nest, acc, {i, j}, widen(av), widen(bv), init);
  }
  Stmt product = product_block(nest, acc, {i, j}, widen(av), widen(bv));
  Stmt scale = loop_nest(ys, "e", [&](const Index& o) {
    Expr cv = has_c ? widen(c.load(broadcast_index(c, o))) : Expr();
    return BufferStore::make(y, cast(y->dtype, g.scaled(acc.load(o), cv)), o);
  });
  if (!acc.same_as(y)) return widened_kernel(acc, product, scale);
  return SeqStmt::make({product, scale});
}

}  // namespace

Stmt compute_symbolic_rows_block(const graph::Node& node, const std::vector<Buffer>& inputs,
                                 const std::vector<Buffer>& outputs) {
  // Views: A [M, K], Y [M, N] (and the summand [M, N]); B [K, N] or [N, K].
  const Buffer& a = inputs.at(0);
  const Buffer& b = inputs.at(1);
  const Buffer& y = outputs.at(0);
  const bool gemm = node.op == ops::OpKind::Gemm;
  const bool trans_b = gemm ? GemmAttrs(node).trans_b : !node.attrs.get_ints("perm_b").empty();
  INGOT_ICHECK(a.ndim() == 2 && y.ndim() == 2 && b.ndim() == 2,
               "{}: the symbolic-rows product takes 2-D views", node_label(node));
  const int64_t n = const_shape(b)[trans_b ? 0 : 1];
  ProductNest nest;
  Var i = nest.add("i", y->shape[0], IterKind::kSpatial);
  Var j = nest.add("j", n, IterKind::kSpatial);
  Var k = nest.add("k", a->shape[1], IterKind::kReduce);
  Expr bv = trans_b ? b.load({j, k}) : b.load({k, j});
  // The bias row (MatMul's fused input 2, Gemm's C when one row, times beta) is the init.
  Buffer bias = inputs.size() > 2 ? inputs[2] : Buffer();
  Buffer z = !gemm && inputs.size() > 3 ? inputs[3] : Buffer();
  Expr init;
  if (bias.defined() && is_row(bias, n)) {
    init = bias.load(broadcast_index(bias, {i64(0), j}));
    if (gemm && GemmAttrs(node).beta != 1.0)
      init = init * make_const(init.dtype(), GemmAttrs(node).beta);
    bias = Buffer();
  }
  Stmt product = product_block(nest, y, {i, j}, a.load({i, k}), bv, init);
  if (gemm) {
    if (!bias.defined()) return product;
    // A C of more than one row: beta * C added by a pass after the product.
    const GemmAttrs g(node);
    Stmt add = loop_nest(y->shape, "e", [&](const Index& o) {
      return BufferStore::make(y, g.scaled(y.load(o), bias.load(broadcast_index(bias, o))), o);
    });
    return SeqStmt::make({product, add});
  }
  if (!bias.defined() && !has_epilogue(node)) return product;
  return SeqStmt::make({product, epilogue_pass(node, y, bias, z)});
}

Stmt compute_product_block(const graph::Node& node, const std::vector<Buffer>& inputs,
                           const std::vector<Buffer>& outputs) {
  if (node.op == ops::OpKind::MatMul) return matmul_block(node, inputs, outputs);
  if (node.op == ops::OpKind::Gemm) return gemm_block(node, inputs, outputs);
  if (node.op == ops::OpKind::Conv) return conv_block(node, inputs, outputs);
  return Stmt();
}

}  // namespace ingot::lower
