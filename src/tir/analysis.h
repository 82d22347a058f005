// Small analyses over loop IR: which variables an expression or statement uses, and which of
// them are free (used but not bound by a loop or let inside it).
#pragma once

#include <functional>
#include <vector>

#include "tir/prim_func.h"

namespace ingot::tir {

// The Var handle of an expression that is a variable (InternalError otherwise).
Var to_var(const Expr& e);

// Free variables in order of first use (each once).
std::vector<Var> free_vars(const Expr& e);
std::vector<Var> free_vars(const Stmt& s);

// Whether any use of a variable (bound or free) satisfies pred / is v.
bool uses_var(const Expr& e, const std::function<bool(const VarNode*)>& pred);
bool uses_var(const Stmt& s, const std::function<bool(const VarNode*)>& pred);
bool uses_var(const Expr& e, const Var& v);
bool uses_var(const Stmt& s, const Var& v);

}  // namespace ingot::tir
