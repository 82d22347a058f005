// IRVisitor: a recursive, read-only walk over expressions, statements and PrimFunc bodies.
// Override visit_<Node> to act on a node; call the base version to keep walking below it.
#pragma once

#include "tir/functor.h"
#include "tir/prim_func.h"

namespace ingot::tir {

class IRVisitor : public ExprFunctor<void(const Expr&)>, public StmtFunctor<void(const Stmt&)> {
 public:
  void visit(const Expr& e) { visit_expr(e); }
  void visit(const Stmt& s) { visit_stmt(s); }
  // Walks the body only (buffer shapes are not visited).
  void visit(const PrimFunc& f) { visit_stmt(f.body); }

#define INGOT_X(N) void visit_##N(const node_type::N* op, const Expr& e) override;
  INGOT_TIR_EXPR_NODES(INGOT_X)
#undef INGOT_X
#define INGOT_X(N) void visit_##N(const node_type::N* op, const Stmt& s) override;
  INGOT_TIR_STMT_NODES(INGOT_X)
#undef INGOT_X
};

}  // namespace ingot::tir
