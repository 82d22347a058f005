// Contiguity of a loop's accesses (see contiguity.h).
#include "schedule/rules/contiguity.h"

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
    auto is_v = [&](const VarNode* x) { return x == v; };
    auto is_inner = [&](const VarNode* x) { return x == inner.node(); };
    for (size_t k = 0; k < indices.size(); ++k) {
      if (!uses_var(indices[k], is_v)) continue;
      bool last = k + 1 == indices.size();
      if (run <= 1) {
        contiguous = contiguous && last && arith::var_plus_offset(indices[k], is_v).has_value();
        continue;
      }
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
    auto is_v = [&](const VarNode* x) { return x == v; };
    bool uses = false, contiguous = !indices.empty();
    for (size_t k = 0; k < indices.size(); ++k) {
      if (!uses_var(indices[k], is_v)) continue;
      uses = true;
      if (k + 1 != indices.size() || !arith::var_plus_offset(indices[k], is_v)) contiguous = false;
    }
    if (uses) score += contiguous ? 1 : -1;
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

}  // namespace ingot::schedule
