// Replace variables by expressions. Nodes the substitution does not touch keep their identity.
#pragma once

#include <unordered_map>

#include "tir/stmt.h"

namespace ingot::tir {

using VarMap = std::unordered_map<const VarNode*, Expr>;

Expr substitute(const Expr& e, const VarMap& vmap);
Stmt substitute(const Stmt& s, const VarMap& vmap);
// Convenience for one variable.
Expr substitute(const Expr& e, const Var& var, const Expr& value);
Stmt substitute(const Stmt& s, const Var& var, const Expr& value);

}  // namespace ingot::tir
