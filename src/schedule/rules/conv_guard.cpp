// The padding guard of a convolution block: its row and column terms and their runs.
#include "schedule/rules/conv_guard.h"

#include <algorithm>
#include <functional>

#include "support/error.h"
#include "tir/analysis.h"
#include "tir/arith/analyzer.h"
#include "tir/op.h"
#include "tir/printer.h"

namespace ingot::schedule {

using namespace tir;

bool ConvGuard::holds(const std::vector<Expr>& terms, const Var& o, int64_t at, const Var& k,
                      int64_t k0, int64_t k1) {
  arith::Analyzer a;
  if (o.defined()) a.bind(o, i64(at), i64(1));
  if (k.defined()) a.bind(k, i64(k0), i64(k1 - k0));
  return std::all_of(terms.begin(), terms.end(), [&](const Expr& t) { return a.can_prove(t); });
}

bool ConvGuard::row_inside(int64_t r) const {
  return holds(row_terms, oh, r, kh, 0, kernel_rows);
}

bool ConvGuard::col_inside(int64_t c) const {
  return holds(col_terms, ow, c, kw, 0, kernel_cols);
}

namespace {

// The first run [first, end) of positions in [0, n) where `inside` holds (empty: first == n).
std::pair<int64_t, int64_t> first_run(int64_t n, const std::function<bool(int64_t)>& inside) {
  int64_t first = 0;
  while (first < n && !inside(first)) ++first;
  int64_t end = first;
  while (end < n && inside(end)) ++end;
  return {first, end};
}

}  // namespace

std::pair<int64_t, int64_t> ConvGuard::taps(int64_t r) const {
  return first_run(kernel_rows, [&](int64_t t) { return holds(row_terms, oh, r, kh, t, t + 1); });
}

std::pair<int64_t, int64_t> ConvGuard::columns_inside(int64_t tap) const {
  return first_run(cols, [&](int64_t c) { return holds(col_terms, ow, c, kw, tap, tap + 1); });
}

ConvGuard conv_guard(const Expr& condition, Var oh, int64_t rows, Var ow, int64_t cols, Var kh,
                     int64_t kernel_rows, Var kw, int64_t kernel_cols) {
  ConvGuard g;
  g.oh = std::move(oh), g.ow = std::move(ow), g.kh = std::move(kh), g.kw = std::move(kw);
  g.rows = rows, g.cols = cols, g.kernel_rows = kernel_rows, g.kernel_cols = kernel_cols;
  auto uses = [](const Expr& t, const Var& v) { return v.defined() && uses_var(t, v); };
  for (const Expr& t : conjuncts(condition)) {
    bool on_rows = uses(t, g.oh) || uses(t, g.kh), on_cols = uses(t, g.ow) || uses(t, g.kw);
    INGOT_ICHECK(!(on_rows && on_cols), "conv guard: term {} mixes rows and columns", to_string(t));
    (on_rows ? g.row_terms : g.col_terms).push_back(t);
  }
  return g;
}

std::vector<Run> runs(int64_t n, const std::function<bool(int64_t)>& interior, bool merge_border) {
  std::vector<Run> out;
  for (int64_t p = 0; p < n;) {
    bool in = interior(p);
    int64_t e = p + 1;
    if (in || merge_border)
      while (e < n && interior(e) == in) ++e;
    out.push_back({p, e, in});
    p = e;
  }
  return out;
}

std::vector<int64_t> cuts_of(const std::vector<Run>& rs) {
  std::vector<int64_t> cuts;
  for (size_t k = 1; k < rs.size(); ++k) cuts.push_back(rs[k].a);
  return cuts;
}

bool border_rows_one_by_one(const ConvGuard& g) {
  int64_t border_rows = 0;
  for (int64_t r = 0; r < g.rows; ++r) border_rows += !g.row_inside(r);
  return border_rows <= kMaxBorderRows && g.rows - border_rows >= 2 * border_rows;
}

}  // namespace ingot::schedule
