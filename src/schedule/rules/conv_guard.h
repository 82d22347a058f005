// The padding guard of a convolution block whose padding is a guard on its update,
// Y = select(inside, Y + X * W, Y) (lower/compute/conv_block.cpp, blocked_conv.h's depthwise
// compute): its terms split into those on the output row and kernel row and those on the output
// column and kernel column, and the runs of rows or columns the rules partition the loops into,
// so that each part's guard folds (schedule primitive partition). Shared by the rules
// depthwise_conv_nchwc and direct_conv.
#pragma once

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "tir/stmt.h"

namespace ingot::schedule {

// A run of output rows or columns: [a, b), all interior (every tap inside the input) or one
// border row / a run of border positions.
struct Run {
  int64_t a = 0, b = 0;
  bool interior = false;
};

// The guard's terms on rows (oh, kh) and on columns (ow, kw). A var is undefined where the block
// has no such iter (an output dim of extent 1, a kernel of one tap); its extent is then 1 and
// the terms hold it at 0.
struct ConvGuard {
  tir::Var oh, ow, kh, kw;
  int64_t rows = 1, cols = 1, kernel_rows = 1, kernel_cols = 1;
  std::vector<tir::Expr> row_terms, col_terms;

  // Whether every term holds for o = at and k in [k0, k1).
  static bool holds(const std::vector<tir::Expr>& terms, const tir::Var& o, int64_t at,
                    const tir::Var& k, int64_t k0, int64_t k1);
  // Whether output row r (column c) reads inside the input at every kernel row (column).
  bool row_inside(int64_t r) const;
  bool col_inside(int64_t c) const;
  // The kernel rows [first, end) that read inside the input at output row r.
  std::pair<int64_t, int64_t> taps(int64_t r) const;
  // The output columns [first, end) whose kernel column `tap` reads inside the input (empty
  // when none does; the columns inside are consecutive).
  std::pair<int64_t, int64_t> columns_inside(int64_t tap) const;
};

// The guard of `condition` (a conjunction) over those vars and extents: each term on the rows or
// on the columns; a term on both is an internal error.
ConvGuard conv_guard(const tir::Expr& condition, tir::Var oh, int64_t rows, tir::Var ow,
                     int64_t cols, tir::Var kh, int64_t kernel_rows, tir::Var kw,
                     int64_t kernel_cols);

// Runs of `n` positions: each interior stretch whole, border positions one by one
// (`merge_border`: consecutive border positions as one run).
std::vector<Run> runs(int64_t n, const std::function<bool(int64_t)>& interior, bool merge_border);

// The cut points between runs (every start but the first).
std::vector<int64_t> cuts_of(const std::vector<Run>& rs);

// Border rows scheduled one by one (a 7x7 kernel's 3 + 3); more, or more than half the interior
// rows (a 7x7 kernel on a 14x14 map: each part is a copy of the row's code, which the compiler
// compiles once more for a small share of the work), are scheduled as runs.
inline constexpr int64_t kMaxBorderRows = 6;

// Whether border rows go one by one (see kMaxBorderRows).
bool border_rows_one_by_one(const ConvGuard& g);

}  // namespace ingot::schedule
