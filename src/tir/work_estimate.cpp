// work_estimate(): a statement's work as an expression (see work_estimate.h).
#include "tir/work_estimate.h"

#include <unordered_set>

#include "tir/analysis.h"
#include "tir/op.h"
#include "tir/visitor.h"

namespace ingot::tir {
namespace {

// The work of one execution of a leaf: its lanes, plus the transcendental calls' lanes.
class LeafWork : public IRVisitor {
 public:
  int64_t units = 0;
  void visit_Call(const Call* op, const Expr& e) override {
    if (is_polynomial_math(op->op)) units += kTranscendentalWork * op->dtype.lanes;
    IRVisitor::visit_Call(op, e);
  }
};

int64_t leaf_work(const Expr& value) {
  LeafWork w;
  w.units = value.dtype().lanes;
  w.visit(value);
  return w.units;
}

// Whether e divides by a non-constant: evaluated where the parallel loop starts, such an extent
// could divide by zero where a branch inside guards the loop that has it.
bool divides_by_variable(const Expr& e) {
  struct Finder : IRVisitor {
    bool found = false;
    void check(const Expr& divisor) { found = found || !is_const_int(divisor); }
    void visit_Div(const Div* op, const Expr& e) override {
      check(op->b);
      IRVisitor::visit_Div(op, e);
    }
    void visit_FloorDiv(const FloorDiv* op, const Expr& e) override {
      check(op->b);
      IRVisitor::visit_FloorDiv(op, e);
    }
    void visit_FloorMod(const FloorMod* op, const Expr& e) override {
      check(op->b);
      IRVisitor::visit_FloorMod(op, e);
    }
  } f;
  f.visit(e);
  return f.found;
}

class WorkEstimator {
 public:
  std::optional<Expr> work(const Stmt& s) {
    if (!s.defined()) return i64(0);
    switch (s.tag()) {
      case NodeTag::BufferStore:
        return i64(leaf_work(s.as<BufferStore>()->value));
      case NodeTag::Evaluate:
        return i64(leaf_work(s.as<Evaluate>()->value));
      case NodeTag::For: {
        auto* op = s.as<For>();
        if (binds_any(op->extent) || divides_by_variable(op->extent)) return std::nullopt;
        bound_.insert(op->loop_var.node());
        auto body = work(op->body);
        if (!body) return std::nullopt;
        return cast(DataType::i64(), op->extent) * *body;
      }
      case NodeTag::SeqStmt: {
        Expr total = i64(0);
        for (const Stmt& part : s.as<SeqStmt>()->seq) {
          auto w = work(part);
          if (!w) return std::nullopt;
          total = total + *w;
        }
        return total;
      }
      case NodeTag::IfThenElse: {
        auto* op = s.as<IfThenElse>();
        auto then_work = work(op->then_case);
        auto else_work = work(op->else_case);
        if (!then_work || !else_work) return std::nullopt;
        return *then_work + *else_work;
      }
      case NodeTag::LetStmt: {
        auto* op = s.as<LetStmt>();
        bound_.insert(op->var.node());
        return work(op->body);
      }
      case NodeTag::Allocate:
        return work(s.as<Allocate>()->body);
      default:
        return std::nullopt;  // block form: not lowered yet
    }
  }

 private:
  bool binds_any(const Expr& e) const {
    return uses_var(e, [&](const VarNode* v) { return bound_.count(v) > 0; });
  }
  std::unordered_set<const VarNode*> bound_;
};

}  // namespace

std::optional<Expr> work_estimate(const Stmt& s) {
  return WorkEstimator().work(s);
}

}  // namespace ingot::tir
