// Contiguity of a loop's accesses (see contiguity.h).
#include "schedule/rules/contiguity.h"

#include <algorithm>
#include <vector>

#include "tir/analysis.h"
#include "tir/arith/analyzer.h"
#include "tir/arith/linear_form.h"
#include "tir/op.h"
#include "tir/substitute.h"
#include "tir/visitor.h"

namespace ingot::schedule {

using namespace tir;

namespace {

// Whether `indices` use `v` as v + offset in the last index only (true when they do not use it).
bool moves_by_one(const std::vector<Expr>& indices, const VarNode* v) {
  auto is_v = [&](const VarNode* x) { return x == v; };
  for (size_t k = 0; k < indices.size(); ++k) {
    if (!uses_var(indices[k], is_v)) continue;
    if (k + 1 != indices.size() || !arith::var_plus_offset(indices[k], is_v)) return false;
  }
  return true;
}

// Calls check() with the indices of every load and store.
struct AccessIndices : IRVisitor {
  virtual void check(const std::vector<Expr>& indices) = 0;
  void visit_BufferLoad(const BufferLoad* op, const Expr& e) override {
    check(op->indices);
    IRVisitor::visit_BufferLoad(op, e);
  }
  void visit_BufferStore(const BufferStore* op, const Stmt& s) override {
    check(op->indices);
    IRVisitor::visit_BufferStore(op, s);
  }
};

struct ContiguityCheck : AccessIndices {
  ContiguityCheck(const VarNode* v, int64_t extent, int64_t run) : v(v), run(run) {
    if (run > 1) {
      analyzer.bind(outer, i64(0), i64((extent + run - 1) / run));
      analyzer.bind(inner, i64(0), i64(run));
    }
  }
  void check(const std::vector<Expr>& indices) override {
    if (run <= 1) {
      contiguous = contiguous && moves_by_one(indices, v);
      return;
    }
    auto is_v = [&](const VarNode* x) { return x == v; };
    auto is_inner = [&](const VarNode* x) { return x == inner.node(); };
    for (size_t k = 0; k < indices.size(); ++k) {
      if (!uses_var(indices[k], is_v)) continue;
      bool last = k + 1 == indices.size();
      Expr idx = analyzer.simplify(substitute(indices[k], {{v, outer * i64(run) + inner}}));
      contiguous = contiguous && (last ? arith::var_plus_offset(idx, is_inner).has_value()
                                       : !uses_var(idx, is_inner));
    }
  }
  const VarNode* v;
  int64_t run;
  Var outer{"vo"}, inner{"vi"};
  arith::Analyzer analyzer;
  bool contiguous = true;
};

// Counts the accesses using `v`: contiguous (v + offset in the last index only) and others.
struct AccessCount : AccessIndices {
  explicit AccessCount(const VarNode* v) : v(v) {}
  void check(const std::vector<Expr>& indices) override {
    bool uses = std::any_of(indices.begin(), indices.end(), [&](const Expr& i) {
      return uses_var(i, [&](const VarNode* x) { return x == v; });
    });
    if (uses) score += moves_by_one(indices, v) ? 1 : -1;
  }
  const VarNode* v;
  int score = 0;
};

}  // namespace

int contiguity_score(const Stmt& body, const VarNode* v) {
  AccessCount c(v);
  c.visit(body);
  return c.score;
}

bool contiguous_in_runs(const Stmt& body, const VarNode* v, int64_t extent, int64_t run) {
  ContiguityCheck c(v, extent, run);
  c.visit(body);
  return c.contiguous;
}

Strips split_into_strips(Schedule& s, LoopRV loop, int64_t extent, int64_t run) {
  Strips out;
  int64_t whole = extent / run * run;
  if (whole != extent) {
    std::vector<LoopRV> parts = s.partition(loop, {whole});
    loop = parts[0];
    out.tail = parts[1];
  }
  std::vector<LoopRV> split = s.split(loop, {std::nullopt, run});
  out.outer = split[0];
  out.inner = split[1];
  return out;
}

}  // namespace ingot::schedule
