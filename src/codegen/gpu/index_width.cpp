// The width of a device function's index arithmetic (see index_width.h).
#include "codegen/gpu/index_width.h"

#include <cstdint>
#include <limits>

#include "tir/arith/analyzer.h"
#include "tir/visitor.h"

namespace ingot::codegen {
namespace {

using namespace tir;

class Int32Checker : public IRVisitor {
 public:
  Int32Checker() = default;
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

}  // namespace

bool indices_fit_int32(const DeviceFunction& f) {
  Int32Checker checker(f);
  checker.visit(f.body);
  return checker.fits;
}

bool indices_fit_int32(const tir::Stmt& body) {
  Int32Checker checker;
  checker.visit(body);
  return checker.fits;
}

}  // namespace ingot::codegen
