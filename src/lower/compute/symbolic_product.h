// Products whose output has symbolic dims (docs/dynamic-shapes.md) that no schedule rule takes
// yet, in forms that keep the threads busy when there is one row (decoding): MatMul/Gemm over a
// run-time B (matmul.cpp; a constant 2-D B is rule symbolic_rows_matmul's).
#pragma once

#include <functional>
#include <vector>

#include "lower/compute/common.h"

namespace ingot::lower {

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
};

// No statement when neither form applies (the caller's row form is then the better one).
tir::Stmt symbolic_product(const tir::Buffer& y, const SymbolicProduct& p);

}  // namespace ingot::lower
