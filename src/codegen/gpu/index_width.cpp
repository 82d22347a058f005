// The width of a device function's index arithmetic (see index_width.h).
#include "codegen/gpu/index_width.h"

#include <cstdint>
#include <limits>
#include <unordered_map>

#include "tir/arith/analyzer.h"
#include "tir/visitor.h"

namespace ingot::codegen {
namespace {

using namespace tir;

class Int32Checker : public IRVisitor {
 public:
  explicit Int32Checker(const DeviceFunction& f) {
    for (size_t d = 0; d < 3; ++d) {
      if (f.block_vars[d].defined())
        analyzer_.bind(f.block_vars[d], arith::ConstIntBound{0, int64_t(f.grid[d]) - 1});
      if (f.thread_vars[d].defined())
        analyzer_.bind(f.thread_vars[d], arith::ConstIntBound{0, int64_t(f.block[d]) - 1});
    }
  }
  bool fits = true;

  void visit_expr(const Expr& e) override {
    if (!fits) return;
    const DataType t = e.dtype();
    if (t.code == DataType::kInt && t.bits == 64 && t.is_scalar()) {
      const arith::ConstIntBound b = analyzer_.bound_of(e);
      fits = b.min_value >= std::numeric_limits<int32_t>::min() &&
             b.max_value <= std::numeric_limits<int32_t>::max();
      if (!fits) return;
    }
    IRVisitor::visit_expr(e);
  }
  void visit_For(const For* op, const Stmt& s) override {
    visit_expr(op->min);
    visit_expr(op->extent);
    analyzer_.bind(op->loop_var, op->min, op->extent);
    visit_expr(op->loop_var);
    visit_stmt(op->body);
  }
  void visit_LetStmt(const LetStmt* op, const Stmt& s) override {
    visit_expr(op->value);
    analyzer_.bind(op->var, analyzer_.bound_of(op->value));
    visit_stmt(op->body);
  }

 private:
  arith::Analyzer analyzer_;
};

bool is_int64(const Expr& e) {
  const DataType t = e.dtype();
  return t.code == DataType::kInt && t.bits == 64 && t.is_scalar();
}

bool fits_int32(const arith::ConstIntBound& b) {
  return b.min_value >= std::numeric_limits<int32_t>::min() &&
         b.max_value <= std::numeric_limits<int32_t>::max();
}

// Post-order over each expression: an int64 node fits when its own bound and every int64 node
// under it fit; a node met in several places fits only if it fits in all of them.
class SubexpressionChecker : public IRVisitor {
 public:
  std::unordered_map<const ExprNode*, bool> fits;

  void visit_expr(const Expr& e) override {
    const bool outer = all_fit_;
    all_fit_ = true;
    IRVisitor::visit_expr(e);
    bool here = all_fit_;
    if (is_int64(e)) {
      here = here && fits_int32(analyzer_.bound_of(e));
      auto [it, fresh] = fits.emplace(e.get(), here);
      if (!fresh) it->second = it->second && here;
    }
    all_fit_ = outer && here;
  }
  void visit_For(const For* op, const Stmt&) override {
    visit_expr(op->min);
    visit_expr(op->extent);
    analyzer_.bind(op->loop_var, op->min, op->extent);
    declare(op->loop_var);
    visit_stmt(op->body);
  }
  void visit_LetStmt(const LetStmt* op, const Stmt&) override {
    visit_expr(op->value);
    analyzer_.bind(op->var, analyzer_.bound_of(op->value));
    declare(op->var);
    visit_stmt(op->body);
  }

 private:
  // A variable's declared type: its whole range.
  void declare(const Var& v) {
    if (!is_int64(v)) return;
    bool here = fits_int32(analyzer_.bound_of(v));
    auto [it, fresh] = fits.emplace(v.get(), here);
    if (!fresh) it->second = it->second && here;
  }
  arith::Analyzer analyzer_;
  bool all_fit_ = true;
};

}  // namespace

std::unordered_set<const ExprNode*> int32_subexpressions(const Stmt& body) {
  SubexpressionChecker checker;
  checker.visit(body);
  std::unordered_set<const ExprNode*> out;
  for (const auto& [node, fits] : checker.fits)
    if (fits) out.insert(node);
  return out;
}

bool indices_fit_int32(const DeviceFunction& f) {
  Int32Checker checker(f);
  checker.visit(f.body);
  return checker.fits;
}

}  // namespace ingot::codegen
