// IRVisitor: the default recursive walk of every node kind.
#include "tir/visitor.h"

namespace ingot::tir {

void IRVisitor::visit_IntImm(const IntImm*, const Expr&) {}
void IRVisitor::visit_FloatImm(const FloatImm*, const Expr&) {}
void IRVisitor::visit_Var(const VarNode*, const Expr&) {}

#define INGOT_X(N, sym)                                 \
  void IRVisitor::visit_##N(const N* op, const Expr&) { \
    visit_expr(op->a);                                  \
    visit_expr(op->b);                                  \
  }
INGOT_TIR_BINARY_NODES(INGOT_X)
#undef INGOT_X

void IRVisitor::visit_Not(const Not* op, const Expr&) {
  visit_expr(op->a);
}
void IRVisitor::visit_Select(const Select* op, const Expr&) {
  visit_expr(op->condition);
  visit_expr(op->true_value);
  visit_expr(op->false_value);
}
void IRVisitor::visit_Cast(const Cast* op, const Expr&) {
  visit_expr(op->value);
}
void IRVisitor::visit_Call(const Call* op, const Expr&) {
  for (const Expr& a : op->args) visit_expr(a);
}
void IRVisitor::visit_BufferLoad(const BufferLoad* op, const Expr&) {
  for (const Expr& i : op->indices) visit_expr(i);
}
void IRVisitor::visit_Ramp(const Ramp* op, const Expr&) {
  visit_expr(op->base);
  visit_expr(op->stride);
}
void IRVisitor::visit_Broadcast(const Broadcast* op, const Expr&) {
  visit_expr(op->value);
}
void IRVisitor::visit_Shuffle(const Shuffle* op, const Expr&) {
  visit_expr(op->vector);
}
void IRVisitor::visit_Let(const Let* op, const Expr&) {
  visit_expr(op->var);
  visit_expr(op->value);
  visit_expr(op->body);
}

void IRVisitor::visit_For(const For* op, const Stmt&) {
  visit_expr(op->loop_var);
  visit_expr(op->min);
  visit_expr(op->extent);
  visit_stmt(op->body);
}
void IRVisitor::visit_BufferStore(const BufferStore* op, const Stmt&) {
  visit_expr(op->value);
  for (const Expr& i : op->indices) visit_expr(i);
}
void IRVisitor::visit_SeqStmt(const SeqStmt* op, const Stmt&) {
  for (const Stmt& s : op->seq) visit_stmt(s);
}
void IRVisitor::visit_IfThenElse(const IfThenElse* op, const Stmt&) {
  visit_expr(op->condition);
  visit_stmt(op->then_case);
  if (op->else_case.defined()) visit_stmt(op->else_case);
}
void IRVisitor::visit_LetStmt(const LetStmt* op, const Stmt&) {
  visit_expr(op->var);
  visit_expr(op->value);
  visit_stmt(op->body);
}
void IRVisitor::visit_Allocate(const Allocate* op, const Stmt&) {
  visit_stmt(op->body);
}
void IRVisitor::visit_Evaluate(const Evaluate* op, const Stmt&) {
  visit_expr(op->value);
}

void IRVisitor::visit_Block(const Block* op, const Stmt&) {
  for (const IterVar& iv : op->iter_vars) {
    visit_expr(iv.var);
    visit_expr(iv.min);
    visit_expr(iv.extent);
  }
  for (const auto* regions : {&op->reads, &op->writes}) {
    for (const BufferRegion& r : *regions) {
      for (const Range& x : r.region) {
        visit_expr(x.min);
        visit_expr(x.extent);
      }
    }
  }
  if (op->init.defined()) visit_stmt(op->init);
  visit_stmt(op->body);
}
void IRVisitor::visit_BlockRealize(const BlockRealize* op, const Stmt&) {
  for (const Expr& v : op->iter_values) visit_expr(v);
  visit_expr(op->predicate);
  visit_stmt(op->block);
}

}  // namespace ingot::tir
