// Simplify pass: a statement mutator that carries an Analyzer with the loop-variable ranges.
#include "tir/transforms/simplify.h"

#include "tir/analysis.h"
#include "tir/arith/analyzer.h"
#include "tir/mutator.h"
#include "tir/op.h"
#include "tir/substitute.h"

namespace ingot::tir {
namespace {

bool is_no_op(const Stmt& s) {
  auto* e = s.as<Evaluate>();
  return e && (e->value.as<IntImm>() || e->value.as<FloatImm>());
}
Stmt no_op() {
  return Evaluate::make(IntImm::make(DataType::i32(), 0));
}

class StmtSimplifier : public IRMutator {
 public:
  Expr visit_expr(const Expr& e) override { return analyzer_.simplify(e); }

  Stmt visit_For(const For* op, const Stmt& s) override {
    Expr min = mutate(op->min), extent = mutate(op->extent);
    int64_t n = 0;
    bool const_extent = is_const_int(extent, &n);
    if (const_extent && n <= 0) return no_op();
    // A one-iteration loop goes, unless its kind means more than iterating (a thread binding,
    // an outlined function).
    if (const_extent && n == 1 && op->kind != ForKind::kThreadBinding &&
        op->kind != ForKind::kOutlined)
      return mutate(substitute(op->body, op->loop_var, min));
    analyzer_.bind(op->loop_var, min, extent);
    Stmt body = mutate(op->body);
    if (is_no_op(body)) return body;
    if (min.same_as(op->min) && extent.same_as(op->extent) && body.same_as(op->body)) return s;
    return For::make(op->loop_var, min, extent, op->kind, body, op->thread_tag);
  }

  Stmt visit_IfThenElse(const IfThenElse* op, const Stmt& s) override {
    Expr c = mutate(op->condition);
    if (auto* imm = c.as<IntImm>()) {
      if (imm->value) return mutate(op->then_case);
      return op->else_case.defined() ? mutate(op->else_case) : no_op();
    }
    Stmt t = mutate(op->then_case);
    Stmt f = op->else_case.defined() ? mutate(op->else_case) : Stmt();
    if (f.defined() && is_no_op(f)) f = Stmt();
    if (is_no_op(t) && !f.defined()) return t;
    if (c.same_as(op->condition) && t.same_as(op->then_case) && f.same_as(op->else_case)) return s;
    if (is_no_op(t)) return IfThenElse::make(!c, f);
    return IfThenElse::make(c, t, f);
  }

  // A store of what was just loaded from the same place (left by a folded guard) is a no-op.
  Stmt visit_BufferStore(const BufferStore* op, const Stmt& s) override {
    Stmt st = IRMutator::visit_BufferStore(op, s);
    return is_self_store(st) ? no_op() : st;
  }

  Stmt visit_Block(const Block* op, const Stmt& s) override {
    for (const IterVar& iv : op->iter_vars) analyzer_.bind(iv.var, iv.min, iv.extent);
    return IRMutator::visit_Block(op, s);
  }

  Stmt visit_LetStmt(const LetStmt* op, const Stmt& s) override {
    Expr v = mutate(op->value);
    if (v.dtype().is_scalar() && v.dtype().is_integer())
      analyzer_.bind(op->var, analyzer_.bound_of(v));
    Stmt b = mutate(op->body);
    if (v.same_as(op->value) && b.same_as(op->body)) return s;
    return LetStmt::make(op->var, v, b);
  }

  Stmt visit_SeqStmt(const SeqStmt* op, const Stmt& s) override {
    bool changed = false;
    std::vector<Stmt> seq;
    for (const Stmt& x : op->seq) {
      Stmt y = mutate(x);
      changed = changed || !y.same_as(x);
      if (is_no_op(y)) {
        changed = true;
        continue;
      }
      seq.push_back(y);
    }
    if (!changed) return s;
    return seq.empty() ? no_op() : SeqStmt::make(std::move(seq));
  }

 private:
  arith::Analyzer analyzer_;
};

}  // namespace

Stmt simplify_stmt(const Stmt& s) {
  return StmtSimplifier().mutate(s);
}

PrimFunc simplify(PrimFunc f) {
  f.body = simplify_stmt(f.body);
  return f;
}

}  // namespace ingot::tir
