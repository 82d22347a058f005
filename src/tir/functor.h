// ExprFunctor / StmtFunctor: dispatch on NodeTag to one virtual visit_<Node> per node, all
// generated from node_list.def. Each visit gets the typed node and its handle (for identity).
#pragma once

#include "support/error.h"
#include "tir/expr.h"
#include "tir/stmt.h"

namespace ingot::tir {

// Node struct of each list entry: the list names the handle class (Var), whose node is VarNode.
namespace node_type {
using namespace ::ingot::tir;  // NOLINT: a qualified lookup finds the local alias first
using Var = ::ingot::tir::VarNode;
}  // namespace node_type

template <typename F>
class ExprFunctor;

template <typename R, typename... Args>
class ExprFunctor<R(const Expr&, Args...)> {
 public:
  virtual ~ExprFunctor() = default;
  virtual R visit_expr(const Expr& e, Args... args) {
    INGOT_ICHECK(e.defined(), "visit of an undefined expression");
    switch (e.tag()) {
#define INGOT_X(N) \
  case NodeTag::N: \
    return visit_##N(static_cast<const node_type::N*>(e.get()), e, args...);
      INGOT_TIR_EXPR_NODES(INGOT_X)
#undef INGOT_X
      default:
        break;
    }
    fail_internal("ExprFunctor: {} is not an expression", node_tag_name(e.tag()));
  }
#define INGOT_X(N)                                                           \
  virtual R visit_##N(const node_type::N* op, const Expr& e, Args... args) { \
    return visit_expr_default(e, args...);                                   \
  }
  INGOT_TIR_EXPR_NODES(INGOT_X)
#undef INGOT_X

 protected:
  virtual R visit_expr_default(const Expr& e, Args...) {
    fail_internal("ExprFunctor: no handler for {}", node_tag_name(e.tag()));
  }
};

template <typename F>
class StmtFunctor;

template <typename R, typename... Args>
class StmtFunctor<R(const Stmt&, Args...)> {
 public:
  virtual ~StmtFunctor() = default;
  virtual R visit_stmt(const Stmt& s, Args... args) {
    INGOT_ICHECK(s.defined(), "visit of an undefined statement");
    switch (s.tag()) {
#define INGOT_X(N) \
  case NodeTag::N: \
    return visit_##N(static_cast<const node_type::N*>(s.get()), s, args...);
      INGOT_TIR_STMT_NODES(INGOT_X)
#undef INGOT_X
      default:
        break;
    }
    fail_internal("StmtFunctor: {} is not a statement", node_tag_name(s.tag()));
  }
#define INGOT_X(N)                                                           \
  virtual R visit_##N(const node_type::N* op, const Stmt& s, Args... args) { \
    return visit_stmt_default(s, args...);                                   \
  }
  INGOT_TIR_STMT_NODES(INGOT_X)
#undef INGOT_X

 protected:
  virtual R visit_stmt_default(const Stmt& s, Args...) {
    fail_internal("StmtFunctor: no handler for {}", node_tag_name(s.tag()));
  }
};

}  // namespace ingot::tir
