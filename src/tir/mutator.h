// IRMutator: rebuilds expressions and statements bottom-up (Halide style). A node none of whose
// children changed is returned as the same object, so `same_as` detects a no-op pass.
#pragma once

#include <vector>

#include "tir/functor.h"
#include "tir/prim_func.h"

namespace ingot::tir {

class IRMutator : public ExprFunctor<Expr(const Expr&)>, public StmtFunctor<Stmt(const Stmt&)> {
 public:
  Expr mutate(const Expr& e) { return visit_expr(e); }
  Stmt mutate(const Stmt& s) { return visit_stmt(s); }
  // A copy of f with the body mutated (params and metadata unchanged).
  PrimFunc mutate(const PrimFunc& f);

#define INGOT_X(N) Expr visit_##N(const node_type::N* op, const Expr& e) override;
  INGOT_TIR_EXPR_NODES(INGOT_X)
#undef INGOT_X
#define INGOT_X(N) Stmt visit_##N(const node_type::N* op, const Stmt& s) override;
  INGOT_TIR_STMT_NODES(INGOT_X)
#undef INGOT_X

 protected:
  // Mutates each element; `changed` is set when any element is a different object.
  std::vector<Expr> mutate_all(const std::vector<Expr>& v, bool* changed);
  std::vector<BufferRegion> mutate_regions(const std::vector<BufferRegion>& v, bool* changed);
};

}  // namespace ingot::tir
