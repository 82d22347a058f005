// Products whose output has symbolic dims (docs/dynamic-shapes.md) that no schedule rule takes
// yet, in forms that keep the threads busy when there is one row (decoding): MatMul/Gemm over a
// run-time B (matmul.cpp; a constant 2-D B is rule symbolic_rows_matmul's) and the weight-only
// quantized WQMatMul (weight_quant.cpp), whose B is dequantized where it is read.
#pragma once

#include <functional>
#include <vector>

#include "lower/compute/common.h"

namespace ingot::lower {

// Output columns per parallel task of the column-block form (and the block of the quantized
// weights' blocked layout, ops/weight_quant.cpp).
inline constexpr int64_t kProductColumnBlock = 64;

// y[b, i, j] = finish(sum_k a(b, i, k) * b(b, k, j), b, i, j) over [batch..., rows, cols].
// - b_along_k (a transposed weight, K^T in attention): a dot product per output element, the
//   columns (and batch) in parallel and the rows innermost among the block's loops, so each
//   column of B is read from cache for every row; the k reduction is vectorized by the
//   row-reduction rule;
// - else, with a constant column count of at least 128: parallel blocks of 64 columns, the rows
//   in full tiles of 4 (each k step updates 4 rows from one load of B) and then a one-row tail.
struct SymbolicProduct {
  std::vector<tir::Expr> batch;
  tir::Expr rows, cols, depth;
  std::function<tir::Expr(const Index&, tir::Expr, tir::Expr)> a_at, b_at;  // (b, i, k), (b, k, j)
  std::function<Index(const Index&, tir::Expr, tir::Expr)> y_at;            // (batch, i, j)
  std::function<tir::Expr(tir::Expr, const Index&, tir::Expr, tir::Expr)> finish;  // may be null
  bool b_along_k = false;
  // group > 0 (column-block form, float32): B(k, j) = b_block_at(k, block, lane) *
  // scale_at(k / group, block, lane) for j = block * kProductColumnBlock + lane, the scale
  // applied once per group of k to partial sums (weight-only quantized weights in their blocked
  // layout: b_block_at reads the integer). That layout is padded to whole blocks, so the partial
  // sums run over whole blocks (a constant vector) even in the last, partial one.
  int64_t group = 0;
  std::function<tir::Expr(tir::Expr, tir::Expr, tir::Expr)> b_block_at = {}, scale_at = {};
  // Group form: B(k, j) = (b_block_at(...) - zero_point) * scale_at(...) (int4's stored
  // nibbles are the weight plus 8), the zero point taken off each group's partial sums once.
  int64_t zero_point = 0;
  // Column-block form: the loads to prefetch (prefetch_ahead) at the step that reads row k of
  // B's block `block` (the group form steps k by 2). One task streams one block, a stream the
  // hardware prefetchers of some machines (VMs among them) do not run ahead of far enough: at
  // one row the product is memory-bound, and a quantized block has 4-8x fewer bytes per step.
  std::function<std::vector<tir::Expr>(tir::Expr, tir::Expr)> prefetch_at = {};
};

// Bytes ahead of the read that prefetch_ahead asks for (about 16 cache lines: measured best on
// the 2-vCPU guest of docs/perf.md between 512 and 2048).
inline constexpr int64_t kPrefetchBytes = 4096;

// Loads for tir's prefetch intrinsic: the cache lines kPrefetchBytes past `rows` rows starting at
// `row` of block `block` of the blocked buffer `b` ([blocks, R, 64]), clamped to its end.
std::vector<tir::Expr> prefetch_ahead(const tir::Buffer& b, tir::Expr block, tir::Expr row,
                                      int64_t rows);

// A [..., K] times a 2-D B into Y [..., N] (the leading dims batch, the one before the last the
// rows when Y has rank >= 2): batch, rows, cols, depth, a_at and y_at filled; b_at / b_block_at
// and finish are the caller's. The buffers must outlive the product's use.
SymbolicProduct vector_rows_product(const tir::Buffer& a, const tir::Buffer& y);

// No statement when neither form applies (the caller's row form is then the better one).
tir::Stmt symbolic_product(const tir::Buffer& y, const SymbolicProduct& p);

}  // namespace ingot::lower
