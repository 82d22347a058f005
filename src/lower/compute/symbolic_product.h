// The dot form of a product whose output has symbolic dims (docs/dynamic-shapes.md) and whose B
// is read along k (a transposed weight, K^T in attention): MatMul/Gemm over a run-time B
// (matmul.cpp; a constant 2-D B is rule symbolic_rows_matmul's). Every other symbolic product
// over a run-time B takes the row form, its batch dims and rows in parallel.
#pragma once

#include <functional>
#include <vector>

#include "lower/compute/common.h"

namespace ingot::lower {

// y[b, i, j] = finish(sum_k a(b, i, k) * b(b, k, j), b, i, j) over [batch..., rows, cols].
struct SymbolicProduct {
  std::vector<tir::Expr> batch;
  tir::Expr rows, cols, depth;
  std::function<tir::Expr(const Index&, tir::Expr, tir::Expr)> a_at, b_at;  // (b, i, k), (b, k, j)
  std::function<Index(const Index&, tir::Expr, tir::Expr)> y_at;            // (batch, i, j)
  std::function<tir::Expr(tir::Expr, const Index&, tir::Expr, tir::Expr)> finish;  // may be null
};

// A dot product per output element, the columns (and batch) outer and the rows innermost among
// the block's loops, so each column of B (a row of the transposed tensor) is read from cache for
// every row; the k reduction is vectorized by the row-reduction rule. A description of the
// product in the loop order that reads B in memory order: no loop kinds, tiles or widths.
tir::Stmt dot_product_nest(const tir::Buffer& y, const SymbolicProduct& p);

}  // namespace ingot::lower
